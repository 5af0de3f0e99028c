/* SPDX-License-Identifier: MIT */
/*
 * The misuse suite: plausible mistakes a user makes with the typed API,
 * one scenario per case, each asserting the exact result (errno and the
 * key words of the message).  It drives the whole API against the fake
 * provider of test/stubs (build/stubs/fake/libibverbs.so.1: objects are
 * malloc'ed and freed on destroy), so a read of freed memory or a leak is
 * caught by the ASan+UBSan and valgrind stages, which run this program
 * too.  After every case all objects must be gone (the fake counts them).
 * The SRD cases use the fake libefa (test/stubs/stub_fake_efa.c; SRD QPs
 * are always extended, so both passes drive ibv_wr_* there).
 * Every case runs twice: on extended verbs (ibv_wr_*, ibv_start_poll; the
 * fake offers them with VS_FAKE_EXTENDED=1) and on legacy verbs.
 *
 *   typed_misuse            every case
 *   typed_misuse NAME...    only those (for debugging)
 */
#include <fcntl.h>

#include "../common/vs_fake.h"
#include "vs_config.h" /* VS_HAVE_IBVERBS_1_12: dmabuf MRs */

static struct {
	char verb[48];
	int err;
} *fail_next;	/* the fake's vs_stub_fail */
static int *live;	/* the fake's vs_stub_live: ctx pd mr cq qp srq ah */
static const char *const live_names[] = { "ctx", "pd", "mr", "cq", "qp", "srq", "ah" };
static bool extended; /* this pass: extended verbs, else legacy */

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_srq *srq;
	struct vs_rc_qp *rc;
	struct vs_uc_qp *uc;
	struct vs_ud_qp *ud;
	struct vs_ud_dest dest;
	struct ibv_sge sge;	/* 64 bytes at 0 of mr */
	struct vs_remote remote; /* mr at 2048 */
};

static void rig_up(struct rig *r)
{
	struct vs_endpoint ep;

	memset(r, 0, sizeof(*r));
	VS_OK(vs_device_open("fake0", &r->ctx));
	VS_OK(vs_pd_alloc(r->ctx, &r->pd));
	VS_OK(vs_cq_create(r->ctx, NULL, &r->cq));
	VS_OK(vs_mr_alloc(r->pd, 4096, 0, &r->mr));
	VS_OK(vs_srq_create(r->pd, NULL, &r->srq));
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &r->rc));
	VS_OK(vs_rc_endpoint(r->rc, &ep));
	VS_OK(vs_rc_handshake(r->rc, &ep));
	VS_OK(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq }, &r->uc));
	VS_OK(vs_uc_endpoint(r->uc, &ep));
	VS_OK(vs_uc_handshake(r->uc, &ep));
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &r->ud));
	VS_OK(vs_ud_endpoint(r->ud, &ep));
	VS_OK(vs_ud_handshake(r->ud, &ep, &r->dest));
	r->sge = vs_mr_sge(r->mr, 0, 64);
	r->remote = vs_mr_remote(r->mr, 2048);
	/* the pass drives the path it says */
	VS_ASSERT_EQ(vs_cq_is_extended(r->cq), extended);
	VS_ASSERT_EQ(vs_rc_qp_is_extended(r->rc), extended);
	VS_ASSERT_EQ(vs_ud_qp_is_extended(r->ud), extended);
}

/* Closes what the case left open (it NULLs what it closed itself). */
static void rig_down(struct rig *r)
{
	VS_OK(vs_ud_dest_release(&r->dest));
	if (r->ud)
		VS_OK(vs_ud_qp_close(r->ud));
	if (r->uc)
		VS_OK(vs_uc_qp_close(r->uc));
	if (r->rc)
		VS_OK(vs_rc_qp_close(r->rc));
	if (r->srq)
		VS_OK(vs_srq_close(r->srq));
	if (r->mr)
		VS_OK(vs_mr_close(r->mr));
	if (r->cq)
		VS_OK(vs_cq_close(r->cq));
	if (r->pd)
		VS_OK(vs_pd_close(r->pd));
	if (r->ctx)
		VS_OK(vs_device_close(r->ctx));
	for (int i = 0; i < 7; i++)
		if (live[i])
			VS_FAIL("%d %s object(s) still alive after the case",
				live[i], live_names[i]);
}

static void inject(const char *verb, int err)
{
	snprintf(fail_next->verb, sizeof(fail_next->verb), "%s", verb);
	fail_next->err = err;
}

#define CASE(name) static void name(struct rig *r __attribute__((unused)))

/* ---- double close ---- */

CASE(pd_double_close)
{
	struct vs_pd *pd;

	VS_OK(vs_pd_alloc(r->ctx, &pd));
	VS_OK(vs_pd_close(pd));
	VS_FAILS(vs_pd_close(pd), EINVAL, "pd is a PD the caller already closed");
}

CASE(mr_double_close)
{
	VS_OK(vs_mr_close(r->mr));
	VS_FAILS(vs_mr_close(r->mr), EINVAL, "mr is an MR the caller already closed");
	r->mr = NULL;
}

CASE(cq_double_close)
{
	struct vs_cq *cq;

	VS_OK(vs_cq_create(r->ctx, NULL, &cq));
	VS_OK(vs_cq_close(cq));
	VS_FAILS(vs_cq_close(cq), EINVAL, "cq is a CQ the caller already closed");
}

CASE(srq_double_close)
{
	VS_OK(vs_srq_close(r->srq));
	VS_FAILS(vs_srq_close(r->srq), EINVAL, "srq is an SRQ the caller already closed");
	r->srq = NULL;
}

CASE(rc_qp_double_close)
{
	VS_OK(vs_rc_qp_close(r->rc));
	VS_FAILS(vs_rc_qp_close(r->rc), EINVAL, "qp is an RC QP the caller already closed");
	r->rc = NULL;
}

CASE(uc_qp_double_close)
{
	VS_OK(vs_uc_qp_close(r->uc));
	VS_FAILS(vs_uc_qp_close(r->uc), EINVAL, "qp is a UC QP the caller already closed");
	r->uc = NULL;
}

CASE(ud_qp_double_close)
{
	VS_OK(vs_ud_qp_close(r->ud));
	VS_FAILS(vs_ud_qp_close(r->ud), EINVAL, "qp is a UD QP the caller already closed");
	r->ud = NULL;
}

CASE(ah_double_close)
{
	struct vs_ah *ah = r->dest.ah;

	VS_OK(vs_ah_close(ah));
	VS_FAILS(vs_ah_close(ah), EINVAL, "ah is an AH the caller already closed");
	memset(&r->dest, 0, sizeof(r->dest));
}

CASE(ctx_double_close)
{
	struct vs_context *ctx;

	VS_OK(vs_device_open(NULL, &ctx));
	VS_OK(vs_device_close(ctx));
	VS_FAILS(vs_device_close(ctx), EINVAL,
		 "ctx is a device context the caller already closed");
}

/* The second close of a CQ two QPs use must not spend their references. */
CASE(cq_double_close_with_two_qps)
{
	VS_OK(vs_cq_close(r->cq));
	VS_FAILS(vs_cq_close(r->cq), EINVAL, "cq is a CQ the caller already closed");
	VS_ASSERT_EQ(live[3], 1);
	VS_OK(vs_rc_qp_close(r->rc));
	VS_OK(vs_uc_qp_close(r->uc));
	VS_ASSERT_EQ(live[3], 1); /* the UD QP still holds it */
	VS_OK(vs_ud_qp_close(r->ud));
	VS_ASSERT_EQ(live[3], 0);
	r->cq = NULL;
	r->rc = NULL;
	r->uc = NULL;
	r->ud = NULL;
}

CASE(pd_double_close_with_dependants)
{
	VS_OK(vs_pd_close(r->pd));
	VS_FAILS(vs_pd_close(r->pd), EINVAL, "pd is a PD the caller already closed");
	VS_FAILS(vs_pd_close(r->pd), EINVAL, "already closed");
	VS_ASSERT_EQ(live[1], 1);
	/* the dependants still work */
	VS_OK(vs_mr_close(r->mr));
	VS_OK(vs_ud_dest_release(&r->dest));
	r->mr = NULL;
	r->pd = NULL;
}

/* ---- use after close ---- */

CASE(poll_closed_cq_kept_alive)
{
	struct vs_wc wc[4];

	VS_OK(vs_cq_close(r->cq));
	VS_FAILS(vs_cq_poll(r->cq, wc, 4), EINVAL, "cq is a CQ the caller already closed");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cq_poll");
	r->cq = NULL;
}

CASE(iter_closed_cq)
{
	struct vs_cq_iter it;

	VS_OK(vs_cq_close(r->cq));
	VS_FAILS(vs_cq_iter_start(r->cq, &it), EINVAL, "cq is a CQ the caller already closed");
	VS_ASSERT_EQ(vs_cq_iter_next(&it), -ENOENT);
	VS_ASSERT_EQ(vs_cq_iter_wr_id(&it), 0);
	vs_cq_iter_end(&it);
	r->cq = NULL;
}

CASE(qp_on_closed_cq)
{
	struct vs_rc_qp *qp = (struct vs_rc_qp *)r;

	VS_OK(vs_cq_close(r->cq));
	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp),
		 EINVAL, "send_cq is a CQ the caller already closed");
	VS_ASSERT(qp == NULL);
	r->cq = NULL;
}

CASE(qp_on_closed_recv_cq)
{
	struct vs_cq *cq;
	struct vs_uc_qp *qp;

	VS_OK(vs_cq_create(r->ctx, NULL, &cq));
	VS_OK(vs_cq_close(cq));
	VS_FAILS(vs_uc_qp_create(r->pd, &(struct vs_uc_config){
		.send_cq = r->cq, .recv_cq = cq }, &qp),
		 EINVAL, "recv_cq is a CQ the caller already closed");
}

