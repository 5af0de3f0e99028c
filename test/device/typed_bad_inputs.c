/* SPDX-License-Identifier: MIT */
/*
 * Bad inputs that need a device: wrong state, inline too large, too many
 * SGEs, full batches, misaligned atomics, mismatched handshakes, wrong
 * modify masks, RoCE route failures, unsupported memory features.  Each
 * must be a clear error and leave the objects usable; run in both modes.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/vs_typed.h"

static void run(bool legacy)
{
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr, *tmp_mr = NULL;
	struct vs_rc_qp *qp, *qp2;
	struct vs_ud_qp *ud;
	struct vs_srq *srq;
	struct vs_endpoint ep, uep, far;
	struct vs_rc_batch b;
	struct vs_recv_batch rb;
	struct ibv_sge s[8];
	struct ibv_qp_attr a;
	const struct vs_qp_caps *caps;
	int ret;

	vs_set_force_legacy(legacy);
	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 65536, 0, &mr));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq,
			      .max_batch = 4, .caps = { .max_send_sge = 2 } }, &qp));
	caps = vs_rc_qp_caps(qp);
	for (int i = 0; i < 8; i++)
		s[i] = vs_mr_sge(mr, (size_t)i * 1024, 8);

	/* zero-length MR, handle of another kind, no device */
	VS_FAILS(vs_mr_alloc(pd, 0, 0, &tmp_mr), EINVAL, "length is 0");
	VS_FAILS(vs_mr_register(pd, vs_mr_ptr(mr, 0), 0, 0, &tmp_mr), EINVAL,
		 "length is 0");
	VS_FAILS(vs_mr_close((struct vs_mr *)pd), EINVAL, "another kind (PD, expected MR)");
	VS_FAILS(vs_pd_close((struct vs_pd *)cq), EINVAL, "another kind");
	{
		struct vs_context *none;

		VS_FAILS(vs_device_open("no-such-dev0", &none), ENODEV, "no-such-dev0");
		VS_ASSERT(none == NULL);
	}
	VS_FAILS(vs_mr_alloc(pd, 64, IBV_ACCESS_REMOTE_WRITE, &tmp_mr), EINVAL,
		 "LOCAL_WRITE");

	/* wrong state: sends before the handshake */
	VS_FAILS(vs_rc_batch_start(qp, &b), EINVAL, "state INIT");

	/* manual modify with a wrong mask names what is missing/not allowed */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.qkey = 7;
	VS_FAILS(vs_rc_qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_QKEY),
		 EINVAL, "missing: IBV_QP_AV|");
	VS_ASSERT(strstr(vs_last_error()->message, "not allowed: IBV_QP_QKEY"));
	VS_ASSERT(strstr(vs_last_error()->message, "RC INIT->RTR"));
	printf("modify error: %s\n", vs_last_error()->message);

	/* mismatched transport handshake */
	VS_OK(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &ud));
	VS_OK(vs_ud_endpoint(ud, &uep));
	VS_FAILS(vs_rc_handshake(qp, &uep), EINVAL, "mismatched transports");
	VS_FAILS(vs_rc_handshake(qp, NULL), EINVAL, "NULL");

	/* RoCE route failure names sgid index, dgid, netdev, type, link-local */
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &qp2));
	VS_OK(vs_rc_endpoint(qp2, &far));
	/* 2001:db8::1 (documentation prefix): no route to it in the VM */
	memset(far.gid.raw, 0, 16);
	far.gid.raw[0] = 0x20;
	far.gid.raw[1] = 0x01;
	far.gid.raw[2] = 0x0d;
	far.gid.raw[3] = 0xb8;
	far.gid.raw[15] = 1;
	ret = vs_rc_handshake(qp2, &far);
	if (ret) {
		const char *m = vs_last_error()->message;

		printf("route error: %s\n", m);
		VS_ASSERT(strstr(m, "sgid index"));
		VS_ASSERT(strstr(m, "2001:db8::1"));
		VS_ASSERT(strstr(m, "netdev"));
		VS_ASSERT(strstr(m, "RoCE v2"));
		VS_ASSERT(strstr(m, "not link-local"));
	} else {
		printf("note: rxe accepted an unroutable dgid at RTR\n");
	}
	VS_OK(vs_rc_qp_close(qp2));

	/* now connect for real */
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	VS_FAILS(vs_rc_handshake(qp, &ep), EINVAL, "already");

	VS_OK(vs_rc_batch_start(qp, &b));
	/* a second batch while one is open */
	{
		struct vs_rc_batch b2;

		VS_FAILS(vs_rc_batch_start(qp, &b2), EBUSY, "already open");
	}
	/* SGE count over the cap */
	VS_FAILS(vs_rc_write(&b, 1, 0, s, caps->max_send_sge + 1,
			     vs_mr_remote(mr, 0)), EINVAL, "max_send_sge");
	/* inline larger than the QP allows */
	{
		struct ibv_sge big = vs_mr_sge(mr, 0, caps->max_inline_data + 1);

		VS_FAILS(vs_rc_send(&b, 1, VS_WR_INLINE, &big, 1), EINVAL,
			 "max_inline_data");
	}
	VS_FAILS(vs_rc_read(&b, 1, VS_WR_INLINE, s, 1, vs_mr_remote(mr, 0)),
		 EINVAL, "only for sends and writes");
	VS_FAILS(vs_rc_send(&b, 1, 0x100, s, 1), EINVAL, "VS_WR_");
	VS_FAILS(vs_rc_send(&b, 1, 0, NULL, 1), EINVAL, "sgl is NULL");
	/* atomics: 8-byte SGE, aligned remote */
	{
		struct ibv_sge four = vs_mr_sge(mr, 0, 4);
		struct vs_remote odd = vs_mr_remote(mr, 4);

		VS_FAILS(vs_rc_faa(&b, 1, 0, &four, vs_mr_remote(mr, 8), 1),
			 EINVAL, "8-byte SGE");
		VS_FAILS(vs_rc_cas(&b, 1, 0, &s[0], odd, 1, 2), EINVAL,
			 "not 8-byte aligned");
	}
	/* the batch survived all that: fill it to max_batch, one more is ENOSPC */
	VS_ASSERT_EQ(b.b.count, 0);
	for (int i = 0; i < 4; i++)
		VS_OK(vs_rc_write(&b, 50 + (uint64_t)i, i == 3 ? VS_WR_SIGNALED : 0,
				  &s[i], 1, vs_mr_remote(mr, 32768 + (size_t)i * 8)));
	VS_FAILS(vs_rc_write(&b, 54, 0, &s[4], 1, vs_mr_remote(mr, 32768)),
		 ENOSPC, "batch is full");
	VS_OK(vs_rc_batch_submit(&b));
	{
		struct vs_wc wc;

		vs_t_wait(cq, &wc, 1);
		vs_t_expect_wc(&wc, 53, IBV_WC_RDMA_WRITE, UINT32_MAX);
	}
	/* a submitted batch cannot be reused without a new start */
	VS_FAILS(vs_rc_send(&b, 1, 0, s, 1), EINVAL, "not started");
	VS_FAILS(vs_rc_batch_submit(&b), EINVAL, "not started");
	/* abort drops everything and frees the QP for the next batch */
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, 1, VS_WR_SIGNALED, s, 1));
	vs_rc_batch_abort(&b);
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_batch_submit(&b)); /* empty: nothing posted */
	vs_t_no_more(cq);

	/* receives: too many SGEs; an SRQ-attached QP refuses its own */
	VS_OK(vs_rc_recv_start(qp, &rb));
	VS_FAILS(vs_recv_add(&rb, 1, s, caps->max_recv_sge + 1), EINVAL, "at most");
	vs_recv_abort(&rb);
	VS_OK(vs_srq_create(pd, &(struct vs_srq_config){ .max_wr = 16 }, &srq));
	{	/* the device may round the 16 up: use what it granted */
		struct ibv_srq_attr granted;

		VS_ASSERT_EQ(ibv_query_srq(vs_srq_raw(srq), &granted), 0);
		VS_FAILS(vs_srq_set_limit(srq, granted.max_wr), EINVAL, "below");
	}
	VS_OK(vs_srq_set_limit(srq, 4));
	{
		struct vs_rc_qp *sq;

		VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq,
				      .srq = srq }, &sq));
		VS_FAILS(vs_rc_recv_start(sq, &rb), EINVAL, "SRQ");
		VS_OK(vs_srq_recv_start(srq, &rb));
		VS_OK(vs_recv_add(&rb, 1, s, 1));
		VS_FAILS(vs_srq_close(srq), EBUSY, "a receive batch is open");
		VS_OK(vs_recv_submit(&rb));
		VS_OK(vs_srq_close(srq)); /* the QP keeps the SRQ alive ... */
		/* ... but the handle is closed for the user */
		VS_FAILS(vs_srq_recv_start(srq, &rb), EINVAL,
			 "srq is an SRQ the caller already closed");
		VS_OK(vs_rc_qp_close(sq));
	}

	/* UD send without a destination */
	{
		struct vs_ud_batch ub;
		struct vs_ud_dest dest;

		VS_OK(vs_ud_handshake(ud, &uep, &dest));
		VS_OK(vs_ud_batch_start(ud, &ub));
		VS_FAILS(vs_ud_send(&ub, 1, 0, NULL, s, 1), EINVAL, "dest is NULL");
		{
			struct vs_ud_dest none = { .ah = NULL, .remote_qpn = 1 };

			VS_FAILS(vs_ud_send(&ub, 1, 0, &none, s, 1), EINVAL,
				 "no address handle");
		}
		vs_ud_batch_abort(&ub);
		VS_OK(vs_ud_dest_release(&dest));
	}

	/* memory features rxe lacks: clean errors with the reason */
	ret = vs_mr_advise(mr, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 0, 4096);
	if (ret) {
		VS_ASSERT_EQ(ret, -EOPNOTSUPP);
		printf("advise: %s\n", vs_last_error()->message);
	}
	VS_FAILS(vs_mr_register_dmabuf(pd, -1, 0, 4096, 0, 0, &tmp_mr), EBADF,
		 "dmabuf");
	{
		int fd = memfd_create("not-a-dmabuf", 0);

		VS_ASSERT(fd >= 0);
		VS_ASSERT_EQ(ftruncate(fd, 4096), 0);
		ret = vs_mr_register_dmabuf(pd, fd, 0, 4096, 0, 0, &tmp_mr);
		VS_ASSERT(ret < 0);
		VS_ASSERT(tmp_mr == NULL);
		printf("dmabuf on a memfd: %s\n", vs_t_err());
		close(fd);
	}
	{
		struct vs_cq *tcq = NULL;

		/* rxe has no completion timestamps, in every release */
		VS_FAILS(vs_cq_create(ctx, &(struct vs_cq_config){ .timestamps = true },
				      &tcq), EOPNOTSUPP,
			 legacy ? "need an extended CQ" :
				  "the provider does not support them");
		VS_ASSERT(tcq == NULL);
		printf("timestamps: %s\n", vs_last_error()->message);
	}

	/* the GID auto-pick agrees with the test bed's RoCE v2 index */
	{
		struct vs_gid_info g;
		const char *want = getenv("VS_RXE_GID_INDEX");

		VS_OK(vs_gid_pick(ctx, 1, &g));
		VS_ASSERT_EQ(g.type, VS_GID_ROCE_V2);
		VS_ASSERT(g.ipv4_mapped);
		if (want)
			VS_ASSERT_EQ(g.index, atoi(want));
	}

	/* close in the "wrong" order: references keep everything valid, and
	 * the closed handles are refused while their dependants live */
	VS_OK(vs_pd_close(pd));
	VS_FAILS(vs_mr_alloc(pd, 64, 0, &tmp_mr), EINVAL, "pd is a PD the caller already closed");
	VS_FAILS(vs_pd_close(pd), EINVAL, "already closed");
	VS_OK(vs_device_close(ctx));
	VS_OK(vs_cq_close(cq));
	{
		struct vs_wc wc;

		VS_FAILS(vs_cq_poll(cq, &wc, 1), EINVAL, "cq is a CQ the caller already closed");
	}
	VS_OK(vs_ud_qp_close(ud));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_rc_qp_close(qp));
	printf("bad inputs rejected cleanly in %s mode\n",
	       legacy ? "legacy" : "extended");
}

int main(void)
{
	vs_test_require_device();
	vs_t_skip_on_iwarp(VS_T_IWARP_NO_HANDSHAKE);
	run(false);
	run(true);
	return 0;
}
