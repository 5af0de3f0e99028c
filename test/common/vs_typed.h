/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the tests of the typed API (header only: the tests of
 * other parts of the project do not link verbshim.h users' helpers).
 */
#ifndef VS_TYPED_TEST_H
#define VS_TYPED_TEST_H

#include <dirent.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <verbshim.h>

#include "vs_test.h"
#include "../../tools/verbshim-selftest/ud_self_lost.h"

static inline const char *vs_t_err(void)
{
	static char buf[700];

	return vs_format_error(vs_last_error(), buf, sizeof(buf));
}

/* The call must return 0; else fail printing the library's error. */
#define VS_OK(call)                                                           \
	do {                                                                  \
		int vs_r_ = (call);                                           \
		if (vs_r_)                                                    \
			VS_FAIL("%s = %d: %s", #call, vs_r_, vs_t_err());     \
	} while (0)

/* The call must fail with -err and the message must contain text. */
#define VS_FAILS(call, want, text)                                             \
	do {                                                                  \
		vs_clear_error();                                             \
		int vs_r_ = (call);                                           \
		if (vs_r_ != -(want))                                          \
			VS_FAIL("%s = %d, expected %d (%s): %s", #call, vs_r_, \
				-(want), #want, vs_t_err());                    \
		if (vs_last_error()->err != (want))                            \
			VS_FAIL("%s: last error %d, expected %d", #call,      \
				vs_last_error()->err, (want));                 \
		if (!strstr(vs_last_error()->message, (text)))                \
			VS_FAIL("%s: message \"%s\" lacks \"%s\"", #call,     \
				vs_last_error()->message, (text));            \
		vs_t_check_call(#call, __FILE__, __LINE__);                   \
	} while (0)

/*
 * The error record names the vs_ call the expression made: "vs_pd_close"
 * for "vs_pd_close(pd)" or "(vs_pd_close)(pd)".  Expressions that are not
 * one direct vs_ call (a helper of the test) are not checked here.
 */
static inline void vs_t_check_call(const char *expr, const char *file, int line)
{
	const char *call = vs_last_error()->call;
	size_t n;

	while (*expr == '(')
		expr++;
	if (strncmp(expr, "vs_", 3))
		return;
	n = strcspn(expr, "() ");
	if (!call || strlen(call) != n || strncmp(call, expr, n)) {
		fprintf(stderr, "%s:%d: %s: the error names call \"%s\", "
			"expected \"%.*s\"\n", file, line, expr,
			call ? call : "(null)", (int)n, expr);
		exit(1);
	}
}

/* Open fds of this process (a leak check: the same count before and after). */
static inline int vs_t_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	VS_ASSERT(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static inline uint64_t vs_t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A loop's hang guard that slowness cannot trip (valgrind, TCG, a loaded
 * host): true once progress (a sum of the loop's counters) has stayed the
 * same for ms.  Start with a zeroed watch.
 */
struct vs_t_watch {
	long progress;
	uint64_t since;
};

static inline bool vs_t_stalled(struct vs_t_watch *w, long progress, int ms)
{
	uint64_t now = vs_t_now_ms();

	if (!w->since || progress != w->progress) {
		w->progress = progress;
		w->since = now;
	}
	return now - w->since > (uint64_t)ms;
}

/* Exactly n completions within ms milliseconds. */
static inline void vs_t_wait_ms(struct vs_cq *cq, struct vs_wc *wc, int n, int ms)
{
	uint64_t deadline = vs_t_now_ms() + (uint64_t)ms;
	int got = 0;

	while (got < n) {
		int r = vs_cq_poll(cq, wc + got, n - got);

		if (r < 0)
			VS_FAIL("vs_cq_poll = %d: %s", r, vs_t_err());
		got += r;
		if (vs_t_now_ms() > deadline)
			VS_FAIL("%d of %d completions within %d ms", got, n, ms);
		/*
		 * nothing yet: let the other threads of the test run (its
		 * peer, under valgrind, which runs one thread at a time)
		 */
		if (!r)
			sched_yield();
	}
}

/* Exactly n completions within 5 s. */
static inline void vs_t_wait(struct vs_cq *cq, struct vs_wc *wc, int n)
{
	vs_t_wait_ms(cq, wc, n, 5000);
}

static inline void vs_t_no_more(struct vs_cq *cq)
{
	struct vs_wc extra;
	uint64_t until = vs_t_now_ms() + 50;

	while (vs_t_now_ms() < until) {
		int r = vs_cq_poll(cq, &extra, 1);

		if (r)
			VS_FAIL("unexpected completion (r=%d wr_id %llu opcode %d)",
				r, (unsigned long long)extra.wr_id, extra.opcode);
	}
}

static inline void vs_t_expect_wc(const struct vs_wc *wc, uint64_t wr_id,
				  enum ibv_wc_opcode opcode, uint32_t byte_len)
{
	if (wc->status != IBV_WC_SUCCESS)
		VS_FAIL("wr_id %llu: status %s", (unsigned long long)wc->wr_id,
			ibv_wc_status_str(wc->status));
	VS_ASSERT_EQ(wc->wr_id, wr_id);
	VS_ASSERT_EQ(wc->opcode, opcode);
	if (byte_len != UINT32_MAX)
		VS_ASSERT_EQ(wc->byte_len, byte_len);
}
/* One receive of one SGE on an RC QP. */
static inline void vs_t_rc_recv(struct vs_rc_qp *qp, uint64_t wr_id,
				struct ibv_sge sge)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_recv_start(qp, &rb));
	VS_OK(vs_recv_add(&rb, wr_id, &sge, 1));
	VS_OK(vs_recv_submit(&rb));
}

/* One signaled send of one SGE on an RC QP. */
static inline void vs_t_rc_send(struct vs_rc_qp *qp, uint64_t wr_id,
				struct ibv_sge sge)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, wr_id, VS_WR_SIGNALED, &sge, 1));
	VS_OK(vs_rc_batch_submit(&b));
}


