/* SPDX-License-Identifier: MIT */
/*
 * What rc_pingpong and ud_pingpong share: their command line, a CQ that
 * either busy-polls or sleeps on completion events, and the endpoint
 * exchange over TCP.
 */
#ifndef EX_PINGPONG_H
#define EX_PINGPONG_H

#include <stdbool.h>

#include "ex_common.h"

struct ex_pingpong_opts {
	const char *dev;    /* -d, default ex_default_device() */
	const char *server; /* the operand: NULL = this side is the server */
	int port;           /* -i, default 1 */
	int gid_index;      /* -g, default -1 = auto-pick */
	int tcp_port;       /* -p */
	int iters;          /* -n, default 1000 */
	size_t size;        /* -s */
	bool events;        /* -e; the default when one CPU is online */
};

/*
 * Parses [-d dev] [-i port] [-g gid_index] [-p tcp_port] [-n iters]
 * [-s size] [-l] [-e] [server_host] with the given defaults for -p and -s
 * (-l sets vs_set_force_legacy).  0, or 2 after printing the usage or
 * what was out of range.
 */
int ex_pingpong_parse(int argc, char **argv, int tcp_port, size_t size,
		      struct ex_pingpong_opts *o);

/* A CQ polled busily or, with a channel, by sleeping on its events. */
struct ex_cq {
	struct vs_cq *cq;
	struct vs_channel *channel; /* NULL: busy polling */
};

void ex_cq_open(struct vs_context *ctx, uint32_t depth, bool events,
		struct ex_cq *c);
/*
 * Up to max completions into wc[]; when there are none, waits a little
 * (up to 1 s for an event, or a yield) and returns 0.  Exits on failure.
 */
int ex_cq_poll_or_wait(struct ex_cq *c, struct vs_wc *wc, int max);
void ex_cq_close(struct ex_cq *c);

/*
 * Sends local's wire form over TCP (server_host NULL: listen on tcp_port)
 * and reads the peer's, printing both.  Returns the connection (for the
 * later syncs), or -1 with a message printed.
 */
int ex_exchange_endpoints(const char *server_host, int tcp_port,
			  const struct vs_endpoint *local,
			  struct vs_endpoint *remote);

#endif /* EX_PINGPONG_H */
