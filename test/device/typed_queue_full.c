/* SPDX-License-Identifier: MIT */
/*
 * Full queues, provoked for real.  A send that finds no receive waits for
 * one forever (RNR retry 7), so nothing queued behind it completes and
 * the send queue fills: a submit then fails with -ENOMEM and says so,
 * whichever way the QP posts (rxe's ibv_wr_* report ENOSPC, its
 * ibv_post_send -ENOMEM), and vs_last_error()->batch_posted says how many
 * WRs of the failed batch went out anyway: none through ibv_wr_complete,
 * those before the refused one through a chained ibv_post_send.  After a
 * receive unblocks the QP, exactly the posted WRs complete and exactly
 * their bytes arrive.  The same for a receive queue overfilled by a batch.
 */
#include "../common/vs_typed.h"

enum {
	SLOT = 64,
	SLOTS = 512,
	SRC = 0,                  /* write sources, a slot each */
	DST = SRC + SLOTS * SLOT, /* write targets */
	MSG = DST + SLOTS * SLOT, /* send payloads */
	RCV = MSG + SLOTS * SLOT, /* receive buffers */
	MR_LEN = RCV + SLOTS * SLOT,
	SEND_LEN = 32,
	WR_SEND = 100000,
	WR_RECV = 200000,
};

static void rig_open(struct vs_t_loop *r, bool legacy)
{
	vs_t_loop_open(r, legacy, 1024, MR_LEN, (struct vs_rc_config){
		.caps = { .max_send_wr = 16, .max_recv_wr = 8 },
		.rnr_retry = 7, /* a send without a receive waits forever */
	});
	for (int i = 0; i < SLOTS * SLOT; i++) {
		r->m[SRC + i] = (uint8_t)(i * 13 + 7);
		r->m[MSG + i] = (uint8_t)(i * 29 + 1);
	}
}

static int post_writes(struct vs_t_loop *r, uint64_t first_id, int n)
{
	struct vs_rc_batch b;
	int ret;

	VS_OK(vs_rc_batch_start(r->qp, &b));
	for (int i = 0; i < n; i++) {
		int slot = (int)((first_id + (uint64_t)i) % SLOTS);
		struct ibv_sge sge = vs_mr_sge(r->mr, SRC + (size_t)slot * SLOT, SLOT);

		VS_OK(vs_rc_write(&b, first_id + (uint64_t)i, VS_WR_SIGNALED, &sge, 1,
				  vs_mr_remote(r->mr, DST + (size_t)slot * SLOT)));
	}
	vs_clear_error();
	ret = vs_rc_batch_submit(&b);
	/* closed either way: the QP takes the next batch */
	VS_OK(vs_rc_batch_start(r->qp, &b));
	vs_rc_batch_abort(&b);
	return ret;
}

/* A send the QP's empty receive queue cannot take: it blocks the queue. */
static void post_blocking_send(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct ibv_sge sge = vs_mr_sge(r->mr, MSG, SEND_LEN);

	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_send(&b, WR_SEND, VS_WR_SIGNALED, &sge, 1));
	VS_OK(vs_rc_batch_submit(&b));
}

static int post_receives(struct vs_t_loop *r, uint64_t first_id, int n)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_recv_start(r->qp, &rb));
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = vs_mr_sge(r->mr, RCV + (size_t)((first_id + i) %
								       SLOTS) * SLOT,
					       SLOT);

		VS_OK(vs_recv_add(&rb, first_id + (uint64_t)i, &sge, 1));
	}
	vs_clear_error();
	return vs_recv_submit(&rb);
}

