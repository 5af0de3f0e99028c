/* SPDX-License-Identifier: MIT */
/*
 * Waiting for one's own work on rxe (verbshim/scope.h), extended and
 * legacy, busy-polling and sleeping on a channel:
 *  - RC: a scope of unsignaled RDMA writes and a read on one QP while a
 *    second QP on the same CQ sends and receives: the scope's WRs are
 *    waited for in any order (vs_scope_wait), the bytes checked when the
 *    scope ends, and the other QP's sends and receives are all still
 *    there afterwards, in each queue's order, their bytes checked;
 *  - vs_cq_wait_wr picks one receive out of a CQ with a send ahead of it;
 *  - an error inside a scope (an RDMA write with a wrong rkey): the first
 *    error is that WR's IBV_WC_REM_ACCESS_ERR, the later WR is flushed;
 *  - a timeout: a send waiting for a receive (RNR, retried for ever)
 *    times out with the scope still open, then completes once the receive
 *    is posted, the bytes checked;
 *  - UC writes and UD sends in scopes, bytes checked.
 */
#include <unistd.h>

#include "../common/vs_typed.h"

#define MRLEN 65536
/* a one-SGE list of the rig's MR */
#define SGE(off, len) ((struct ibv_sge[]){ vs_mr_sge(r->mr, (off), (len)) })

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_channel *ch;
	struct vs_cq *cq; /* on ch: everything here completes on it */
	struct vs_mr *mr;
	uint8_t *m;
	enum vs_wait_mode mode;
};

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + 1);
}

static struct vs_rc_qp *rc_self(struct rig *r)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq },
			      &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	return qp;
}

/* Two RC QPs connected to each other. */
static void rc_pair(struct rig *r, struct vs_rc_qp **x, struct vs_rc_qp **y)
{
	struct vs_endpoint ex, ey;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, x));
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, y));
	VS_OK(vs_rc_endpoint(*x, &ex));
	VS_OK(vs_rc_endpoint(*y, &ey));
	VS_OK(vs_rc_handshake(*x, &ey));
	VS_OK(vs_rc_handshake(*y, &ex));
}

static void recv_one(struct vs_rc_qp *qp, uint64_t wr_id, struct ibv_sge s)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_recv_start(qp, &rb));
	VS_OK(vs_recv_add(&rb, wr_id, &s, 1));
	VS_OK(vs_recv_submit(&rb));
}

/* Up to n completions of cq by ordinary polls or waits, 10 s at most. */
static int collect(struct rig *r, struct vs_wc *wc, int n)
{
	uint64_t end = vs_t_now_ms() + 10000;
	int got = 0;

	while (got < n && vs_t_now_ms() < end) {
		int k = r->mode == VS_WAIT_SLEEP ?
				vs_cq_wait(r->cq, 1000, wc + got, n - got) :
				vs_cq_poll(r->cq, wc + got, n - got);

		if (k == -ETIMEDOUT)
			continue;
		if (k < 0)
			VS_FAIL("collect: %d: %s", k, vs_t_err());
		got += k;
	}
	return got;
}