CASE(qp_on_closed_pd)
{
	struct vs_ud_qp *qp;

	VS_OK(vs_pd_close(r->pd));
	VS_FAILS(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &qp),
		 EINVAL, "pd is a PD the caller already closed");
	r->pd = NULL;
}

CASE(qp_on_closed_srq)
{
	struct vs_rc_qp *qp;

	VS_OK(vs_srq_close(r->srq));
	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .srq = r->srq }, &qp),
		 EINVAL, "srq is an SRQ the caller already closed");
	r->srq = NULL;
}

CASE(mr_on_closed_pd)
{
	struct vs_mr *mr;

	VS_OK(vs_pd_close(r->pd));
	VS_FAILS(vs_mr_alloc(r->pd, 64, 0, &mr), EINVAL, "pd is a PD the caller already closed");
	VS_FAILS(vs_mr_register(r->pd, r, sizeof(*r), 0, &mr), EINVAL, "already closed");
	r->pd = NULL;
}

CASE(srq_on_closed_pd)
{
	struct vs_srq *srq;

	VS_OK(vs_pd_close(r->pd));
	VS_FAILS(vs_srq_create(r->pd, NULL, &srq), EINVAL, "pd is a PD the caller already closed");
	r->pd = NULL;
}

CASE(pd_on_closed_ctx)
{
	struct vs_pd *pd;

	VS_OK(vs_device_close(r->ctx));
	VS_FAILS(vs_pd_alloc(r->ctx, &pd), EINVAL,
		 "ctx is a device context the caller already closed");
	VS_ASSERT_EQ(live[0], 1); /* the PD and CQ keep it */
	r->ctx = NULL;
}

CASE(cq_on_closed_ctx)
{
	struct vs_cq *cq;

	VS_OK(vs_device_close(r->ctx));
	VS_FAILS(vs_cq_create(r->ctx, NULL, &cq), EINVAL, "ctx is a device context the caller already closed");
	r->ctx = NULL;
}

CASE(ctx_queries_after_close)
{
	struct ibv_device_attr_ex attr;
	struct vs_port_info pi;
	struct vs_gid_info g[4];
	size_t n;

	VS_OK(vs_device_close(r->ctx));
	VS_FAILS(vs_device_attr(r->ctx, &attr), EINVAL, "already closed");
	VS_FAILS(vs_port_info(r->ctx, 1, &pi), EINVAL, "already closed");
	VS_FAILS(vs_gid_table(r->ctx, 1, g, 4, &n), EINVAL, "already closed");
	VS_FAILS(vs_gid_pick(r->ctx, 1, g), EINVAL, "already closed");
	VS_ASSERT(vs_context_raw(r->ctx) == NULL);
	r->ctx = NULL;
}

CASE(modify_after_close)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	VS_OK(vs_rc_qp_close(r->rc));
	VS_FAILS(vs_rc_qp_modify(r->rc, &a, IBV_QP_STATE), EINVAL,
		 "qp is an RC QP the caller already closed");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_qp_modify");
	r->rc = NULL;
}

CASE(batch_start_after_close)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_qp_close(r->rc));
	VS_FAILS(vs_rc_batch_start(r->rc, &b), EINVAL, "qp is an RC QP the caller already closed");
	VS_FAILS(vs_rc_send(&b, 1, 0, &r->sge, 1), EINVAL, "not started");
	VS_FAILS(vs_rc_batch_submit(&b), EINVAL, "not started");
	vs_rc_batch_abort(&b);
	r->rc = NULL;
}

CASE(ud_batch_after_close)
{
	struct vs_ud_batch b;

	VS_OK(vs_ud_qp_close(r->ud));
	VS_FAILS(vs_ud_batch_start(r->ud, &b), EINVAL, "qp is a UD QP the caller already closed");
	r->ud = NULL;
}

CASE(endpoint_after_close)
{
	struct vs_endpoint ep;

	VS_OK(vs_uc_qp_close(r->uc));
	VS_FAILS(vs_uc_endpoint(r->uc, &ep), EINVAL, "qp is a UC QP the caller already closed");
	r->uc = NULL;
}

CASE(handshake_after_close)
{
	struct vs_endpoint ep;

	VS_OK(vs_rc_endpoint(r->rc, &ep));
	VS_OK(vs_rc_qp_close(r->rc));
	VS_FAILS(vs_rc_handshake(r->rc, &ep), EINVAL, "qp is an RC QP the caller already closed");
	r->rc = NULL;
}

CASE(ud_handshake_after_close)
{
	struct vs_endpoint ep;
	struct vs_ud_dest d;

	VS_OK(vs_ud_endpoint(r->ud, &ep));
	VS_OK(vs_ud_qp_close(r->ud));
	VS_FAILS(vs_ud_handshake(r->ud, &ep, &d), EINVAL, "qp is a UD QP the caller already closed");
	r->ud = NULL;
}

CASE(recv_start_after_close)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_qp_close(r->rc));
	VS_FAILS(vs_rc_recv_start(r->rc, &rb), EINVAL, "qp is an RC QP the caller already closed");
	VS_FAILS(vs_recv_add(&rb, 1, &r->sge, 1), EINVAL, "not started");
	r->rc = NULL;
}

CASE(srq_after_close)
{
	struct vs_recv_batch rb;

	VS_OK(vs_srq_close(r->srq));
	VS_FAILS(vs_srq_set_limit(r->srq, 1), EINVAL, "srq is an SRQ the caller already closed");
	VS_FAILS(vs_srq_recv_start(r->srq, &rb), EINVAL, "already closed");
	VS_ASSERT(vs_srq_raw(r->srq) == NULL);
	r->srq = NULL;
}

CASE(mr_sge_after_close)
{
	struct vs_rc_batch b;
	struct ibv_sge s;

	VS_OK(vs_mr_close(r->mr));
	vs_clear_error();
	s = vs_mr_sge(r->mr, 0, 8);
	VS_ASSERT_EQ(s.length, 0);
	VS_ASSERT_EQ(s.lkey, 0);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_sge");
	VS_ASSERT(strstr(vs_last_error()->message, "mr is an MR the caller already closed"));
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_send(&b, 1, 0, &s, 1), EINVAL, "SGE #0 has length 0 and lkey 0");
	VS_OK(vs_rc_batch_submit(&b));
	r->mr = NULL;
}

CASE(mr_remote_after_close)
{
	struct vs_remote rem;

	VS_OK(vs_mr_close(r->mr));
	vs_clear_error();
	rem = vs_mr_remote(r->mr, 0);
	VS_ASSERT_EQ(rem.addr, 0);
	VS_ASSERT_EQ(rem.rkey, 0);
	VS_ASSERT(strstr(vs_last_error()->message, "already closed"));
	r->mr = NULL;
}

CASE(mr_ptr_after_close)
{
	VS_OK(vs_mr_close(r->mr));
	vs_clear_error();
	VS_ASSERT(vs_mr_ptr(r->mr, 0) == NULL);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_ptr");
	VS_ASSERT(vs_mr_raw(r->mr) == NULL);
	r->mr = NULL;
}

CASE(mr_advise_after_close)
{
	VS_OK(vs_mr_close(r->mr));
	VS_FAILS(vs_mr_advise(r->mr, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 0, 8), EINVAL,
		 "mr is an MR the caller already closed");
	r->mr = NULL;
}

CASE(ud_send_through_released_ah)
{
	struct vs_ud_dest stale = r->dest;
	struct vs_ud_batch b;

	VS_OK(vs_ud_dest_release(&r->dest));
	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_FAILS(vs_ud_send(&b, 1, 0, &stale, &r->sge, 1), EINVAL,
		 "dest->ah is an AH the caller already closed");
	VS_FAILS(vs_ud_send_imm(&b, 1, 0, &stale, 7, &r->sge, 1), EINVAL, "already closed");
	VS_OK(vs_ud_batch_submit(&b));
}

CASE(ud_dest_release_after_ah_close)
{
	VS_OK(vs_ah_close(r->dest.ah));
	VS_FAILS(vs_ud_dest_release(&r->dest), EINVAL,
		 "dest->ah is an AH the caller already closed");
	memset(&r->dest, 0, sizeof(r->dest));
}

CASE(raw_accessors_after_close)
{
	struct vs_ah *ah = r->dest.ah;

	VS_OK(vs_ud_dest_release(&r->dest));
	VS_OK(vs_rc_qp_close(r->rc));
	VS_OK(vs_cq_close(r->cq));
	VS_OK(vs_pd_close(r->pd));
	VS_ASSERT(vs_ah_raw(ah) == NULL);
	VS_ASSERT(vs_rc_qp_raw(r->rc) == NULL);
	VS_ASSERT_EQ(vs_rc_qp_num(r->rc), 0);
	VS_ASSERT(vs_rc_qp_caps(r->rc) == NULL);
	VS_ASSERT(!vs_rc_qp_is_extended(r->rc));
	VS_ASSERT(vs_cq_raw(r->cq) == NULL);
	VS_ASSERT(vs_cq_raw_ex(r->cq) == NULL);
	VS_ASSERT(!vs_cq_is_extended(r->cq));
	VS_ASSERT(vs_pd_raw(r->pd) == NULL);
	r->rc = NULL;
	r->cq = NULL;
	r->pd = NULL;
}

/* ---- closing parents, batches, failed destroys ---- */

CASE(ctx_close_first_defers)
{
	VS_OK(vs_device_close(r->ctx));
	VS_ASSERT_EQ(live[0], 1);
	r->ctx = NULL;
	/* everything else still works, and rig_down frees it all */
	VS_OK(vs_cq_poll(r->cq, &(struct vs_wc){ 0 }, 1));
}

