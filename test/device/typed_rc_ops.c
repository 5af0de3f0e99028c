/* SPDX-License-Identifier: MIT */
/*
 * Every RC operation of the typed API on rxe, extended and legacy: the
 * bytes that arrived and the completions' fields.
 */
#include "../common/vs_typed.h"

enum {
	SRC = 0, DST = 4096, RECV = 8192, READ = 12288, ATOM = 16384,
	RES = 16392, MEMSZ = 20480,
};

static void rig_open(struct vs_t_loop *r, bool legacy)
{
	vs_t_loop_open(r, legacy, 256, MEMSZ, (struct vs_rc_config){
		.caps = { .max_send_wr = 64, .max_send_sge = 2,
			  .max_inline_data = 64 },
	});
	if (!legacy)
		printf("extended run: QP %s, CQ %s\n",
		       vs_rc_qp_is_extended(r->qp) ? "ibv_wr_*" : "legacy (provider)",
		       vs_cq_is_extended(r->cq) ? "ibv_start_poll" : "legacy (provider)");
	for (int i = 0; i < 4096; i++)
		r->m[SRC + i] = (uint8_t)(i * 13 + 5);
}

static void post_recv(struct vs_t_loop *r, uint64_t id, uint32_t off, uint32_t len)
{
	struct vs_recv_batch rb;
	struct ibv_sge s = vs_mr_sge(r->mr, off, len);

	VS_OK(vs_rc_recv_start(r->qp, &rb));
	VS_OK(vs_recv_add(&rb, id, &s, 1));
	VS_OK(vs_recv_submit(&rb));
}

/* Sorts two completions so the one with wr_id a comes first. */
static void order(struct vs_wc *wc, uint64_t a)
{
	if (wc[0].wr_id != a) {
		struct vs_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
}

static void test_send(struct vs_t_loop *r, unsigned int flags, bool imm, size_t len)
{
	struct vs_rc_batch b;
	struct vs_wc wc[2];
	struct ibv_sge s = vs_mr_sge(r->mr, SRC, (uint32_t)len);

	memset(r->m + RECV, 0, 4096);
	post_recv(r, 10, RECV, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	if (imm)
		VS_OK(vs_rc_send_imm(&b, 1, VS_WR_SIGNALED | flags, 0xA1B2C3D4, &s, 1));
	else
		VS_OK(vs_rc_send(&b, 1, VS_WR_SIGNALED | flags, &s, 1));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, wc, 2);
	order(wc, 1);
	vs_t_expect_wc(&wc[0], 1, IBV_WC_SEND, UINT32_MAX);
	VS_ASSERT_EQ(wc[0].qp_num, vs_rc_qp_num(r->qp));
	vs_t_expect_wc(&wc[1], 10, IBV_WC_RECV, (uint32_t)len);
	VS_ASSERT_EQ(wc[1].qp_num, vs_rc_qp_num(r->qp));
	VS_ASSERT_EQ(!!(wc[1].wc_flags & IBV_WC_WITH_IMM), imm);
	VS_ASSERT_EQ(wc[1].imm, imm ? 0xA1B2C3D4u : 0);
	VS_ASSERT_MEMEQ(r->m + RECV, r->m + SRC, len);
	VS_ASSERT_EQ(r->m[RECV + len], 0);
	vs_t_no_more(r->cq);
}

static void test_gather(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc[2];
	struct ibv_sge s[2] = { vs_mr_sge(r->mr, SRC + 100, 30),
				vs_mr_sge(r->mr, SRC + 1000, 50) };

	memset(r->m + RECV, 0, 4096);
	post_recv(r, 11, RECV, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_send(&b, 2, VS_WR_SIGNALED | VS_WR_SOLICITED, s, 2));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, wc, 2);
	order(wc, 2);
	vs_t_expect_wc(&wc[0], 2, IBV_WC_SEND, UINT32_MAX);
	vs_t_expect_wc(&wc[1], 11, IBV_WC_RECV, 80);
	VS_ASSERT_MEMEQ(r->m + RECV, r->m + SRC + 100, 30);
	VS_ASSERT_MEMEQ(r->m + RECV + 30, r->m + SRC + 1000, 50);
}

