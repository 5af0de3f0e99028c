/* SPDX-License-Identifier: MIT */
/*
 * What the kernel's connection manager means by the errno of a bind, of
 * an address resolution and of an ADDR_ERROR event, in words.  One errno
 * has several causes there (drivers/infiniband/core/cma.c, addr.c), told
 * apart here by what the call asked for:
 *
 *   bind     EADDRINUSE     the same address and port is bound already
 *                           (cma_check_port, both addresses specific)
 *            EADDRNOTAVAIL  the port is bound already and one of the two
 *                           is the any-address (cma_check_port); or the
 *                           address is no netdev's (rdma_translate_ip);
 *                           or port 0 and no free port left
 *            ENODEV         the address is this machine's but no RDMA
 *                           device is on its netdev (cma_acquire_dev_by_src_ip)
 *            EACCES         port < 1024 without CAP_NET_BIND_SERVICE
 *   resolve  ENETUNREACH, EHOSTUNREACH   no IP route (ip_route_output_key,
 *                           returned by rdma_resolve_addr itself)
 *   event    ETIMEDOUT      no ARP / neighbour answer within the limit
 *            ENODEV         the route leaves through a netdev without
 *                           an RDMA device
 */
#include <ifaddrs.h>
#include <netinet/in.h>

#include "cm_internal.h"

static unsigned int port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return 0;
}

static bool any_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
	return false;
}

/* Whether a netdev of this machine has sa's address (getifaddrs). */
static bool local_addr(const struct sockaddr *sa)
{
	struct ifaddrs *all, *i;
	bool found = false;

	if (getifaddrs(&all))
		return false;
	for (i = all; i && !found; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;

		if (!a || a->sa_family != sa->sa_family)
			continue;
		if (sa->sa_family == AF_INET)
			found = ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
				((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
		else
			found = !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
					&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
					sizeof(struct in6_addr));
	}
	freeifaddrs(all);
	return found;
}

int vs__cm_bind_error(const struct sockaddr *sa, const char *what,
		      const char *verb, int err, const char *call)
{
	unsigned int port = port_of(sa);
	char at[64], why[VS_ERROR_MSG_MAX / 2];
	int ret;

	vs__cm_addr_text(at, sizeof(at), sa);
	switch (err) {
	case EADDRINUSE:
		return vs__verb_error(call, verb, err, "cannot bind %s to %s: "
				      "port %u is in use on that address (another "
				      "CM id, of this process or another, is bound "
				      "to or listens on %s)", what, at, port, at);
	case EADDRNOTAVAIL:
		if (!any_addr(sa) && !local_addr(sa))
			return vs__verb_error(call, verb, err, "cannot bind %s to "
					      "%s: not an address of this machine "
					      "(no netdev has it)", what, at);
		if (!port)
			return vs__verb_error(call, verb, err, "cannot bind %s to "
					      "%s: no free port left in the local "
					      "port range", what, at);
		if (any_addr(sa))
			return vs__verb_error(call, verb, err, "cannot bind %s to "
					      "%s: port %u is in use (another CM "
					      "id, of this process or another, is "
					      "bound to or listens on port %u; "
					      "with the any-address on either side "
					      "the kernel says EADDRNOTAVAIL, not "
					      "EADDRINUSE)", what, at, port, port);
		return vs__verb_error(call, verb, err, "cannot bind %s to %s: "
				      "port %u is in use (another CM id, of this "
				      "process or another, listens on port %u of "
				      "the any-address, which covers this one)",
				      what, at, port, port);
	case ENODEV:
		if (vs__cm_netdev_why(sa, why, sizeof(why)))
			return vs__verb_error(call, verb, err, "cannot bind %s to "
					      "%s: the address is this machine's, "
					      "but %s", what, at, why);
		if (vs__cm_stale_list_why(sa, why, sizeof(why)))
			return vs__verb_error(call, verb, err, "cannot bind %s "
					      "to %s: %s", what, at, why);
		return vs__verb_error(call, verb, err, "cannot bind %s to %s: "
				      "the address is this machine's, but no RDMA "
				      "device is on its netdev (rxe: rdma link add "
				      "NAME type rxe netdev IFACE)", what, at);
	case EACCES:
		return vs__verb_error(call, verb, err, "cannot bind %s to %s: "
				      "port %u is below 1024 and the process "
				      "lacks CAP_NET_BIND_SERVICE", what, at, port);
	default:
		snprintf(why, sizeof(why), "%s cannot be bound to %s", what, at);
		ret = vs__cm_env_error(call, verb, err, why);
		return ret ? ret : vs__verb_error(call, verb, err,
						  "cannot bind %s to %s: %s",
						  what, at, strerror(err));
	}
}

int vs__cm_resolve_error(struct vs_cm_id *id, const struct sockaddr *src,
			 int err, const char *call)
{
	const char *peer = vs__cm_peer(id);
	char what[128], why[VS_ERROR_MSG_MAX / 2];
	int ret;

	snprintf(what, sizeof(what), "the address of %s cannot be resolved",
		 peer);
	ret = vs__cm_env_error(call, "rdma_resolve_addr", err, what);
	if (ret)
		return ret;
	if (src && (err == EADDRINUSE || err == EADDRNOTAVAIL ||
		    err == ENODEV || err == EACCES))
		return vs__cm_bind_error(src, "the source of a resolve",
					 "rdma_resolve_addr", err, call);
	/* a local address whose netdev is down, or has no RDMA device */
	if (id->peer_sa.sa.sa_family &&
	    vs__cm_netdev_why(&id->peer_sa.sa, why, sizeof(why)))
		return vs__verb_error(call, "rdma_resolve_addr", err,
				      "resolving the address of %s (this "
				      "machine's): %s", peer, why);
	if (err == ENETUNREACH || err == EHOSTUNREACH)
		return vs__verb_error(call, "rdma_resolve_addr", err,
				      "resolving the address of %s: no IP route "
				      "to it from this machine (`ip route get` "
				      "shows none)", peer);
	return vs__verb_error(call, "rdma_resolve_addr", err,
			      "resolving the address of %s: %s (no local RDMA "
			      "device has a route to it?)", peer, strerror(err));
}

const char *vs__cm_addr_error_why(int err)
{
	switch (err) {
	case ETIMEDOUT:
		return "nobody answered ARP / neighbour discovery for it within "
		       "the resolve's limit (no host has that address on the "
		       "subnet, or it is down)";
	case ENODEV:
		return "the route to it leaves through a netdev with no RDMA "
		       "device (rxe: rdma link add NAME type rxe netdev IFACE)";
	case ENETUNREACH:
	case EHOSTUNREACH:
		return "no IP route to it from this machine";
	default:
		return "no local RDMA device reaches that address (is it on the "
		       "subnet of an RDMA netdev that is up, and does it answer "
		       "ARP / neighbour discovery?)";
	}
}
