/* SPDX-License-Identifier: MIT */
/*
 * EFA SRD: what only SRD does, and the one file of lib/ that includes
 * efadv.h.  The create hook of the SRD row (efadv_create_qp_ex with the
 * SRD driver type and the send operations the device reports), the EFA
 * check every SRD entry point makes, and the efadv queries filling the
 * typed structs (lib/transport/srd.c checks the handles of the public calls around
 * them).  Everything goes through the shim's efadv_* drop-ins, so
 * libefa is loaded at the first SRD call and its absence is an error, not
 * a link failure.  The transport table points at this file, so it uses
 * only the bottom of lib/ (error.o): no handle checks here.
 */
#include <infiniband/efadv.h>

#include "vs_config.h"
#include "transport.h"
#include "verbshim/loader.h"

/*
 * efadv's device_caps bits, as the kernel ABI (efa-abi.h) fixes them;
 * named here because older efadv.h (rdma-core < 50) lacks the newer ones.
 */
#define VS__EFADV_CAP_RDMA_READ (1u << 0)
#define VS__EFADV_CAP_RNR_RETRY (1u << 1)
#define VS__EFADV_CAP_CQ_WITH_SGID (1u << 2)
#define VS__EFADV_CAP_RDMA_WRITE (1u << 3)
#define VS__EFADV_CAP_UNSOLICITED_WRITE_RECV (1u << 4)

/*
 * efadv_query_device for call: 0 with attr filled, or the one error of a
 * device that cannot do SRD (named, with libefa's load failure if any).
 */
static int efa_device(struct vs_context *ctx, struct efadv_device_attr *attr,
		      const char *call)
{
	char why[VS_ERROR_MSG_MAX / 2];
	int err;

	memset(attr, 0, sizeof(*attr));
	errno = 0;
	err = efadv_query_device(ctx->ctx, attr, sizeof(*attr));
	if (!err)
		return 0;
	if (vs__library_reason(VS_LIB_EFA, why, sizeof(why)))
		return vs__verb_error(call, "efadv_query_device", EOPNOTSUPP,
				      "device %s is not an EFA device: SRD needs "
				      "the efa provider (%s)", ctx->name, why);
	if (err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS)
		return vs__verb_error(call, "efadv_query_device", EOPNOTSUPP,
				      "device %s is not an EFA device: SRD needs "
				      "the efa provider", ctx->name);
	return vs__verb_error(call, "efadv_query_device", err > 0 ? err : EIO,
			      "cannot query the EFA device %s", ctx->name);
}

static uint32_t cap_flags(uint32_t device_caps)
{
	static const struct { uint32_t efadv, vs; } map[] = {
		{ VS__EFADV_CAP_RDMA_READ, VS_EFA_CAP_RDMA_READ },
		{ VS__EFADV_CAP_RNR_RETRY, VS_EFA_CAP_RNR_RETRY },
		{ VS__EFADV_CAP_CQ_WITH_SGID, VS_EFA_CAP_CQ_WITH_SGID },
		{ VS__EFADV_CAP_RDMA_WRITE, VS_EFA_CAP_RDMA_WRITE },
		{ VS__EFADV_CAP_UNSOLICITED_WRITE_RECV,
		  VS_EFA_CAP_UNSOLICITED_WRITE_RECV },
	};
	uint32_t f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (device_caps & map[i].efadv)
			f |= map[i].vs;
	return f;
}

int vs__efa_caps(struct vs_context *ctx, struct vs_efa_caps *out,
		 const char *call)
{
	struct efadv_device_attr a;
	int ret = efa_device(ctx, &a, call);

	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->comp_mask = VS_EFA_CAPS_QUEUES | VS_EFA_CAPS_FLAGS |
			 VS_EFA_CAPS_RDMA_SIZE;
	out->max_sq_wr = a.max_sq_wr;
	out->max_rq_wr = a.max_rq_wr;
	out->max_sq_sge = a.max_sq_sge;
	out->max_rq_sge = a.max_rq_sge;
	out->inline_buf_size = a.inline_buf_size;
	out->max_rdma_size = a.max_rdma_size;
	out->device_caps = a.device_caps;
	out->flags = cap_flags(a.device_caps);
	return 0;
}

void vs__flatten_srd(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_srd_config *c = cfg;

	VS__COPY_COMMON(p, c);
	p->qkey = c->qkey;
	p->rnr_retry = c->rnr_retry;
}

/* One queue size: the caller's, checked against efadv's, or the default capped. */
static int fit(uint32_t *v, uint32_t asked, uint32_t dev, const char *what,
	       const char *dev_what, const char *verb)
{
	if (!dev)
		return 0; /* the device did not say */
	if (asked && asked > dev)
		return vs__set_error(verb, EINVAL,
				     "%s %u exceeds the EFA device's %s %u",
				     what, asked, dev_what, dev);
	if (!asked && *v > dev)
		*v = dev;
	return 0;
}

