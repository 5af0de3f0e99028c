/* SPDX-License-Identifier: MIT */
/*
 * What rc_pingpong, ud_pingpong and srd_pingpong share: their command
 * line, a CQ that either busy-polls or sleeps on completion events, the
 * endpoint exchange over TCP, the payload each side writes and checks,
 * and the datagram exchanges' completion wait.
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

/* Fills buf with side's payload of iteration iter. */
void ex_payload_fill(uint8_t *buf, size_t size, int iter, int side);
/* 0 when buf holds side's payload of iteration iter, else -1 (said on stderr). */
int ex_payload_check(const uint8_t *buf, size_t size, int iter, int side);

/*
 * A datagram ping-pong's wait for iteration iter (UD, SRD): until its
 * send and its receive completed (*sends, *recvs count them over the
 * run), each successful, the receive byte_len bytes from src_qp with the
 * peer's payload (side) at payload.  Up to 10 s.  0, or -1 said on stderr.
 */
int ex_dgram_wait(struct ex_cq *cq, int iter, uint64_t *sends, uint64_t *recvs,
		  uint32_t byte_len, uint32_t src_qp, const uint8_t *payload,
		  size_t size, int side);

#endif /* EX_PINGPONG_H */
