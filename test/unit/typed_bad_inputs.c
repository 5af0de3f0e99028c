/* SPDX-License-Identifier: MIT */
/*
 * Bad inputs without a device: NULL handles, handles of another kind,
 * closed handles, unstarted batches, NULL out-parameters.  Each must be
 * -EINVAL (or the documented errno) with a message saying what was wrong;
 * nothing may crash or leak (this runs under ASan and valgrind).
 */
#include "../common/vs_typed.h"

/* Fake handles: only the header is ever read before the kind check fails. */
static struct vs_context fake_ctx = { .h = { .magic = VS_KIND_CONTEXT, .refs = 1 } };
static struct vs_pd fake_pd = { .h = { .magic = VS_KIND_PD, .refs = 1 }, .ctx = &fake_ctx };
static struct vs_cq fake_cq = { .h = { .magic = VS_KIND_CQ, .refs = 1 }, .ctx = &fake_ctx };
static struct vs_ud_qp fake_ud = { .base = { .h = { .magic = VS_KIND_UD_QP, .refs = 1 } } };
static struct vs_rc_qp fake_rc_init = {
	.base = { .h = { .magic = VS_KIND_RC_QP, .refs = 1 }, .state = IBV_QPS_INIT,
		  .transport = VS_TRANSPORT_RC }
};
static struct vs_handle closed = { .magic = VS_KIND_PD | VS__CLOSED };

