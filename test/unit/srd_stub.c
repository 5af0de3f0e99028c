/* SPDX-License-Identifier: MIT */
/*
 * EFA SRD's control path against a fake libefa: NOT A DATA-PATH TEST.
 * No EFA device is reachable from this project's tests, so this program
 * drives the typed SRD calls against build/.../stubs/fake/libefa.so.1
 * (test/stubs/stub_fake_efa.c) over the fake provider, and checks what
 * the library asks of libefa and the provider against recorded
 * expectations: efadv_create_qp_ex's arguments (driver QP type, send
 * operations by device caps, queue sizes capped by efadv's limits), the
 * modify masks of the bring-up (Q_Key at INIT, RNR retry at RTS), the
 * address handle (GRH toward the GID), the caps struct, and every error
 * path (not EFA, no libefa, efadv failures, operations the device lacks,
 * misuse of SRD handles).  The fake completes sends at once and moves no
 * byte; the SRD data path on real EFA is untested.
 */
#include <sys/wait.h>

#include "vs_config.h"
#include "../common/vs_fake.h"

static struct vs_stub_efa *efa; /* the fake libefa's control block */

static struct {
	int mask[IBV_QPS_ERR + 1];
	struct ibv_qp_attr attr[IBV_QPS_ERR + 1];
} *modify; /* the fake provider's vs_stub_modify */
static struct ibv_ah_attr *last_ah;
static int *live; /* ctx pd mr cq qp srq ah */

/* efadv.h of rdma-core 33.2 (the oldest build) names none of the newer bits */
#define EFA_CAP_CQ_WITH_SGID (1u << 2)
#define EFA_CAPS_ALL (EFADV_DEVICE_ATTR_CAPS_RDMA_READ |                    \
		      EFADV_DEVICE_ATTR_CAPS_RNR_RETRY | (1u << 3) | (1u << 4))

static void *sym(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD), *p;

	if (!h)
		VS_FAIL("%s is not loaded", lib);
	p = dlsym(h, name);
	if (!p)
		VS_FAIL("%s has no %s", lib, name);
	dlclose(h);
	return p;
}

/* fake0 as efadv describes it (vs_t_use_fake_efa's limits), EFA or not. */
static void efa_reset(bool is_efa, uint32_t device_caps)
{
	efa = vs_t_use_fake_efa(device_caps);
	efa->efa_device = is_efa;
	memset(modify, 0, sizeof(*modify));
}

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
};

static void rig_up(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	VS_OK(vs_device_open("fake0", &r->ctx));
	VS_OK(vs_pd_alloc(r->ctx, &r->pd));
	VS_OK(vs_cq_create(r->ctx, NULL, &r->cq));
	VS_OK(vs_mr_alloc(r->pd, 4096, 0, &r->mr));
}

static void rig_down(struct rig *r)
{
	VS_OK(vs_mr_close(r->mr));
	VS_OK(vs_cq_close(r->cq));
	VS_OK(vs_pd_close(r->pd));
	VS_OK(vs_device_close(r->ctx));
	for (int i = 0; i < 7; i++)
		if (live[i])
			VS_FAIL("%d object(s) of kind %d still alive", live[i], i);
}

/* An SRD QP in RTS toward itself, with its destination. */
static void srd_up(struct rig *r, struct vs_srd_qp **qp, struct vs_srd_dest *dest)
{
	struct vs_endpoint ep;

	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, qp));
	VS_OK(vs_srd_endpoint(*qp, &ep));
	VS_OK(vs_srd_handshake(*qp, &ep, dest));
}

static void not_efa(struct rig *r)
{
	struct vs_srd_qp *qp = (struct vs_srd_qp *)1;
	struct vs_efa_caps caps = { 0 };

	efa_reset(false, 0);
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp),
		 EOPNOTSUPP, "device fake0 is not an EFA device: SRD needs the efa provider");
	VS_ASSERT_STREQ(vs_last_error()->verb, "efadv_query_device");
	VS_ASSERT(qp == NULL);
	VS_ASSERT_EQ(efa->creates, 0);
	VS_FAILS(vs_efa_query_caps(r->ctx, &caps), EOPNOTSUPP,
		 "device fake0 is not an EFA device: SRD needs the efa provider");
	VS_ASSERT_EQ(caps.comp_mask, 0);
}