static void test_inline_gather(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc[2];
	struct ibv_sge s[2] = { vs_mr_sge(r->mr, SRC + 7, 20),
				vs_mr_sge(r->mr, SRC + 300, 24) };

	memset(r->m + RECV, 0, 4096);
	post_recv(r, 13, RECV, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_send(&b, 14, VS_WR_SIGNALED | VS_WR_INLINE, s, 2));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, wc, 2);
	order(wc, 14);
	vs_t_expect_wc(&wc[0], 14, IBV_WC_SEND, UINT32_MAX);
	vs_t_expect_wc(&wc[1], 13, IBV_WC_RECV, 44);
	VS_ASSERT_MEMEQ(r->m + RECV, r->m + SRC + 7, 20);
	VS_ASSERT_MEMEQ(r->m + RECV + 20, r->m + SRC + 300, 24);
}

static void test_write(struct vs_t_loop *r, unsigned int flags, size_t len)
{
	struct vs_rc_batch b;
	struct vs_wc wc;
	struct ibv_sge s = vs_mr_sge(r->mr, SRC, (uint32_t)len);

	memset(r->m + DST, 0, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_write(&b, 3, VS_WR_SIGNALED | flags, &s, 1,
			  vs_mr_remote(r->mr, DST)));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 3, IBV_WC_RDMA_WRITE, UINT32_MAX);
	VS_ASSERT_MEMEQ(r->m + DST, r->m + SRC, len);
	VS_ASSERT_EQ(r->m[DST + len], 0);
}

static void test_write_gather(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc;
	struct ibv_sge s[2] = { vs_mr_sge(r->mr, SRC + 10, 100),
				vs_mr_sge(r->mr, SRC + 2000, 900) };

	memset(r->m + DST, 0, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_write(&b, 16, VS_WR_SIGNALED, s, 2, vs_mr_remote(r->mr, DST)));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 16, IBV_WC_RDMA_WRITE, UINT32_MAX);
	VS_ASSERT_MEMEQ(r->m + DST, r->m + SRC + 10, 100);
	VS_ASSERT_MEMEQ(r->m + DST + 100, r->m + SRC + 2000, 900);
	VS_ASSERT_EQ(r->m[DST + 1000], 0);
}

static void test_write_imm(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc[2];
	struct ibv_sge s = vs_mr_sge(r->mr, SRC, 512);

	memset(r->m + DST, 0, 4096);
	post_recv(r, 12, RECV, 16);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_write_imm(&b, 4, VS_WR_SIGNALED, 0x12345678, &s, 1,
			      vs_mr_remote(r->mr, DST + 8)));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, wc, 2);
	order(wc, 4);
	vs_t_expect_wc(&wc[0], 4, IBV_WC_RDMA_WRITE, UINT32_MAX);
	vs_t_expect_wc(&wc[1], 12, IBV_WC_RECV_RDMA_WITH_IMM, UINT32_MAX);
	VS_ASSERT(wc[1].wc_flags & IBV_WC_WITH_IMM);
	VS_ASSERT_EQ(wc[1].imm, 0x12345678u);
	VS_ASSERT_MEMEQ(r->m + DST + 8, r->m + SRC, 512);
}