static void test_rc(struct rig *r)
{
	struct vs_rc_qp *a = rc_self(r), *b = rc_self(r);
	uint32_t bn = vs_rc_qp_num(b);
	struct vs_scope s;
	struct vs_rc_batch rb;
	struct vs_wc wc, other[8];
	int sends = 0, recvs = 0;

	/* sources 0..16K, write sinks 16K..32K, read sink 32K; b's at 48K */
	fill(r->m, 16384, 1);
	memset(r->m + 16384, 0, MRLEN - 16384);
	fill(r->m + 48 * 1024, 1024, 2);
	/* other work on the same CQ: b sends two messages to itself */
	recv_one(b, 900, vs_mr_sge(r->mr, 56 * 1024, 512));
	recv_one(b, 901, vs_mr_sge(r->mr, 57 * 1024, 512));
	VS_OK(vs_rc_batch_start(b, &rb));
	VS_OK(vs_rc_send(&rb, 800, VS_WR_SIGNALED,
			 SGE(48 * 1024, 300), 1));
	VS_OK(vs_rc_send(&rb, 801, VS_WR_SIGNALED,
			 SGE(49 * 1024 - 512, 512), 1));
	VS_OK(vs_rc_batch_submit(&rb));

	VS_OK(vs_scope_begin(&s, r->mode));
	VS_OK(vs_scope_rc_batch_start(&s, a, &rb));
	for (int i = 0; i < 3; i++) /* unsignaled: the scope sees them all */
		VS_OK(vs_rc_write(&rb, 1 + (uint64_t)i, 0,
				  SGE((size_t)i * 4096, 4096),
				  1, vs_mr_remote(r->mr, 16384 + (size_t)i * 4096)));
	VS_OK(vs_rc_batch_submit(&rb));
	VS_OK(vs_scope_rc_batch_start(&s, a, &rb));
	VS_OK(vs_rc_write(&rb, 4, 0, SGE(12288, 4096),
			  1, vs_mr_remote(r->mr, 16384 + 12288)));
	/* reads what write 1 wrote (fence: after the writes) */
	VS_OK(vs_rc_read(&rb, 5, VS_WR_FENCE,
			 SGE(32768, 4096), 1,
			 vs_mr_remote(r->mr, 16384)));
	VS_OK(vs_rc_batch_submit(&rb));
	/* the last first, then one done on the way */
	VS_OK(vs_scope_wait(&s, 5, 10000, &wc));
	VS_ASSERT_EQ(wc.wr_id, 5);
	VS_ASSERT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	VS_ASSERT_EQ(wc.byte_len, 4096);
	VS_ASSERT_EQ(wc.qp_num, vs_rc_qp_num(a));
	VS_OK(vs_scope_wait(&s, 2, 0, &wc));
	VS_ASSERT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	VS_OK(vs_scope_end(&s, 10000, NULL));
	/* the buffers are ours: every byte arrived */
	VS_ASSERT_MEMEQ(r->m + 16384, r->m, 16384);
	VS_ASSERT_MEMEQ(r->m + 32768, r->m, 4096);

	/* b's sends and receives, none lost, each queue in order */
	VS_ASSERT_EQ(collect(r, other, 4), 4);
	for (int i = 0; i < 4; i++) {
		VS_ASSERT_EQ(other[i].status, IBV_WC_SUCCESS);
		VS_ASSERT_EQ(other[i].qp_num, bn);
		if (other[i].opcode == IBV_WC_SEND)
			VS_ASSERT_EQ(other[i].wr_id, 800 + (uint64_t)sends++);
		else
			VS_ASSERT_EQ(other[i].wr_id, 900 + (uint64_t)recvs++);
	}
	VS_ASSERT_EQ(sends, 2);
	VS_ASSERT_EQ(recvs, 2);
	VS_ASSERT_MEMEQ(r->m + 56 * 1024, r->m + 48 * 1024, 300);
	VS_ASSERT_MEMEQ(r->m + 57 * 1024, r->m + 49 * 1024 - 512, 512);
	vs_t_no_more(r->cq);

	/* one receive picked out from behind a send */
	recv_one(b, 600, vs_mr_sge(r->mr, 58 * 1024, 512));
	VS_OK(vs_rc_batch_start(b, &rb));
	VS_OK(vs_rc_send(&rb, 700, VS_WR_SIGNALED,
			 SGE(48 * 1024 + 100, 200), 1));
	VS_OK(vs_rc_batch_submit(&rb));
	VS_OK(vs_cq_wait_wr(r->cq, bn, 600, r->mode, 10000, &wc));
	vs_t_expect_wc(&wc, 600, IBV_WC_RECV, 200);
	VS_ASSERT_MEMEQ(r->m + 58 * 1024, r->m + 48 * 1024 + 100, 200);
	VS_ASSERT_EQ(collect(r, other, 1), 1);
	vs_t_expect_wc(&other[0], 700, IBV_WC_SEND, UINT32_MAX);
	vs_t_no_more(r->cq);

	VS_OK(vs_rc_qp_close(a));
	/*
	 * An error inside a scope: 11 has a wrong rkey, 12 is flushed.  Two
	 * QPs: on a self-connected one, kernel 6.12's rxe lets the responder's
	 * error flush the requester before the NAK is seen (all flushed).
	 */
	{
		struct vs_remote bad = vs_mr_remote(r->mr, 16384);
		struct vs_wc first;
		struct vs_rc_qp *peer;

		rc_pair(r, &a, &peer);

		bad.rkey ^= 0x5a5a00;
		VS_OK(vs_scope_begin(&s, r->mode));
		VS_OK(vs_scope_rc_batch_start(&s, a, &rb));
		VS_OK(vs_rc_write(&rb, 10, 0, SGE(0, 64),
				  1, vs_mr_remote(r->mr, 16384)));
		VS_OK(vs_rc_write(&rb, 11, 0, SGE(0, 64),
				  1, bad));
		VS_OK(vs_rc_write(&rb, 12, 0, SGE(0, 64),
				  1, vs_mr_remote(r->mr, 16384)));
		VS_OK(vs_rc_batch_submit(&rb));
		VS_FAILS(vs_scope_end(&s, 10000, &first), EIO, "WR 11 on QP");
		VS_ASSERT_EQ(first.wr_id, 11);
		VS_ASSERT_EQ(first.status, IBV_WC_REM_ACCESS_ERR);
		printf("  scope error: %s\n", vs_last_error()->message);
		VS_ASSERT_PTR_EQ(s.p, NULL);
		VS_OK(vs_rc_qp_close(peer));
	}
	VS_OK(vs_rc_qp_close(a));
	/* nothing of the scope's is left: only the QPs' flushed receives */
	for (int k; (k = vs_cq_poll(r->cq, other, 8)) > 0;)
		for (int i = 0; i < k; i++)
			VS_ASSERT(other[i].wr_id < 10 || other[i].wr_id > 12);

	/* a timeout: b's send waits for a receive (RNR, retried for ever) */
	{
		memset(r->m + 60 * 1024, 0, 1024);
		VS_OK(vs_scope_begin(&s, r->mode));
		VS_OK(vs_scope_rc_batch_start(&s, b, &rb));
		VS_OK(vs_rc_send(&rb, 20, 0, SGE(0, 1000),
				 1));
		VS_OK(vs_rc_batch_submit(&rb));
		uint64_t t0 = vs_t_now_ms();

		VS_ASSERT_EQ(vs_scope_end(&s, 300, NULL), -ETIMEDOUT);
		VS_ASSERT(vs_t_now_ms() - t0 >= 299 && vs_t_now_ms() - t0 < 10000);
		VS_ASSERT(s.p != NULL);
		VS_ASSERT_EQ(vs_scope_end(&s, 0, NULL), -EAGAIN);
		recv_one(b, 21, vs_mr_sge(r->mr, 60 * 1024, 1024));
		VS_OK(vs_scope_end(&s, 20000, NULL));
		VS_ASSERT_MEMEQ(r->m + 60 * 1024, r->m, 1000);
		VS_ASSERT_EQ(collect(r, other, 1), 1);
		vs_t_expect_wc(&other[0], 21, IBV_WC_RECV, 1000);
	}
	VS_OK(vs_rc_qp_close(b));
	vs_t_no_more(r->cq);
}

