/* SPDX-License-Identifier: MIT */
/*
 * One-call bring-up: INIT -> RTR -> RTS toward a remote endpoint, with
 * LID or GRH addressing chosen by the port's link layer.
 */
#include "core.h"

static int check_remote(struct vs_qp *qp, const struct vs_endpoint *remote,
			const char *verb)
{
	int ret = vs__endpoint_check(remote, verb, "remote");

	if (ret)
		return ret;
	if (remote->transport != qp->transport)
		return vs__set_error(verb, EINVAL,
				     "mismatched transports: the remote endpoint is "
				     "%s, this QP is %s (both sides must create the "
				     "same kind of QP)",
				     vs_transport_name(remote->transport),
				     vs_transport_name(qp->transport));
	if (!!(remote->flags & VS_EP_ETHERNET) != vs__link(qp->link_row)->ethernet)
		return vs__set_error(verb, EINVAL,
				     "mismatched link layers: the remote endpoint is "
				     "on %s, this QP's port is on %s",
				     remote->flags & VS_EP_ETHERNET ? "Ethernet (RoCE)" :
								     "InfiniBand",
				     vs__link(qp->link_row)->ethernet ?
					    "Ethernet (RoCE)" : "InfiniBand");
	return 0;
}

static int step(struct vs_qp *qp, struct ibv_qp_attr *a, int mask,
		const struct vs_endpoint *remote, const char *verb)
{
	enum ibv_qp_state to = a->qp_state;
	int ret = ibv_modify_qp(qp->qp, a, mask);

	if (!ret) {
		vs__qp_set_state(qp, to);
		return 0;
	}
	return vs__modify_failed(qp, verb, ret, qp->state, to, mask,
				 remote ? &remote->gid : NULL,
				 remote ? remote->qpn : 0);
}

static int to_init_again(struct vs_qp *qp, const char *verb)
{
	struct ibv_qp_attr a;
	int mask = vs__qp_init_attr(qp, &a);

	return step(qp, &a, mask, NULL, verb);
}

/* What both handshakes check first; a QP in RESET goes back to INIT. */
static int handshake_begin(struct vs_qp *qp, const struct vs_endpoint *remote,
			   const char *verb)
{
	int ret;

	/* first: on iWARP too the cause is that the QP is the CM's */
	if (qp->cm_id_qp)
		return vs__set_error(verb, EINVAL,
				     "the QP is a CM id's (vs_cm_%s_qp_create): "
				     "the connection manager brings it up, at "
				     "vs_cm_connect or vs_cm_accept; a handshake "
				     "is for QPs of vs_%s_qp_create",
				     qp->transport == VS_TRANSPORT_UD ? "ud" : "rc",
				     qp->transport == VS_TRANSPORT_UD ? "ud" : "rc");
	ret = vs__iwarp_cm_only(qp->pd->ctx, verb);
	if (!ret)
		ret = check_remote(qp, remote, verb);
	if (ret)
		return ret;
	if (vs__qp_batch_open(qp))
		return vs__set_error(verb, EBUSY, "a send batch is open on this QP");
	if (qp->state == IBV_QPS_RESET)
		return to_init_again(qp, verb);
	return 0;
}

int vs__qp_handshake(struct vs_qp *qp, uint32_t kind, const char *verb,
		     const struct vs_endpoint *remote)
{
	struct ibv_qp_attr a;
	int mask, ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	ret = handshake_begin(qp, remote, verb);
	if (ret)
		return ret;
	if (qp->state != IBV_QPS_INIT)
		return vs__set_error(verb, EINVAL,
				     "the QP is in state %s; a handshake starts "
				     "from RESET or INIT (it was already brought "
				     "up?)", vs_qp_state_name(qp->state));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = remote->mtu < qp->mtu ? remote->mtu : qp->mtu;
	a.dest_qp_num = remote->qpn;
	a.rq_psn = remote->psn;
	vs__fill_ah_attr(qp, remote, &a.ah_attr);
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (vs__transport(qp->transport)->reliable) {
		a.max_dest_rd_atomic = qp->max_dest_rd_atomic;
		a.min_rnr_timer = qp->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ret = step(qp, &a, mask, remote, verb);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = qp->psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (vs__transport(qp->transport)->reliable) {
		a.timeout = qp->timeout;
		a.retry_cnt = qp->retry_cnt;
		a.rnr_retry = qp->rnr_retry;
		a.max_rd_atomic = qp->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return step(qp, &a, mask, remote, verb);
}

/*
 * The datagram bring-up (UD, SRD): RTS once, then an address handle
 * toward remote in dest.
 */
static int dgram_handshake(struct vs_qp *qp, uint32_t kind, const char *verb,
			   const struct vs_endpoint *remote,
			   struct vs_ud_dest *dest)
{
	struct ibv_qp_attr a;
	struct vs_ah *ah;
	int mask, ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	if (!dest)
		return vs__set_error(verb, EINVAL, "dest is NULL");
	memset(dest, 0, sizeof(*dest));
	ret = handshake_begin(qp, remote, verb);
	if (ret)
		return ret;
	if (qp->state == IBV_QPS_INIT) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		ret = step(qp, &a, IBV_QP_STATE, NULL, verb);
		if (ret)
			return ret;
	}
	if (qp->state == IBV_QPS_RTR) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = qp->psn;
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (qp->rts_rnr_retry) {
			a.rnr_retry = qp->rnr_retry;
			mask |= IBV_QP_RNR_RETRY;
		}
		ret = step(qp, &a, mask, NULL, verb);
		if (ret)
			return ret;
	}
	if (qp->state != IBV_QPS_RTS)
		return vs__set_error(verb, EINVAL,
				     "the %s QP is in state %s, cannot reach RTS",
				     vs_transport_name(qp->transport),
				     vs_qp_state_name(qp->state));
	ret = vs__ah_create_for(qp->pd, qp, remote, &ah, verb);
	if (ret)
		return ret;
	dest->ah = ah;
	dest->remote_qpn = remote->qpn;
	dest->remote_qkey = remote->qkey ? remote->qkey : VS_DEFAULT_QKEY;
	return 0;
}

int vs_ud_handshake(struct vs_ud_qp *qp, const struct vs_endpoint *remote,
		    struct vs_ud_dest *dest)
{
	return dgram_handshake((struct vs_qp *)qp, VS_KIND_UD_QP,
			       "vs_ud_handshake", remote, dest);
}

int vs_srd_handshake(struct vs_srd_qp *qp, const struct vs_endpoint *remote,
		     struct vs_srd_dest *dest)
{
	return dgram_handshake((struct vs_qp *)qp, VS_KIND_SRD_QP,
			       "vs_srd_handshake", remote,
			       dest ? &dest->base : NULL);
}