static void null_handles(void)
{
	struct vs_pd *pd = &fake_pd;
	struct vs_mr *mr = (struct vs_mr *)&closed;
	struct vs_cq *cq = &fake_cq;
	struct vs_rc_qp *rc = (struct vs_rc_qp *)&closed;
	struct vs_endpoint ep;

	VS_FAILS(vs_device_close(NULL), EINVAL, "ctx is NULL");
	VS_FAILS(vs_pd_close(NULL), EINVAL, "pd is NULL");
	VS_FAILS(vs_mr_close(NULL), EINVAL, "mr is NULL");
	VS_FAILS(vs_cq_close(NULL), EINVAL, "cq is NULL");
	VS_FAILS(vs_srq_close(NULL), EINVAL, "srq is NULL");
	VS_FAILS(vs_ah_close(NULL), EINVAL, "ah is NULL");
	VS_FAILS(vs_rc_qp_close(NULL), EINVAL, "qp is NULL");
	VS_FAILS(vs_uc_qp_close(NULL), EINVAL, "qp is NULL");
	VS_FAILS(vs_ud_qp_close(NULL), EINVAL, "qp is NULL");

	/*
	 * The one *out rule of every constructor (docs/API.md): a writable
	 * out is cleared before any other check, so a failure never leaves
	 * a stale pointer there.
	 */
	VS_FAILS(vs_pd_alloc(NULL, &pd), EINVAL, "ctx is NULL");
	VS_ASSERT(pd == NULL);
	VS_FAILS(vs_cq_create(NULL, NULL, &cq), EINVAL, "ctx is NULL");
	VS_ASSERT(cq == NULL);
	mr = (struct vs_mr *)&closed;
	VS_FAILS(vs_mr_alloc(NULL, 4096, 0, &mr), EINVAL, "pd is NULL");
	VS_ASSERT(mr == NULL);
	mr = (struct vs_mr *)&closed;
	VS_FAILS(vs_mr_register(NULL, &ep, sizeof(ep), 0, &mr), EINVAL, "pd is NULL");
	VS_ASSERT(mr == NULL);
	mr = (struct vs_mr *)&closed;
	VS_FAILS(vs_mr_register_dmabuf(NULL, 3, 0, 4096, 0, 0, &mr), EINVAL,
		 "pd is NULL");
	VS_ASSERT(mr == NULL);
	{
		struct vs_srq *srq = (struct vs_srq *)&closed;
		struct vs_uc_qp *uc = (struct vs_uc_qp *)&closed;
		struct vs_ud_qp *ud = (struct vs_ud_qp *)&closed;

		VS_FAILS(vs_srq_create(NULL, NULL, &srq), EINVAL, "pd is NULL");
		VS_ASSERT(srq == NULL);
		VS_FAILS(vs_device_open(NULL, NULL), EINVAL, "out is NULL");
		VS_FAILS(vs_uc_qp_create(NULL, NULL, &uc), EINVAL, "pd is NULL");
		VS_ASSERT(uc == NULL);
		VS_FAILS(vs_ud_qp_create(NULL, NULL, &ud), EINVAL, "pd is NULL");
		VS_ASSERT(ud == NULL);
	}
	VS_FAILS(vs_mr_advise(NULL, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 0, 1),
		 EINVAL, "mr is NULL");
	VS_FAILS(vs_srq_create(NULL, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_srq_set_limit(NULL, 1), EINVAL, "srq is NULL");
	VS_FAILS(vs_rc_qp_create(NULL, NULL, &rc), EINVAL, "pd is NULL");
	VS_ASSERT(rc == NULL); /* out is cleared once it is known to be writable */
	VS_FAILS(vs_rc_qp_create(&fake_pd, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_rc_qp_create(&fake_pd, NULL, &rc), EINVAL, "cfg is NULL");
	VS_FAILS(vs_rc_qp_create(&fake_pd, &(struct vs_rc_config){ 0 }, &rc),
		 EINVAL, "send_cq is NULL");
	VS_FAILS(vs_rc_qp_create(&fake_pd, &(struct vs_rc_config){ .comp_mask = 0x80 },
				 &rc), EINVAL, "comp_mask 0x80");
	VS_FAILS(vs_ud_qp_create(&fake_pd, &(struct vs_ud_config){
		.send_cq = &fake_cq, .comp_mask = VS_QP_CFG_RETRY }, NULL),
		 EINVAL, "out is NULL");
	VS_FAILS(vs_rc_endpoint(NULL, &ep), EINVAL, "qp is NULL");
	VS_FAILS(vs_rc_handshake(NULL, &ep), EINVAL, "qp is NULL");
	VS_FAILS(vs_ud_handshake(NULL, &ep, NULL), EINVAL, "qp is NULL");
	VS_FAILS(vs_rc_qp_modify(NULL, NULL, 0), EINVAL, "qp is NULL");
	VS_FAILS(vs_device_list(NULL, 0, NULL), EINVAL, "count is NULL");
	VS_FAILS(vs_device_open(NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_device_attr(NULL, NULL), EINVAL, "ctx is NULL");
	VS_FAILS(vs_port_info(NULL, 1, NULL), EINVAL, "ctx is NULL");
	VS_FAILS(vs_gid_table(NULL, 1, NULL, 0, NULL), EINVAL, "ctx is NULL");
	VS_FAILS(vs_gid_pick(NULL, 1, NULL), EINVAL, "ctx is NULL");
	VS_FAILS(vs_ud_dest_release(NULL), EINVAL, "dest is NULL");
	{
		struct vs_ud_dest none = { 0 };

		VS_OK(vs_ud_dest_release(&none));
	}
	VS_ASSERT(vs_context_raw(NULL) == NULL);
	VS_ASSERT(vs_pd_raw(NULL) == NULL);
	VS_ASSERT(vs_mr_raw(NULL) == NULL);
	VS_ASSERT(vs_cq_raw(NULL) == NULL);
	VS_ASSERT(vs_cq_raw_ex(NULL) == NULL);
	VS_ASSERT(vs_srq_raw(NULL) == NULL);
	VS_ASSERT(vs_ah_raw(NULL) == NULL);
}

static void wrong_kinds(void)
{
	struct vs_rc_batch b;
	struct vs_cq *cq;

	VS_FAILS(vs_pd_close((struct vs_pd *)&fake_cq), EINVAL,
		 "pd is a handle of another kind (CQ, expected PD)");
	VS_FAILS(vs_mr_close((struct vs_mr *)&fake_pd), EINVAL,
		 "another kind (PD, expected MR)");
	VS_FAILS(vs_rc_qp_close((struct vs_rc_qp *)&fake_ud), EINVAL,
		 "another kind (UD QP, expected RC QP)");
	VS_FAILS(vs_cq_create((struct vs_context *)&fake_pd, NULL, &cq), EINVAL,
		 "expected device context");
	VS_FAILS(vs_rc_batch_start((struct vs_rc_qp *)&fake_ud, &b), EINVAL,
		 "expected RC QP");
	VS_FAILS(vs_rc_qp_create(&fake_pd, &(struct vs_rc_config){
		.send_cq = (struct vs_cq *)&fake_pd }, &(struct vs_rc_qp *){ NULL }),
		 EINVAL, "send_cq is a handle of another kind");
	VS_FAILS(vs_rc_qp_create(&fake_pd, &(struct vs_rc_config){
		.send_cq = &fake_cq, .srq = (struct vs_srq *)&fake_cq },
		&(struct vs_rc_qp *){ NULL }), EINVAL, "srq is a handle of another kind");
	/* closed (poisoned) handles */
	VS_FAILS(vs_pd_close((struct vs_pd *)&closed), EINVAL,
		 "pd is a PD the caller already closed");
	VS_FAILS(vs_mr_close((struct vs_mr *)&closed), EINVAL,
		 "another kind (closed PD, expected MR)");
	/* unknown garbage */
	{
		struct vs_handle junk = { .magic = 0x12345678, .refs = 1 };

		VS_FAILS(vs_cq_close((struct vs_cq *)&junk), EINVAL, "unknown handle");
	}
}

static void batches(void)
{
	struct vs_rc_batch b;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_recv_batch rb;
	struct ibv_sge s = { 0 };

	memset(&b, 0, sizeof(b));
	memset(&ub, 0, sizeof(ub));
	memset(&db, 0, sizeof(db));
	memset(&rb, 0, sizeof(rb));
	VS_FAILS(vs_rc_batch_start(NULL, &b), EINVAL, "qp is NULL");
	VS_FAILS(vs_rc_batch_start(&fake_rc_init, NULL), EINVAL, "batch is NULL");
	/* wrong state: sends need RTS */
	VS_FAILS(vs_rc_batch_start(&fake_rc_init, &b), EINVAL, "state INIT");
	VS_ASSERT(b.b.qp == NULL);
	VS_FAILS(vs_rc_send(&b, 1, 0, &s, 1), EINVAL, "not started");
	VS_FAILS(vs_rc_read(&b, 1, 0, &s, 1, (struct vs_remote){ 0, 0 }), EINVAL,
		 "not started");
	VS_FAILS(vs_rc_batch_submit(&b), EINVAL, "not started");
	VS_FAILS(vs_rc_batch_submit(NULL), EINVAL, "not started");
	vs_rc_batch_abort(&b);
	vs_rc_batch_abort(NULL);
	VS_FAILS(vs_uc_write(&ub, 1, 0, &s, 1, (struct vs_remote){ 0, 0 }), EINVAL,
		 "not started");
	VS_FAILS(vs_ud_send(&db, 1, 0, NULL, &s, 1), EINVAL, "not started");
	VS_FAILS(vs_recv_add(&rb, 1, &s, 1), EINVAL, "not started");
	VS_FAILS(vs_recv_submit(&rb), EINVAL, "not started");
	VS_FAILS(vs_recv_add(NULL, 1, &s, 1), EINVAL, "not started");
	VS_FAILS(vs_rc_recv_start(NULL, &rb), EINVAL, "qp is NULL");
	VS_FAILS(vs_srq_recv_start(NULL, &rb), EINVAL, "srq is NULL");
	VS_FAILS(vs_rc_recv_start(&fake_rc_init, NULL), EINVAL, "batch is NULL");
	vs_recv_abort(&rb);
	vs_recv_abort(NULL);
}

static void modify_rules(void)
{
	char why[600];

	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RESET, IBV_QPS_INIT,
				      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS, why, sizeof(why)), 0);
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
				      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS, why, sizeof(why)), -EINVAL);
	VS_ASSERT(strstr(why, "UD RESET->INIT: missing: IBV_QP_QKEY; not allowed: "
			      "IBV_QP_ACCESS_FLAGS"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
				      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU,
				      why, sizeof(why)), -EINVAL);
	VS_ASSERT(strstr(why, "missing: IBV_QP_RQ_PSN|IBV_QP_MIN_RNR_TIMER|"
			      "IBV_QP_MAX_DEST_RD_ATOMIC|IBV_QP_DEST_QPN; not allowed: none"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_UC, IBV_QPS_INIT, IBV_QPS_RTR,
				      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC, why, sizeof(why)),
		     -EINVAL);
	VS_ASSERT(strstr(why, "not allowed: IBV_QP_MAX_DEST_RD_ATOMIC"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_UD, IBV_QPS_INIT, IBV_QPS_RTR,
				      IBV_QP_STATE | IBV_QP_QKEY, why, sizeof(why)), 0);
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_UD, IBV_QPS_RTR, IBV_QPS_RTS,
				      IBV_QP_STATE, why, sizeof(why)), -EINVAL);
	VS_ASSERT(strstr(why, "missing: IBV_QP_SQ_PSN"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RTS, IBV_QPS_INIT,
				      IBV_QP_STATE, why, sizeof(why)), -EINVAL);
	VS_ASSERT(strstr(why, "RTS->INIT is not a legal transition for an RC QP"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RTS, IBV_QPS_ERR,
				      IBV_QP_STATE, why, sizeof(why)), 0);
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RTS, IBV_QPS_RESET,
				      IBV_QP_STATE | IBV_QP_SQ_PSN, why, sizeof(why)),
		     -EINVAL);
	VS_ASSERT(strstr(why, "not allowed: IBV_QP_SQ_PSN"));
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
				      IBV_QP_AV, why, sizeof(why)), -EINVAL);
	VS_ASSERT(strstr(why, "IBV_QP_STATE is missing"));
	VS_ASSERT_EQ(vs_qp_check_mask((enum vs_transport)7, IBV_QPS_INIT,
				      IBV_QPS_RTR, IBV_QP_STATE, why, sizeof(why)),
		     -EINVAL);
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RTS, IBV_QPS_RTS,
				      IBV_QP_MIN_RNR_TIMER, NULL, 0), 0);
	/* a tiny buffer is still terminated */
	VS_ASSERT_EQ(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
				      IBV_QP_STATE, why, 8), -EINVAL);
	VS_ASSERT_EQ(strlen(why), 7);
}