CASE(close_everything_parents_first)
{
	VS_OK(vs_device_close(r->ctx));
	VS_OK(vs_pd_close(r->pd));
	VS_OK(vs_cq_close(r->cq));
	VS_ASSERT_EQ(live[0] + live[1] + live[3], 3);
	r->ctx = NULL;
	r->pd = NULL;
	r->cq = NULL;
}

CASE(rc_close_with_open_batch)
{
	struct vs_rc_batch b;
	struct vs_wc wc;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_send(&b, 7, VS_WR_SIGNALED, &r->sge, 1));
	VS_FAILS(vs_rc_qp_close(r->rc), EBUSY, "a send batch is open on this QP");
	VS_OK(vs_rc_batch_submit(&b));
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(wc.wr_id, 7);
}

CASE(uc_close_with_open_batch)
{
	struct vs_uc_batch b;

	VS_OK(vs_uc_batch_start(r->uc, &b));
	VS_FAILS(vs_uc_qp_close(r->uc), EBUSY, "submit or abort it first");
	vs_uc_batch_abort(&b);
}

CASE(ud_close_with_open_batch)
{
	struct vs_ud_batch b;

	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_FAILS(vs_ud_qp_close(r->ud), EBUSY, "a send batch is open");
	vs_ud_batch_abort(&b);
}

CASE(qp_close_with_open_recv_batch)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_recv_start(r->rc, &rb));
	VS_OK(vs_recv_add(&rb, 1, &r->sge, 1));
	VS_FAILS(vs_rc_qp_close(r->rc), EBUSY, "a receive batch is open on this QP");
	VS_OK(vs_recv_submit(&rb));
}

CASE(srq_close_with_open_recv_batch)
{
	struct vs_recv_batch rb;

	VS_OK(vs_srq_recv_start(r->srq, &rb));
	VS_FAILS(vs_srq_close(r->srq), EBUSY, "a receive batch is open on this SRQ");
	vs_recv_abort(&rb);
}

CASE(qp_destroy_busy_then_retry)
{
	struct vs_rc_batch b;

	inject("ibv_destroy_qp", EBUSY);
	VS_FAILS(vs_rc_qp_close(r->rc), EBUSY, "it stays open: close it again to retry");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_destroy_qp");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_qp_close");
	VS_ASSERT_EQ(live[4], 3);
	/* still a working QP */
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_batch_submit(&b));
}

CASE(pd_dealloc_busy_then_retry)
{
	struct vs_pd *pd;
	struct vs_mr *mr;

	VS_OK(vs_pd_alloc(r->ctx, &pd));
	inject("ibv_dealloc_pd", EBUSY);
	VS_FAILS(vs_pd_close(pd), EBUSY, "the PD stays open: close it again to retry");
	VS_OK(vs_mr_alloc(pd, 64, 0, &mr)); /* open again */
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_pd_close(pd));
}

CASE(mr_dereg_busy_then_retry)
{
	inject("ibv_dereg_mr", EBUSY);
	VS_FAILS(vs_mr_close(r->mr), EBUSY, "cannot deregister the MR");
	VS_ASSERT_EQ(vs_mr_sge(r->mr, 0, 8).length, 8);
}

CASE(cq_destroy_busy_then_retry)
{
	struct vs_cq *cq;

	VS_OK(vs_cq_create(r->ctx, NULL, &cq));
	inject("ibv_destroy_cq", EBUSY);
	VS_FAILS(vs_cq_close(cq), EBUSY, "the CQ stays open");
	VS_OK(vs_cq_poll(cq, &(struct vs_wc){ 0 }, 1));
	VS_OK(vs_cq_close(cq));
}

CASE(ctx_close_fails_then_retry)
{
	struct vs_context *ctx;

	VS_OK(vs_device_open(NULL, &ctx));
	inject("ibv_close_device", EBUSY);
	VS_FAILS(vs_device_close(ctx), EBUSY, "the device context stays open");
	VS_OK(vs_device_close(ctx));
}

CASE(srq_destroy_busy_then_retry)
{
	inject("ibv_destroy_srq", EBUSY);
	VS_FAILS(vs_srq_close(r->srq), EBUSY, "cannot destroy the SRQ");
	VS_OK(vs_srq_set_limit(r->srq, 4));
}

CASE(ud_dest_release_busy_keeps_dest)
{
	inject("ibv_destroy_ah", EBUSY);
	VS_FAILS(vs_ud_dest_release(&r->dest), EBUSY, "close it again to retry");
	VS_ASSERT(r->dest.ah != NULL);
	VS_ASSERT(vs_ah_raw(r->dest.ah) != NULL);
}

/* The PD was closed first; its last dependant's close finds it busy. */
CASE(deferred_pd_free_fails)
{
	struct vs_pd *pd;
	struct vs_mr *mr;

	VS_OK(vs_pd_alloc(r->ctx, &pd));
	VS_OK(vs_mr_alloc(pd, 64, 0, &mr));
	VS_OK(vs_pd_close(pd));
	inject("ibv_dealloc_pd", EBUSY);
	VS_FAILS(vs_mr_close(mr), EBUSY, "cannot free the PD");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_dealloc_pd");
	VS_FAILS(vs_mr_close(mr), EINVAL, "already closed"); /* the MR went */
	VS_OK(vs_pd_close(pd)); /* open again: the retry */
}

CASE(failed_create_leaves_nothing)
{
	struct vs_pd *pd = (struct vs_pd *)r;
	struct vs_cq *cq;

	inject("ibv_alloc_pd", ENOMEM);
	VS_FAILS(vs_pd_alloc(r->ctx, &pd), ENOMEM, "cannot allocate a PD on fake0");
	VS_ASSERT(pd == NULL);
	inject("ibv_create_cq", EINVAL);
	VS_FAILS(vs_cq_create(r->ctx, NULL, &cq), EINVAL, "cannot create a CQ of depth 256");
	VS_ASSERT(cq == NULL);
}

CASE(failed_qp_create_leaves_nothing)
{
	struct vs_rc_qp *qp;

	inject("ibv_create_qp", ENOMEM);
	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp),
		 ENOMEM, "cannot create an RC QP");
	VS_ASSERT_EQ(live[4], 3);
}

/* ---- handles of another kind ---- */

CASE(pd_close_with_cq)
{
	VS_FAILS(vs_pd_close((struct vs_pd *)r->cq), EINVAL,
		 "pd is a handle of another kind (CQ, expected PD)");
}

CASE(mr_close_with_pd)
{
	VS_FAILS(vs_mr_close((struct vs_mr *)r->pd), EINVAL, "(PD, expected MR)");
}

CASE(ctx_close_with_pd)
{
	VS_FAILS(vs_device_close((struct vs_context *)r->pd), EINVAL,
		 "(PD, expected device context)");
}

CASE(poll_with_pd)
{
	struct vs_wc wc;

	VS_FAILS(vs_cq_poll((struct vs_cq *)r->pd, &wc, 1), EINVAL, "(PD, expected CQ)");
}

CASE(rc_batch_on_ud_qp)
{
	struct vs_rc_batch b;

	VS_FAILS(vs_rc_batch_start((struct vs_rc_qp *)r->ud, &b), EINVAL,
		 "(UD QP, expected RC QP)");
}

CASE(uc_batch_on_rc_qp)
{
	struct vs_uc_batch b;

	VS_FAILS(vs_uc_batch_start((struct vs_uc_qp *)r->rc, &b), EINVAL,
		 "(RC QP, expected UC QP)");
}

CASE(ud_handshake_with_rc_qp)
{
	struct vs_endpoint ep;
	struct vs_ud_dest d;

	VS_OK(vs_ud_endpoint(r->ud, &ep));
	VS_FAILS(vs_ud_handshake((struct vs_ud_qp *)r->rc, &ep, &d), EINVAL,
		 "(RC QP, expected UD QP)");
}

CASE(srq_recv_with_cq)
{
	struct vs_recv_batch rb;

	VS_FAILS(vs_srq_recv_start((struct vs_srq *)r->cq, &rb), EINVAL, "(CQ, expected SRQ)");
}

CASE(qp_create_send_cq_is_pd)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = (struct vs_cq *)r->pd }, &qp),
		 EINVAL, "send_cq is a handle of another kind (PD, expected CQ)");
}

CASE(qp_create_srq_is_mr)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .srq = (struct vs_srq *)r->mr }, &qp),
		 EINVAL, "srq is a handle of another kind (MR, expected SRQ)");
}

CASE(ud_dest_ah_is_mr)
{
	struct vs_ud_dest d = { (struct vs_ah *)r->mr, 1, 1 };
	struct vs_ud_batch b;

	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_FAILS(vs_ud_send(&b, 1, 0, &d, &r->sge, 1), EINVAL, "(MR, expected AH)");
	vs_ud_batch_abort(&b);
}

CASE(garbage_handle)
{
	uint32_t junk[16] = { 0x12345678 };

	VS_FAILS(vs_cq_close((struct vs_cq *)junk), EINVAL, "unknown handle");
}

CASE(mr_sge_with_cq)
{
	vs_clear_error();
	VS_ASSERT_EQ(vs_mr_sge((struct vs_mr *)r->cq, 0, 8).lkey, 0);
	VS_ASSERT(strstr(vs_last_error()->message, "(CQ, expected MR)"));
}

/* ---- NULL and empty arguments ---- */

CASE(mr_sge_null)
{
	struct ibv_sge s;

	vs_clear_error();
	s = vs_mr_sge(NULL, 0, 8);
	VS_ASSERT_EQ(s.addr, 0);
	VS_ASSERT_EQ(s.length, 0);
	VS_ASSERT_STREQ(vs_last_error()->message, "mr is NULL");
}