static void caps_interpreted(struct rig *r)
{
	struct vs_efa_caps caps = { 0 };
	struct vs_port_info pi;

	/* an EFA-like device: transport and link layer unspecified */
	VS_OK(vs_port_info(r->ctx, 1, &pi));
	VS_ASSERT_EQ(pi.kind, VS_LINK_EFA);
	VS_ASSERT_STREQ(vs_link_kind_name(pi.kind), "EFA");

	efa_reset(true, EFA_CAPS_ALL | EFA_CAP_CQ_WITH_SGID);
	VS_OK(vs_efa_query_caps(r->ctx, &caps));
	VS_ASSERT_EQ(caps.comp_mask, VS_EFA_CAPS_QUEUES | VS_EFA_CAPS_FLAGS |
				     VS_EFA_CAPS_RDMA_SIZE);
	VS_ASSERT_EQ(caps.max_sq_wr, 512);
	VS_ASSERT_EQ(caps.max_rq_wr, 256);
	VS_ASSERT_EQ(caps.max_sq_sge, 2);
	VS_ASSERT_EQ(caps.max_rq_sge, 3);
	VS_ASSERT_EQ(caps.inline_buf_size, 32);
	VS_ASSERT_EQ(caps.max_rdma_size, 1u << 30);
	VS_ASSERT_EQ(caps.device_caps, EFA_CAPS_ALL | EFA_CAP_CQ_WITH_SGID);
	VS_ASSERT_EQ(caps.flags, VS_EFA_CAP_RDMA_READ | VS_EFA_CAP_RNR_RETRY |
				 VS_EFA_CAP_CQ_WITH_SGID | VS_EFA_CAP_RDMA_WRITE |
				 VS_EFA_CAP_UNSOLICITED_WRITE_RECV);
	/* each bit alone maps to its flag alone */
	efa->attr.device_caps = 1u << 3;
	VS_OK(vs_efa_query_caps(r->ctx, &(struct vs_efa_caps){ 0 }));
	caps.comp_mask = 0;
	VS_OK(vs_efa_query_caps(r->ctx, &caps));
	VS_ASSERT_EQ(caps.flags, VS_EFA_CAP_RDMA_WRITE);
	efa->attr.device_caps = EFADV_DEVICE_ATTR_CAPS_RDMA_READ;
	caps.comp_mask = 0;
	VS_OK(vs_efa_query_caps(r->ctx, &caps));
	VS_ASSERT_EQ(caps.flags, VS_EFA_CAP_RDMA_READ);
	caps.comp_mask = 4;
	VS_FAILS(vs_efa_query_caps(r->ctx, &caps), EINVAL, "out->comp_mask 0x4");
	VS_FAILS(vs_efa_query_caps(r->ctx, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_efa_query_caps(NULL, &caps), EINVAL, "ctx is NULL");
	efa->query_err = EIO;
	caps.comp_mask = 0;
	VS_FAILS(vs_efa_query_caps(r->ctx, &caps), EIO, "cannot query the EFA device fake0");
	VS_ASSERT_STREQ(vs_last_error()->verb, "efadv_query_device");
}

static void create_arguments(struct rig *r)
{
	struct vs_srd_qp *qp;
	const struct vs_qp_caps *c;

	efa_reset(true, EFA_CAPS_ALL);
	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp));
	VS_ASSERT_EQ(efa->creates, 1);
	VS_ASSERT_EQ(efa->driver_qp_type, EFADV_QP_DRIVER_TYPE_SRD);
	VS_ASSERT_EQ(efa->inlen, sizeof(struct efadv_qp_init_attr));
	VS_ASSERT_EQ(efa->efa_comp_mask, 0);
	VS_ASSERT_EQ(efa->qp_type, IBV_QPT_DRIVER);
	VS_ASSERT_EQ(efa->comp_mask, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	VS_ASSERT_EQ(efa->send_ops_flags,
		     IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_RDMA_WRITE |
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	/* the defaults (128 WRs, 4 SGEs, 64 inline) capped by efadv's limits */
	VS_ASSERT_EQ(efa->cap.max_send_wr, 128);
	VS_ASSERT_EQ(efa->cap.max_recv_wr, 128);
	VS_ASSERT_EQ(efa->cap.max_send_sge, 2);
	VS_ASSERT_EQ(efa->cap.max_recv_sge, 3);
	VS_ASSERT_EQ(efa->cap.max_inline_data, 32);
	c = vs_srd_qp_caps(qp);
	VS_ASSERT(c != NULL);
	VS_ASSERT(vs_srd_qp_is_extended(qp));
	VS_ASSERT(vs_srd_qp_num(qp) != 0);
	VS_ASSERT(vs_srd_qp_raw(qp) != NULL);
	/* INIT with the Q_Key (UD's attributes) */
	VS_ASSERT_EQ(modify->mask[IBV_QPS_INIT],
		     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	VS_ASSERT_EQ(modify->attr[IBV_QPS_INIT].qkey, VS_DEFAULT_QKEY);
	VS_OK(vs_srd_qp_close(qp));

	/* no RDMA caps: send and send with immediate only */
	efa_reset(true, 0);
	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
		.send_cq = r->cq, .qkey = 0x1234,
		.caps = { .max_send_wr = 200, .max_send_sge = 1 } }, &qp));
	VS_ASSERT_EQ(efa->send_ops_flags,
		     IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	VS_ASSERT_EQ(efa->cap.max_send_wr, 200);
	VS_ASSERT_EQ(efa->cap.max_send_sge, 1);
	VS_ASSERT_EQ(modify->attr[IBV_QPS_INIT].qkey, 0x1234);
	VS_OK(vs_srd_qp_close(qp));
}

