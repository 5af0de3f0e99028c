/* SPDX-License-Identifier: MIT */
/*
 * Under TSan (and plain, ASan+UBSan, valgrind): several threads waiting on
 * one completion channel while CQs of it come and go, on the fake
 * provider, extended and legacy CQs, with the channel's fd never handed
 * out (blocking: a wait for ever sleeps in its read of the event, without
 * the channel's lock) and handed out (vs_channel_fd: non-blocking).
 *
 * Five waiters, each on its own CQ of the channel: W0 and W1 in
 * vs_cq_wait(-1), W2 in vs_cq_wait(50 ms), W3 in vs_cq_wait(0) (spinning:
 * a wait that may not sleep must never block, whoever sleeps on the fd),
 * W4 in vs_cq_wait_wr(VS_WAIT_SLEEP, -1) for each of its wr_ids in turn.
 * The main thread posts signaled sends to their QPs, round robin, at most
 * INFLIGHT outstanding per waiter, and between them creates a CQ on the
 * channel with a QP, completes a send on it (its event goes into the fd,
 * where a sleeping wait reads it) and closes both at once: the close must
 * not wait for that wait (the fake's destroy, as libibverbs', waits for
 * the acks of the events read: 2 s, then it aborts).
 *
 * Checked: each waiter gets exactly its own completions, in order (wr_id,
 * QP, status); none is lost: the main thread fails when no waiter took
 * anything for 10 s (a wait asleep while its completion waits: a lost
 * wake-up) naming the counts; every object is destroyed at the end.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "../common/vs_fake.h"

#define WAITERS 5
#define PER_WAITER 2000 /* completions each, per configuration */
#define INFLIGHT 8

static int *live; /* ctx pd mr cq qp srq ah */
static int *event_delay_us; /* the fake's vs_stub_cq_event_delay_us */

static struct {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_channel *ch;
	struct vs_cq *cq[WAITERS];
	struct vs_rc_qp *qp[WAITERS];
	uint32_t qp_num[WAITERS];
	int per_waiter;
	int taken[WAITERS];	/* atomic: completions the waiter got */
	long timeouts, eagains; /* W2's and W3's empty waits (their own) */
} g;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waiter i's k-th completion: wr_id i * 1000000 + k, on its QP. */
static void check(int i, const struct vs_wc *wc)
{
	int k = __atomic_load_n(&g.taken[i], __ATOMIC_RELAXED);

	VS_ASSERT_EQ(wc->wr_id, (uint64_t)i * 1000000 + (uint64_t)k);
	VS_ASSERT_EQ(wc->qp_num, g.qp_num[i]);
	VS_ASSERT_EQ(wc->status, IBV_WC_SUCCESS);
	__atomic_store_n(&g.taken[i], k + 1, __ATOMIC_RELEASE);
}

static void *waiter(void *arg)
{
	int i = (int)(intptr_t)arg;

	while (__atomic_load_n(&g.taken[i], __ATOMIC_RELAXED) < g.per_waiter) {
		struct vs_wc wc[4];
		int n;

		if (i == 4) {
			uint64_t id = (uint64_t)i * 1000000 +
				      (uint64_t)__atomic_load_n(&g.taken[i],
							       __ATOMIC_RELAXED);

			VS_OK(vs_cq_wait_wr(g.cq[i], g.qp_num[i], id,
					    VS_WAIT_SLEEP, -1, wc));
			check(i, wc);
			continue;
		}
		n = vs_cq_wait(g.cq[i], i < 2 ? -1 : i == 2 ? 50 : 0, wc,
			       1 + i % 4);
		if (i == 2 && n == -ETIMEDOUT) {
			g.timeouts++;
			continue;
		}
		if (i == 3 && n == -EAGAIN) {
			g.eagains++;
			sched_yield();
			continue;
		}
		VS_ASSERT(n > 0);
		for (int k = 0; k < n; k++)
			check(i, &wc[k]);
	}
	return NULL;
}

static void send_one(struct vs_rc_qp *qp, uint64_t wr_id)
{
	struct ibv_sge s = vs_mr_sge(g.mr, 0, 8);
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, wr_id, VS_WR_SIGNALED, &s, 1));
	VS_OK(vs_rc_batch_submit(&b));
}

/*
 * A CQ of the channel that lives for one event, closed while a wait reads
 * it: the fake returns each event read 1 ms late meanwhile (a reader
 * preempted after its read), and the close comes 0.2 ms after the send.
 */
static void passing_cq(bool legacy)
{
	struct vs_cq *cq;
	struct vs_rc_qp *qp;

	VS_OK(vs_cq_create(g.ctx, &(struct vs_cq_config){
		.channel = g.ch, .legacy = legacy }, &cq));
	vs_t_fake_rc_loop(g.pd, cq, &qp);
	__atomic_store_n(event_delay_us, 1000, __ATOMIC_RELAXED);
	send_one(qp, 7);
	usleep(200);
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	__atomic_store_n(event_delay_us, 0, __ATOMIC_RELAXED);
}

