// SPDX-License-Identifier: MIT
/*
 * The port's IP address: the first IPv4 address of this machine that the
 * connection manager binds to the device and port under test (the
 * port's GID on RoCE, its netdev on iWARP, IPoIB on InfiniBand).  Asking
 * the CM itself is what a CM connection will do, whatever the link.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "selftest.h"

/* Whether the CM binds addr to p's device and port. */
static bool binds_to(const struct port_under_test *p, struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	bool yes = false;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return false;
	if (!rdma_bind_addr(id, addr) && id->verbs &&
	    !strcmp(ibv_get_device_name(id->verbs->device), p->device))
		yes = !id->port_num || id->port_num == p->port;
	rdma_destroy_id(id);
	return yes;
}

void find_port_addr(struct port_under_test *p)
{
	struct ifaddrs *all;

	p->addr[0] = '\0';
	if (getifaddrs(&all))
		return;
	for (struct ifaddrs *i = all; i && !p->addr[0]; i = i->ifa_next) {
		struct sockaddr_in sin;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
			continue;
		memcpy(&sin, i->ifa_addr, sizeof(sin));
		sin.sin_port = 0;
		if (binds_to(p, (struct sockaddr *)&sin))
			inet_ntop(AF_INET, &sin.sin_addr, p->addr, sizeof(p->addr));
	}
	freeifaddrs(all);
}
