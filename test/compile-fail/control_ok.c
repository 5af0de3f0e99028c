/* SPDX-License-Identifier: MIT */
/* control: correct use of every typed family must compile cleanly */
/* expect: OK */
#include <verbshim.h>

int use(struct vs_rc_qp *rc, struct vs_uc_qp *uc, struct vs_ud_qp *ud,
	const struct vs_ud_dest *dest, struct ibv_sge *sge, struct vs_remote r);

int use(struct vs_rc_qp *rc, struct vs_uc_qp *uc, struct vs_ud_qp *ud,
	const struct vs_ud_dest *dest, struct ibv_sge *sge, struct vs_remote r)
{
	struct vs_rc_batch rb;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_rc_config rcfg = { .timeout = 14, .retry_cnt = 7 };
	struct vs_ud_config dcfg = { .qkey = 0x11111111 };
	int ret = 0;

	(void)rcfg;
	(void)dcfg;
	ret |= vs_rc_batch_start(rc, &rb);
	ret |= vs_rc_read(&rb, 1, 0, sge, 1, r);
	ret |= vs_rc_faa(&rb, 2, 0, sge, r, 1);
	ret |= vs_rc_cas(&rb, 3, 0, sge, r, 1, 2);
	ret |= vs_rc_write(&rb, 4, VS_WR_SIGNALED, sge, 1, r);
	ret |= vs_rc_batch_submit(&rb);
	ret |= vs_uc_batch_start(uc, &ub);
	ret |= vs_uc_write(&ub, 5, 0, sge, 1, r);
	ret |= vs_uc_batch_submit(&ub);
	ret |= vs_ud_batch_start(ud, &db);
	ret |= vs_ud_send(&db, 6, 0, dest, sge, 1);
	ret |= vs_ud_batch_submit(&db);
	return ret;
}

/*
 * Configs and out pointers of the right type, NULL, and (C only: C++ has
 * no compound literals) literals with commas.
 */
int make(struct vs_context *ctx, struct vs_pd *pd, struct vs_cq *cq,
	 struct vs_srq *srq, struct vs_ud_dest *dest);

int make(struct vs_context *ctx, struct vs_pd *pd, struct vs_cq *cq,
	 struct vs_srq *srq, struct vs_ud_dest *dest)
{
	const struct vs_rc_config rcfg = { .send_cq = cq, .recv_cq = cq };
	struct vs_context *c2;
	struct vs_cq *cq2;
	struct vs_srq *srq2;
	struct vs_mr *mr;
	struct vs_rc_qp *rc;
	struct vs_uc_qp *uc;
	struct vs_ud_qp *ud;
	struct vs_channel *ch;
	struct vs_endpoint ep;
	int ret = 0;

	ret |= vs_device_open("rxe0", &c2);
	ret |= vs_device_open("rxe0", NULL);
	ret |= vs_channel_create(ctx, &ch);
	ret |= vs_cq_create(ctx, NULL, &cq2);
	ret |= vs_mr_alloc(pd, 4096, 0, &mr);
	ret |= vs_mr_register(pd, &ep, sizeof(ep), 0, &mr);
	ret |= vs_rc_qp_create(pd, &rcfg, &rc);
	ret |= vs_rc_qp_create(pd, NULL, NULL);
#ifndef __cplusplus
	ret |= vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 64, .channel = ch,
			    .user_context = ctx }, &cq2);
	ret |= vs_srq_create(pd, &(const struct vs_srq_config){ .max_wr = 16,
			     .max_sge = 1 }, &srq2);
	ret |= vs_uc_qp_create(pd, &(struct vs_uc_config){ .send_cq = cq,
			       .recv_cq = cq, .caps = { .max_send_wr = 4,
			       .max_recv_wr = 4, .max_send_sge = 1,
			       .max_recv_sge = 1 }, .psn = 1 }, &uc);
	ret |= vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq,
			       .recv_cq = cq, .srq = srq, .qkey = 7 }, &ud);
#else
	(void)srq;
	ret |= vs_srq_create(pd, NULL, &srq2);
	ret |= vs_uc_qp_create(pd, NULL, &uc);
	ret |= vs_ud_qp_create(pd, NULL, &ud);
#endif
	ret |= vs_rc_endpoint(rc, &ep);
	ret |= vs_rc_handshake(rc, &ep);
	ret |= vs_ud_handshake(ud, &ep, dest);
	return ret;
}

int use_srd(struct vs_srd_qp *srd, const struct vs_srd_dest *dest,
	    struct ibv_sge *sge, struct vs_remote r);

int use_srd(struct vs_srd_qp *srd, const struct vs_srd_dest *dest,
	    struct ibv_sge *sge, struct vs_remote r)
{
	struct vs_srd_batch sb;
	struct vs_srd_config scfg = { .qkey = 0x11111111, .rnr_retry = 7 };
	int ret = 0;

	(void)scfg;
	ret |= vs_srd_batch_start(srd, &sb);
	ret |= vs_srd_send(&sb, 1, 0, dest, sge, 1);
	ret |= vs_srd_send_imm(&sb, 2, 0, dest, 9, sge, 1);
	ret |= vs_srd_write(&sb, 3, 0, dest, sge, 1, r);
	ret |= vs_srd_read(&sb, 4, VS_WR_SIGNALED, dest, sge, 1, r);
	ret |= vs_srd_batch_submit(&sb);
	return ret;
}

int make_srd(struct vs_context *ctx, struct vs_pd *pd, struct vs_cq *cq,
	     struct vs_srd_dest *dest);

int make_srd(struct vs_context *ctx, struct vs_pd *pd, struct vs_cq *cq,
	     struct vs_srd_dest *dest)
{
	const struct vs_srd_config cfg = { .send_cq = cq, .recv_cq = cq };
	struct vs_efa_caps caps;
	struct vs_srd_qp *srd;
	struct vs_endpoint ep;
	int ret = 0;

	caps.comp_mask = 0;
	ret |= vs_efa_query_caps(ctx, &caps);
	ret |= vs_srd_qp_create(pd, &cfg, &srd);
	ret |= vs_srd_qp_create(pd, NULL, NULL);
#ifndef __cplusplus
	ret |= vs_srd_qp_create(pd, &(struct vs_srd_config){ .send_cq = cq,
				.recv_cq = cq, .qkey = 7, .rnr_retry = 3 }, &srd);
#endif
	ret |= vs_srd_endpoint(srd, &ep);
	ret |= vs_srd_handshake(srd, &ep, dest);
	return ret;
}