static void create_errors(struct rig *r)
{
	struct vs_srd_qp *qp;

	efa_reset(true, EFADV_DEVICE_ATTR_CAPS_RDMA_READ);
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
			.send_cq = r->cq, .caps = { .max_send_sge = 4 } }, &qp),
		 EINVAL, "max_send_sge 4 exceeds the EFA device's max_sq_sge 2");
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
			.send_cq = r->cq, .caps = { .max_inline_data = 33 } }, &qp),
		 EINVAL, "max_inline_data 33 exceeds the EFA device's inline_buf_size 32");
	VS_ASSERT_EQ(efa->creates, 0);
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
			.send_cq = r->cq, .comp_mask = VS_QP_CFG_RETRY }, &qp),
		 EOPNOTSUPP, "the EFA device fake0 cannot retry RNR");
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
			.send_cq = r->cq, .comp_mask = 1u << 7 }, &qp),
		 EINVAL, "comp_mask 0x80 has bits unknown for an SRD QP");
	VS_FAILS(vs_srd_qp_create(r->pd, NULL, &qp), EINVAL, "cfg is NULL");
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ 0 }, &qp),
		 EINVAL, "send_cq is NULL");
	efa->create_err = ENOMEM;
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp),
		 ENOMEM, "cannot create an SRD QP on fake0 (send 128 x 2 SGE");
	VS_ASSERT_STREQ(vs_last_error()->verb, "efadv_create_qp_ex");
	VS_ASSERT(qp == NULL);
	VS_ASSERT_EQ(live[4], 0);
	efa->query_err = EIO;
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp),
		 EIO, "cannot query the EFA device fake0");
}