CASE(mr_remote_null)
{
	vs_clear_error();
	VS_ASSERT_EQ(vs_mr_remote(NULL, 0).rkey, 0);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_remote");
}

CASE(mr_ptr_null)
{
	VS_ASSERT(vs_mr_ptr(NULL, 0) == NULL);
	VS_ASSERT_STREQ(vs_last_error()->message, "mr is NULL");
}

CASE(gid_table_null_out_cap0)
{
	size_t n = 0;

	VS_OK(vs_gid_table(r->ctx, 1, NULL, 0, &n));
	VS_ASSERT_EQ(n, 2);
}

CASE(gid_table_null_out_cap4)
{
	size_t n;

	VS_FAILS(vs_gid_table(r->ctx, 1, NULL, 4, &n), EINVAL, "out is NULL");
}

CASE(gid_table_null_count)
{
	struct vs_gid_info g[2];

	VS_FAILS(vs_gid_table(r->ctx, 1, g, 2, NULL), EINVAL, "count is NULL");
}

CASE(gid_table_bad_port)
{
	struct vs_gid_info g[2];
	size_t n;

	VS_FAILS(vs_gid_table(r->ctx, 3, g, 2, &n), EINVAL, "port 3 does not exist on fake0");
}

CASE(gid_pick_null_out)
{
	VS_FAILS(vs_gid_pick(r->ctx, 1, NULL), EINVAL, "out is NULL");
}

CASE(port_info_null_out)
{
	VS_FAILS(vs_port_info(r->ctx, 1, NULL), EINVAL, "out is NULL");
}

CASE(port_info_port0)
{
	struct vs_port_info pi;

	VS_FAILS(vs_port_info(r->ctx, 0, &pi), EINVAL, "port 0 does not exist");
}

CASE(device_attr_null_out)
{
	VS_FAILS(vs_device_attr(r->ctx, NULL), EINVAL, "out is NULL");
}

CASE(device_open_unknown_name)
{
	struct vs_context *ctx;

	VS_FAILS(vs_device_open("mlx5_9", &ctx), ENODEV,
		 "no RDMA device named \"mlx5_9\" (found: fake0)");
}

CASE(device_list_null_entries)
{
	size_t n;

	VS_FAILS(vs_device_list(NULL, 2, &n), EINVAL, "entries is NULL but cap is 2");
}

CASE(poll_null_wc)
{
	VS_FAILS(vs_cq_poll(r->cq, NULL, 1), EINVAL, "wc is NULL");
}

CASE(iter_start_null_it)
{
	VS_FAILS(vs_cq_iter_start(r->cq, NULL), EINVAL, "it is NULL");
}

CASE(iter_next_null_it)
{
	VS_FAILS(vs_cq_iter_next(NULL), EINVAL, "it is NULL");
	vs_cq_iter_end(NULL);
	VS_ASSERT_EQ(vs_cq_iter_wr_id(NULL), 0);
	VS_ASSERT_EQ(vs_cq_iter_byte_len(NULL), 0);
	VS_ASSERT_EQ(vs_cq_iter_imm(NULL), 0);
	vs_cq_iter_read(NULL, NULL);
}

CASE(iter_read_after_end)
{
	struct vs_rc_batch b;
	struct vs_cq_iter it;
	struct vs_wc wc;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_send(&b, 42, VS_WR_SIGNALED, &r->sge, 1));
	VS_OK(vs_rc_batch_submit(&b));
	VS_OK(vs_cq_iter_start(r->cq, &it));
	VS_ASSERT_EQ(vs_cq_iter_wr_id(&it), 42);
	VS_ASSERT_EQ(vs_cq_iter_next(&it), -ENOENT);
	vs_cq_iter_end(&it);
	/* after the end: no completion is current, nothing is touched */
	VS_ASSERT_EQ(vs_cq_iter_wr_id(&it), 0);
	VS_ASSERT_EQ(vs_cq_iter_opcode(&it), IBV_WC_SEND);
	VS_ASSERT_EQ(vs_cq_iter_next(&it), -ENOENT);
	vs_cq_iter_read(&it, &wc);
	VS_ASSERT_EQ(wc.wr_id, 0);
	vs_cq_iter_end(&it);
}

CASE(cq_close_during_iteration)
{
	struct vs_rc_batch b;
	struct vs_cq_iter it;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_send(&b, 1, VS_WR_SIGNALED, &r->sge, 1));
	VS_OK(vs_rc_send(&b, 2, VS_WR_SIGNALED, &r->sge, 1));
	VS_OK(vs_rc_batch_submit(&b));
	VS_OK(vs_cq_iter_start(r->cq, &it));
	VS_FAILS(vs_cq_close(r->cq), EBUSY, "an iteration is open on this CQ");
	VS_OK(vs_cq_iter_next(&it));
	VS_ASSERT_EQ(vs_cq_iter_wr_id(&it), 2);
	VS_FAILS(vs_cq_close(r->cq), EBUSY, "end it first");
	VS_ASSERT_EQ(vs_cq_iter_next(&it), -ENOENT);
	vs_cq_iter_end(&it);
	VS_OK(vs_cq_close(r->cq)); /* the QPs keep it */
	r->cq = NULL;
}

CASE(iter_empty_cq)
{
	struct vs_cq_iter it;

	VS_ASSERT_EQ(vs_cq_iter_start(r->cq, &it), -ENOENT);
	VS_ASSERT_EQ(vs_cq_iter_next(&it), -ENOENT);
	vs_cq_iter_end(&it);
}

CASE(send_null_sgl)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_send(&b, 1, 0, NULL, 1), EINVAL, "sgl is NULL with 1 SGEs");
	vs_rc_batch_abort(&b);
}

CASE(send_zero_sges)
{
	struct vs_rc_batch b;
	struct vs_wc wc;

	/* a zero-length message is legal: no SGE, sgl may be NULL */
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_send(&b, 5, VS_WR_SIGNALED, NULL, 0));
	VS_OK(vs_rc_write(&b, 6, VS_WR_SIGNALED | VS_WR_INLINE, NULL, 0, r->remote));
	VS_OK(vs_rc_batch_submit(&b));
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(wc.wr_id, 5);
	VS_ASSERT_EQ(wc.byte_len, 0);
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(wc.wr_id, 6);
}

CASE(recv_add_null_sgl)
{
	struct vs_recv_batch rb;

	VS_OK(vs_uc_recv_start(r->uc, &rb));
	VS_FAILS(vs_recv_add(&rb, 1, NULL, 2), EINVAL, "sgl is NULL with 2 SGEs");
	vs_recv_abort(&rb);
}

