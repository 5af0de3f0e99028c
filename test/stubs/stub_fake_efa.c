// SPDX-License-Identifier: MIT
/*
 * A fake libefa (rdma-core 44 node set) over the fake provider of
 * stub_fake_ibverbs.c: NOT an EFA data path.  It lets the typed SRD code
 * run its control path on the host (test/unit/srd_stub.c): the arguments
 * efadv_create_qp_ex receives are recorded, efadv_query_device answers
 * what the test put in vs_stub_efa.attr, and a device that the test has
 * not declared EFA is refused with EOPNOTSUPP, as the real libefa refuses
 * a non-EFA device.  The QP itself is the fake provider's (its
 * create_qp_ex, through the context), so sends complete at once and no
 * byte moves.  Linked with stub_efa.o, whose weak generic bodies cover
 * the rest.
 */
#include <stdlib.h>

#include "stub.h"
#include "fake_efa.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

VS_STUB_EXPORT struct vs_stub_efa vs_stub_efa;

VS_STUB_EXPORT int efadv_query_device(struct ibv_context *ibvctx,
				      struct efadv_device_attr *attr,
				      uint32_t inlen)
{
	vs_stub_record("efadv_query_device");
	vs_stub_efa.queries++;
	if (!vs_stub_efa.efa_device)
		return EOPNOTSUPP; /* libefa: is_efa_dev() false */
	if (vs_stub_efa.query_err)
		return vs_stub_efa.query_err;
	if (inlen < sizeof(*attr) - sizeof(attr->max_rdma_size) - sizeof(attr->device_caps))
		return EINVAL;
	memset(attr, 0, inlen);
	memcpy(attr, &vs_stub_efa.attr, inlen < sizeof(*attr) ? inlen : sizeof(*attr));
	return 0;
}

VS_STUB_EXPORT struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx,
						 struct ibv_qp_init_attr_ex *attr_ex,
						 struct efadv_qp_init_attr *efa_attr,
						 uint32_t inlen)
{
	struct verbs_context *vctx;

	vs_stub_record("efadv_create_qp_ex");
	vs_stub_efa.creates++;
	vs_stub_efa.inlen = inlen;
	vs_stub_efa.driver_qp_type = efa_attr->driver_qp_type;
	vs_stub_efa.efa_comp_mask = efa_attr->comp_mask;
	vs_stub_efa.qp_type = attr_ex->qp_type;
	vs_stub_efa.comp_mask = attr_ex->comp_mask;
	vs_stub_efa.send_ops_flags = attr_ex->send_ops_flags;
	vs_stub_efa.cap = attr_ex->cap;
	if (!vs_stub_efa.efa_device) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (vs_stub_efa.create_err) {
		errno = vs_stub_efa.create_err;
		vs_stub_efa.create_err = 0;
		return NULL;
	}
	/* libefa's checks: the SRD driver type on a driver QP, EFA's limits */
	if (attr_ex->qp_type != IBV_QPT_DRIVER ||
	    efa_attr->driver_qp_type != EFADV_QP_DRIVER_TYPE_SRD ||
	    inlen < sizeof(efa_attr->comp_mask) + sizeof(efa_attr->driver_qp_type) ||
	    attr_ex->cap.max_send_wr > vs_stub_efa.attr.max_sq_wr ||
	    attr_ex->cap.max_recv_wr > vs_stub_efa.attr.max_rq_wr ||
	    attr_ex->cap.max_send_sge > vs_stub_efa.attr.max_sq_sge ||
	    attr_ex->cap.max_recv_sge > vs_stub_efa.attr.max_rq_sge ||
	    attr_ex->cap.max_inline_data > vs_stub_efa.attr.inline_buf_size) {
		errno = EINVAL;
		return NULL;
	}
	/* the fake provider's QP, through the context's op (no libibverbs
	 * symbol: this library is loaded beside the fake, not linked to it) */
	vctx = verbs_get_ctx_op(ibvctx, create_qp_ex);
	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return vctx->create_qp_ex(ibvctx, attr_ex);
}

/* AH numbers handed out in order of first query. */
static struct ibv_ah *ahs[64];

VS_STUB_EXPORT int efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr,
				  uint32_t inlen)
{
	size_t i;

	vs_stub_record("efadv_query_ah");
	if (!vs_stub_efa.efa_device)
		return EOPNOTSUPP;
	for (i = 0; i < 64 && ahs[i] && ahs[i] != ibvah; i++)
		;
	if (i == 64)
		return ENOMEM;
	ahs[i] = ibvah;
	memset(attr, 0, inlen);
	attr->ahn = (uint16_t)(0x20 + i);
	return 0;
}

/* VS_FAKE_EFA=1: fake0 is an EFA device from the start, with these caps
 * (for programs that cannot reach vs_stub_efa: verbshim-info). */
__attribute__((constructor)) static void fake_efa_from_env(void)
{
	const char *e = getenv("VS_FAKE_EFA");

	if (!e || strcmp(e, "1"))
		return;
	vs_stub_efa.efa_device = 1;
	vs_stub_efa.attr.max_sq_wr = 512;
	vs_stub_efa.attr.max_rq_wr = 256;
	vs_stub_efa.attr.max_sq_sge = 2;
	vs_stub_efa.attr.max_rq_sge = 3;
	vs_stub_efa.attr.inline_buf_size = 32;
	vs_stub_efa.attr.device_caps = 1u << 0 | 1u << 1 | 1u << 3; /* read, RNR, write */
	vs_stub_efa.attr.max_rdma_size = 1u << 30;
}
