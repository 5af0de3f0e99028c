/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the examples: dying with the library's error, waiting
 * for completions with a timeout, a TCP rendezvous for endpoints.
 */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <verbshim.h>

/*
 * Prints the error record of what failed and exits: EX_CANNOT_RUN when
 * the device or the rdma-core here cannot do it (EOPNOTSUPP: a UD QP on
 * iWARP, ...) or the machine has no RDMA device, else 1.
 */
#define EX_CANNOT_RUN 77
void ex_die(const char *what) __attribute__((noreturn));
/* Exits 1 with a message when ret is a negative errno. */
void ex_check(int ret, const char *what);

uint64_t ex_now_ns(void);

/* Reads id's CM events until the peer's disconnect (60 s, else exits 1). */
void ex_cm_await_disconnect(struct vs_cm_id *id);

/*
 * Polls cq until n completions arrived (into wc[0..n-1]) or timeout_ms
 * passed; returns how many arrived, exits on a poll failure.
 */
int ex_wait(struct vs_cq *cq, struct vs_wc *wc, int n, int timeout_ms);

/* The device the examples use by default: $VS_RXE_DEV or the first one. */
const char *ex_default_device(void);

/*
 * One TCP exchange of len bytes each way: the server (host == NULL)
 * listens on port and accepts once, the client connects (retrying for a
 * while).  Returns 0, or -1 with a message printed.  ex_tcp_sync() sends
 * and receives one byte on the same connection.
 */
int ex_tcp_open(const char *host, int port);
int ex_tcp_exchange(int fd, const void *out, void *in, size_t len);
void ex_tcp_close(int fd);

#endif /* EX_COMMON_H */