static void test_read(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc;
	struct ibv_sge s[2] = { vs_mr_sge(r->mr, READ, 100),
				vs_mr_sge(r->mr, READ + 200, 156) };

	memset(r->m + READ, 0, 4096);
	for (int i = 0; i < 256; i++)
		r->m[DST + i] = (uint8_t)(255 - i);
	/* one SGE, fenced like a read-after-write */
	{
		struct ibv_sge one = vs_mr_sge(r->mr, READ + 1024, 256);

		VS_OK(vs_rc_batch_start(r->qp, &b));
		VS_OK(vs_rc_read(&b, 15, VS_WR_SIGNALED | VS_WR_FENCE, &one, 1,
				 vs_mr_remote(r->mr, DST)));
		VS_OK(vs_rc_batch_submit(&b));
		vs_t_wait(r->cq, &wc, 1);
		vs_t_expect_wc(&wc, 15, IBV_WC_RDMA_READ, 256);
		VS_ASSERT_MEMEQ(r->m + READ + 1024, r->m + DST, 256);
	}
	/* scatter into two SGEs: refused on extended rxe QPs (provider bug) */
	VS_OK(vs_rc_batch_start(r->qp, &b));
	if (r->qp->base.bounce) {
		VS_FAILS(vs_rc_read(&b, 5, VS_WR_SIGNALED, s, 2,
				    vs_mr_remote(r->mr, DST)), EOPNOTSUPP,
			 "ibv_wr_set_sge_list");
		vs_rc_batch_abort(&b);
		return;
	}
	VS_OK(vs_rc_read(&b, 5, VS_WR_SIGNALED, s, 2, vs_mr_remote(r->mr, DST)));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 5, IBV_WC_RDMA_READ, 256);
	VS_ASSERT_MEMEQ(r->m + READ, r->m + DST, 100);
	VS_ASSERT_MEMEQ(r->m + READ + 200, r->m + DST + 100, 156);
}

static void test_atomics(struct vs_t_loop *r)
{
	uint64_t *atom = vs_mr_ptr(r->mr, ATOM), *res = vs_mr_ptr(r->mr, RES);
	struct ibv_sge s = vs_mr_sge(r->mr, RES, 8);
	struct vs_rc_batch b;
	struct vs_wc wc;

	*atom = 1000;
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_cas(&b, 6, VS_WR_SIGNALED, &s, vs_mr_remote(r->mr, ATOM),
			1000, 2000));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 6, IBV_WC_COMP_SWAP, UINT32_MAX);
	VS_ASSERT_EQ(*res, 1000);
	VS_ASSERT_EQ(*atom, 2000);

	/* mismatch: old value comes back, memory unchanged */
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_cas(&b, 7, VS_WR_SIGNALED, &s, vs_mr_remote(r->mr, ATOM),
			1000, 3000));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 7, IBV_WC_COMP_SWAP, UINT32_MAX);
	VS_ASSERT_EQ(*res, 2000);
	VS_ASSERT_EQ(*atom, 2000);

	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_faa(&b, 8, VS_WR_SIGNALED, &s, vs_mr_remote(r->mr, ATOM), 42));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 8, IBV_WC_FETCH_ADD, UINT32_MAX);
	VS_ASSERT_EQ(*res, 2000);
	VS_ASSERT_EQ(*atom, 2042);
}

/* Many WRs, one doorbell, only the last signaled: one completion. */
static void test_batch(struct vs_t_loop *r, int n)
{
	struct vs_rc_batch b;
	struct vs_wc wc;

	memset(r->m + DST, 0, 4096);
	VS_OK(vs_rc_batch_start(r->qp, &b));
	for (int i = 0; i < n; i++) {
		struct ibv_sge s = vs_mr_sge(r->mr, SRC + (uint32_t)i * 64, 64);

		VS_OK(vs_rc_write(&b, 100 + (uint64_t)i,
				  i == n - 1 ? VS_WR_SIGNALED : 0, &s, 1,
				  vs_mr_remote(r->mr, DST + (size_t)i * 64)));
	}
	VS_ASSERT_EQ(b.b.count, (uint32_t)n);
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	vs_t_expect_wc(&wc, 100 + (uint64_t)n - 1, IBV_WC_RDMA_WRITE, UINT32_MAX);
	vs_t_no_more(r->cq);
	VS_ASSERT_MEMEQ(r->m + DST, r->m + SRC, (size_t)n * 64);
}

