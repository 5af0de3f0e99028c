/* SPDX-License-Identifier: MIT */
/*
 * UD multicast through the CM: join a group (the QP attached to it, the
 * group's address handle from the CM), leave it.
 */
#include "cm_internal.h"

#define DEFAULT_JOIN_MS 2000

int vs_cm_join(struct vs_cm_id *id, const char *group, int timeout_ms)
{
	const char *call = "vs_cm_join";
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_UDP }, *res = NULL;
	struct vs__cm_ev ev;
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (!group)
		return vs__set_error(call, EINVAL, "group is NULL");
	if (!id->kind->datagram || !id->qp)
		return vs__set_error(call, EINVAL,
				     "the CM id has no UD QP (a UD id, then "
				     "vs_cm_ud_qp_create)");
	if (id->joined)
		return vs__set_error(call, EINVAL,
				     "the CM id has joined a group already (one "
				     "per id: vs_cm_leave first)");
	if (timeout_ms < 0)
		return vs__set_error(call, EINVAL, "timeout_ms %d: a join needs "
				     "a limit (0 = %d ms)", timeout_ms,
				     DEFAULT_JOIN_MS);
	ret = id->chan ? vs__cm_shared_refused(call) : 0; /* the join waits */
	if (ret)
		return ret;
	ret = vs__cm_qp_up(id, call);
	if (ret)
		return ret;
	errno = 0;
	if (rdma_getaddrinfo(group, NULL, &hints, &res) || !res)
		return vs__verb_error(call, "rdma_getaddrinfo", vs__errno_or(ENOENT),
				      "cannot resolve the group \"%s\"", group);
	if (res->ai_dst_addr->sa_family != AF_INET &&
	    res->ai_dst_addr->sa_family != AF_INET6) {
		ret = vs__set_error(call, EAFNOSUPPORT, "the group \"%s\" is "
				    "not an IPv4 or IPv6 address (family %d)",
				    group, res->ai_dst_addr->sa_family);
		rdma_freeaddrinfo(res);
		return ret;
	}
	/* the group is the id's peer from now on (its leave names it) */
	vs__cm_set_peer(id, res->ai_dst_addr);
	rdma_freeaddrinfo(res);
	id->have_ud = false;
	errno = 0;
	if (rdma_join_multicast(id->id, &id->peer_sa.sa, id))
		return vs__verb_error(call, "rdma_join_multicast",
				      vs__errno_or(EINVAL),
				      "cannot join the group %s", vs__cm_peer(id));
	ret = vs__cm_wait_for(id, RDMA_CM_EVENT_MULTICAST_JOIN,
			      timeout_ms ? timeout_ms : DEFAULT_JOIN_MS, &ev,
			      "joining the group", call);
	if (!ret && ibv_attach_mcast(id->qp->qp, &id->ud_ah.grh.dgid,
				     id->ud_ah.dlid)) {
		ret = vs__verb_error(call, "ibv_attach_mcast", vs__errno_or(EINVAL),
				     "cannot attach the UD QP to the group %s",
				     vs__cm_peer(id));
	}
	if (ret) {
		/* a leave that fails keeps the membership for a retry */
		if (rdma_leave_multicast(id->id, &id->peer_sa.sa))
			id->joined = true;
		id->have_ud = false;
		return ret;
	}
	id->joined = true;
	id->mc_attached = true;
	return 0;
}

/* Detaches the QP (an attached QP cannot be destroyed), then leaves. */
int vs__cm_mcast_drop(struct vs_cm_id *id)
{
	if (id->mc_attached)
		ibv_detach_mcast(id->qp->qp, &id->ud_ah.grh.dgid, id->ud_ah.dlid);
	id->mc_attached = false;
	id->have_ud = false;
	errno = 0;
	/*
	 * librdmacm frees its record of the membership only in a leave that
	 * succeeds (its destroy of the id does not): one that fails keeps
	 * the id a member, for the leave or the close again
	 */
	if (rdma_leave_multicast(id->id, &id->peer_sa.sa))
		return -1;
	id->joined = false;
	return 0;
}

int vs_cm_leave(struct vs_cm_id *id)
{
	const char *call = "vs_cm_leave";
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (!id->joined)
		return vs__set_error(call, EINVAL, "the CM id has not joined a group");
	if (vs__cm_mcast_drop(id))
		return vs__verb_error(call, "rdma_leave_multicast",
				      vs__errno_or(EINVAL),
				      "cannot leave the group %s; the CM id is "
				      "still a member: leave again (or close the "
				      "id) to retry", vs__cm_peer(id));
	return 0;
}
