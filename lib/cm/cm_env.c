/* SPDX-License-Identifier: MIT */
/*
 * Why the connection manager cannot work on this machine at all.  When
 * there is no RDMA device, librdmacm fails its first call (rdma_getaddrinfo,
 * rdma_create_event_channel) with ENODEV, which the call's own words would
 * blame on its arguments ("cannot resolve 127.0.0.1"); and a device whose
 * netdev is down or has no address makes every resolve and bind fail as
 * if the address were wrong.  Asked only after a failure: the checks read
 * the device list and sysfs (a few system calls, never on a good path).
 */
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include "cm_internal.h"
#include "verbshim/loader.h"

#define SYSFS_NET "/sys/class/net/"

/* The first line of a sysfs file, newline cut; false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

/*
 * iWARP (siw) names no netdev: its GID 0 is the netdev's MAC, zeros after;
 * the netdev whose address that is, else buf untouched.
 */
static void mac_netdev(const char *ibdev_path, char *buf, size_t len)
{
	unsigned int g[8], m[6];
	char path[512], line[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/ports/1/gids/0", ibdev_path);
	if (!read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%x:%x:%x:%x:%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3],
		   &g[4], &g[5], &g[6], &g[7]) != 8 ||
	    g[3] || g[4] || g[5] || g[6] || g[7] || !(g[0] | g[1] | g[2]))
		return;
	d = opendir(SYSFS_NET);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IF_NAMESIZE)
			continue;
		snprintf(path, sizeof(path), SYSFS_NET "%s/address", e->d_name);
		if (!read_line(path, line, sizeof(line)) ||
		    sscanf(line, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			   &m[4], &m[5]) != 6)
			continue;
		if (g[0] == (m[0] << 8 | m[1]) && g[1] == (m[2] << 8 | m[3]) &&
		    g[2] == (m[4] << 8 | m[5])) {
			snprintf(buf, len, "%s", e->d_name);
			break;
		}
	}
	closedir(d);
}

/*
 * The netdev under an RDMA device: rxe names it in "parent", a RoCE port
 * in its first GID's attributes, siw by its MAC; "" when none says.
 */
static void netdev_of(const char *ibdev_path, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/parent", ibdev_path);
	if (read_line(path, buf, len) && !strchr(buf, ':'))
		return;
	snprintf(path, sizeof(path), "%s/ports/1/gid_attrs/ndevs/0", ibdev_path);
	if (read_line(path, buf, len))
		return;
	buf[0] = 0;
	mac_netdev(ibdev_path, buf, len);
}

/* Whether port 1..8 of the device is ACTIVE (sysfs "4: ACTIVE"). */
static bool port_active(const char *ibdev_path)
{
	for (int p = 1; p <= 8; p++) {
		char path[512], st[64];

		snprintf(path, sizeof(path), "%s/ports/%d/state", ibdev_path, p);
		if (!read_line(path, st, sizeof(st)))
			break;
		if (strstr(st, "ACTIVE"))
			return true;
	}
	return false;
}

static bool netdev_up(const char *ndev)
{
	char path[128], st[32];

	if (strlen(ndev) >= IF_NAMESIZE)
		return false;
	snprintf(path, sizeof(path), SYSFS_NET "%s/operstate", ndev);
	/* "unknown" is what dummy and loopback netdevs say when up */
	return read_line(path, st, sizeof(st)) && strcmp(st, "down") &&
	       strcmp(st, "lowerlayerdown") && strcmp(st, "notpresent");
}

static bool netdev_has_addr(const struct ifaddrs *all, const char *ndev)
{
	for (const struct ifaddrs *i = all; i; i = i->ifa_next)
		if (i->ifa_addr && !strcmp(i->ifa_name, ndev) &&
		    (i->ifa_addr->sa_family == AF_INET ||
		     i->ifa_addr->sa_family == AF_INET6))
			return true;
	return false;
}