static void expect_full(int ret, const char *text, long posted)
{
	const struct vs_error *e = vs_last_error();

	if (ret != -ENOMEM)
		VS_FAIL("submit = %d, expected -ENOMEM: %s", ret, vs_t_err());
	VS_ASSERT_EQ(e->err, ENOMEM);
	if (!strstr(e->message, text))
		VS_FAIL("message \"%s\" lacks \"%s\"", e->message, text);
	if (e->batch_posted != posted)
		VS_FAIL("batch_posted %ld, expected %ld (%s)", e->batch_posted,
			posted, e->message);
	if (posted > 0 && !strstr(e->message, "were posted and will complete"))
		VS_FAIL("message \"%s\" does not say what was posted", e->message);
}

/*
 * Unblocks the QP with one receive, then expects exactly the blocking
 * send, its receive, and the writes wr_ids [0, n) and [from, from + m),
 * and exactly their bytes in the targets.
 */
static void drain_and_check(struct vs_t_loop *r, int n, uint64_t from, int m)
{
	struct vs_wc wc[SLOTS + 2];
	int got_writes = 0;
	bool seen[SLOTS] = { false };

	VS_OK(post_receives(r, WR_RECV, 1));
	vs_t_wait(r->cq, wc, n + m + 2);
	vs_t_no_more(r->cq);
	for (int i = 0; i < n + m + 2; i++) {
		if (wc[i].wr_id == WR_SEND) {
			vs_t_expect_wc(&wc[i], WR_SEND, IBV_WC_SEND, UINT32_MAX);
		} else if (wc[i].wr_id == WR_RECV) {
			vs_t_expect_wc(&wc[i], WR_RECV, IBV_WC_RECV, SEND_LEN);
			VS_ASSERT_MEMEQ(r->m + RCV + (WR_RECV % SLOTS) * SLOT,
					r->m + MSG, SEND_LEN);
		} else {
			uint64_t id = wc[i].wr_id;

			if (!(id < (uint64_t)n || (id >= from && id < from + (uint64_t)m)))
				VS_FAIL("completion of wr_id %llu, never posted",
					(unsigned long long)id);
			vs_t_expect_wc(&wc[i], id, IBV_WC_RDMA_WRITE, UINT32_MAX);
			VS_ASSERT(!seen[id % SLOTS]);
			seen[id % SLOTS] = true;
			got_writes++;
		}
	}
	VS_ASSERT_EQ(got_writes, n + m);
	for (int s = 0; s < SLOTS; s++) {
		uint8_t *dst = r->m + DST + (size_t)s * SLOT;

		if (seen[s]) {
			VS_ASSERT_MEMEQ(dst, r->m + SRC + (size_t)s * SLOT, SLOT);
		} else {
			for (int k = 0; k < SLOT; k++)
				if (dst[k])
					VS_FAIL("slot %d byte %d written (0x%02x) by a "
						"write that was never posted", s, k, dst[k]);
		}
	}
	memset(r->m + DST, 0, SLOTS * SLOT);
}

/* One send per posted receive: they complete in posting order. */
static void consume_receives(struct vs_t_loop *r, const uint64_t *want, int n)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = vs_mr_sge(r->mr, MSG + (size_t)i * SLOT, SLOT);
		struct vs_rc_batch b;
		struct vs_wc wc[2];
		int recvs = 0;

		VS_OK(vs_rc_batch_start(r->qp, &b));
		VS_OK(vs_rc_send(&b, WR_SEND + (uint64_t)i, VS_WR_SIGNALED, &sge, 1));
		VS_OK(vs_rc_batch_submit(&b));
		vs_t_wait(r->cq, wc, 2);
		for (int k = 0; k < 2; k++) {
			if (wc[k].opcode == IBV_WC_SEND) {
				vs_t_expect_wc(&wc[k], WR_SEND + (uint64_t)i,
					       IBV_WC_SEND, UINT32_MAX);
				continue;
			}
			vs_t_expect_wc(&wc[k], want[i], IBV_WC_RECV, SLOT);
			VS_ASSERT_MEMEQ(r->m + RCV + (want[i] % SLOTS) * SLOT,
					r->m + MSG + (size_t)i * SLOT, SLOT);
			recvs++;
		}
		VS_ASSERT_EQ(recvs, 1);
	}
	vs_t_no_more(r->cq);
}

