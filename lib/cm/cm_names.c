/* SPDX-License-Identifier: MIT */
/*
 * Names of the connection manager: states, event types, IB CM reject
 * reasons (what the numeric codes mean, in words).
 */
#include "cm_internal.h"

const char *vs_cm_state_name(enum vs_cm_state s)
{
	switch (s) {
	case VS_CM_IDLE: return "IDLE";
	case VS_CM_RESOLVED: return "RESOLVED";
	case VS_CM_LISTENING: return "LISTENING";
	case VS_CM_REQUEST: return "REQUEST";
	case VS_CM_CONNECTING: return "CONNECTING";
	case VS_CM_ACCEPTING: return "ACCEPTING";
	case VS_CM_CONNECTED: return "CONNECTED";
	case VS_CM_REJECTED: return "REJECTED";
	case VS_CM_DISCONNECTED: return "DISCONNECTED";
	case VS_CM_FAILED: return "FAILED";
	case VS_CM_RESOLVING: return "RESOLVING";
	}
	return "unknown state";
}

#define EV(x) case RDMA_CM_EVENT_##x: return "RDMA_CM_EVENT_" #x
const char *vs_cm_event_name(enum rdma_cm_event_type t)
{
	switch (t) {
	EV(ADDR_RESOLVED); EV(ADDR_ERROR); EV(ROUTE_RESOLVED); EV(ROUTE_ERROR);
	EV(CONNECT_REQUEST); EV(CONNECT_RESPONSE); EV(CONNECT_ERROR);
	EV(UNREACHABLE); EV(REJECTED); EV(ESTABLISHED); EV(DISCONNECTED);
	EV(DEVICE_REMOVAL); EV(MULTICAST_JOIN); EV(MULTICAST_ERROR);
	EV(ADDR_CHANGE); EV(TIMEWAIT_EXIT);
	default: /* newer headers add private types (USER, INTERNAL) */
		return "unknown CM event";
	}
}
#undef EV

/* enum ib_cm_rej_reason (IBTA CM REJ reasons), as the kernel passes them */
static const char *const reasons[] = {
	[1] = "no QP",
	[2] = "no EEC",
	[3] = "no resources at the peer",
	[4] = "timeout (the peer's CM gave up waiting)",
	[5] = "unsupported request",
	[6] = "invalid communication id",
	[7] = "invalid communication instance",
	[8] = "invalid service id: nobody listens on that port there",
	[9] = "invalid transport type",
	[10] = "stale connection",
	[11] = "RDC does not exist",
	[12] = "invalid GID",
	[13] = "invalid LID",
	[14] = "invalid SL",
	[15] = "invalid traffic class",
	[16] = "invalid hop limit",
	[17] = "invalid packet rate",
	[18] = "invalid alternate GID",
	[19] = "invalid alternate LID",
	[20] = "invalid alternate SL",
	[21] = "invalid alternate traffic class",
	[22] = "invalid alternate hop limit",
	[23] = "invalid alternate packet rate",
	[24] = "port CM redirect",
	[25] = "port redirect",
	[26] = "invalid MTU",
	[27] = "insufficient responder resources",
	[28] = "consumer defined: the peer's program rejected the request",
	[29] = "invalid RNR retry",
	[30] = "duplicate local communication id",
	[31] = "invalid class version",
	[32] = "invalid flow label",
	[33] = "invalid alternate flow label",
	[35] = "vendor option not supported",
};

const char *vs_cm_reject_reason_name(int reason)
{
	if (reason > 0 && (size_t)reason < sizeof(reasons) / sizeof(reasons[0]) &&
	    reasons[reason])
		return reasons[reason];
	return "unknown reason";
}
