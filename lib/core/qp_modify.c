/* SPDX-License-Identifier: MIT */
/*
 * The QP's state changes: the send gate that follows the state, and the
 * manual modify path (vs_rc_qp_modify and friends, the connection
 * manager's bring-up).
 */
#include "core.h"

bool vs__qp_ring_missing(const struct vs_qp *qp)
{
	return qp->bounce_slot_size && !qp->bounce_mr;
}

void vs__qp_set_state(struct vs_qp *qp, enum ibv_qp_state s)
{
	qp->state = s;
	if (qp->h.gate != VS__GATE_BATCH) /* state changes wait for the batch */
		qp->h.gate = s == IBV_QPS_RTS && !vs__qp_ring_missing(qp) ?
			     qp->h.magic : 0;
}

/* The state the QP is really in (the user may have used the raw handle). */
static enum ibv_qp_state real_state(struct vs_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp->qp, &a, IBV_QP_STATE, &ia))
		return qp->state;
	return a.qp_state;
}

int vs__qp_modify_held(struct vs_qp *qp, const char *verb,
		       struct ibv_qp_attr *attr, int mask)
{
	enum ibv_qp_state from = qp->state;
	enum ibv_qp_state to = (mask & IBV_QP_STATE) ? attr->qp_state : from;
	int ret = ibv_modify_qp(qp->qp, attr, mask);

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

int vs__qp_modify_run(struct vs_qp *qp, const char *verb,
		      struct vs__qp_step *steps, int n, int *done)
{
	int ret = 0;

	for (*done = 0; *done < n; ++*done) {
		ret = vs__qp_modify_held(qp, verb, &steps[*done].attr,
					 steps[*done].mask);
		if (ret)
			break;
	}
	return ret;
}

int vs__qp_modify(struct vs_qp *qp, uint32_t kind, const char *verb,
		  struct ibv_qp_attr *attr, int mask)
{
	int ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	if (!attr)
		return vs__set_error(verb, EINVAL, "attr is NULL");
	if (vs__qp_batch_open(qp))
		return vs__set_error(verb, EBUSY,
				     "a send batch is open on this QP: submit or "
				     "abort it before changing the QP's state");
	return vs__qp_modify_held(qp, verb, attr, mask);
}
