/* SPDX-License-Identifier: MIT */
/*
 * Several threads iterate one CQ while completions arrive (docs/API.md:
 * "iterations on one CQ from several threads take turns").  On an
 * extended CQ the provider's lock does it, on a legacy one the emulation's
 * (lib/core/legacy_cq.c): every completion must be seen exactly once, with its
 * status, and the written bytes must have arrived.
 *
 * No time limit on the work (under TCG emulating another architecture a
 * round takes many times longer than under KVM): only a stall fails, no
 * completion for STALL_MS while writes are outstanding, and it fails
 * saying how far the round got, the poster and the pollers all stopping.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "../common/vs_typed.h"

enum {
	WRITES = 6000, POLLERS = 4, SLOTS = 64, SLOT = 64, IN_FLIGHT = 96,
	ROUNDS = 5, STALL_MS = 60000,
};

struct shared {
	struct vs_cq *cq;
	atomic_int polled;
	atomic_int failures;
	atomic_uchar seen[WRITES];
	atomic_int max_run; /* most completions one iteration consumed */
	atomic_uint_fast64_t progress_ms; /* when a completion last arrived */
	atomic_bool stalled; /* none for STALL_MS: everyone stops */
};

/* A poller that found the CQ empty: has the round stalled? */
static bool stalled(struct shared *s)
{
	uint64_t last;

	if (atomic_load(&s->stalled))
		return true;
	/* read before the clock: another poller may store a later time */
	last = atomic_load(&s->progress_ms);
	if (vs_t_now_ms() < last + STALL_MS)
		return false;
	atomic_store(&s->stalled, true);
	return true;
}

static void *poller(void *arg)
{
	struct shared *s = arg;

	while (atomic_load(&s->polled) < WRITES) {
		struct vs_cq_iter it;
		int ret = vs_cq_iter_start(s->cq, &it), run = 0;

		if (ret == -ENOENT) {
			if (stalled(s))
				break;
			continue;
		}
		if (ret) {
			fprintf(stderr, "vs_cq_iter_start = %d: %s\n", ret, vs_t_err());
			atomic_fetch_add(&s->failures, 1);
			break;
		}
		do {
			struct vs_wc wc;

			/* every field: more time inside the held CQ */
			vs_cq_iter_read(&it, &wc);
			if (wc.wr_id != vs_cq_iter_wr_id(&it) ||
			    wc.status != IBV_WC_SUCCESS ||
			    wc.opcode != IBV_WC_RDMA_WRITE || wc.wr_id >= WRITES ||
			    atomic_fetch_add(&s->seen[wc.wr_id], 1)) {
				fprintf(stderr, "bad completion: wr_id %llu status %s\n",
					(unsigned long long)wc.wr_id,
					ibv_wc_status_str(wc.status));
				atomic_fetch_add(&s->failures, 1);
			}
			run++;
		} while ((ret = vs_cq_iter_next(&it)) == 0);
		vs_cq_iter_end(&it);
		if (ret != -ENOENT) {
			fprintf(stderr, "vs_cq_iter_next = %d: %s\n", ret, vs_t_err());
			atomic_fetch_add(&s->failures, 1);
		}
		atomic_fetch_add(&s->polled, run);
		atomic_store(&s->progress_ms, vs_t_now_ms());
		for (int m = atomic_load(&s->max_run);
		     run > m && !atomic_compare_exchange_weak(&s->max_run, &m, run);)
			;
	}
	return NULL;
}

static void one_round(bool legacy)
{
	static struct shared s;
	struct vs_t_loop l;
	pthread_t th[POLLERS];
	uint8_t *m;
	int posted = 0;
	uint64_t t0;

	memset(&s, 0, sizeof(s));
	vs_t_loop_open(&l, legacy, 512, 2 * SLOTS * SLOT, (struct vs_rc_config){
		.caps = { .max_send_wr = 128 } });
	s.cq = l.cq;
	m = l.m;
	for (int i = 0; i < SLOTS * SLOT; i++)
		m[i] = (uint8_t)(i * 7 + 3);

	t0 = vs_t_now_ms();
	atomic_store(&s.progress_ms, t0);
	for (int t = 0; t < POLLERS; t++)
		VS_ASSERT_EQ(pthread_create(&th[t], NULL, poller, &s), 0);
	while (posted < WRITES && !atomic_load(&s.stalled)) {
		struct vs_rc_batch b;
		int n = 0;

		/* stay well inside the send queue and the CQ */
		if (posted - atomic_load(&s.polled) > IN_FLIGHT - 16) {
			sched_yield();
			continue;
		}
		VS_OK(vs_rc_batch_start(l.qp, &b));
		for (; n < 16 && posted + n < WRITES; n++) {
			int slot = (posted + n) % SLOTS;
			struct ibv_sge sge = vs_mr_sge(l.mr, (size_t)slot * SLOT, SLOT);

			VS_OK(vs_rc_write(&b, (uint64_t)(posted + n), VS_WR_SIGNALED,
					  &sge, 1,
					  vs_mr_remote(l.mr, (size_t)(SLOTS + slot) * SLOT)));
		}
		VS_OK(vs_rc_batch_submit(&b));
		posted += n;
	}
	for (int t = 0; t < POLLERS; t++)
		VS_ASSERT_EQ(pthread_join(th[t], NULL), 0);

	if (atomic_load(&s.stalled))
		VS_FAIL("%s CQ: no completion for %d s: %d of %d posted completions polled",
			vs_cq_is_extended(s.cq) ? "extended" : "legacy",
			STALL_MS / 1000, atomic_load(&s.polled), posted);
	VS_ASSERT_EQ(atomic_load(&s.failures), 0);
	VS_ASSERT_EQ(atomic_load(&s.polled), WRITES);
	for (int i = 0; i < WRITES; i++)
		if (atomic_load(&s.seen[i]) != 1)
			VS_FAIL("wr_id %d seen %d times", i, atomic_load(&s.seen[i]));
	VS_ASSERT_MEMEQ(m + SLOTS * SLOT, m, SLOTS * SLOT);
	vs_t_no_more(s.cq);
	printf("%s CQ: %d completions over %d threads, each once (longest run %d, %llu ms)\n",
	       vs_cq_is_extended(s.cq) ? "extended" : "legacy", WRITES, POLLERS,
	       atomic_load(&s.max_run), (unsigned long long)(vs_t_now_ms() - t0));

	vs_t_loop_close(&l);
}

int main(void)
{
	vs_test_require_device();
	setvbuf(stdout, NULL, _IONBF, 0);
	/* a few rounds each: a missing lock shows in about half of them */
	for (int i = 0; i < ROUNDS; i++)
		one_round(false);
	for (int i = 0; i < ROUNDS; i++)
		one_round(true);
	return 0;
}