static void bring_up(struct rig *r)
{
	struct vs_srd_qp *qp;
	struct vs_srd_dest dest, dest2;
	struct vs_endpoint ep;
	struct vs_efa_ah_info ah = { 0 };
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE];
	struct vs_endpoint back;

	efa_reset(true, EFA_CAPS_ALL);
	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_srd_endpoint(qp, &ep));
	VS_ASSERT_EQ(ep.transport, VS_TRANSPORT_SRD);
	VS_ASSERT_EQ(ep.flags, VS_EP_GID_VALID); /* EFA port: no Ethernet, a GID */
	VS_ASSERT_EQ(ep.lid, 0);
	VS_ASSERT_EQ(ep.qkey, VS_DEFAULT_QKEY);
	VS_ASSERT_EQ(ep.qpn, vs_srd_qp_num(qp));
	VS_ASSERT_EQ(ep.gid.raw[0], 0xfe); /* the fake's GID 0 */
	VS_OK(vs_endpoint_to_bytes(&ep, wire));
	VS_OK(vs_endpoint_from_bytes(wire, sizeof(wire), &back));
	VS_ASSERT(!memcmp(&back, &ep, sizeof(ep)));
	VS_OK(vs_srd_handshake(qp, &back, &dest));
	VS_ASSERT_EQ(modify->mask[IBV_QPS_RTR], IBV_QP_STATE);
	VS_ASSERT_EQ(modify->mask[IBV_QPS_RTS],
		     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RNR_RETRY);
	VS_ASSERT_EQ(modify->attr[IBV_QPS_RTS].rnr_retry, 7);
	VS_ASSERT_EQ(last_ah->is_global, 1);
	VS_ASSERT(!memcmp(&last_ah->grh.dgid, &ep.gid, sizeof(ep.gid)));
	VS_ASSERT_EQ(dest.base.remote_qpn, ep.qpn);
	VS_ASSERT_EQ(dest.base.remote_qkey, VS_DEFAULT_QKEY);
	VS_OK(vs_srd_dest_query(&dest, &ah));
	VS_ASSERT(ah.ahn >= 0x20);
	ah.comp_mask = 1;
	VS_FAILS(vs_srd_dest_query(&dest, &ah), EINVAL, "out->comp_mask 0x1");
	/* one QP, many destinations: a second handshake makes another AH */
	VS_OK(vs_srd_handshake(qp, &back, &dest2));
	VS_ASSERT(dest2.base.ah != dest.base.ah);
	VS_OK(vs_srd_dest_release(&dest2));
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_dest_release(&dest)); /* a cleared one is accepted */
	VS_FAILS(vs_srd_dest_query(&dest, &ah), EINVAL,
		 "the destination has no address handle");
	VS_OK(vs_srd_qp_close(qp));

	/* literal rnr_retry 0 on a device that retries; none on one that cannot */
	efa_reset(true, EFA_CAPS_ALL);
	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){
		.send_cq = r->cq, .comp_mask = VS_QP_CFG_RETRY, .rnr_retry = 0 }, &qp));
	VS_OK(vs_srd_endpoint(qp, &ep));
	VS_OK(vs_srd_handshake(qp, &ep, &dest));
	VS_ASSERT_EQ(modify->attr[IBV_QPS_RTS].rnr_retry, 0);
	VS_ASSERT(modify->mask[IBV_QPS_RTS] & IBV_QP_RNR_RETRY);
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_qp_close(qp));
	efa_reset(true, EFADV_DEVICE_ATTR_CAPS_RDMA_READ);
	srd_up(r, &qp, &dest);
	VS_ASSERT_EQ(modify->mask[IBV_QPS_RTS], IBV_QP_STATE | IBV_QP_SQ_PSN);
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_qp_close(qp));
}

/* The operations reach ibv_wr_* (the fake completes them; no byte moves). */
static void operations(struct rig *r)
{
	struct vs_srd_qp *qp;
	struct vs_srd_dest dest;
	struct vs_srd_batch b;
	struct vs_recv_batch rb;
	struct ibv_sge sge = vs_mr_sge(r->mr, 0, 64);
	struct vs_remote rem = vs_mr_remote(r->mr, 2048);
	struct vs_wc wc[8];
	int n, seen = 0;

	efa_reset(true, EFA_CAPS_ALL);
	srd_up(r, &qp, &dest);
	VS_OK(vs_srd_recv_start(qp, &rb));
	VS_OK(vs_recv_add(&rb, 9, &sge, 1));
	VS_OK(vs_recv_submit(&rb));
	VS_OK(vs_srd_batch_start(qp, &b));
	VS_OK(vs_srd_send(&b, 1, VS_WR_SIGNALED, &dest, &sge, 1));
	VS_OK(vs_srd_send_imm(&b, 2, VS_WR_SIGNALED, &dest, 7, &sge, 1));
	VS_OK(vs_srd_write(&b, 3, VS_WR_SIGNALED, &dest, &sge, 1, rem));
	VS_OK(vs_srd_write_imm(&b, 4, VS_WR_SIGNALED, &dest, 8, &sge, 1, rem));
	VS_OK(vs_srd_read(&b, 5, VS_WR_SIGNALED, &dest, &sge, 1, rem));
	VS_FAILS(vs_srd_send(&b, 6, 0, NULL, &sge, 1), EINVAL,
		 "an SRD send needs a destination (dest is NULL)");
	VS_OK(vs_srd_batch_submit(&b));
	while ((n = vs_cq_poll(r->cq, wc, 8)) > 0)
		for (int i = 0; i < n; i++) {
			VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
			VS_ASSERT_EQ(wc[i].wr_id, (uint64_t)seen + 1);
			seen++;
		}
	VS_ASSERT_EQ(seen, 5);
	VS_OK(vs_srd_batch_start(qp, &b));
	vs_srd_batch_abort(&b);
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_qp_close(qp));

	/* a device without RDMA: read and write refused, sends go */
	efa_reset(true, 0);
	srd_up(r, &qp, &dest);
	VS_OK(vs_srd_batch_start(qp, &b));
	VS_FAILS(vs_srd_read(&b, 1, 0, &dest, &sge, 1, rem), EOPNOTSUPP,
		 "an RDMA read on this SRD QP: the device does not report it");
	VS_FAILS(vs_srd_write(&b, 1, 0, &dest, &sge, 1, rem), EOPNOTSUPP,
		 "an RDMA write on this SRD QP");
	VS_FAILS(vs_srd_write_imm(&b, 1, 0, &dest, 3, &sge, 1, rem), EOPNOTSUPP,
		 "an RDMA write with immediate on this SRD QP");
	VS_OK(vs_srd_send(&b, 1, 0, &dest, &sge, 1));
	VS_OK(vs_srd_batch_submit(&b));
	/* read only */
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_qp_close(qp));
	efa_reset(true, EFADV_DEVICE_ATTR_CAPS_RDMA_READ);
	srd_up(r, &qp, &dest);
	VS_OK(vs_srd_batch_start(qp, &b));
	VS_OK(vs_srd_read(&b, 1, 0, &dest, &sge, 1, rem));
	VS_FAILS(vs_srd_write(&b, 1, 0, &dest, &sge, 1, rem), EOPNOTSUPP,
		 "an RDMA write on this SRD QP");
	VS_OK(vs_srd_batch_submit(&b));
	VS_OK(vs_srd_dest_release(&dest));
	VS_OK(vs_srd_qp_close(qp));
}

