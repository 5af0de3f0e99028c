/* SPDX-License-Identifier: MIT */
/*
 * The attribute-mask rules of each QP state transition (IB spec 11.2.5,
 * as the kernel's qp_state_table encodes them), one column per rule set;
 * a transport's row in lib/transport/transport.h names its column.
 */
#include "transport.h"

/* one column per rule set (enum vs__rules) */
struct rule {
	enum ibv_qp_state from, to;
	int req[VS__RULES_N], opt[VS__RULES_N];
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
	const struct vs__transport *tr = vs__transport(transport);
	char tmp[1];
	int t;

	if (!why || !len) {
		why = tmp;
		len = sizeof(tmp);
	}
	why[0] = 0;
	if (!tr) {
		snprintf(why, len, "transport %d is not RC, UC, UD or SRD", (int)transport);
		return -EINVAL;
	}
	t = (int)tr->rules;
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
	snprintf(why, len, "%s->%s is not a legal transition for %s %s QP",
		 vs_qp_state_name(from), vs_qp_state_name(to),
		 vs__article(vs_transport_name(transport)),
		 vs_transport_name(transport));
	return -EINVAL;
}
