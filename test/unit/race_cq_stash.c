/* SPDX-License-Identifier: MIT */
/*
 * Under TSan (and plain, ASan+UBSan, valgrind): a wait that stashes
 * (vs_cq_wait_wr, lib/core/cq_stash.c) while another thread polls the same CQ
 * (vs_cq_poll, the iterator), on the fake provider, whose extended CQ
 * holds a poll lock from start_poll to end_poll as a real one does; then
 * the same on a legacy CQ (lib/core/legacy_cq.c: ibv_poll_cq 16 at a time into
 * a buffer of the library's, under its own lock), where the stash sits on
 * top of that buffer.
 *
 * Each round the main thread posts ROUND signaled sends with round-unique
 * wr_ids on two QPs sharing one send CQ; then thread A waits (VS_WAIT_POLL,
 * timeout 0) for half of them, oldest or (every other round) newest first,
 * stashing the rest on the way (each pass of a wait drains the CQ), and
 * as soon as A is in its first wait thread B takes whatever it gets.
 * What the API promises, and what is checked: B may take A's completions
 * (A then gets -EAGAIN for them, never an error); every completion is given exactly once, to A or to B,
 * with its own wr_id, QP, status, opcode and length; none is lost (the
 * round ends when all are accounted for, else it fails after 60 s naming
 * the count); the CQ and the stash are empty after each round.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "../common/vs_fake.h"

#define ROUND 64    /* completions per round, half on each QP */
#define ROUNDS 1000 /* 64000 completions per CQ kind */

static struct {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_cq *cq;
	struct vs_rc_qp *qp[2];
	uint32_t qp_num[2];
	pthread_barrier_t go, done;
	uint64_t first;       /* this round's first wr_id */
	int seen[ROUND];      /* times each was given (atomic) */
	int taken;            /* completions given this round (atomic) */
	int a_started;        /* B polls once A is in its first wait (atomic) */
	int over;             /* the last round is done: threads leave */
	long a_own, b_of_a, b_other;
} g;

