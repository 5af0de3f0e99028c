/* SPDX-License-Identifier: MIT */
/*
 * The manual modify path (vs_rc_qp_modify and friends).
 */
#include "core.h"

/* The state the QP is really in (the user may have used the raw handle). */
static enum ibv_qp_state real_state(struct vs_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp->qp, &a, IBV_QP_STATE, &ia))
		return qp->state;
	return a.qp_state;
}

int vs__qp_modify(struct vs_qp *qp, uint32_t kind, const char *verb,
		  struct ibv_qp_attr *attr, int mask)
{
	enum ibv_qp_state from, to;
	int ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	if (!attr)
		return vs__set_error(verb, EINVAL, "attr is NULL");
	if (vs__qp_batch_open(qp))
		return vs__set_error(verb, EBUSY,
				     "a send batch is open on this QP: submit or "
				     "abort it before changing the QP's state");
	from = qp->state;
	to = (mask & IBV_QP_STATE) ? attr->qp_state : from;
	ret = ibv_modify_qp(qp->qp, attr, mask);
	if (!ret) {
		vs__qp_set_state(qp, to);
		return 0;
	}
	from = real_state(qp);
	vs__qp_set_state(qp, from);
	return vs__modify_failed(qp, verb, ret, from, to, mask,
				 (mask & IBV_QP_AV) && attr->ah_attr.is_global ?
				 &attr->ah_attr.grh.dgid : NULL, 0);
}
