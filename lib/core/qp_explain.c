/* SPDX-License-Identifier: MIT */
/*
 * The one explanation of a failed ibv_modify_qp, used by the manual modify
 * path and by the handshakes: a wrong mask names the missing and the extra
 * bits, a complete one says a value is out of range, a RoCE RTR that
 * failed for its route or address names the route (sgid index, dgid,
 * netdev, GID type, link-local); any other errno (ENOMEM, EIO, ...) is
 * the call and its errno, plainly: the route is not its cause.
 */
#include <net/if.h>

#include "core.h"

/*
 * The errnos of a RoCE RTR that mean its route or address: the kernel's
 * resolve of the dgid's MAC (ib_resolve_eth_dmac: no route, no neighbour
 * answer, the netdev gone, no such source) and its sgid entry (missing or
 * invalid).  EINVAL is one too, said with the out-of-range values.
 */
static bool route_errno(int err)
{
	switch (err) {
	case EINVAL:
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EADDRNOTAVAIL:
	case ENODEV:
	case ENODATA:
	case ENOENT:
	case ETIMEDOUT:
		return true;
	default:
		return false;
	}
}

void vs__describe_route(const struct vs_qp *qp, int err,
			const union ibv_gid *dgid, char *buf, size_t len)
{
	struct ibv_gid_entry e;
	char d[64], s[64], ndev[IF_NAMESIZE + 1] = "?";
	const char *type = "unknown type";
	bool ll = dgid->raw[0] == 0xfe && (dgid->raw[1] & 0xc0) == 0x80;

	if (len)
		buf[0] = '\0';
	if (!vs__link(qp->link_row)->ethernet || !route_errno(err))
		return;	/* the route is not the cause */
	memset(&e, 0, sizeof(e));
	if (!ibv_query_gid_ex(qp->pd->ctx->ctx, qp->port, qp->gid_index, &e, 0)) {
		type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" :
		       e.gid_type == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" : "IB";
		if (!e.ndev_ifindex || !if_indextoname(e.ndev_ifindex, ndev))
			snprintf(ndev, sizeof(ndev), "none");
	}
	snprintf(buf, len,
		 "no RoCE route to dgid %s from sgid index %u (%s, %s, netdev "
		 "%s); the dgid is %slink-local%s",
		 vs_gid_to_str(dgid, d, sizeof(d)), qp->gid_index,
		 vs_gid_to_str(&qp->gid, s, sizeof(s)), type, ndev,
		 ll ? "" : "not ",
		 ll ? " (link-local needs both ends on one L2 segment and RoCE v1 "
		      "or the same netdev)" : "");
}

int vs__modify_failed(const struct vs_qp *qp, const char *call, int err,
		      enum ibv_qp_state from, enum ibv_qp_state to, int mask,
		      const union ibv_gid *dgid, uint32_t dest_qpn)
{
	char why[700], route[400] = "", toward[40] = "";
	const char *t = vs_transport_name(qp->transport);

	if (err == EINVAL &&
	    vs_qp_check_mask(qp->transport, from, to, mask, why, sizeof(why)))
		return vs__verb_error(call, "ibv_modify_qp", EINVAL,
				     "the attribute mask is wrong %s", why);
	if (to == IBV_QPS_RTR && dgid)
		vs__describe_route(qp, err, dgid, route, sizeof(route));
	if (dest_qpn)
		snprintf(toward, sizeof(toward), " toward qpn 0x%06x", dest_qpn);
	if (err == EINVAL)
		return vs__verb_error(call, "ibv_modify_qp", EINVAL,
				     "%s %s->%s%s refused although the mask is "
				     "complete: a value is out of range for the "
				     "device%s%s", t, vs_qp_state_name(from),
				     vs_qp_state_name(to), toward,
				     route[0] ? "; " : "", route);
	return vs__verb_error(call, "ibv_modify_qp", err, "%s %s->%s%s failed%s%s", t, vs_qp_state_name(from), vs_qp_state_name(to),
			     toward, route[0] ? ": " : "", route);
}