/*
 * A device's name for a message.  rdma-core's ibv_get_device_name never
 * fails, but a drop-in cannot promise it (a missing symbol is NULL): no
 * NULL goes into libc (issue 50, 4).
 */
static const char *dev_name(struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);

	return name ? name : "(a device ibv_get_device_name gives no name)";
}

/* Appends "name (netdev X, what)" to buf's list. */
static void list_add(char *buf, size_t len, size_t *used, int *n,
		     const char *name, const char *ndev, const char *what)
{
	if (*used >= len)
		return;
	*used += (size_t)snprintf(buf + *used, len - *used, "%s%s%s%s%s%s%s",
				  (*n)++ ? ", " : "", name,
				  ndev[0] ? " (netdev " : "", ndev,
				  ndev[0] && what[0] ? ", " : "", what,
				  ndev[0] ? ")" : "");
}

const char *vs__cm_env_why(char *buf, size_t len)
{
	char why[VS_ERROR_MSG_MAX], down[160] = "", noaddr[160] = "";
	size_t down_len = 0, noaddr_len = 0;
	int n = 0, ndown = 0, nnoaddr = 0, nready = 0;
	struct ibv_device **list;
	struct ifaddrs *ifs = NULL;

	buf[0] = 0;
	if (vs__library_reason(VS_LIB_RDMACM, why, sizeof(why))) {
		snprintf(buf, len, "rdma-core is missing: %s", why);
		return buf;
	}
	if (vs__library_reason(VS_LIB_IBVERBS, why, sizeof(why))) {
		snprintf(buf, len, "rdma-core is missing: %s", why);
		return buf;
	}
	list = ibv_get_device_list(&n);
	if (!list || n <= 0) {
		if (list)
			ibv_free_device_list(list);
		snprintf(buf, len, "there is no RDMA device on this machine "
			 "(is the kernel's RDMA "
			 "support loaded? SoftRoCE: rdma link add rxe0 type rxe "
			 "netdev IFACE)");
		return buf;
	}
	if (access("/dev/infiniband/rdma_cm", F_OK)) {
		ibv_free_device_list(list);
		snprintf(buf, len, "there is no /dev/infiniband/rdma_cm: the "
			 "kernel's connection manager for user space is not "
			 "loaded (modprobe rdma_ucm)");
		return buf;
	}
	if (getifaddrs(&ifs))
		ifs = NULL;
	for (int i = 0; i < n; i++) {
		const char *name = dev_name(list[i]);
		const char *path = list[i]->ibdev_path;
		char ndev[64];

		netdev_of(path, ndev, sizeof(ndev));
		if (!port_active(path))
			list_add(down, sizeof(down), &down_len, &ndown, name, ndev,
				 ndev[0] && !netdev_up(ndev) ? "down" : "");
		else if (ndev[0] && ifs && !netdev_has_addr(ifs, ndev))
			list_add(noaddr, sizeof(noaddr), &noaddr_len, &nnoaddr,
				 name, ndev, "");
		else
			nready++;
	}
	ibv_free_device_list(list);
	if (ifs)
		freeifaddrs(ifs);
	if (nready)
		return NULL;
	if (ndown && !nnoaddr)
		snprintf(buf, len, "no RDMA device has a port up: %s (a port is "
			 "ACTIVE when its netdev is up: ip link set IFACE up)",
			 down);
	else if (!ndown)
		snprintf(buf, len, "no RDMA device's netdev has an IP address: "
			 "%s (the connection manager addresses devices by IP: "
			 "ip addr add ADDR/PREFIX dev IFACE)", noaddr);
	else
		snprintf(buf, len, "no RDMA device is usable by the connection "
			 "manager: port down on %s; no IP address on the netdev "
			 "of %s", down, noaddr);
	return buf;
}

int vs__cm_env_error(const char *call, const char *verb, int err,
		     const char *what)
{
	char why[VS_ERROR_MSG_MAX];

	if (!vs__cm_env_why(why, sizeof(why)))
		return 0;
	/* no device: librdmacm's ENODEV; the rest keep the verb's errno */
	return vs__verb_error(call, verb, err, "%s, so %s", why, what);
}