CASE(out_params_null)
{
	VS_FAILS(vs_device_open(NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_pd_alloc(r->ctx, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_cq_create(r->ctx, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_mr_alloc(r->pd, 8, 0, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_srq_create(r->pd, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, NULL),
		 EINVAL, "out is NULL");
	VS_ASSERT_EQ(live[1] + live[3] + live[4], 1 + 1 + 3);
}

CASE(mr_register_null_addr)
{
	struct vs_mr *mr;

	VS_FAILS(vs_mr_register(r->pd, NULL, 64, 0, &mr), EINVAL, "addr is NULL");
}

CASE(mr_zero_length)
{
	struct vs_mr *mr;

	VS_FAILS(vs_mr_alloc(r->pd, 0, 0, &mr), EINVAL, "length is 0");
}

CASE(mr_access_without_local_write)
{
	struct vs_mr *mr;

	VS_FAILS(vs_mr_alloc(r->pd, 64, IBV_ACCESS_REMOTE_WRITE, &mr), EINVAL,
		 "without IBV_ACCESS_LOCAL_WRITE");
}

CASE(qp_create_null_cfg)
{
	struct vs_uc_qp *qp;

	VS_FAILS(vs_uc_qp_create(r->pd, NULL, &qp), EINVAL, "cfg is NULL");
}

CASE(endpoint_null_out)
{
	VS_FAILS(vs_rc_endpoint(r->rc, NULL), EINVAL, "out is NULL");
}

CASE(handshake_null_remote)
{
	VS_FAILS(vs_uc_handshake(r->uc, NULL), EINVAL, "remote is NULL");
}

CASE(ud_handshake_null_dest)
{
	struct vs_endpoint ep;

	VS_OK(vs_ud_endpoint(r->ud, &ep));
	VS_FAILS(vs_ud_handshake(r->ud, &ep, NULL), EINVAL, "dest is NULL");
}

CASE(modify_null_attr)
{
	VS_FAILS(vs_uc_qp_modify(r->uc, NULL, IBV_QP_STATE), EINVAL, "attr is NULL");
}

CASE(endpoint_to_bytes_null)
{
	uint8_t w[VS_ENDPOINT_WIRE_SIZE];

	VS_FAILS(vs_endpoint_to_bytes(NULL, w), EINVAL, "ep is NULL");
}

CASE(endpoint_from_bytes_null)
{
	struct vs_endpoint ep;

	VS_FAILS(vs_endpoint_from_bytes(NULL, 40, &ep), EINVAL, "buf is NULL");
}

CASE(endpoint_to_str_null)
{
	char buf[32];

	VS_ASSERT_STREQ(vs_endpoint_to_str(NULL, buf, sizeof(buf)), "(null endpoint)");
	VS_ASSERT(vs_endpoint_to_str(NULL, NULL, 0) == NULL);
}

/* ---- SGEs against their MR ---- */

CASE(sge_past_end)
{
	struct vs_rc_batch b;
	struct ibv_sge s;

	vs_clear_error();
	s = vs_mr_sge(r->mr, 4 * 4096, 64);
	VS_ASSERT_EQ(s.length, 0);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_sge");
	VS_ASSERT(strstr(vs_last_error()->message,
			 "[16384, +64) is outside the MR's 4096 bytes (lkey 0x"));
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_write(&b, 1, 0, &s, 1, r->remote), EINVAL, "SGE #0");
	VS_ASSERT_EQ(b.b.count, 0);
	VS_OK(vs_rc_batch_submit(&b));
}

CASE(sge_length_past_end)
{
	vs_clear_error();
	VS_ASSERT_EQ(vs_mr_sge(r->mr, 4000, 200).length, 0);
	VS_ASSERT(strstr(vs_last_error()->message, "[4000, +200) is outside"));
}

CASE(sge_offset_overflow)
{
	vs_clear_error();
	VS_ASSERT_EQ(vs_mr_sge(r->mr, SIZE_MAX - 2, 8).length, 0);
	VS_ASSERT(strstr(vs_last_error()->message, "is outside the MR's 4096 bytes"));
}

CASE(sge_whole_mr_ok)
{
	VS_ASSERT_EQ(vs_mr_sge(r->mr, 0, 4096).length, 4096);
	VS_ASSERT_EQ(vs_mr_sge(r->mr, 4096, 0).length, 0);
}

CASE(poisoned_sge_in_gather)
{
	struct ibv_sge s[3] = { r->sge, vs_mr_sge(r->mr, 64, 64), vs_mr_sge(r->mr, 4090, 64) };
	struct vs_uc_batch b;

	VS_OK(vs_uc_batch_start(r->uc, &b));
	VS_FAILS(vs_uc_send(&b, 1, 0, s, 3), EINVAL, "SGE #2 has length 0 and lkey 0");
	vs_uc_batch_abort(&b);
}

CASE(remote_past_end)
{
	vs_clear_error();
	VS_ASSERT_EQ(vs_mr_remote(r->mr, 4097).addr, 0);
	VS_ASSERT(strstr(vs_last_error()->message, "[4097, +0) is outside"));
}

/* ---- a dmabuf MR: device memory at an iova, no CPU address ---- */

#define DMABUF_IOVA 0x10000000ull

/* A dmabuf MR of 4096 bytes at DMABUF_IOVA (the fake registers any open
 * fd with VS_FAKE_DMABUF=1, and gives its ibv_mr libibverbs' addr: the
 * offset), or NULL where this build's headers lack the verb. */
static struct vs_mr *dmabuf_mr(struct rig *r, int *fd)
{
	struct vs_mr *mr = NULL;

	*fd = open("/dev/null", O_RDONLY);
	VS_ASSERT(*fd >= 0);
	setenv("VS_FAKE_DMABUF", "1", 1);
#ifdef VS_HAVE_IBVERBS_1_12
	VS_OK(vs_mr_register_dmabuf(r->pd, *fd, 512, 4096, DMABUF_IOVA, 0, &mr));
	VS_ASSERT_EQ((uintptr_t)vs_mr_raw(mr)->addr, 512);
#else
	VS_FAILS(vs_mr_register_dmabuf(r->pd, *fd, 512, 4096, DMABUF_IOVA, 0, &mr),
		 EOPNOTSUPP, "ibv_reg_dmabuf_mr needs rdma-core 34 or later headers");
#endif
	unsetenv("VS_FAKE_DMABUF");
	return mr;
}

static void dmabuf_done(struct vs_mr *mr, int fd)
{
	if (mr)
		VS_OK(vs_mr_close(mr));
	close(fd);
}

CASE(dmabuf_ptr_refused)
{
	int fd;
	struct vs_mr *mr = dmabuf_mr(r, &fd);

	if (mr) {
		vs_clear_error();
		VS_ASSERT(vs_mr_ptr(mr, 64) == NULL);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_mr_ptr");
		VS_ASSERT_EQ(vs_last_error()->err, EINVAL);
		VS_ASSERT(strstr(vs_last_error()->message,
				 "the MR is a dmabuf (device memory at iova "
				 "0x10000000): it has no CPU address"));
		/* byte 0 too: no pointer, not the offset the ibv_mr holds */
		VS_ASSERT(vs_mr_ptr(mr, 0) == NULL);
		/* past its end: the range is what is wrong */
		VS_ASSERT(vs_mr_ptr(mr, 4097) == NULL);
		VS_ASSERT(strstr(vs_last_error()->message,
				 "[4097, +0) is outside the MR's 4096 bytes"));
	}
	dmabuf_done(mr, fd);
}

CASE(dmabuf_addressed_at_iova)
{
	int fd;
	struct vs_mr *mr = dmabuf_mr(r, &fd);

	if (mr) {
		struct ibv_sge s = vs_mr_sge(mr, 64, 8);
		struct vs_remote rem = vs_mr_remote(mr, 64);
		struct vs_rc_batch b;

		VS_ASSERT_EQ(s.addr, DMABUF_IOVA + 64);
		VS_ASSERT_EQ(s.length, 8);
		VS_ASSERT_EQ(s.lkey, vs_mr_raw(mr)->lkey);
		VS_ASSERT_EQ(rem.addr, DMABUF_IOVA + 64);
		VS_ASSERT_EQ(rem.rkey, vs_mr_raw(mr)->rkey);
		VS_ASSERT_EQ(vs_mr_remote(mr, 4096).addr, DMABUF_IOVA + 4096);
		/* a post from it and into it is a post like any other */
		VS_OK(vs_rc_batch_start(r->rc, &b));
		VS_OK(vs_rc_write(&b, 1, 0, &s, 1, rem));
		VS_OK(vs_rc_batch_submit(&b));
		/* outside it: refused as any MR's */
		VS_ASSERT_EQ(vs_mr_sge(mr, 4090, 8).length, 0);
		VS_ASSERT(strstr(vs_last_error()->message, "[4090, +8) is outside"));
	}
	dmabuf_done(mr, fd);
}

CASE(advise_outside)
{
	VS_FAILS(vs_mr_advise(r->mr, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 4000, 200), EINVAL,
		 "outside the MR's 4096 bytes");
}

CASE(too_many_sges)
{
	struct ibv_sge s[5] = { r->sge, r->sge, r->sge, r->sge, r->sge };
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_send(&b, 1, 0, s, 5), EINVAL, "5 SGEs, the QP allows at most 4");
	vs_rc_batch_abort(&b);
}

CASE(recv_too_many_sges)
{
	struct ibv_sge s[5] = { r->sge, r->sge, r->sge, r->sge, r->sge };
	struct vs_recv_batch rb;

	VS_OK(vs_srq_recv_start(r->srq, &rb));
	VS_FAILS(vs_recv_add(&rb, 1, s, 5), EINVAL, "5 SGEs, the receive queue allows at most 4");
	vs_recv_abort(&rb);
}

CASE(atomic_wrong_sge)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_faa(&b, 1, 0, &r->sge, r->remote, 1), EINVAL,
		 "needs exactly one 8-byte SGE");
	vs_rc_batch_abort(&b);
}

CASE(atomic_unaligned)
{
	struct ibv_sge s = vs_mr_sge(r->mr, 0, 8);
	struct vs_remote rem = vs_mr_remote(r->mr, 2049);
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_cas(&b, 1, 0, &s, rem, 1, 2), EINVAL, "is not 8-byte aligned");
	vs_rc_batch_abort(&b);
}

CASE(inline_too_large)
{
	struct ibv_sge s = vs_mr_sge(r->mr, 0, 1024);
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_send(&b, 1, VS_WR_INLINE, &s, 1), EINVAL,
		 "exceeds the QP's max_inline_data");
	vs_rc_batch_abort(&b);
}

CASE(inline_read)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_read(&b, 1, VS_WR_INLINE, &r->sge, 1, r->remote), EINVAL,
		 "VS_WR_INLINE on an RDMA read");
	vs_rc_batch_abort(&b);
}

CASE(unknown_flags)
{
	struct vs_uc_batch b;

	VS_OK(vs_uc_batch_start(r->uc, &b));
	VS_FAILS(vs_uc_write(&b, 1, 0x100, &r->sge, 1, r->remote), EINVAL,
		 "flags 0x100 has bits that are not VS_WR_*");
	vs_uc_batch_abort(&b);
}

CASE(ud_send_null_dest)
{
	struct vs_ud_batch b;

	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_FAILS(vs_ud_send(&b, 1, 0, NULL, &r->sge, 1), EINVAL, "dest is NULL");
	vs_ud_batch_abort(&b);
}

CASE(ud_send_dest_without_ah)
{
	struct vs_ud_dest d = { NULL, 5, 5 };
	struct vs_ud_batch b;

	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_FAILS(vs_ud_send(&b, 1, 0, &d, &r->sge, 1), EINVAL, "has no address handle");
	vs_ud_batch_abort(&b);
}

/* ---- batches before start, after submit ---- */

CASE(add_before_start)
{
	struct vs_rc_batch b;

	memset(&b, 0, sizeof(b));
	VS_FAILS(vs_rc_write(&b, 1, 0, &r->sge, 1, r->remote), EINVAL, "not started");
}

CASE(submit_before_start)
{
	struct vs_uc_batch b;

	memset(&b, 0, sizeof(b));
	VS_FAILS(vs_uc_batch_submit(&b), EINVAL, "not started");
	VS_FAILS(vs_uc_batch_submit(NULL), EINVAL, "not started");
}

CASE(add_after_submit)
{
	struct vs_rc_batch b;
	struct vs_wc wc;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_send(&b, 1, VS_WR_SIGNALED, &r->sge, 1));
	VS_OK(vs_rc_batch_submit(&b));
	VS_FAILS(vs_rc_send(&b, 2, VS_WR_SIGNALED, &r->sge, 1), EINVAL,
		 "a submitted or aborted batch must be started again");
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 0);
}