static void test_uc_ud(struct rig *r)
{
	struct vs_uc_qp *uc;
	struct vs_ud_qp *ud;
	struct vs_endpoint ep;
	struct vs_ud_dest to_self;
	struct vs_scope s;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_recv_batch rb;
	struct vs_wc wc[2];

	fill(r->m, 8192, 3);
	memset(r->m + 8192, 0, MRLEN - 8192);
	VS_OK(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq }, &uc));
	VS_OK(vs_uc_endpoint(uc, &ep));
	VS_OK(vs_uc_handshake(uc, &ep));
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &ud));
	VS_OK(vs_ud_endpoint(ud, &ep));
	VS_OK(vs_ud_handshake(ud, &ep, &to_self));
	VS_OK(vs_ud_recv_start(ud, &rb));
	VS_OK(vs_recv_add(&rb, 40, SGE(32768, VS_UD_GRH_BYTES + 1024), 1));
	VS_OK(vs_recv_add(&rb, 41, SGE(36864, VS_UD_GRH_BYTES + 1024), 1));
	VS_OK(vs_recv_submit(&rb));

	/* one scope over both transports */
	VS_OK(vs_scope_begin(&s, r->mode));
	VS_OK(vs_scope_uc_batch_start(&s, uc, &ub));
	VS_OK(vs_uc_write(&ub, 1, 0, SGE(0, 2048),
			  1, vs_mr_remote(r->mr, 16384)));
	VS_OK(vs_uc_write(&ub, 2, 0, SGE(2048, 2048),
			  1, vs_mr_remote(r->mr, 16384 + 2048)));
	VS_OK(vs_uc_batch_submit(&ub));
	VS_OK(vs_scope_ud_batch_start(&s, ud, &db));
	VS_OK(vs_ud_send(&db, 3, 0, &to_self,
			 SGE(4096, 700), 1));
	VS_OK(vs_ud_send_imm(&db, 4, VS_WR_INLINE, &to_self, 77,
			     SGE(5000, 40), 1));
	VS_OK(vs_ud_batch_submit(&db));
	VS_OK(vs_scope_end(&s, 10000, NULL));
	/*
	 * UC has no acknowledgements: a write's completion says the source
	 * buffer is free again, not that the bytes have landed (rxe on 6.12
	 * completes it before its responder has copied them).  Wait for them
	 * (20 s: a loaded TCG guest once took more than 2).
	 */
	for (int i = 0; i < 20000 && memcmp(r->m + 16384, r->m, 4096); i++)
		usleep(1000);
	VS_ASSERT_MEMEQ(r->m + 16384, r->m, 4096);
	/* the receives are other work: still there, bytes checked */
	VS_ASSERT_EQ(collect(r, wc, 2), 2);
	vs_t_expect_wc(&wc[0], 40, IBV_WC_RECV, VS_UD_GRH_BYTES + 700);
	vs_t_expect_wc(&wc[1], 41, IBV_WC_RECV, VS_UD_GRH_BYTES + 40);
	VS_ASSERT_EQ(wc[1].imm, 77);
	VS_ASSERT_MEMEQ(r->m + 32768 + VS_UD_GRH_BYTES, r->m + 4096, 700);
	VS_ASSERT_MEMEQ(r->m + 36864 + VS_UD_GRH_BYTES, r->m + 5000, 40);
	vs_t_no_more(r->cq);
	VS_OK(vs_uc_qp_close(uc));
	VS_OK(vs_ud_qp_close(ud));
	VS_OK(vs_ud_dest_release(&to_self));
}