/* SRD handles misused: wrong kind, closed, NULL. */
static void misuse(struct rig *r)
{
	struct vs_srd_qp *qp;
	struct vs_ud_qp *ud;
	struct vs_srd_dest dest;
	struct vs_srd_batch b;
	struct vs_endpoint ep, uep;
	struct vs_efa_wqs wqs = { 0 };
	struct ibv_sge sge = vs_mr_sge(r->mr, 0, 64);

	efa_reset(true, EFA_CAPS_ALL);
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &ud));
	VS_FAILS(vs_srd_qp_close((void *)ud), EINVAL,
		 "qp is a handle of another kind (UD QP, expected SRD QP)");
	VS_FAILS(vs_srd_batch_start((void *)ud, &b), EINVAL, "expected SRD QP");
	VS_FAILS(vs_srd_endpoint((void *)ud, &ep), EINVAL, "expected SRD QP");
	VS_FAILS(vs_srd_qp_query_wqs((void *)ud, &wqs), EINVAL, "expected SRD QP");
	VS_ASSERT(vs_srd_qp_raw((void *)ud) == NULL);
	VS_ASSERT_EQ(vs_srd_qp_num((void *)ud), 0);
	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp));
	VS_FAILS(vs_ud_qp_close((void *)qp), EINVAL,
		 "qp is a handle of another kind (SRD QP, expected UD QP)");
	/* a (well-formed, IB-addressed) UD endpoint to an SRD QP */
	VS_OK(vs_ud_endpoint(ud, &uep));
	uep.lid = 3;
	VS_FAILS(vs_srd_handshake(qp, &uep, &dest), EINVAL,
		 "mismatched transports: the remote endpoint is UD, this QP is SRD");
	VS_FAILS(vs_srd_handshake(qp, NULL, &dest), EINVAL, "remote is NULL");
	VS_OK(vs_srd_endpoint(qp, &ep));
	VS_FAILS(vs_srd_handshake(qp, &ep, NULL), EINVAL, "dest is NULL");
	ep.flags = 0;
	VS_FAILS(vs_srd_handshake(qp, &ep, &dest), EINVAL,
		 "an SRD endpoint is addressed by GID and must carry one");
	VS_OK(vs_srd_endpoint(qp, &ep));
	ep.lid = 5;
	VS_FAILS(vs_srd_handshake(qp, &ep, &dest), EINVAL, "lid 0x5 on an SRD endpoint");
	/* not in RTS yet */
	VS_FAILS(vs_srd_batch_start(qp, &b), EINVAL, "the QP is in state INIT");
	VS_FAILS(vs_srd_send(&b, 1, 0, &dest, &sge, 1), EINVAL, "not started");
	VS_FAILS(vs_srd_batch_submit(&b), EINVAL, "not started");