CASE(submit_twice)
{
	struct vs_ud_batch b;

	VS_OK(vs_ud_batch_start(r->ud, &b));
	VS_OK(vs_ud_batch_submit(&b));
	VS_FAILS(vs_ud_batch_submit(&b), EINVAL, "not started");
}

CASE(add_after_abort)
{
	struct vs_uc_batch b;

	VS_OK(vs_uc_batch_start(r->uc, &b));
	vs_uc_batch_abort(&b);
	VS_FAILS(vs_uc_send(&b, 1, 0, &r->sge, 1), EINVAL, "not started");
	vs_uc_batch_abort(&b);
}

CASE(start_twice)
{
	struct vs_rc_batch b, b2;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_batch_start(r->rc, &b2), EBUSY, "a batch is already open on this QP");
	vs_rc_batch_abort(&b);
}

CASE(batch_full)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;
	struct vs_rc_batch b;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.max_batch = 2 }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, 1, 0, &r->sge, 1));
	VS_OK(vs_rc_send(&b, 2, 0, &r->sge, 1));
	VS_FAILS(vs_rc_send(&b, 3, 0, &r->sge, 1), ENOSPC, "the batch is full (2 WRs");
	VS_OK(vs_rc_batch_submit(&b));
	VS_OK(vs_rc_qp_close(qp));
}

CASE(start_in_init)
{
	struct vs_rc_qp *qp;
	struct vs_rc_batch b;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &qp));
	VS_FAILS(vs_rc_batch_start(qp, &b), EINVAL, "the QP is in state INIT; sends need RTS");
	VS_OK(vs_rc_qp_close(qp));
}

CASE(start_after_error_state)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct vs_uc_batch b;

	VS_OK(vs_uc_qp_modify(r->uc, &a, IBV_QP_STATE));
	VS_FAILS(vs_uc_batch_start(r->uc, &b), EINVAL, "the QP is in state ERR");
}

CASE(recv_start_twice)
{
	struct vs_recv_batch rb, rb2;

	VS_OK(vs_ud_recv_start(r->ud, &rb));
	VS_FAILS(vs_ud_recv_start(r->ud, &rb2), EBUSY, "a receive batch is already open");
	vs_recv_abort(&rb);
}

CASE(recv_add_after_submit)
{
	struct vs_recv_batch rb;

	VS_OK(vs_rc_recv_start(r->rc, &rb));
	VS_OK(vs_recv_add(&rb, 1, &r->sge, 1));
	VS_OK(vs_recv_submit(&rb));
	VS_FAILS(vs_recv_add(&rb, 2, &r->sge, 1), EINVAL, "not started");
	VS_FAILS(vs_recv_submit(&rb), EINVAL, "not started");
}

CASE(recv_batch_full)
{
	struct vs_recv_batch rb;
	uint32_t cap = vs_ud_qp_caps(r->ud)->max_recv_wr;

	VS_OK(vs_ud_recv_start(r->ud, &rb));
	for (uint32_t i = 0; i < cap; i++)
		VS_OK(vs_recv_add(&rb, i, &r->sge, 1));
	VS_FAILS(vs_recv_add(&rb, cap, &r->sge, 1), ENOSPC, "the receive batch is full");
	VS_OK(vs_recv_submit(&rb));
}

CASE(recv_on_srq_qp)
{
	struct vs_rc_qp *qp;
	struct vs_recv_batch rb;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.srq = r->srq }, &qp));
	VS_FAILS(vs_rc_recv_start(qp, &rb), EINVAL, "this QP takes its receives from an SRQ");
	VS_OK(vs_rc_qp_close(qp));
}

CASE(handshake_with_open_batch)
{
	struct vs_endpoint ep;
	struct vs_rc_batch b;

	VS_OK(vs_rc_endpoint(r->rc, &ep));
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_handshake(r->rc, &ep), EBUSY, "a send batch is open on this QP");
	vs_rc_batch_abort(&b);
}

CASE(modify_with_open_batch)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_FAILS(vs_rc_qp_modify(r->rc, &a, IBV_QP_STATE), EBUSY,
		 "abort it before changing the QP's state");
	vs_rc_batch_abort(&b);
}

CASE(handshake_twice)
{
	struct vs_endpoint ep;

	VS_OK(vs_rc_endpoint(r->rc, &ep));
	VS_FAILS(vs_rc_handshake(r->rc, &ep), EINVAL, "it was already brought up?");
}

/* ---- configurations ---- */

CASE(cq_too_deep)
{
	struct vs_cq *cq;

	VS_FAILS(vs_cq_create(r->ctx, &(struct vs_cq_config){ .depth = 4096 }, &cq),
		 EINVAL, "depth 4096 exceeds the device's max_cqe 1024");
}

CASE(cq_comp_mask)
{
	struct vs_cq *cq;

	VS_FAILS(vs_cq_create(r->ctx, &(struct vs_cq_config){ .comp_mask = 4 }, &cq),
		 EINVAL, "comp_mask 0x4");
}

CASE(cq_timestamps_legacy)
{
	struct vs_cq *cq;

	VS_FAILS(vs_cq_create(r->ctx, &(struct vs_cq_config){ .timestamps = true,
		.legacy = true }, &cq), EOPNOTSUPP, "completion timestamps need an extended CQ");
}

CASE(qp_caps_over_device)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.caps = { .max_send_wr = 1000 } }, &qp),
		 EINVAL, "exceed the device's max_qp_wr 256");
}

CASE(qp_sges_over_device)
{
	struct vs_ud_qp *qp;

	VS_FAILS(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq,
		.caps = { .max_recv_sge = 9 } }, &qp),
		 EINVAL, "exceed the device's max_sge 4");
}

CASE(max_batch_over_queue)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.caps = { .max_send_wr = 16 }, .max_batch = 17 }, &qp),
		 EINVAL, "max_batch 17 exceeds the send queue (16 WRs)");
	VS_ASSERT_EQ(live[4], 3);
}

CASE(uc_access_read)
{
	struct vs_uc_qp *qp;

	VS_FAILS(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq,
		.access = IBV_ACCESS_REMOTE_READ }, &qp),
		 EINVAL, "has bits a UC QP cannot grant");
}

CASE(rc_timeout_range)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.timeout = 40 }, &qp), EINVAL, "timeout 40 (0..31)");
}

CASE(qp_psn_range)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.comp_mask = VS_QP_CFG_PSN, .psn = 0x1000000 }, &qp),
		 EINVAL, "psn 0x1000000 does not fit 24 bits");
}

CASE(qp_gid_index_range)
{
	struct vs_uc_qp *qp;

	VS_FAILS(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq,
		.comp_mask = VS_QP_CFG_GID_INDEX, .gid_index = 3 }, &qp),
		 EINVAL, "gid_index 3 is beyond the port's GID table (3 entries)");
}

CASE(qp_bad_mtu)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.mtu = (enum ibv_mtu)9 }, &qp), EINVAL, "mtu 9 is not an enum ibv_mtu");
}

CASE(qp_bad_port)
{
	struct vs_rc_qp *qp;

	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq,
		.port = 2 }, &qp), EINVAL, "port 2 does not exist on fake0");
}

CASE(qp_comp_mask_retry_on_ud)
{
	struct vs_ud_qp *qp;

	VS_FAILS(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq,
		.comp_mask = VS_QP_CFG_RETRY }, &qp), EINVAL, "bits unknown for a UD QP");
}

CASE(qp_cqs_of_two_devices)
{
	struct vs_context *c2;
	struct vs_cq *cq2;
	struct vs_rc_qp *qp;

	VS_OK(vs_device_open(NULL, &c2));
	VS_OK(vs_cq_create(c2, NULL, &cq2));
	VS_FAILS(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = cq2 }, &qp),
		 EINVAL, "the CQs and the PD belong to different devices");
	VS_OK(vs_cq_close(cq2));
	VS_OK(vs_device_close(c2));
}

CASE(srq_limit_range)
{
	struct vs_srq *srq;

	VS_FAILS(vs_srq_create(r->pd, &(struct vs_srq_config){ .max_wr = 16, .limit = 16 },
			       &srq), EINVAL, "limit 16 must be below max_wr 16");
	VS_FAILS(vs_srq_set_limit(r->srq, 256), EINVAL, "limit 256 must be below the SRQ's 256 WRs");
}

CASE(srq_over_device)
{
	struct vs_srq *srq;

	VS_FAILS(vs_srq_create(r->pd, &(struct vs_srq_config){ .max_wr = 4096 }, &srq),
		 EINVAL, "exceed the device's max_srq_wr 256");
}

CASE(modify_bad_mask)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };

	inject("ibv_modify_qp", EINVAL);
	VS_FAILS(vs_rc_qp_modify(r->rc, &a, IBV_QP_STATE | IBV_QP_QKEY), EINVAL,
		 "not allowed: IBV_QP_QKEY");
}

/* ---- endpoints: one set of rules, through the handshake too ---- */

static struct vs_endpoint good_ep(struct rig *r)
{
	struct vs_endpoint ep;

	VS_OK(vs_uc_endpoint(r->uc, &ep));
	return ep;
}

/* The struct handshake refuses what the wire parser refuses. */
#define EP_CASE(name, mutate, text)                                           \
	CASE(name)                                                            \
	{                                                                     \
		struct vs_endpoint ep = good_ep(r);                           \
		uint8_t w[VS_ENDPOINT_WIRE_SIZE];                             \
		char buf[256];                                                \
		struct vs_uc_qp *qp;                                          \
                                                                              \
		mutate;                                                       \
		VS_OK(vs_uc_qp_create(r->pd, &(struct vs_uc_config){          \
			.send_cq = r->cq }, &qp));                            \
		VS_FAILS(vs_uc_handshake(qp, &ep), EINVAL, text);             \
		VS_FAILS(vs_endpoint_to_bytes(&ep, w), EINVAL, text);         \
		vs_endpoint_to_str(&ep, buf, sizeof(buf));                    \
		VS_ASSERT(strstr(buf, "[invalid: "));                         \
		VS_OK(vs_uc_qp_close(qp));                                    \
	}