/* The name of the netdev that has sa's address ("" if none has it). */
static void netdev_with(const struct sockaddr *sa, char *buf, size_t len)
{
	struct ifaddrs *all, *i;

	buf[0] = 0;
	if (getifaddrs(&all))
		return;
	for (i = all; i; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;
		bool same;

		if (!a || a->sa_family != sa->sa_family)
			continue;
		if (sa->sa_family == AF_INET)
			same = ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
			       ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
		else
			same = sa->sa_family == AF_INET6 &&
			       !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
				       sizeof(struct in6_addr));
		if (same) {
			snprintf(buf, len, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(all);
}

/*
 * The RDMA device on netdev ndev (its name into name): 0 none, 1 its port
 * is up, -1 its port is not, -2 no device list.
 */
static int device_on(const char *ndev, char *name, size_t len)
{
	struct ibv_device **list;
	char dev_ndev[64];
	int n = 0, ret = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return -2;
	for (int i = 0; i < n && !ret; i++) {
		const char *path = list[i]->ibdev_path;

		netdev_of(path, dev_ndev, sizeof(dev_ndev));
		if (strcmp(dev_ndev, ndev))
			continue;
		ret = port_active(path) ? 1 : -1;
		snprintf(name, len, "%s", dev_name(list[i]));
	}
	ibv_free_device_list(list);
	return ret;
}

const char *vs__cm_netdev_why(const struct sockaddr *sa, char *buf, size_t len)
{
	char ndev[64], dev[64];

	buf[0] = 0;
	netdev_with(sa, ndev, sizeof(ndev));
	if (!ndev[0])
		return NULL;
	switch (device_on(ndev, dev, sizeof(dev))) {
	case 0:
		snprintf(buf, len, "no RDMA device is on its netdev %s (rxe: "
			 "rdma link add NAME type rxe netdev %s)", ndev, ndev);
		return buf;
	case -1:
		snprintf(buf, len, "the RDMA device %s on its netdev %s has no "
			 "port up (%s)", dev, ndev,
			 netdev_up(ndev) ? "its port is not ACTIVE yet" :
			 "the netdev is down: ip link set IFACE up");
		return buf;
	default: /* its device's port is up (not the cause), or no list */
		return NULL;
	}
}

const char *vs__cm_stale_list_why(const struct sockaddr *sa, char *buf,
				  size_t len)
{
	struct vs_library_info li;
	char ndev[64], dev[64];

	if (vs__library_query_linked(VS_LIB_IBVERBS, &li) || li.min_release <= 0 ||
	    li.min_release >= 32)
		return NULL;
	netdev_with(sa, ndev, sizeof(ndev));
	if (!ndev[0] || device_on(ndev, dev, sizeof(dev)) != 1)
		return NULL;
	snprintf(buf, len, "the RDMA device %s is on its netdev %s with its "
		 "port up, but this librdmacm (of rdma-core %d-31) lists the "
		 "devices once, at the process's first CM call: a device added "
		 "since is unknown to it until the program restarts", dev, ndev,
		 li.min_release);
	return buf;
}

const char *vs__cm_id_dev_why(const struct vs_cm_id *id, char *buf, size_t len)
{
	const struct ibv_device *dev;
	char ndev[64];

	buf[0] = 0;
	if (!id->id || !id->id->verbs || !id->id->verbs->device)
		return NULL;
	dev = id->id->verbs->device;
	if (port_active(dev->ibdev_path))
		return NULL;
	netdev_of(dev->ibdev_path, ndev, sizeof(ndev));
	snprintf(buf, len, "the RDMA device %s%s%s has no port up (%s)",
		 dev_name((struct ibv_device *)dev),
		 ndev[0] ? " on netdev " : "", ndev,
		 ndev[0] && !netdev_up(ndev) ?
		 "the netdev is down: ip link set IFACE up" :
		 "its port is not ACTIVE");
	return buf;
}
