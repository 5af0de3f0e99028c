/* SPDX-License-Identifier: MIT */
/*
 * The FFI twin (include/verbshim/ffi.h): every inline of the public
 * headers is called here through its out-of-line vs_ffi_ symbol only, on
 * the fake provider of test/stubs: an RC QP and a UD QP brought up over
 * loopback, a batch of every RC operation and a UD send submitted, their
 * completions read back through vs_ffi_cq_poll and the iterator, an SRD
 * QP on the fake libefa driven through every SRD twin, receives
 * posted on the QPs and an SRQ, and every accessor compared with what the
 * QP says.  Each call goes through a volatile function pointer, so the
 * compiler cannot fold it into the inline.
 */
#include "../common/vs_fake.h"

/* the out-of-line symbol, never the inline */
#define FFI(name) (*(__typeof__(&vs_ffi_##name) volatile *)&(__typeof__(&vs_ffi_##name)){ &vs_ffi_##name })

static int calls;
#define CALL(name, ...) (calls++, FFI(name)(__VA_ARGS__))

int main(void)
{
	char fake[PATH_MAX + 32];
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_srq *srq;
	struct vs_rc_qp *rc;
	struct vs_uc_qp *uc;
	struct vs_ud_qp *ud;
	struct vs_endpoint ep;
	struct vs_ud_dest dest;
	struct vs_rc_batch rb;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_srd_qp *srd;
	struct vs_srd_dest sdest;
	struct vs_srd_batch sb;
	struct vs_recv_batch recv;
	struct vs_cq_iter it;
	struct vs_wc wc[16], one;
	struct ibv_qp_attr qa;
	struct ibv_sge sge, result;
	struct vs_remote remote;
	uint64_t *p;
	int n, seen = 0;

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);
	setenv("VS_FAKE_EXTENDED", "1", 1);

	VS_OK(vs_device_open("fake0", &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	VS_OK(vs_srq_create(pd, NULL, &srq));
	VS_ASSERT_EQ(CALL(cq_is_extended, cq), vs_cq_is_extended(cq));

	/* memory: the twins give what the inlines give */
	sge = CALL(mr_sge, mr, 64, 32);
	VS_ASSERT_EQ(sge.length, 32);
	VS_ASSERT_EQ(sge.addr, vs_mr_sge(mr, 64, 32).addr);
	result = CALL(mr_sge, mr, 128, 8);
	remote = CALL(mr_remote, mr, 2048);
	VS_ASSERT_EQ(remote.addr, vs_mr_remote(mr, 2048).addr);
	VS_ASSERT_EQ(remote.rkey, vs_mr_remote(mr, 2048).rkey);
	p = CALL(mr_ptr, mr, 2048);
	VS_ASSERT(p == vs_mr_ptr(mr, 2048));
	*p = 5;

	/* RC over loopback */
	VS_OK(CALL(rc_qp_create, pd, &(struct vs_rc_config){ .send_cq = cq }, &rc));
	VS_OK(CALL(rc_endpoint, rc, &ep));
	VS_ASSERT_EQ(ep.qpn, CALL(rc_qp_num, rc));
	VS_ASSERT(CALL(rc_qp_raw, rc) == vs_rc_qp_raw(rc));
	VS_ASSERT_EQ(CALL(rc_qp_is_extended, rc), vs_rc_qp_is_extended(rc));
	VS_ASSERT(CALL(rc_qp_caps, rc) == vs_rc_qp_caps(rc));
	VS_OK(CALL(rc_handshake, rc, &ep));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	VS_OK(CALL(rc_qp_modify, rc, &qa, IBV_QP_STATE));
	VS_OK(CALL(rc_recv_start, rc, &recv));
	VS_OK(CALL(recv_add, &recv, 100, &sge, 1));
	VS_OK(CALL(recv_submit, &recv));

	VS_OK(CALL(rc_batch_start, rc, &rb));
	VS_OK(CALL(rc_send, &rb, 1, VS_WR_SIGNALED, &sge, 1));
	VS_OK(CALL(rc_send_imm, &rb, 2, VS_WR_SIGNALED, 7, &sge, 1));
	VS_OK(CALL(rc_write, &rb, 3, VS_WR_SIGNALED, &sge, 1, remote));
	VS_OK(CALL(rc_write_imm, &rb, 4, VS_WR_SIGNALED, 8, &sge, 1, remote));
	VS_OK(CALL(rc_read, &rb, 5, VS_WR_SIGNALED, &sge, 1, remote));
	VS_OK(CALL(rc_cas, &rb, 6, VS_WR_SIGNALED, &result, remote, 5, 6));
	VS_OK(CALL(rc_faa, &rb, 7, VS_WR_SIGNALED, &result, remote, 1));
	VS_OK(CALL(rc_batch_submit, &rb));
	/* an aborted batch posts nothing */
	VS_OK(CALL(rc_batch_start, rc, &rb));
	VS_OK(CALL(rc_send, &rb, 99, VS_WR_SIGNALED, &sge, 1));
	CALL(rc_batch_abort, &rb);

	/* completions: the first few by poll, the rest by the iterator */
	n = CALL(cq_poll, cq, wc, 3);
	VS_ASSERT_EQ(n, 3);
	for (int i = 0; i < n; i++) {
		VS_ASSERT_EQ(wc[i].wr_id, (uint64_t)(i + 1));
		VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
	}
	seen = n;
	VS_OK(CALL(cq_iter_start, cq, &it));
	do {
		uint64_t id = CALL(cq_iter_wr_id, &it);

		VS_ASSERT_EQ(id, (uint64_t)(seen + 1));
		VS_ASSERT_EQ(CALL(cq_iter_status, &it), IBV_WC_SUCCESS);
		(void)CALL(cq_iter_opcode, &it);
		(void)CALL(cq_iter_byte_len, &it);
		(void)CALL(cq_iter_wc_flags, &it);
		(void)CALL(cq_iter_imm, &it);
		VS_ASSERT_EQ(CALL(cq_iter_qp_num, &it), ep.qpn);
		(void)CALL(cq_iter_src_qp, &it);
		(void)CALL(cq_iter_timestamp, &it);
		CALL(cq_iter_read, &it, &one);
		VS_ASSERT_EQ(one.wr_id, id);
		seen++;
	} while (CALL(cq_iter_next, &it) == 0);
	CALL(cq_iter_end, &it);
	VS_ASSERT_EQ(seen, 7); /* all seven, not the aborted one */

	/* UC and UD */
	VS_OK(CALL(uc_qp_create, pd, &(struct vs_uc_config){ .send_cq = cq }, &uc));
	VS_OK(CALL(uc_endpoint, uc, &ep));
	VS_ASSERT_EQ(ep.qpn, CALL(uc_qp_num, uc));
	VS_ASSERT(CALL(uc_qp_raw, uc) == vs_uc_qp_raw(uc));
	VS_ASSERT_EQ(CALL(uc_qp_is_extended, uc), vs_uc_qp_is_extended(uc));
	VS_ASSERT(CALL(uc_qp_caps, uc) == vs_uc_qp_caps(uc));
	VS_OK(CALL(uc_handshake, uc, &ep));
	VS_OK(CALL(uc_qp_modify, uc, &qa, IBV_QP_STATE));
	VS_OK(CALL(uc_recv_start, uc, &recv));
	CALL(recv_abort, &recv);
	VS_OK(CALL(uc_batch_start, uc, &ub));
	VS_OK(CALL(uc_send, &ub, 11, 0, &sge, 1));
	VS_OK(CALL(uc_send_imm, &ub, 12, 0, 9, &sge, 1));
	VS_OK(CALL(uc_write, &ub, 13, 0, &sge, 1, remote));
	VS_OK(CALL(uc_write_imm, &ub, 14, VS_WR_SIGNALED, 10, &sge, 1, remote));
	VS_OK(CALL(uc_batch_submit, &ub));
	VS_OK(CALL(uc_batch_start, uc, &ub));
	CALL(uc_batch_abort, &ub);
	VS_ASSERT_EQ(CALL(cq_poll, cq, wc, 16), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 14);

	VS_OK(CALL(ud_qp_create, pd, &(struct vs_ud_config){ .send_cq = cq }, &ud));
	VS_OK(CALL(ud_endpoint, ud, &ep));
	VS_ASSERT_EQ(ep.qpn, CALL(ud_qp_num, ud));
	VS_ASSERT(CALL(ud_qp_raw, ud) == vs_ud_qp_raw(ud));
	VS_ASSERT_EQ(CALL(ud_qp_is_extended, ud), vs_ud_qp_is_extended(ud));
	VS_ASSERT(CALL(ud_qp_caps, ud) == vs_ud_qp_caps(ud));
	VS_OK(vs_ud_handshake(ud, &ep, &dest));
	VS_OK(CALL(ud_qp_modify, ud, &qa, IBV_QP_STATE));
	VS_OK(CALL(ud_recv_start, ud, &recv));
	CALL(recv_abort, &recv);
	VS_OK(CALL(ud_batch_start, ud, &db));
	VS_OK(CALL(ud_send, &db, 21, 0, &dest, &sge, 1));
	VS_OK(CALL(ud_send_imm, &db, 22, VS_WR_SIGNALED, &dest, 3, &sge, 1));
	VS_OK(CALL(ud_batch_submit, &db));
	VS_OK(CALL(ud_batch_start, ud, &db));
	CALL(ud_batch_abort, &db);
	VS_ASSERT_EQ(CALL(cq_poll, cq, wc, 16), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 22);

	/* SRD on the fake libefa (every RDMA capability) */
	vs_t_use_fake_efa(EFADV_DEVICE_ATTR_CAPS_RDMA_READ | (1u << 3));
	VS_OK(CALL(srd_qp_create, pd, &(struct vs_srd_config){ .send_cq = cq }, &srd));
	VS_OK(CALL(srd_endpoint, srd, &ep));
	VS_ASSERT_EQ(ep.qpn, CALL(srd_qp_num, srd));
	VS_ASSERT(CALL(srd_qp_raw, srd) == vs_srd_qp_raw(srd));
	VS_ASSERT_EQ(CALL(srd_qp_is_extended, srd), vs_srd_qp_is_extended(srd));
	VS_ASSERT(CALL(srd_qp_caps, srd) == vs_srd_qp_caps(srd));
	VS_OK(vs_srd_handshake(srd, &ep, &sdest));
	VS_OK(CALL(srd_qp_modify, srd, &qa, IBV_QP_STATE));
	VS_OK(CALL(srd_recv_start, srd, &recv));
	CALL(recv_abort, &recv);
	VS_OK(CALL(srd_batch_start, srd, &sb));
	VS_OK(CALL(srd_send, &sb, 31, 0, &sdest, &sge, 1));
	VS_OK(CALL(srd_send_imm, &sb, 32, 0, &sdest, 3, &sge, 1));
	VS_OK(CALL(srd_write, &sb, 33, 0, &sdest, &sge, 1, remote));
	VS_OK(CALL(srd_write_imm, &sb, 34, 0, &sdest, 4, &sge, 1, remote));
	VS_OK(CALL(srd_read, &sb, 35, VS_WR_SIGNALED, &sdest, &sge, 1, remote));
	VS_OK(CALL(srd_batch_submit, &sb));
	VS_OK(CALL(srd_batch_start, srd, &sb));
	CALL(srd_batch_abort, &sb);
	VS_ASSERT_EQ(CALL(cq_poll, cq, wc, 16), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 35);
	VS_OK(vs_srd_dest_release(&sdest));
	VS_OK(CALL(srd_qp_close, srd));

	VS_OK(CALL(srq_recv_start, srq, &recv));
	VS_OK(CALL(recv_add, &recv, 200, &sge, 1));
	VS_OK(CALL(recv_submit, &recv));

	/* the twins refuse what the inlines refuse, naming the inline */
	VS_ASSERT_EQ(CALL(rc_batch_submit, NULL), -EINVAL);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_batch_submit");

	VS_OK(vs_ud_dest_release(&dest));
	VS_OK(CALL(ud_qp_close, ud));
	VS_OK(CALL(uc_qp_close, uc));
	VS_OK(CALL(rc_qp_close, rc));
	VS_OK(vs_srq_close(srq));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
	printf("%d calls through the vs_ffi_ twins\n", calls);
	return 0;
}