EP_CASE(ep_qpn_zero, ep.qpn = 0, "qpn 0x0 is 0 or does not fit 24 bits")
EP_CASE(ep_qpn_wide, ep.qpn = 0x1000000, "qpn 0x1000000")
EP_CASE(ep_psn_wide, ep.psn = 0x1000000, "psn 0x1000000 does not fit 24 bits")
EP_CASE(ep_unknown_flags, ep.flags |= 0x10, "flags 0x13 has bits this version does not define")
EP_CASE(ep_port_zero, ep.port = 0, "port 0 is not 1 or 2")
EP_CASE(ep_port_three, ep.port = 3, "port 3 is not 1 or 2")
EP_CASE(ep_mtu_zero, ep.mtu = (enum ibv_mtu)0, "mtu 0 is not an enum ibv_mtu")
EP_CASE(ep_mtu_40, ep.mtu = (enum ibv_mtu)40, "mtu 40 is not an enum ibv_mtu")
EP_CASE(ep_qkey_on_uc, ep.qkey = 0x1111, "qkey 0x1111 on a UC endpoint")
EP_CASE(ep_lid_on_roce, ep.lid = 7, "lid 0x7 on a RoCE endpoint")
EP_CASE(ep_gid_valid_zero_gid, memset(&ep.gid, 0, sizeof(ep.gid)),
	"gid is all zero although flags say GID_VALID")
EP_CASE(ep_gid_without_flag, ep.flags = VS_EP_ETHERNET,
	"a RoCE endpoint (ETHERNET) must carry a GID")
EP_CASE(ep_ib_with_gid_valid, (ep.flags = VS_EP_GID_VALID, ep.lid = 3),
	"an InfiniBand endpoint (no ETHERNET) says GID_VALID")
EP_CASE(ep_ib_gid_without_flag, (ep.flags = 0, ep.lid = 3),
	"is set without the flag GID_VALID")
EP_CASE(ep_ib_no_lid, (ep.flags = 0, memset(&ep.gid, 0, sizeof(ep.gid))),
	"lid 0 on an InfiniBand endpoint")
EP_CASE(ep_comp_mask, ep.comp_mask = 2, "comp_mask 0x2 is not 0")
EP_CASE(ep_transport_9, ep.transport = (enum vs_transport)9, "transport 9 is not RC")

CASE(ep_transport_mismatch)
{
	struct vs_endpoint ep = good_ep(r);

	ep.transport = VS_TRANSPORT_RC;
	VS_FAILS(vs_uc_handshake(r->uc, &ep), EINVAL,
		 "mismatched transports: the remote endpoint is RC, this QP is UC");
}

CASE(ep_ib_remote_on_roce_qp)
{
	struct vs_endpoint ep = good_ep(r);
	struct vs_uc_qp *qp;

	ep.flags = 0;
	ep.lid = 5;
	memset(&ep.gid, 0, sizeof(ep.gid));
	VS_OK(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq }, &qp));
	VS_FAILS(vs_uc_handshake(qp, &ep), EINVAL, "mismatched link layers");
	VS_OK(vs_uc_qp_close(qp));
}

CASE(ep_ud_qkey_zero_ok)
{
	struct vs_endpoint ep;
	struct vs_ud_qp *qp;
	struct vs_ud_dest d;

	VS_OK(vs_ud_endpoint(r->ud, &ep));
	ep.qkey = 0;
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_ud_handshake(qp, &ep, &d));
	VS_ASSERT_EQ(d.remote_qkey, VS_DEFAULT_QKEY);
	VS_OK(vs_ud_dest_release(&d));
	VS_OK(vs_ud_qp_close(qp));
}

CASE(ep_to_str_every_pattern)
{
	struct vs_endpoint ep;
	char buf[300];

	/* all-ones and random bit patterns: defined, terminated text */
	memset(&ep, 0xff, sizeof(ep));
	vs_endpoint_to_str(&ep, buf, sizeof(buf));
	VS_ASSERT(strstr(buf, "[invalid: comp_mask 0xffffffff"));
	srand(7);
	for (int i = 0; i < 2000; i++) {
		uint8_t *p = (uint8_t *)&ep;

		for (size_t k = 0; k < sizeof(ep); k++)
			p[k] = (uint8_t)rand();
		if (i & 1)
			ep.comp_mask = 0;
		vs_endpoint_to_str(&ep, buf, sizeof(buf));
		VS_ASSERT(strlen(buf) < sizeof(buf));
	}
}

CASE(ep_wire_roundtrip_of_own)
{
	struct vs_endpoint ep = good_ep(r), back;
	uint8_t w[VS_ENDPOINT_WIRE_SIZE];

	VS_OK(vs_endpoint_to_bytes(&ep, w));
	VS_OK(vs_endpoint_from_bytes(w, sizeof(w), &back));
	VS_ASSERT_EQ(back.lid, 0);
	VS_ASSERT_EQ(back.flags, VS_EP_GID_VALID | VS_EP_ETHERNET);
	VS_ASSERT_EQ(back.qkey, 0);
}

/* ---- the data path still works after all that ---- */

CASE(good_traffic)
{
	struct vs_rc_batch b;
	struct vs_ud_batch ub;
	struct vs_recv_batch rb;
	struct vs_wc wc[8];
	int n = 0;

	VS_OK(vs_rc_recv_start(r->rc, &rb));
	VS_OK(vs_recv_add(&rb, 100, &r->sge, 1));
	VS_OK(vs_recv_submit(&rb));
	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_write(&b, 1, 0, &r->sge, 1, r->remote));
	VS_OK(vs_rc_send_imm(&b, 2, VS_WR_SIGNALED, 9, &r->sge, 1));
	VS_OK(vs_rc_cas(&b, 3, VS_WR_SIGNALED, &(struct ibv_sge){ r->sge.addr, 8, r->sge.lkey },
			r->remote, 0, 1));
	VS_OK(vs_rc_batch_submit(&b));
	VS_OK(vs_ud_batch_start(r->ud, &ub));
	VS_OK(vs_ud_send(&ub, 4, VS_WR_SIGNALED, &r->dest, &r->sge, 1));
	VS_OK(vs_ud_batch_submit(&ub));
	while (n < 3) {
		int got = vs_cq_poll(r->cq, wc + n, 8 - n);

		VS_ASSERT(got > 0);
		n += got;
	}
	VS_ASSERT_EQ(wc[0].wr_id, 2);
	VS_ASSERT_EQ(wc[1].wr_id, 3);
	VS_ASSERT_EQ(wc[1].opcode, IBV_WC_COMP_SWAP);
	VS_ASSERT_EQ(wc[2].wr_id, 4);
}


/* ---- EFA SRD handles (on the fake libefa: control path only) ---- */

static struct vs_srd_qp *srd_open(struct rig *r, struct vs_srd_dest *dest)
{
	struct vs_srd_qp *qp;
	struct vs_endpoint ep;

	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp));
	if (dest) {
		VS_OK(vs_srd_endpoint(qp, &ep));
		VS_OK(vs_srd_handshake(qp, &ep, dest));
	}
	return qp;
}

CASE(srd_qp_double_close)
{
	struct vs_srd_qp *qp = srd_open(r, NULL);

	VS_OK(vs_srd_qp_close(qp));
	VS_FAILS(vs_srd_qp_close(qp), EINVAL, "qp is an SRD QP the caller already closed");
}

CASE(srd_qp_use_after_close)
{
	struct vs_srd_dest dest;
	struct vs_srd_qp *qp = srd_open(r, &dest);
	struct vs_srd_batch b;
	struct vs_endpoint ep;

	VS_OK(vs_srd_qp_close(qp));
	VS_FAILS(vs_srd_batch_start(qp, &b), EINVAL, "qp is an SRD QP the caller already closed");
	VS_FAILS(vs_srd_endpoint(qp, &ep), EINVAL, "already closed");
	VS_FAILS(vs_srd_recv_start(qp, &(struct vs_recv_batch){ 0 }), EINVAL, "already closed");
	VS_FAILS(vs_srd_qp_query_wqs(qp, &(struct vs_efa_wqs){ 0 }), EINVAL, "already closed");
	VS_ASSERT(vs_srd_qp_raw(qp) == NULL);
	/* its destination outlives it, and goes once */
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_dest_release(&dest));
}

CASE(srd_wrong_kind)
{
	struct vs_srd_qp *qp = srd_open(r, NULL);
	struct vs_srd_batch b;

	VS_FAILS(vs_srd_qp_close((void *)r->ud), EINVAL,
		 "qp is a handle of another kind (UD QP, expected SRD QP)");
	VS_FAILS(vs_srd_batch_start((void *)r->rc, &b), EINVAL,
		 "(RC QP, expected SRD QP)");
	VS_FAILS(vs_ud_qp_close((void *)qp), EINVAL,
		 "qp is a handle of another kind (SRD QP, expected UD QP)");
	VS_FAILS(vs_srd_handshake((void *)r->pd, &(struct vs_endpoint){ 0 },
				  &(struct vs_srd_dest){ { 0 } }), EINVAL,
		 "(PD, expected SRD QP)");
	VS_FAILS(vs_efa_query_caps((void *)r->pd, &(struct vs_efa_caps){ 0 }), EINVAL,
		 "(PD, expected device context)");
	VS_OK(vs_srd_qp_close(qp));
}