/* wr_id first + k goes to qp[k % 2]; A waits for k % 4 < 2 */
static bool wanted_by_a(int k)
{
	return k % 4 < 2;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* One completion given to a thread: right fields, given once only. */
static int account(const struct vs_wc *wc, char who)
{
	uint64_t first = __atomic_load_n(&g.first, __ATOMIC_RELAXED);
	int k;

	if (wc->wr_id < first || wc->wr_id >= first + ROUND)
		VS_FAIL("%c got wr_id %llu, not of this round (%llu..%llu)", who,
			(unsigned long long)wc->wr_id, (unsigned long long)first,
			(unsigned long long)first + ROUND - 1);
	k = (int)(wc->wr_id - first);
	VS_ASSERT_EQ(wc->qp_num, g.qp_num[k % 2]);
	VS_ASSERT_EQ(wc->status, IBV_WC_SUCCESS);
	VS_ASSERT_EQ(wc->opcode, IBV_WC_SEND);
	VS_ASSERT_EQ(wc->byte_len, 8);
	if (__atomic_fetch_add(&g.seen[k], 1, __ATOMIC_RELAXED))
		VS_FAIL("wr_id %llu given twice (the second time to %c)",
			(unsigned long long)wc->wr_id, who);
	__atomic_fetch_add(&g.taken, 1, __ATOMIC_RELEASE);
	return k;
}

/*
 * A hang detector, not a time bound: valgrind runs the threads one at a
 * time and once starved a round past 10 s on an idle host.
 */
#define ROUND_LIMIT_MS 60000

static bool round_over(int64_t deadline)
{
	int taken = __atomic_load_n(&g.taken, __ATOMIC_ACQUIRE);

	if (taken == ROUND)
		return true;
	if (now_ms() > deadline)
		VS_FAIL("after %d s only %d of %d completions were given "
			"(round from wr_id %llu)", ROUND_LIMIT_MS / 1000, taken, ROUND,
			(unsigned long long)g.first);
	return false;
}

static void *thread_a(void *arg)
{
	(void)arg;
	for (;;) {
		int64_t deadline;
		uint64_t first;
		bool down;

		pthread_barrier_wait(&g.go);
		if (__atomic_load_n(&g.over, __ATOMIC_ACQUIRE))
			return NULL;
		deadline = now_ms() + ROUND_LIMIT_MS;
		first = g.first;
		/* every other round newest first: each pass stashes all before */
		down = (first / ROUND) % 2;
		__atomic_store_n(&g.a_started, 1, __ATOMIC_RELEASE);
		while (!round_over(deadline)) {
			for (int i = 0; i < ROUND; i++) {
				int k = down ? ROUND - 1 - i : i;
				struct vs_wc wc;
				int ret;

				if (!wanted_by_a(k) ||
				    __atomic_load_n(&g.seen[k], __ATOMIC_RELAXED))
					continue;
				ret = vs_cq_wait_wr(g.cq, g.qp_num[k % 2], first + k,
						    VS_WAIT_POLL, 0, &wc);
				if (ret == -EAGAIN)
					continue; /* not yet, or B has it */
				VS_OK(ret);
				VS_ASSERT_EQ(wc.wr_id, first + k);
				VS_ASSERT_EQ(account(&wc, 'A'), k);
				g.a_own++;
			}
		}
		pthread_barrier_wait(&g.done);
	}
}

static void b_took(const struct vs_wc *wc)
{
	if (wanted_by_a(account(wc, 'B')))
		g.b_of_a++;
	else
		g.b_other++;
}

static void *thread_b(void *arg)
{
	unsigned int turn = 0;

	(void)arg;
	for (;;) {
		int64_t deadline;

		pthread_barrier_wait(&g.go);
		if (__atomic_load_n(&g.over, __ATOMIC_ACQUIRE))
			return NULL;
		deadline = now_ms() + ROUND_LIMIT_MS;
		/* else B empties the CQ before A comes and nothing is stashed */
		while (!__atomic_load_n(&g.a_started, __ATOMIC_ACQUIRE))
			sched_yield();
		while (!round_over(deadline)) {
			struct vs_wc wc[8];

			if (++turn % 3 == 0) {
				struct vs_cq_iter it;
				int ret = vs_cq_iter_start(g.cq, &it);

				if (ret == -ENOENT) {
					sched_yield(); /* valgrind: let A run */
					continue;
				}
				VS_OK(ret);
				/* up to three; the rest stay for whoever comes */
				for (int i = 0; i < 3; i++) {
					vs_cq_iter_read(&it, &wc[0]);
					b_took(&wc[0]);
					if (i == 2 || vs_cq_iter_next(&it))
						break;
				}
				vs_cq_iter_end(&it);
			} else {
				int n = vs_cq_poll(g.cq, wc, 1 + (int)(turn % 8));

				VS_ASSERT(n >= 0);
				for (int i = 0; i < n; i++)
					b_took(&wc[i]);
				if (!n)
					sched_yield(); /* valgrind: let A run */
			}
		}
		pthread_barrier_wait(&g.done);
	}
}

static void post_round(uint64_t first)
{
	struct ibv_sge s = vs_mr_sge(g.mr, 0, 8);

	for (int q = 0; q < 2; q++) {
		for (int k = q; k < ROUND;) {
			struct vs_rc_batch b;

			VS_OK(vs_rc_batch_start(g.qp[q], &b));
			for (int i = 0; i < 16 && k < ROUND; i++, k += 2)
				VS_OK(vs_rc_send(&b, first + (uint64_t)k,
						 VS_WR_SIGNALED, &s, 1));
			VS_OK(vs_rc_batch_submit(&b));
		}
	}
}

/* One run of rounds on a fresh CQ, extended or legacy. */
static void run(bool legacy, int rounds, int *live)
{
	pthread_t a, b;
	struct vs_wc wc;
	const struct ibv_cq_ex *real;
	int64_t t0;
	int r;

	g.over = 0;
	g.a_own = g.b_of_a = g.b_other = 0;
	VS_OK(vs_cq_create(g.ctx, &(struct vs_cq_config){ .depth = 512,
		.legacy = legacy }, &g.cq));
	VS_ASSERT_EQ(vs_cq_is_extended(g.cq), !legacy);
	real = g.cq->poll_ops; /* the provider's, or the legacy emulation's */
	for (int q = 0; q < 2; q++) {
		vs_t_fake_rc_loop(g.pd, g.cq, &g.qp[q]);
		g.qp_num[q] = vs_rc_qp_num(g.qp[q]);
	}
	VS_ASSERT_EQ(pthread_barrier_init(&g.go, NULL, 3), 0);
	VS_ASSERT_EQ(pthread_barrier_init(&g.done, NULL, 3), 0);
	VS_ASSERT_EQ(pthread_create(&a, NULL, thread_a, NULL), 0);
	VS_ASSERT_EQ(pthread_create(&b, NULL, thread_b, NULL), 0);
	t0 = now_ms();
	/*
	 * Until both sides have raced for A's completions (on a loaded host
	 * one may win every round for a while): at most four times as long.
	 */
	for (r = 0; r < rounds || (rounds == ROUNDS && (!g.a_own || !g.b_of_a) &&
				   r < 4 * rounds); r++) {
		g.first = 1000 + (uint64_t)r * ROUND;
		memset(g.seen, 0, sizeof(g.seen));
		g.taken = 0;
		g.a_started = 0;
		post_round(g.first);
		pthread_barrier_wait(&g.go);
		pthread_barrier_wait(&g.done);
		for (int k = 0; k < ROUND; k++)
			VS_ASSERT_EQ(g.seen[k], 1);
		/* nothing left behind, in the CQ (the legacy buffer) or the stash */
		VS_ASSERT_EQ(vs_cq_poll(g.cq, &wc, 1), 0);
		VS_ASSERT_PTR_EQ(g.cq->poll_ops, real);
	}
	__atomic_store_n(&g.over, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&g.go);
	VS_ASSERT_EQ(pthread_join(a, NULL), 0);
	VS_ASSERT_EQ(pthread_join(b, NULL), 0);
	VS_ASSERT_EQ(g.a_own + g.b_of_a + g.b_other, (long)r * ROUND);
	/* both sides raced: each got some of what A waited for */
	if (rounds == ROUNDS) {
		VS_ASSERT(g.a_own > 0);
		VS_ASSERT(g.b_of_a > 0);
	}
	printf("%s CQ: %d completions in %lld ms: A waited for and got %ld, "
	       "B took %ld of A's and %ld others\n", legacy ? "legacy" : "extended",
	       r * ROUND, (long long)(now_ms() - t0), g.a_own, g.b_of_a,
	       g.b_other);
	pthread_barrier_destroy(&g.go);
	pthread_barrier_destroy(&g.done);
	for (int q = 0; q < 2; q++)
		VS_OK(vs_rc_qp_close(g.qp[q]));
	VS_OK(vs_cq_close(g.cq));
	VS_ASSERT_EQ(live[3], 0);
}

int main(void)
{
	void *fail;
	int *live;
	/* the valgrind stage scales races down (it runs one thread at a time) */
	int rounds = getenv("VS_RACE_PROCESSES") ? ROUNDS / 20 : ROUNDS;

	vs_t_use_fake(&fail, &live);
	VS_OK(vs_device_open("fake0", &g.ctx));
	VS_OK(vs_pd_alloc(g.ctx, &g.pd));
	VS_OK(vs_mr_alloc(g.pd, 4096, 0, &g.mr));
	run(false, rounds, live);
	/* the legacy emulation: 16 completions at a time buffered in the library */
	run(true, rounds, live);
	VS_OK(vs_mr_close(g.mr));
	VS_OK(vs_pd_close(g.pd));
	VS_OK(vs_device_close(g.ctx));
	vs_t_fake_all_gone(live);
	return 0;
}
