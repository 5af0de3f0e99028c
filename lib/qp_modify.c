/* SPDX-License-Identifier: MIT */
/*
 * The manual modify path and the attribute rules behind its errors
 * (IB spec 11.2.5, as the kernel's qp_state_table encodes them).
 */
#include "vs_internal.h"

const char *vs_qp_state_name(enum ibv_qp_state state)
{
	switch (state) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

static const struct {
	int bit;
	const char *name;
} mask_names[] = {
	{ IBV_QP_STATE, "IBV_QP_STATE" },
	{ IBV_QP_CUR_STATE, "IBV_QP_CUR_STATE" },
	{ IBV_QP_EN_SQD_ASYNC_NOTIFY, "IBV_QP_EN_SQD_ASYNC_NOTIFY" },
	{ IBV_QP_ACCESS_FLAGS, "IBV_QP_ACCESS_FLAGS" },
	{ IBV_QP_PKEY_INDEX, "IBV_QP_PKEY_INDEX" },
	{ IBV_QP_PORT, "IBV_QP_PORT" },
	{ IBV_QP_QKEY, "IBV_QP_QKEY" },
	{ IBV_QP_AV, "IBV_QP_AV" },
	{ IBV_QP_PATH_MTU, "IBV_QP_PATH_MTU" },
	{ IBV_QP_TIMEOUT, "IBV_QP_TIMEOUT" },
	{ IBV_QP_RETRY_CNT, "IBV_QP_RETRY_CNT" },
	{ IBV_QP_RNR_RETRY, "IBV_QP_RNR_RETRY" },
	{ IBV_QP_RQ_PSN, "IBV_QP_RQ_PSN" },
	{ IBV_QP_MAX_QP_RD_ATOMIC, "IBV_QP_MAX_QP_RD_ATOMIC" },
	{ IBV_QP_ALT_PATH, "IBV_QP_ALT_PATH" },
	{ IBV_QP_MIN_RNR_TIMER, "IBV_QP_MIN_RNR_TIMER" },
	{ IBV_QP_SQ_PSN, "IBV_QP_SQ_PSN" },
	{ IBV_QP_MAX_DEST_RD_ATOMIC, "IBV_QP_MAX_DEST_RD_ATOMIC" },
	{ IBV_QP_PATH_MIG_STATE, "IBV_QP_PATH_MIG_STATE" },
	{ IBV_QP_CAP, "IBV_QP_CAP" },
	{ IBV_QP_DEST_QPN, "IBV_QP_DEST_QPN" },
	{ IBV_QP_RATE_LIMIT, "IBV_QP_RATE_LIMIT" },
};

void vs__qp_mask_names(int mask, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++) {
		if (!(mask & mask_names[i].bit) || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "|" : "", mask_names[i].name);
		mask &= ~mask_names[i].bit;
	}
	if (mask && used < len)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", mask);
}

/* index: 0 RC, 1 UC, 2 UD */
struct rule {
	enum ibv_qp_state from, to;
	int req[3], opt[3];
};

#define PATH_OPT (IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE)

static const struct rule rules[] = {
	{ IBV_QPS_RESET, IBV_QPS_INIT,
	  { IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY },
	  { 0, 0, 0 } },
	{ IBV_QPS_INIT, IBV_QPS_INIT,
	  { 0, 0, 0 },
	  { IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY } },
	{ IBV_QPS_INIT, IBV_QPS_RTR,
	  { IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	    IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	    0 },
	  { IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
	    IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX,
	    IBV_QP_PKEY_INDEX | IBV_QP_QKEY } },
	{ IBV_QPS_RTR, IBV_QPS_RTS,
	  { IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	    IBV_QP_SQ_PSN, IBV_QP_SQ_PSN },
	  { IBV_QP_CUR_STATE | PATH_OPT | IBV_QP_MIN_RNR_TIMER,
	    IBV_QP_CUR_STATE | PATH_OPT,
	    IBV_QP_CUR_STATE | IBV_QP_QKEY } },
	{ IBV_QPS_RTS, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { IBV_QP_CUR_STATE | PATH_OPT | IBV_QP_MIN_RNR_TIMER,
	    IBV_QP_CUR_STATE | PATH_OPT,
	    IBV_QP_CUR_STATE | IBV_QP_QKEY } },
	{ IBV_QPS_RTS, IBV_QPS_SQD,
	  { 0, 0, 0 },
	  { IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_EN_SQD_ASYNC_NOTIFY,
	    IBV_QP_EN_SQD_ASYNC_NOTIFY } },
	{ IBV_QPS_SQD, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { IBV_QP_CUR_STATE | PATH_OPT | IBV_QP_MIN_RNR_TIMER,
	    IBV_QP_CUR_STATE | PATH_OPT,
	    IBV_QP_CUR_STATE | IBV_QP_QKEY } },
	{ IBV_QPS_SQE, IBV_QPS_RTS,
	  { 0, 0, 0 },
	  { 0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS,
	    IBV_QP_CUR_STATE | IBV_QP_QKEY } },
};

