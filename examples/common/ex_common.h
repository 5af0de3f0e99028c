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
/* Prints why (a check of the bytes, a completion's status ...), closes
 * what the program owns (ex_release) and exits 1. */
void ex_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/*
 * What the program made, closed on every way out: ex_own(h) after each
 * create, ex_close(h) where the program closes one itself (checked: its
 * failure exits 1), ex_release() at the end closes the rest, newest
 * first, each close checked (the count of those that failed, each said
 * on stderr); ex_die() and ex_fail() call it before they exit.
 */
void ex_own_(void *h, int (*close)(void *), const char *call);
void ex_close_(void *h, const char *what);
int ex_release(void);
/* main's way out with code: what is owned released first (1 when a close
 * failed and code was 0). */
int ex_exit(int code);
static inline int ex_close_ctx_(void *h) { return vs_device_close(h); }
static inline int ex_close_pd_(void *h) { return vs_pd_close(h); }
static inline int ex_close_mr_(void *h) { return vs_mr_close(h); }
static inline int ex_close_cq_(void *h) { return vs_cq_close(h); }
static inline int ex_close_ch_(void *h) { return vs_channel_close(h); }
static inline int ex_close_srq_(void *h) { return vs_srq_close(h); }
static inline int ex_close_rc_(void *h) { return vs_rc_qp_close(h); }
static inline int ex_close_ud_(void *h) { return vs_ud_qp_close(h); }
static inline int ex_close_srd_(void *h) { return vs_srd_qp_close(h); }
#define ex_own(h)                                                              \
	ex_own_((h), _Generic((h),                                             \
		struct vs_context *: ex_close_ctx_,                            \
		struct vs_pd *: ex_close_pd_,                                  \
		struct vs_mr *: ex_close_mr_,                                  \
		struct vs_cq *: ex_close_cq_,                                  \
		struct vs_channel *: ex_close_ch_,                             \
		struct vs_srq *: ex_close_srq_,                                \
		struct vs_rc_qp *: ex_close_rc_,                               \
		struct vs_ud_qp *: ex_close_ud_,                               \
		struct vs_srd_qp *: ex_close_srd_), #h)
#define ex_close(h) ex_close_((h), #h)
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