/*
 * A close that is not the last only drops the user's reference (no verb
 * is called); the handle is closed for the user all the same, and a
 * second close never spends a dependant's reference.
 */
static void references(void)
{
	static struct vs_context c = { .h = { .magic = VS_KIND_CONTEXT, .refs = 3 } };
	static struct vs_pd p = { .h = { .magic = VS_KIND_PD, .refs = 2 }, .ctx = &c };
	static struct vs_cq q = { .h = { .magic = VS_KIND_CQ, .refs = 2 }, .ctx = &c };

	VS_OK(vs_pd_close(&p));
	VS_ASSERT_EQ(p.h.refs, 1);
	VS_FAILS(vs_pd_close(&p), EINVAL, "pd is a PD the caller already closed");
	VS_ASSERT_EQ(p.h.refs, 1);
	VS_OK(vs_cq_close(&q));
	VS_ASSERT_EQ(q.h.refs, 1);
	VS_OK(vs_device_close(&c));
	VS_FAILS(vs_device_close(&c), EINVAL,
		 "ctx is a device context the caller already closed");
	VS_ASSERT_EQ(c.h.refs, 2);
	VS_ASSERT_EQ(c.h.magic, VS_KIND_CONTEXT | VS__CLOSED);
	VS_FAILS(vs_cq_create(&c, NULL, &(struct vs_cq *){ NULL }), EINVAL,
		 "ctx is a device context the caller already closed");
}

int main(void)
{
	references();
	null_handles();
	wrong_kinds();
	batches();
	modify_rules();
	printf("bad inputs rejected with clear errors\n");
	return 0;
}