int vs__srd_create_qp(struct vs_pd *pd, const struct vs__qp_params *p,
		      struct ibv_qp_init_attr_ex *ia, struct vs_qp *qp,
		      const char *verb)
{
	struct efadv_qp_init_attr ea;
	struct efadv_device_attr a;
	uint32_t flags;
	int ret = efa_device(pd->ctx, &a, verb);

	if (ret)
		return ret;
	flags = cap_flags(a.device_caps);
	ret = fit(&ia->cap.max_send_wr, p->asked.max_send_wr, a.max_sq_wr,
		  "max_send_wr", "max_sq_wr", verb);
	ret = ret ? ret : fit(&ia->cap.max_recv_wr, p->asked.max_recv_wr,
			      a.max_rq_wr, "max_recv_wr", "max_rq_wr", verb);
	ret = ret ? ret : fit(&ia->cap.max_send_sge, p->asked.max_send_sge,
			      a.max_sq_sge, "max_send_sge", "max_sq_sge", verb);
	ret = ret ? ret : fit(&ia->cap.max_recv_sge, p->asked.max_recv_sge,
			      a.max_rq_sge, "max_recv_sge", "max_rq_sge", verb);
	ret = ret ? ret : fit(&ia->cap.max_inline_data, p->asked.max_inline_data,
			      a.inline_buf_size, "max_inline_data",
			      "inline_buf_size", verb);
	if (ret)
		return ret;
	if ((p->comp_mask & VS_QP_CFG_RETRY) && !(flags & VS_EFA_CAP_RNR_RETRY))
		return vs__set_error(verb, EOPNOTSUPP,
				     "rnr_retry %u asked for (VS_QP_CFG_RETRY), but "
				     "the EFA device %s cannot retry RNR",
				     p->rnr_retry, pd->ctx->name);
	if (p->rnr_retry > 7)
		return vs__set_error(verb, EINVAL, "rnr_retry %u out of range (0..7)",
				     p->rnr_retry);
	ia->qp_type = IBV_QPT_DRIVER;
	ia->send_ops_flags = VS__OPS_SEND;
	if (flags & VS_EFA_CAP_RDMA_READ)
		ia->send_ops_flags |= IBV_QP_EX_WITH_RDMA_READ;
	if (flags & VS_EFA_CAP_RDMA_WRITE)
		ia->send_ops_flags |= VS__OPS_WRITE;
	memset(&ea, 0, sizeof(ea));
	ea.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD;
	errno = 0;
	qp->qp = efadv_create_qp_ex(pd->ctx->ctx, ia, &ea, sizeof(ea));
	if (!qp->qp)
		return vs__verb_error(verb, "efadv_create_qp_ex", vs__errno_or(EINVAL),
				      "cannot create an SRD QP on %s (send %u x %u "
				      "SGE, recv %u x %u SGE, inline %u)",
				      pd->ctx->name, ia->cap.max_send_wr,
				      ia->cap.max_send_sge, ia->cap.max_recv_wr,
				      ia->cap.max_recv_sge, ia->cap.max_inline_data);
	qp->qpx = ibv_qp_to_qp_ex(qp->qp);
	if (!qp->qpx) {
		ibv_destroy_qp(qp->qp);
		qp->qp = NULL;
		return vs__verb_error(verb, "ibv_qp_to_qp_ex", EOPNOTSUPP,
				      "the SRD QP has no ibv_wr_* operations (the "
				      "efa provider always gives them)");
	}
	if (flags & VS_EFA_CAP_RNR_RETRY) {
		qp->rnr_retry = p->comp_mask & VS_QP_CFG_RETRY ? p->rnr_retry :
				p->rnr_retry ? p->rnr_retry : 7;
		qp->rts_rnr_retry = true;
	}
	return 0;
}

int vs__efa_ah(struct ibv_ah *ah, struct vs_efa_ah_info *out, const char *call)
{
	struct efadv_ah_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	errno = 0;
	err = efadv_query_ah(ah, &a, sizeof(a));
	if (err)
		return vs__verb_error(call, "efadv_query_ah", err > 0 ? err : EIO,
				      "cannot query the destination's address "
				      "handle (an AH of an EFA device?)");
	memset(out, 0, sizeof(*out));
	out->ahn = a.ahn;
	return 0;
}

int vs__efa_wqs(struct ibv_qp *qp, struct vs_efa_wqs *out, const char *call)
{
#ifdef VS_HAVE_EFA_1_4
	struct efadv_wq_attr sq, rq;
	int err;

	memset(&sq, 0, sizeof(sq));
	memset(&rq, 0, sizeof(rq));
	errno = 0;
	err = efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq));
	if (err == EOPNOTSUPP && vs_symbol_resolved("efadv_query_qp_wqs") != 1)
		return vs__verb_error(call, "efadv_query_qp_wqs", EOPNOTSUPP,
				      "the run-time libefa has no "
				      "efadv_query_qp_wqs (EFA_1.4, rdma-core 59)");
	if (err)
		return vs__verb_error(call, "efadv_query_qp_wqs", err > 0 ? err : EIO,
				      "cannot query the SRD QP's work queues");
	memset(out, 0, sizeof(*out));
	out->sq = (struct vs_efa_wq){ .buffer = sq.buffer,
		.entry_size = sq.entry_size, .num_entries = sq.num_entries,
		.doorbell = sq.doorbell, .max_batch = sq.max_batch };
	out->rq = (struct vs_efa_wq){ .buffer = rq.buffer,
		.entry_size = rq.entry_size, .num_entries = rq.num_entries,
		.doorbell = rq.doorbell, .max_batch = rq.max_batch };
	return 0;
#else
	(void)qp;
	(void)out;
	return vs__set_error(call, EOPNOTSUPP,
			     "this verbshim was built against rdma-core headers "
			     "without efadv_query_qp_wqs (EFA_1.4, rdma-core "
			     "59): rebuild with newer headers (RDMA_CORE_INCLUDE)");
#endif
}