int vs_qp_check_mask(enum vs_transport transport, enum ibv_qp_state from,
		     enum ibv_qp_state to, int mask, char *why, size_t len)
{
	char tmp[1];
	int t;

	if (!why || !len) {
		why = tmp;
		len = sizeof(tmp);
	}
	why[0] = 0;
	if (transport < VS_TRANSPORT_RC || transport > VS_TRANSPORT_UD) {
		snprintf(why, len, "transport %d is not RC, UC or UD", (int)transport);
		return -EINVAL;
	}
	t = (int)transport - 1;
	if ((mask & IBV_QP_STATE) == 0 && from != to) {
		snprintf(why, len, "IBV_QP_STATE is missing from the mask");
		return -EINVAL;
	}
	/* RESET and ERR are reachable from anywhere with nothing else. */
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
		int extra = mask & ~IBV_QP_STATE;
		char names[512];

		if (!extra || from == to)
			return 0;
		vs__qp_mask_names(extra, names, sizeof(names));
		snprintf(why, len,
			 "for %s %s->%s: missing: none; not allowed: %s "
			 "(only IBV_QP_STATE)", vs_transport_name(transport),
			 vs_qp_state_name(from), vs_qp_state_name(to), names);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *r = &rules[i];
		int missing, extra;
		char m[512], x[512];

		if (r->from != from || r->to != to)
			continue;
		missing = r->req[t] & ~mask;
		extra = mask & ~(r->req[t] | r->opt[t] | IBV_QP_STATE);
		if (!missing && !extra)
			return 0;
		vs__qp_mask_names(missing, m, sizeof(m));
		vs__qp_mask_names(extra, x, sizeof(x));
		snprintf(why, len, "for %s %s->%s: missing: %s; not allowed: %s",
			 vs_transport_name(transport), vs_qp_state_name(from),
			 vs_qp_state_name(to), missing ? m : "none",
			 extra ? x : "none");
		return -EINVAL;
	}
	snprintf(why, len, "%s->%s is not a legal transition for a %s QP",
		 vs_qp_state_name(from), vs_qp_state_name(to),
		 vs_transport_name(transport));
	return -EINVAL;
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

int vs__qp_modify(struct vs_qp *qp, uint32_t kind, const char *verb,
		  struct ibv_qp_attr *attr, int mask)
{
	enum ibv_qp_state from, to;
	char why[700], route[400];
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
	route[0] = 0;
	if (to == IBV_QPS_RTR && (mask & IBV_QP_AV) && attr->ah_attr.is_global &&
	    qp->link_layer == IBV_LINK_LAYER_ETHERNET && ret != EINVAL)
		vs__describe_route(qp, &attr->ah_attr.grh.dgid, route, sizeof(route));
	if (ret == EINVAL) {
		if (vs_qp_check_mask(qp->transport, from, to, mask, why, sizeof(why)))
			return vs__set_error("ibv_modify_qp", EINVAL,
					     "%s: the attribute mask is wrong %s",
					     verb, why);
		if (to == IBV_QPS_RTR && qp->link_layer == IBV_LINK_LAYER_ETHERNET &&
		    (mask & IBV_QP_AV))
			vs__describe_route(qp, &attr->ah_attr.grh.dgid, route,
					   sizeof(route));
		return vs__set_error("ibv_modify_qp", EINVAL,
				     "%s: %s %s->%s refused although the mask is "
				     "complete: a value is out of range for the "
				     "device%s%s", verb,
				     vs_transport_name(qp->transport),
				     vs_qp_state_name(from), vs_qp_state_name(to),
				     route[0] ? "; " : "", route);
	}
	return vs__set_error("ibv_modify_qp", ret, "%s: %s %s->%s failed%s%s",
			     verb, vs_transport_name(qp->transport),
			     vs_qp_state_name(from), vs_qp_state_name(to),
			     route[0] ? ": " : "", route);
}