/* len bytes that say which message they are (seed), and their check. */
static inline uint8_t vs_t_byte(size_t k, int seed)
{
	return (uint8_t)(seed * 29 + (int)k * 5 + 3);
}

static inline void vs_t_fill(void *p, size_t len, int seed)
{
	for (size_t k = 0; k < len; k++)
		((uint8_t *)p)[k] = vs_t_byte(k, seed);
}

static inline void vs_t_check(const void *p, size_t len, int seed)
{
	for (size_t k = 0; k < len; k++)
		if (((const uint8_t *)p)[k] != vs_t_byte(k, seed))
			VS_FAIL("byte %zu of message %d: 0x%02x, expected 0x%02x",
				k, seed, ((const uint8_t *)p)[k], vs_t_byte(k, seed));
}

/* The device of the VM ($VS_RXE_DEV), or the first. */
static inline const char *vs_t_dev(void)
{
	const char *d = getenv("VS_RXE_DEV");

	return d && *d ? d : NULL;
}

/* The kind of port 1 of the device under test (the VM's, or the first). */
static inline enum vs_link_kind vs_t_kind(void)
{
	struct vs_context *ctx;
	struct vs_port_info pi;

	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_port_info(ctx, 1, &pi));
	VS_OK(vs_device_close(ctx));
	return pi.kind;
}

static inline bool vs_t_iwarp(void)
{
	return vs_t_kind() == VS_LINK_IWARP;
}

/* Skips what iWARP cannot do, the device and why named ("siw0 (iWARP): ..."). */
static inline void vs_t_skip_on_iwarp(const char *why)
{
	if (vs_t_iwarp())
		VS_SKIP("%s (iWARP): %s", vs_t_dev() ? vs_t_dev() : "the device", why);
}

