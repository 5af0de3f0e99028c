/* SPDX-License-Identifier: MIT */
/*
 * Under TSan (and plain, ASan+UBSan, valgrind): a scope's waits racing
 * another thread's waits on the same CQ and channel, on the fake
 * provider, extended and legacy CQs.  Each take of a wait drains the CQ,
 * stashing what it does not want (lib/core/cq_stash.c), so completions pass
 * between the threads through the stash.
 *
 * Two QPs share one send CQ on a channel (its fd never handed out: a
 * sleeping wait reads it blocking).  Thread S runs scopes on QP 0, each
 * four sends (two of them unsignaled: the scope signals them), ending it
 * by busy-polling or (every other scope) sleeping on the channel.  Thread
 * W waits, in order, for each send the main thread posts on QP 1
 * (vs_cq_wait_wr, busy-polling with timeout 0 or sleeping for ever, in
 * turn); the main thread keeps at most INFLIGHT of them outstanding.
 *
 * Checked: every scope ends with 0 (its four completions were found, none
 * was lost to W's stashing); W gets each of its completions once, in
 * order, with its QP, status and length; none is lost (the main thread
 * fails after 10 s without progress, naming the counts); the CQ and the
 * stash are empty at the end; every object is destroyed.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "../common/vs_fake.h"

#define SCOPES 2000 /* per CQ kind */
#define SENDS 8000  /* W's, per CQ kind */
#define INFLIGHT 16

static struct {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_channel *ch;
	struct vs_cq *cq;
	struct vs_rc_qp *qp[2];
	uint32_t qp_num[2];
	int scopes, sends;
	int scoped;	/* atomic: scopes S ended */
	int got;	/* atomic: completions W got */
} g;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *scoper(void *arg)
{
	struct ibv_sge s = vs_mr_sge(g.mr, 0, 8);

	(void)arg;
	for (int r = 0; r < g.scopes; r++) {
		struct vs_scope sc;
		struct vs_rc_batch b;
		struct vs_wc err;

		VS_OK(vs_scope_begin(&sc, r % 2 ? VS_WAIT_SLEEP : VS_WAIT_POLL));
		VS_OK(vs_scope_rc_batch_start(&sc, g.qp[0], &b));
		for (int j = 0; j < 4; j++)
			VS_OK(vs_rc_send(&b, (uint64_t)r * 4 + (uint64_t)j,
					 j % 2 ? VS_WR_SIGNALED : 0, &s, 1));
		VS_OK(vs_rc_batch_submit(&b));
		VS_OK(vs_scope_end(&sc, 10000, &err));
		__atomic_store_n(&g.scoped, r + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	for (int k = 0; k < g.sends;) {
		struct vs_wc wc;
		int ret = vs_cq_wait_wr(g.cq, g.qp_num[1], 1000000 + (uint64_t)k,
					k % 2 ? VS_WAIT_SLEEP : VS_WAIT_POLL,
					k % 2 ? -1 : 0, &wc);

		if (ret == -EAGAIN) {
			sched_yield();
			continue;
		}
		VS_OK(ret);
		VS_ASSERT_EQ(wc.wr_id, 1000000 + (uint64_t)k);
		VS_ASSERT_EQ(wc.qp_num, g.qp_num[1]);
		VS_ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
		VS_ASSERT_EQ(wc.byte_len, 8);
		__atomic_store_n(&g.got, ++k, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void run(bool legacy, int *live)
{
	struct ibv_sge s = vs_mr_sge(g.mr, 0, 8);
	const struct ibv_cq_ex *real;
	pthread_t ts, tw;
	struct vs_wc wc;
	int posted = 0, progress = -1;
	int64_t t0 = now_ms(), stalled = t0;

	g.scoped = g.got = 0;
	VS_OK(vs_channel_create(g.ctx, &g.ch));
	VS_OK(vs_cq_create(g.ctx, &(struct vs_cq_config){ .depth = 256,
		.channel = g.ch, .legacy = legacy }, &g.cq));
	VS_ASSERT_EQ(vs_cq_is_extended(g.cq), !legacy);
	real = g.cq->poll_ops;
	for (int q = 0; q < 2; q++) {
		vs_t_fake_rc_loop(g.pd, g.cq, &g.qp[q]);
		g.qp_num[q] = vs_rc_qp_num(g.qp[q]);
	}
	VS_ASSERT_EQ(pthread_create(&ts, NULL, scoper, NULL), 0);
	VS_ASSERT_EQ(pthread_create(&tw, NULL, waiter, NULL), 0);
	for (;;) {
		int got = __atomic_load_n(&g.got, __ATOMIC_ACQUIRE);
		int scoped = __atomic_load_n(&g.scoped, __ATOMIC_ACQUIRE);

		if (got == g.sends && scoped == g.scopes)
			break;
		if (posted < g.sends && posted - got < INFLIGHT) {
			struct vs_rc_batch b;

			VS_OK(vs_rc_batch_start(g.qp[1], &b));
			VS_OK(vs_rc_send(&b, 1000000 + (uint64_t)posted,
					 VS_WR_SIGNALED, &s, 1));
			VS_OK(vs_rc_batch_submit(&b));
			posted++;
			continue;
		}
		if (got + scoped != progress) {
			progress = got + scoped;
			stalled = now_ms();
		} else if (now_ms() - stalled > 10000) {
			VS_FAIL("no progress for 10 s (%s CQ): %d of %d scopes "
				"ended, W got %d of %d (%d posted)",
				legacy ? "legacy" : "extended", scoped, g.scopes,
				got, g.sends, posted);
		}
		sched_yield();
	}
	VS_ASSERT_EQ(pthread_join(ts, NULL), 0);
	VS_ASSERT_EQ(pthread_join(tw, NULL), 0);
	/* nothing left behind, in the CQ (the legacy buffer) or the stash */
	VS_ASSERT_EQ(vs_cq_poll(g.cq, &wc, 1), 0);
	VS_ASSERT_PTR_EQ(g.cq->poll_ops, real);
	printf("%s CQ: %d scopes of 4 sends and %d waits in %lld ms\n",
	       legacy ? "legacy" : "extended", g.scopes, g.sends,
	       (long long)(now_ms() - t0));
	for (int q = 0; q < 2; q++)
		VS_OK(vs_rc_qp_close(g.qp[q]));
	VS_OK(vs_cq_close(g.cq));
	VS_OK(vs_channel_close(g.ch));
	VS_ASSERT_EQ(live[3], 0);
	VS_ASSERT_EQ(live[4], 0);
}

int main(void)
{
	void *fail;
	int *live;
	/* the valgrind stage scales races down (it runs one thread at a time) */
	int scale = getenv("VS_RACE_PROCESSES") ? 20 : 1;

	vs_t_use_fake(&fail, &live);
	g.scopes = SCOPES / scale;
	g.sends = SENDS / scale;
	VS_OK(vs_device_open("fake0", &g.ctx));
	VS_OK(vs_pd_alloc(g.ctx, &g.pd));
	VS_OK(vs_mr_alloc(g.pd, 4096, 0, &g.mr));
	run(false, live);
	run(true, live);
	VS_OK(vs_mr_close(g.mr));
	VS_OK(vs_pd_close(g.pd));
	VS_OK(vs_device_close(g.ctx));
	vs_t_fake_all_gone(live);
	return 0;
}