static void send_queue_full(bool legacy)
{
	struct vs_t_loop r;
	int n = 0, ret = 0;
	bool extended;

	rig_open(&r, legacy);
	extended = vs_rc_qp_is_extended(r.qp);

	/* 1: single writes behind the blocked send until the queue is full */
	post_blocking_send(&r);
	while (n < SLOTS / 2 && (ret = post_writes(&r, (uint64_t)n, 1)) == 0)
		n++;
	if (!ret)
		VS_FAIL("%d writes queued behind a blocked send, no ENOMEM", n);
	expect_full(ret, "the send queue is full", 0);
	VS_ASSERT(n >= 3);
	/* max_send_wr is what the queue holds at least (rxe: 2^k - 1) */
	VS_ASSERT_CMP((uint32_t)n + 1, >=, vs_rc_qp_caps(r.qp)->max_send_wr);
	/* a batch into a full queue: nothing of it goes, either way */
	expect_full(post_writes(&r, 400, 3), "the send queue is full", 0);
	drain_and_check(&r, n, 400, 0);

	/* 2: a batch of 4 with room for 2 */
	post_blocking_send(&r);
	for (int i = 0; i < n - 2; i++)
		VS_OK(post_writes(&r, (uint64_t)i, 1));
	ret = post_writes(&r, 300, 4);
	expect_full(ret, "the send queue is full", extended ? 0 : 2);
	drain_and_check(&r, n - 2, 300, extended ? 0 : 2);

	printf("%s QP: %d WRs fit (max_send_wr %u); a batch of 4 with room "
	       "for 2 posted %ld\n", extended ? "extended" : "legacy", n + 1,
	       vs_rc_qp_caps(r.qp)->max_send_wr, extended ? 0L : 2L);

	/* 3: the receive queue, filled one receive at a time, then by a batch */
	{
		uint64_t want[SLOTS];
		int rq = 0;

		while (rq < SLOTS / 2) {
			ret = post_receives(&r, 1000 + (uint64_t)rq, 1);
			if (ret)
				break;
			want[rq] = 1000 + (uint64_t)rq;
			rq++;
		}
		expect_full(ret, "the receive queue is full", 0);
		VS_ASSERT_CMP((uint32_t)rq, >=, vs_rc_qp_caps(r.qp)->max_recv_wr);
		consume_receives(&r, want, rq);

		for (int i = 0; i < rq - 2; i++) {
			VS_OK(post_receives(&r, 3000 + (uint64_t)i, 1));
			want[i] = 3000 + (uint64_t)i;
		}
		expect_full(post_receives(&r, 4000, 4),
			    "the receive queue is full", 2);
		{ /* the next failure, of any call, resets it */
			struct vs_rc_batch b;

			VS_ASSERT_EQ(vs_rc_batch_start(NULL, &b), -EINVAL);
			VS_ASSERT_EQ(vs_last_error()->batch_posted, 0);
		}
		want[rq - 2] = 4000;
		want[rq - 1] = 4001;
		consume_receives(&r, want, rq);
		printf("receive queue: %d fit (max_recv_wr %u); a batch of 4 with "
		       "room for 2 posted 2\n", rq,
		       vs_rc_qp_caps(r.qp)->max_recv_wr);
	}
	vs_t_loop_close(&r);
}

int main(void)
{
	vs_test_require_device();
	/* before any send waits for a receive: 5.10's rxe locks up there */
	if (vs_t_rxe510(VS_T_RXE510_RNR))
		VS_SKIP("no queue filled on %s: %s", vs_t_dev(),
			vs_t_rxe510(VS_T_RXE510_RNR));
	setvbuf(stdout, NULL, _IONBF, 0);
	send_queue_full(false);
	send_queue_full(true);
	return 0;
}
