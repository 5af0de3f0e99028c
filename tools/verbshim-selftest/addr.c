// SPDX-License-Identifier: MIT
/*
 * The port's IP address: the first IPv4 address of this machine that the
 * connection manager binds to the device and port under test (the
 * port's GID on RoCE, its netdev on iWARP, IPoIB on InfiniBand).  Asking
 * the CM itself is what a CM connection will do, whatever the link.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "selftest.h"

/*
 * Whether the CM binds addr to p's device and port.  An address of no
 * RDMA device (ENODEV, EADDRNOTAVAIL) is a plain no; any other failure,
 * of the id's create, the bind or the id's destroy, goes into
 * p->addr_err (the first one), so that the CM rows fail naming it rather
 * than skip for want of an address.
 */
static bool binds_to(struct port_under_test *p, struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	bool yes = false;
	int err = 0;

	errno = 0;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		if (!p->addr_err[0])
			snprintf(p->addr_err, sizeof(p->addr_err),
				 "rdma_create_id: %s", strerror(errno ? errno : EIO));
		return false;
	}
	errno = 0;
	if (rdma_bind_addr(id, addr)) {
		err = errno ? errno : EIO;
		if (err != ENODEV && err != EADDRNOTAVAIL && !p->addr_err[0]) {
			char a[INET_ADDRSTRLEN] = "?";

			inet_ntop(AF_INET, &((struct sockaddr_in *)addr)->sin_addr,
				  a, sizeof(a));
			snprintf(p->addr_err, sizeof(p->addr_err),
				 "rdma_bind_addr(%s): %s", a, strerror(err));
		}
	} else if (id->verbs) {
		const char *name = ibv_get_device_name(id->verbs->device);

		yes = name && !strcmp(name, p->device) &&
		      (!id->port_num || id->port_num == p->port);
	}
	errno = 0;
	if (rdma_destroy_id(id) && !p->addr_err[0])
		snprintf(p->addr_err, sizeof(p->addr_err), "rdma_destroy_id: %s",
			 strerror(errno ? errno : EIO));
	return yes;
}

void find_port_addr(struct port_under_test *p)
{
	struct ifaddrs *all;

	p->addr[0] = '\0';
	p->addr_err[0] = '\0';
	if (getifaddrs(&all)) {
		snprintf(p->addr_err, sizeof(p->addr_err), "getifaddrs: %s",
			 strerror(errno));
		return;
	}
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