CASE(srd_null)
{
	struct vs_srd_qp *qp = (struct vs_srd_qp *)1;

	VS_FAILS(vs_srd_qp_create(NULL, &(struct vs_srd_config){ .send_cq = r->cq }, &qp),
		 EINVAL, "pd is NULL");
	VS_ASSERT(qp == NULL);
	VS_FAILS(vs_srd_qp_create(r->pd, NULL, &qp), EINVAL, "cfg is NULL");
	VS_FAILS(vs_srd_qp_close(NULL), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_batch_start(NULL, &(struct vs_srd_batch){ { 0 } }), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_dest_release(NULL), EINVAL, "dest is NULL");
	VS_FAILS(vs_srd_dest_query(NULL, &(struct vs_efa_ah_info){ 0 }), EINVAL, "dest is NULL");
	VS_FAILS(vs_efa_query_caps(NULL, &(struct vs_efa_caps){ 0 }), EINVAL, "ctx is NULL");
	VS_FAILS(vs_efa_query_caps(r->ctx, NULL), EINVAL, "out is NULL");
}

CASE(srd_released_dest)
{
	struct vs_srd_dest dest;
	struct vs_srd_qp *qp = srd_open(r, &dest);
	struct vs_srd_batch b;

	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_batch_start(qp, &b));
	VS_FAILS(vs_srd_send(&b, 1, 0, &dest, &r->sge, 1), EINVAL,
		 "the destination has no address handle (released, or never filled by vs_srd_handshake?)");
	VS_FAILS(vs_srd_read(&b, 1, 0, NULL, &r->sge, 1, r->remote), EINVAL,
		 "an SRD RDMA read needs a destination");
	VS_OK(vs_srd_batch_submit(&b));
	VS_OK(vs_srd_qp_close(qp));
}

CASE(srd_ah_closed_under_dest)
{
	struct vs_srd_dest dest;
	struct vs_srd_qp *qp = srd_open(r, &dest);
	struct vs_srd_batch b;

	VS_OK(vs_ah_close(dest.base.ah));
	VS_OK(vs_srd_batch_start(qp, &b));
	VS_FAILS(vs_srd_send(&b, 1, 0, &dest, &r->sge, 1), EINVAL,
		 "dest->ah is an AH the caller already closed");
	vs_srd_batch_abort(&b);
	VS_FAILS(vs_srd_dest_release(&dest), EINVAL, "already closed");
	VS_OK(vs_srd_qp_close(qp));
}

#define CASES(X)                                                              \
	X(pd_double_close) X(mr_double_close) X(cq_double_close)              \
	X(srq_double_close) X(rc_qp_double_close) X(uc_qp_double_close)       \
	X(ud_qp_double_close) X(ah_double_close) X(ctx_double_close)          \
	X(cq_double_close_with_two_qps) X(pd_double_close_with_dependants)    \
	X(poll_closed_cq_kept_alive) X(iter_closed_cq) X(qp_on_closed_cq)     \
	X(qp_on_closed_recv_cq) X(qp_on_closed_pd) X(qp_on_closed_srq)        \
	X(mr_on_closed_pd) X(srq_on_closed_pd) X(pd_on_closed_ctx)            \
	X(cq_on_closed_ctx) X(ctx_queries_after_close) X(modify_after_close)  \
	X(batch_start_after_close) X(ud_batch_after_close)                    \
	X(endpoint_after_close) X(handshake_after_close)                      \
	X(ud_handshake_after_close) X(recv_start_after_close)                 \
	X(srq_after_close) X(mr_sge_after_close) X(mr_remote_after_close)     \
	X(mr_ptr_after_close) X(mr_advise_after_close)                        \
	X(ud_send_through_released_ah) X(ud_dest_release_after_ah_close)      \
	X(raw_accessors_after_close) X(ctx_close_first_defers)                \
	X(close_everything_parents_first) X(rc_close_with_open_batch)         \
	X(uc_close_with_open_batch) X(ud_close_with_open_batch)               \
	X(qp_close_with_open_recv_batch) X(srq_close_with_open_recv_batch)    \
	X(qp_destroy_busy_then_retry) X(pd_dealloc_busy_then_retry)           \
	X(mr_dereg_busy_then_retry) X(cq_destroy_busy_then_retry)             \
	X(ctx_close_fails_then_retry) X(srq_destroy_busy_then_retry)          \
	X(ud_dest_release_busy_keeps_dest) X(deferred_pd_free_fails)          \
	X(failed_create_leaves_nothing) X(failed_qp_create_leaves_nothing)    \
	X(pd_close_with_cq) X(mr_close_with_pd) X(ctx_close_with_pd)          \
	X(poll_with_pd) X(rc_batch_on_ud_qp) X(uc_batch_on_rc_qp)             \
	X(ud_handshake_with_rc_qp) X(srq_recv_with_cq)                        \
	X(qp_create_send_cq_is_pd) X(qp_create_srq_is_mr) X(ud_dest_ah_is_mr) \
	X(garbage_handle) X(mr_sge_with_cq) X(mr_sge_null) X(mr_remote_null)  \
	X(mr_ptr_null) X(gid_table_null_out_cap0) X(gid_table_null_out_cap4)  \
	X(gid_table_null_count) X(gid_table_bad_port) X(gid_pick_null_out)    \
	X(port_info_null_out) X(port_info_port0) X(device_attr_null_out)      \
	X(device_open_unknown_name) X(device_list_null_entries)               \
	X(poll_null_wc) X(iter_start_null_it) X(iter_next_null_it)            \
	X(iter_read_after_end) X(cq_close_during_iteration) X(iter_empty_cq) X(send_null_sgl)              \
	X(send_zero_sges) X(recv_add_null_sgl) X(out_params_null)             \
	X(mr_register_null_addr) X(mr_zero_length)                            \
	X(mr_access_without_local_write) X(qp_create_null_cfg)                \
	X(endpoint_null_out) X(handshake_null_remote)                         \
	X(ud_handshake_null_dest) X(modify_null_attr)                         \
	X(endpoint_to_bytes_null) X(endpoint_from_bytes_null)                 \
	X(endpoint_to_str_null) X(sge_past_end) X(sge_length_past_end)        \
	X(sge_offset_overflow) X(sge_whole_mr_ok) X(poisoned_sge_in_gather)   \
	X(remote_past_end) X(advise_outside) X(too_many_sges)                 \
	X(recv_too_many_sges) X(atomic_wrong_sge) X(atomic_unaligned)         \
	X(inline_too_large) X(inline_read) X(unknown_flags)                   \
	X(ud_send_null_dest) X(ud_send_dest_without_ah) X(add_before_start)   \
	X(submit_before_start) X(add_after_submit) X(submit_twice)            \
	X(add_after_abort) X(start_twice) X(batch_full) X(start_in_init)      \
	X(start_after_error_state) X(recv_start_twice)                        \
	X(recv_add_after_submit) X(recv_batch_full) X(recv_on_srq_qp)         \
	X(handshake_with_open_batch) X(modify_with_open_batch)                \
	X(handshake_twice) X(cq_too_deep) X(cq_comp_mask)                     \
	X(cq_timestamps_legacy) X(qp_caps_over_device) X(qp_sges_over_device) \
	X(max_batch_over_queue) X(uc_access_read) X(rc_timeout_range)         \
	X(qp_psn_range) X(qp_gid_index_range) X(qp_bad_mtu) X(qp_bad_port)    \
	X(qp_comp_mask_retry_on_ud) X(qp_cqs_of_two_devices)                  \
	X(srq_limit_range) X(srq_over_device) X(modify_bad_mask)              \
	X(ep_qpn_zero) X(ep_qpn_wide) X(ep_psn_wide) X(ep_unknown_flags)      \
	X(ep_port_zero) X(ep_port_three) X(ep_mtu_zero) X(ep_mtu_40)          \
	X(ep_qkey_on_uc) X(ep_lid_on_roce) X(ep_gid_valid_zero_gid)           \
	X(ep_gid_without_flag) X(ep_ib_with_gid_valid)                        \
	X(ep_ib_gid_without_flag) X(ep_ib_no_lid) X(ep_comp_mask)             \
	X(ep_transport_9) X(ep_transport_mismatch) X(ep_ib_remote_on_roce_qp) \
	X(ep_ud_qkey_zero_ok) X(ep_to_str_every_pattern)                      \
	X(ep_wire_roundtrip_of_own) X(good_traffic)                           \
	X(srd_qp_double_close) X(srd_qp_use_after_close) X(srd_wrong_kind)    \
	X(srd_null) X(srd_released_dest) X(srd_ah_closed_under_dest)         \
	X(dmabuf_ptr_refused) X(dmabuf_addressed_at_iova)

static const struct {
	const char *name;
	void (*fn)(struct rig *);
} cases[] = {
#define ROW(n) { #n, n },
	CASES(ROW)
#undef ROW
};

static bool selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	void *fail;
	int ran = 0;

	vs_t_use_fake(&fail, &live);
	fail_next = fail;
	/* the SRD cases: fake0 is an EFA device to the fake libefa */
	vs_t_use_fake_efa(EFADV_DEVICE_ATTR_CAPS_RDMA_READ);

	for (int pass = 0; pass < 2; pass++) {
		extended = pass == 0;
		vs_set_force_legacy(!extended);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct rig r;

			if (!selected(argc, argv, cases[i].name))
				continue;
			rig_up(&r);
			cases[i].fn(&r);
			fail_next->verb[0] = 0;
			rig_down(&r);
			ran++;
		}
	}
	vs_set_force_legacy(false);
	printf("%d misuse cases (%zu, on extended and on legacy verbs): each "
	       "refused with its error, nothing leaked\n", ran,
	       sizeof(cases) / sizeof(cases[0]));
	return ran ? 0 : 1;
}