/*
 * Why a datagram to this machine is lost on the device under test (rxe
 * of rdma-core 17.1 and 22.4: tools/verbshim-selftest/ud_self_lost.h,
 * the self-test's rule and words), or NULL.  Its provider as the
 * self-test finds it: the device's driver in sysfs, else its name's
 * letters.
 */
static inline const char *vs_t_ud_self_lost(void)
{
	const char *dev = vs_t_dev();
	char path[256], link[256], prov[64];
	const char *base;
	ssize_t n;

	if (!dev)
		return NULL;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		return vs_ud_self_lost(base ? base + 1 : link);
	}
	snprintf(prov, sizeof(prov), "%.*s", (int)strcspn(dev, "0123456789"), dev);
	return vs_ud_self_lost(prov);
}

/* Skips, after what ran: WHAT (the UD part) was not run, and why. */
static inline void vs_t_skip_if_ud_self_lost(const char *what)
{
	const char *why = vs_t_ud_self_lost();

	if (why)
		VS_SKIP("%s not run on %s: %s", what, vs_t_dev(), why);
}

/*
 * On iWARP a CM id's QP has no endpoint bytes: vs_rc_endpoint refuses it,
 * naming iWARP and the CM.  true when it did (the caller checks no more).
 */
static inline bool vs_t_iwarp_no_endpoint(struct vs_rc_qp *qp)
{
	struct vs_endpoint e;

	if (!vs_t_iwarp())
		return false;
	VS_FAILS(vs_rc_endpoint(qp, &e), EOPNOTSUPP,
		 "is an iWARP device: its QPs connect only through the connection manager");
	return true;
}

/* why a test of QPs brought up by a handshake skips on iWARP */
#define VS_T_IWARP_NO_HANDSHAKE                                               \
	"its QPs connect only through the CM, never by endpoint bytes and a " \
	"handshake (test/device/link_kind and the cm_* tests cover iWARP)"

/*
 * A self-connected RC QP (its own receive queue answers its sends) with
 * its context, PD, one CQ for both queues and one MR: the rig of the rxe
 * tests of RC operations.
 */
struct vs_t_loop {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_rc_qp *qp;
	uint8_t *m; /* the MR's bytes */
};

/* legacy forces legacy QP and CQ; otherwise extended where the provider has it */
static inline void vs_t_loop_open(struct vs_t_loop *l, bool legacy,
				  uint32_t cq_depth, size_t mr_len,
				  struct vs_rc_config cfg)
{
	struct vs_endpoint ep;

	vs_t_skip_on_iwarp(VS_T_IWARP_NO_HANDSHAKE);
	vs_set_force_legacy(legacy);
	VS_OK(vs_device_open(vs_t_dev(), &l->ctx));
	VS_OK(vs_pd_alloc(l->ctx, &l->pd));
	VS_OK(vs_cq_create(l->ctx, &(struct vs_cq_config){ .depth = cq_depth },
			   &l->cq));
	VS_OK(vs_mr_alloc(l->pd, mr_len, 0, &l->mr));
	cfg.send_cq = l->cq;
	VS_OK(vs_rc_qp_create(l->pd, &cfg, &l->qp));
	if (legacy) {
		VS_ASSERT(!vs_rc_qp_is_extended(l->qp));
		VS_ASSERT(!vs_cq_is_extended(l->cq));
	}
	VS_OK(vs_rc_endpoint(l->qp, &ep));
	VS_OK(vs_rc_handshake(l->qp, &ep));
	l->m = vs_mr_ptr(l->mr, 0);
}

static inline void vs_t_loop_close(struct vs_t_loop *l)
{
	VS_OK(vs_rc_qp_close(l->qp));
	VS_OK(vs_mr_close(l->mr));
	VS_OK(vs_cq_close(l->cq));
	VS_OK(vs_pd_close(l->pd));
	VS_OK(vs_device_close(l->ctx));
}

#endif /* VS_TYPED_TEST_H */