/* Lazy iteration reads the same fields as the batch poll. */
static void test_iter(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_cq_iter it;
	struct ibv_sge s = vs_mr_sge(r->mr, SRC, 32);
	uint64_t until = vs_t_now_ms() + 5000;
	int seen = 0;

	VS_OK(vs_rc_batch_start(r->qp, &b));
	for (int i = 0; i < 4; i++)
		VS_OK(vs_rc_write(&b, 200 + (uint64_t)i, VS_WR_SIGNALED, &s, 1,
				  vs_mr_remote(r->mr, DST)));
	VS_OK(vs_rc_batch_submit(&b));
	while (seen < 4 && vs_t_now_ms() < until) {
		int ret = vs_cq_iter_start(r->cq, &it);

		if (ret == -ENOENT)
			continue;
		VS_OK(ret);
		do {
			struct vs_wc wc;

			VS_ASSERT_EQ(vs_cq_iter_status(&it), IBV_WC_SUCCESS);
			VS_ASSERT_EQ(vs_cq_iter_wr_id(&it), 200 + (uint64_t)seen);
			VS_ASSERT_EQ(vs_cq_iter_opcode(&it), IBV_WC_RDMA_WRITE);
			VS_ASSERT_EQ(vs_cq_iter_qp_num(&it), vs_rc_qp_num(r->qp));
			VS_ASSERT_EQ(vs_cq_iter_imm(&it), 0);
			vs_cq_iter_read(&it, &wc);
			VS_ASSERT_EQ(wc.wr_id, 200 + (uint64_t)seen);
			seen++;
		} while (vs_cq_iter_next(&it) == 0);
		vs_cq_iter_end(&it);
	}
	VS_ASSERT_EQ(seen, 4);
}

/* A bad rkey: remote access error in the completion (QP then in error). */
static void test_bad_rkey(struct vs_t_loop *r)
{
	struct vs_rc_batch b;
	struct vs_wc wc;
	struct ibv_sge s = vs_mr_sge(r->mr, SRC, 64);
	struct vs_remote bad = vs_mr_remote(r->mr, DST);

	bad.rkey ^= 0x5a5a00;
	VS_OK(vs_rc_batch_start(r->qp, &b));
	VS_OK(vs_rc_write(&b, 9, VS_WR_SIGNALED, &s, 1, bad));
	VS_OK(vs_rc_batch_submit(&b));
	vs_t_wait(r->cq, &wc, 1);
	/* 6.1's rxe reports the NAK as a remote access error; 6.12's flushes
	 * the WR when the QP enters the error state.  Either way the write
	 * failed and nothing landed. */
	if (wc.wr_id != 9 || (wc.status != IBV_WC_REM_ACCESS_ERR &&
			      wc.status != IBV_WC_WR_FLUSH_ERR))
		VS_FAIL("bad rkey: completion wr_id %llu status %s opcode %d "
			"qp_num %u vendor_err 0x%x",
			(unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
			wc.opcode, wc.qp_num, wc.vendor_err);
}

static void run(bool legacy)
{
	struct vs_t_loop r;

	memset(&r, 0, sizeof(r));
	rig_open(&r, legacy);
	printf("send\n");
	test_send(&r, 0, false, 1000);
	printf("send with immediate\n");
	test_send(&r, 0, true, 77);
	printf("inline send\n");
	test_send(&r, VS_WR_INLINE, false, 48);
	printf("inline send with immediate\n");
	test_send(&r, VS_WR_INLINE, true, 1);
	printf("gather, inline gather, writes, read, atomics, batches\n");
	test_gather(&r);
	test_inline_gather(&r);
	test_write(&r, 0, 4000);
	test_write(&r, VS_WR_INLINE, 60);
	test_write_gather(&r);
	test_write_imm(&r);
	test_read(&r);
	test_atomics(&r);
	test_batch(&r, 3);
	test_batch(&r, 32);
	test_iter(&r);
	test_bad_rkey(&r);
	vs_t_loop_close(&r);
	printf("RC operations passed in %s mode\n", legacy ? "legacy" : "extended");
}

int main(void)
{
	vs_test_require_device();
	setvbuf(stdout, NULL, _IONBF, 0);
	run(false);
	run(true);
	return 0;
}