#ifndef VS_HAVE_EFA_1_4
	VS_FAILS(vs_srd_qp_query_wqs(qp, &wqs), EOPNOTSUPP,
		 "built against rdma-core headers without efadv_query_qp_wqs");
#endif
	VS_FAILS(vs_srd_qp_query_wqs(qp, NULL), EINVAL, "out is NULL");
	VS_OK(vs_srd_qp_close(qp));
	/* closed */
	VS_FAILS(vs_srd_qp_close(qp), EINVAL, "qp is an SRD QP the caller already closed");
	VS_FAILS(vs_srd_endpoint(qp, &ep), EINVAL, "already closed");
	VS_FAILS(vs_srd_handshake(qp, &uep, &dest), EINVAL, "already closed");
	VS_FAILS(vs_srd_batch_start(qp, &b), EINVAL, "already closed");
	VS_FAILS(vs_srd_recv_start(qp, &(struct vs_recv_batch){ 0 }), EINVAL,
		 "already closed");
	VS_FAILS(vs_srd_qp_modify(qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR },
				  IBV_QP_STATE), EINVAL, "already closed");
	VS_FAILS(vs_srd_qp_query_wqs(qp, &wqs), EINVAL, "already closed");
	VS_ASSERT(vs_srd_qp_caps(qp) == NULL);
	/* NULL */
	VS_FAILS(vs_srd_qp_close(NULL), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_endpoint(NULL, &ep), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_handshake(NULL, &ep, &dest), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_batch_start(NULL, &b), EINVAL, "qp is NULL");
	VS_FAILS(vs_srd_dest_release(NULL), EINVAL, "dest is NULL");
	VS_FAILS(vs_srd_dest_query(NULL, &(struct vs_efa_ah_info){ 0 }), EINVAL,
		 "dest is NULL");
	VS_FAILS(vs_srd_qp_create(NULL, &(struct vs_srd_config){ .send_cq = r->cq }, &qp),
		 EINVAL, "pd is NULL");
	VS_FAILS(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, NULL),
		 EINVAL, "out is NULL");
	VS_OK(vs_ud_qp_close(ud));
}

/* With no libefa at all: the same error, the library and the reason named. */
static int no_libefa(void)
{
	struct rig r;
	struct vs_srd_qp *qp;
	pid_t pid = fork();
	int status;

	VS_ASSERT(pid >= 0);
	if (pid) {
		VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	setenv("VERBSHIM_LIBEFA", "/nonexistent/libefa.so.1", 1);
	rig_up(&r);
	VS_FAILS(vs_srd_qp_create(r.pd, &(struct vs_srd_config){ .send_cq = r.cq }, &qp),
		 EOPNOTSUPP, "device fake0 is not an EFA device: SRD needs the efa "
			     "provider (libefa did not load: ");
	VS_ASSERT(strstr(vs_last_error()->message, "/nonexistent/libefa.so.1"));
	VS_FAILS(vs_efa_query_caps(r.ctx, &(struct vs_efa_caps){ 0 }), EOPNOTSUPP,
		 "(libefa did not load: ");
	rig_down(&r);
	exit(0);
}

int main(void)
{
	char verbs[PATH_MAX + 32];
	void *fail;
	struct rig r;

	setenv("VS_FAKE_EFA_PORT", "1", 1);
	vs_t_use_fake(&fail, &live);
	/* before anything loads libefa: the child must find none */
	if (no_libefa())
		VS_FAIL("the no-libefa case failed (its output above)");
	vs_t_fake_path("libibverbs.so.1", verbs, sizeof(verbs));
	efa = vs_t_use_fake_efa(0);
	modify = sym(verbs, "vs_stub_modify");
	last_ah = sym(verbs, "vs_stub_last_ah");

	static void (*const cases[])(struct rig *) = {
		not_efa, caps_interpreted, create_arguments, create_errors,
		bring_up, operations, misuse,
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig_up(&r);
		cases[i](&r);
		rig_down(&r);
	}
	printf("SRD control path against the fake libefa: %zu cases and the "
	       "no-libefa case passed (NOT a data-path test: no EFA device)\n",
	       sizeof(cases) / sizeof(cases[0]));
	return 0;
}
