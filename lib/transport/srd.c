/* SPDX-License-Identifier: MIT */
/*
 * The EFA queries of the typed API: argument and handle checks around
 * the efadv calls of lib/transport/qp_srd.c (which sits below the handle checks).
 */
#include "transport.h"

static int no_request(uint64_t comp_mask, const char *call)
{
	if (!comp_mask)
		return 0;
	return vs__set_error(call, EINVAL,
			     "out->comp_mask 0x%llx: no optional request is "
			     "defined yet (set it to 0)",
			     (unsigned long long)comp_mask);
}

int vs_efa_query_caps(struct vs_context *ctx, struct vs_efa_caps *out)
{
	const char *call = "vs_efa_query_caps";
	int ret = vs__check_handle(ctx, VS_KIND_CONTEXT, call, "ctx");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null(call);
	ret = no_request(out->comp_mask, call);
	return ret ? ret : vs__efa_caps(ctx, out, call);
}

int vs_srd_dest_query(const struct vs_srd_dest *dest, struct vs_efa_ah_info *out)
{
	const char *call = "vs_srd_dest_query";
	int ret;

	if (!dest)
		return vs__set_error(call, EINVAL, "dest is NULL");
	if (!dest->base.ah)
		return vs__set_error(call, EINVAL,
				     "the destination has no address handle "
				     "(released, or never filled by vs_srd_handshake?)");
	ret = vs__check_handle(dest->base.ah, VS_KIND_AH, call, "dest->ah");
	if (ret)
		return ret;
	if (!out)
		return vs__out_null(call);
	ret = no_request(out->comp_mask, call);
	return ret ? ret : vs__efa_ah(dest->base.ah->ah, out, call);
}

int vs_srd_qp_query_wqs(const struct vs_srd_qp *sqp, struct vs_efa_wqs *out)
{
	const char *call = "vs_srd_qp_query_wqs";
	const struct vs_qp *qp = (const struct vs_qp *)sqp;
	int ret = vs__check_handle(qp, VS_KIND_SRD_QP, call, "qp");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null(call);
	ret = no_request(out->comp_mask, call);
	return ret ? ret : vs__efa_wqs(qp->qp, out, call);
}