static int sum_taken(void)
{
	int sum = 0;

	for (int i = 0; i < WAITERS; i++)
		sum += __atomic_load_n(&g.taken[i], __ATOMIC_ACQUIRE);
	return sum;
}

static void run(bool legacy, bool handed_out)
{
	pthread_t t[WAITERS];
	int posted[WAITERS] = { 0 }, last = 0, passing = 0;
	int64_t t0 = now_ms(), stalled = now_ms();

	memset(g.taken, 0, sizeof(g.taken));
	g.timeouts = g.eagains = 0;
	VS_OK(vs_channel_create(g.ctx, &g.ch));
	if (handed_out)
		VS_ASSERT(vs_channel_fd(g.ch) >= 0);
	for (int i = 0; i < WAITERS; i++) {
		VS_OK(vs_cq_create(g.ctx, &(struct vs_cq_config){
			.channel = g.ch, .legacy = legacy }, &g.cq[i]));
		VS_ASSERT_EQ(vs_cq_is_extended(g.cq[i]), !legacy);
		vs_t_fake_rc_loop(g.pd, g.cq[i], &g.qp[i]);
		g.qp_num[i] = vs_rc_qp_num(g.qp[i]);
	}
	for (int i = 0; i < WAITERS; i++)
		VS_ASSERT_EQ(pthread_create(&t[i], NULL, waiter, (void *)(intptr_t)i), 0);
	while (sum_taken() < WAITERS * g.per_waiter) {
		bool sent = false;

		for (int i = 0; i < WAITERS; i++) {
			if (posted[i] == g.per_waiter ||
			    posted[i] - __atomic_load_n(&g.taken[i], __ATOMIC_ACQUIRE) >=
				    INFLIGHT)
				continue;
			send_one(g.qp[i], (uint64_t)i * 1000000 + (uint64_t)posted[i]);
			posted[i]++;
			sent = true;
		}
		if (passing < g.per_waiter / 4 && sent) {
			passing_cq(legacy);
			passing++;
		}
		if (sum_taken() != last) {
			last = sum_taken();
			stalled = now_ms();
		} else if (now_ms() - stalled > 10000) {
			VS_FAIL("no waiter took anything for 10 s (%s CQs, fd %s): "
				"taken %d %d %d %d %d of %d each, posted %d %d %d "
				"%d %d", legacy ? "legacy" : "extended",
				handed_out ? "handed out" : "blocking", g.taken[0],
				g.taken[1], g.taken[2], g.taken[3], g.taken[4],
				g.per_waiter, posted[0], posted[1], posted[2],
				posted[3], posted[4]);
		} else if (!sent) {
			sched_yield();
		}
	}
	for (int i = 0; i < WAITERS; i++)
		VS_ASSERT_EQ(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < WAITERS; i++) {
		struct vs_wc wc;

		VS_ASSERT_EQ(g.taken[i], g.per_waiter);
		VS_ASSERT_EQ(vs_cq_wait(g.cq[i], 0, &wc, 1), -EAGAIN);
		VS_OK(vs_rc_qp_close(g.qp[i]));
		VS_OK(vs_cq_close(g.cq[i]));
	}
	VS_OK(vs_channel_close(g.ch));
	VS_ASSERT_EQ(live[3], 0);
	VS_ASSERT_EQ(live[4], 0);
	printf("%s CQs, fd %s: %d completions and %d passing CQs in %lld ms "
	       "(W2 timed out %ld times, W3 found nothing %ld times)\n",
	       legacy ? "legacy" : "extended", handed_out ? "handed out" : "blocking",
	       WAITERS * g.per_waiter, passing, (long long)(now_ms() - t0),
	       g.timeouts, g.eagains);
}

int main(void)
{
	void *fail;

	vs_t_use_fake(&fail, &live);
	event_delay_us = vs_t_fake_sym("vs_stub_cq_event_delay_us");
	/* the valgrind stage scales races down (it runs one thread at a time) */
	g.per_waiter = getenv("VS_RACE_PROCESSES") ? PER_WAITER / 20 : PER_WAITER;
	VS_OK(vs_device_open("fake0", &g.ctx));
	VS_OK(vs_pd_alloc(g.ctx, &g.pd));
	VS_OK(vs_mr_alloc(g.pd, 4096, 0, &g.mr));
	for (int m = 0; m < 4; m++)
		run(m & 1, m & 2);
	VS_OK(vs_mr_close(g.mr));
	VS_OK(vs_pd_close(g.pd));
	VS_OK(vs_device_close(g.ctx));
	vs_t_fake_all_gone(live);
	return 0;
}