static void run(bool legacy, enum vs_wait_mode mode)
{
	struct rig r = { .mode = mode };

	vs_set_force_legacy(legacy);
	VS_OK(vs_device_open(vs_t_dev(), &r.ctx));
	VS_OK(vs_pd_alloc(r.ctx, &r.pd));
	VS_OK(vs_channel_create(r.ctx, &r.ch));
	VS_OK(vs_cq_create(r.ctx, &(struct vs_cq_config){ .channel = r.ch,
			   .depth = 64 }, &r.cq));
	if (legacy)
		VS_ASSERT(!vs_cq_is_extended(r.cq));
	VS_OK(vs_mr_alloc(r.pd, MRLEN, 0, &r.mr));
	r.m = vs_mr_ptr(r.mr, 0);
	test_rc(&r);
	if (!vs_t_ud_self_lost())
		test_uc_ud(&r);
	VS_OK(vs_mr_close(r.mr));
	VS_OK(vs_cq_close(r.cq));
	VS_OK(vs_channel_close(r.ch));
	VS_OK(vs_pd_close(r.pd));
	VS_OK(vs_device_close(r.ctx));
	printf("scopes on rxe: %s CQ, %s: passed\n",
	       legacy ? "legacy" : "extended where the provider has it",
	       mode == VS_WAIT_SLEEP ? "sleeping on the channel" : "busy-polling");
}

int main(void)
{
	vs_test_require_device();
	vs_t_skip_on_iwarp(VS_T_IWARP_NO_HANDSHAKE);
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int legacy = 0; legacy < 2; legacy++) {
		run(legacy, VS_WAIT_POLL);
		run(legacy, VS_WAIT_SLEEP);
	}
	vs_t_skip_if_ud_self_lost("the UC and UD scope (the RC scopes passed)");
	return 0;
}
