// SPDX-License-Identifier: MIT
/*
 * verbshim-info: what verbshim found at run time (which rdma-core
 * libraries, how new, which provider ABI), the RDMA devices with their
 * ports and GID tables, and, when nothing usable is there, why.
 *
 *   verbshim-info [-d DEV] [--json]
 *
 * Exit: 0 a device with an active port was found, 2 none (the diagnosis
 * says why), 1 usage error.
 *
 * Everything is gathered into one struct report first and printed after,
 * so that the text and the JSON output cannot disagree.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbshim/loader.h"

enum { EXIT_USABLE = 0, EXIT_USAGE = 1, EXIT_NODEV = 2 };

/* Where rdma-core looks (fixed when it is built).  VERBSHIM_INFO_ROOT
 * prefixes all three so that the diagnosis can be tested on a fake tree. */
#define SYSFS_IB "/sys/class/infiniband"
#define DEV_IB "/dev/infiniband"
#define CONFIG_DIR "/etc/libibverbs.d"

/* ---- what is gathered ------------------------------------------------ */

struct gid_row {
	uint32_t index;
	union ibv_gid gid;
	enum ibv_gid_type type;
	char netdev[IF_NAMESIZE];	/* "" when the entry has none */
};

struct port_row {
	uint32_t num;
	int err;			/* ibv_query_port() failed: errno */
	struct ibv_port_attr attr;
	ssize_t expect;			/* valid GIDs per the table; -1 unknown */
	struct gid_row *gids;
	size_t ngids;
	int gid_err;			/* the GID scan stopped on this errno */
};

struct dev_row {
	char name[IBV_SYSFS_NAME_MAX];
	uint64_t guid;			/* host order */
	int err;			/* open or query failed: errno */
	const char *err_what;		/* which call */
	struct port_row *ports;
	unsigned int nports;
};

struct report {
	struct vs_build_info build;	/* what the archive was built with */
	struct vs_library_info libs[VS_LIB_COUNT];
	int list_err;			/* ibv_get_device_list() gave NULL */
	struct dev_row *devs;
	size_t ndevs;
	bool usable;			/* some listed port is ACTIVE */
	char diagnosis[1024];		/* "" when there is nothing to say */
};

struct options {
	const char *device;		/* -d, or NULL for all */
	bool json;
	char sysfs[PATH_MAX], devdir[PATH_MAX], confdir[PATH_MAX];
};

/* snprintf() through a va_list: names from sysfs and the loader are
 * bounded by their buffers, and a cut path just fails to open. */
static void __attribute__((format(printf, 3, 4)))
fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

/* ---- decoding port attributes ----------------------------------------- */

static const char *port_state_name(enum ibv_port_state s)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return (unsigned int)s < 6 ? names[s] : "UNKNOWN";
}

static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

/* IB encodings (IBTA 14.2.5.6): the width is a bit mask of lane counts,
 * the speed one bit per lane rate. */
static int width_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return 0;
}

static double lane_gbps(uint8_t speed, const char **name)
{
	static const double gbps[] = { 2.5, 5, 10, 10, 14, 25, 50, 100 };
	static const char *const names[] = {
		"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR",
	};

	for (unsigned int bit = 0; bit < 8; bit++)
		if (speed == 1u << bit) {
			*name = names[bit];
			return gbps[bit];
		}
	*name = "unknown";
	return 0;
}

static const char *link_layer_name(uint8_t ll)
{
	/* Old kernels report UNSPECIFIED for InfiniBand. */
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
}

static const char *gid_type_name(enum ibv_gid_type t)
{
	return t == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" :
	       t == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" :
	       t == IBV_GID_TYPE_IB ? "IB" : "unknown";
}

static void gid_str(const union ibv_gid *gid, char *buf, size_t size)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)size))
		fmt(buf, size, "?");
}

static void guid_str(uint64_t guid, char *buf, size_t size)
{
	fmt(buf, size, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48),
	    (unsigned int)(guid >> 32) & 0xffff,
	    (unsigned int)(guid >> 16) & 0xffff, (unsigned int)guid & 0xffff);
}

/* ---- gathering devices ---------------------------------------------- */

/*
 * The GID table of one port by ibv_query_gid_ex() per index, skipping the
 * empty ones (ENODATA).  Tables are long (rxe: 1024) and mostly empty, and
 * each query is a system call (seconds for a whole table in an emulated
 * VM), so the scan stops once it has seen as many entries as
 * ibv_query_gid_table() counted for the port.
 */
static int gather_gids(struct ibv_context *ctx, struct port_row *p)
{
	int len = p->attr.gid_tbl_len;

	if (len <= 0 || p->expect == 0)
		return 0;
	p->gids = calloc(p->expect > 0 ? (size_t)p->expect : (size_t)len,
			 sizeof(*p->gids));
	if (!p->gids)
		return ENOMEM;
	for (int i = 0; i < len && p->ngids != (size_t)p->expect; i++) {
		struct ibv_gid_entry e;
		struct gid_row *g;
		int ret = ibv_query_gid_ex(ctx, p->num, (uint32_t)i, &e, 0);

		if (ret == ENODATA)	/* an empty slot: tables have holes */
			continue;
		if (ret) {
			p->gid_err = ret;
			break;
		}
		g = &p->gids[p->ngids++];
		*g = (struct gid_row){ .index = e.gid_index, .gid = e.gid,
				       .type = e.gid_type };
		if (e.ndev_ifindex && !if_indextoname(e.ndev_ifindex, g->netdev))
			g->netdev[0] = '\0';
	}
	return 0;
}

/* How many valid GIDs each port has, in one call; left at -1 (scan the
 * whole table) when the query fails. */
static void count_gids(struct ibv_context *ctx, struct dev_row *d)
{
	struct ibv_gid_entry *all;
	size_t total = 0;
	ssize_t n;

	for (unsigned int i = 0; i < d->nports; i++)
		if (!d->ports[i].err && d->ports[i].attr.gid_tbl_len > 0)
			total += (size_t)d->ports[i].attr.gid_tbl_len;
	all = total ? calloc(total, sizeof(*all)) : NULL;
	if (!all)
		return;
	n = ibv_query_gid_table(ctx, all, total, 0);
	for (unsigned int i = 0; n >= 0 && i < d->nports; i++)
		d->ports[i].expect = 0;
	for (ssize_t i = 0; i < n; i++)
		if (all[i].port_num >= 1 && all[i].port_num <= d->nports)
			d->ports[all[i].port_num - 1].expect++;
	free(all);
}

static int gather_device(struct ibv_device *dev, struct dev_row *d)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	fmt(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	d->guid = be64toh(ibv_get_device_guid(dev));
	ctx = ibv_open_device(dev);
	if (!ctx) {
		d->err = errno ? errno : ENODEV;
		d->err_what = "ibv_open_device";
		return 0;
	}
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		d->err = ret;
		d->err_what = "ibv_query_device";
		ret = 0;
		goto out;
	}
	d->ports = calloc(attr.phys_port_cnt ? attr.phys_port_cnt : 1,
			  sizeof(*d->ports));
	if (!d->ports) {
		ret = ENOMEM;
		goto out;
	}
	d->nports = attr.phys_port_cnt;
	for (unsigned int i = 0; i < d->nports; i++) {
		struct port_row *p = &d->ports[i];

		p->num = i + 1;
		p->expect = -1;
		p->err = ibv_query_port(ctx, (uint8_t)p->num, &p->attr);
	}
	count_gids(ctx, d);
	for (unsigned int i = 0; i < d->nports && !ret; i++)
		if (!d->ports[i].err)
			ret = gather_gids(ctx, &d->ports[i]);
out:
	ibv_close_device(ctx);
	return ret;
}

/* 0, or ENOMEM: a device that cannot be opened is reported, not fatal. */
static int gather_devices(struct report *r, const struct options *o)
{
	struct ibv_device **list;
	int num = 0, ret = 0;

	errno = 0;
	list = ibv_get_device_list(&num);
	if (!list) {	/* ENOSYS when the kernel has no RDMA at all */
		r->list_err = errno ? errno : ENODEV;
		return 0;
	}
	r->devs = calloc(num > 0 ? (size_t)num : 1, sizeof(*r->devs));
	for (int i = 0; r->devs && i < num && !ret; i++)
		if (!o->device || !strcmp(ibv_get_device_name(list[i]), o->device))
			ret = gather_device(list[i], &r->devs[r->ndevs++]);
	ibv_free_device_list(list);
	return r->devs ? ret : ENOMEM;
}

static void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ndevs; i++) {
		for (unsigned int p = 0; p < r->devs[i].nports; p++)
			free(r->devs[i].ports[p].gids);
		free(r->devs[i].ports);
	}
	free(r->devs);
}

/* ---- diagnosis: why there is no usable device ------------------------- */

static void __attribute__((format(printf, 2, 3)))
diag(struct report *r, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(r->diagnosis, sizeof(r->diagnosis), f, ap);
	va_end(ap);
}

/* Kernel drivers whose rdma-core provider has another name. */
static const char *provider_for_driver(const char *driver)
{
	static const char *const map[][2] = {
		{ "mlx5_core", "mlx5" }, { "mlx4_core", "mlx4" },
		{ "ib_mthca", "mthca" }, { "bnxt_en", "bnxt_re" },
		{ "hfi1", "hfi1verbs" }, { "ib_qib", "ipathverbs" },
		{ "qede", "qedr" }, { "be2net", "ocrdma" }, { "hns3", "hns" },
		{ "hns_roce_hw_v2", "hns" }, { "ice", "irdma" },
		{ "i40e", "irdma" }, { "mana_ib", "mana" },
		{ "rdma_rxe", "rxe" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i][0], driver))
			return map[i][1];
	return driver;
}

/* Whether a file of the config dir has a "driver NAME" line, read as
 * rdma-core reads it (every file, '#' comments; the value may also be a
 * path to the library).  1 found (into @value), 0 not, -1 no such dir. */
static int config_driver(const char *confdir, const char *name, char *value,
			 size_t size)
{
	char path[PATH_MAX], line[512], key[32], val[PATH_MAX];
	size_t nlen = strlen(name);
	struct dirent *de;
	int found = 0;
	DIR *dir = opendir(confdir);

	if (!dir)
		return -1;
	while (!found && (de = readdir(dir))) {
		FILE *f;

		fmt(path, sizeof(path), "%s/%s", confdir, de->d_name);
		if (de->d_name[0] == '.' || !(f = fopen(path, "re")))
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			const char *base;

			if (sscanf(line, " %31s %4095s", key, val) != 2 ||
			    strcmp(key, "driver"))
				continue;
			base = strrchr(val, '/');
			base = base ? base + 1 : NULL;
			found = !strcmp(val, name) ||
				(base && !strncmp(base, "lib", 3) &&
				 !strncmp(base + 3, name, nlen) &&
				 base[3 + nlen] == '-');
		}
		if (found)
			fmt(value, size, "%s", val);
		fclose(f);
	}
	closedir(dir);
	return found;
}

struct provider {
	char driver[64];	/* what a person knows: "mlx5_core", "rxe" */
	char want[64];		/* the provider name looked for: "mlx5" */
	char lib[PATH_MAX];	/* the config's value when found */
	int found;		/* as config_driver() */
};

/*
 * Find a sysfs device's provider the way rdma-core names it: the kernel
 * driver bound to the device (its device/driver link), else the ibdev
 * name without its number ("rxe0" -> "rxe", "siw_eth0" -> "siw"):
 * software devices have no driver link.
 */
static void find_provider(const struct options *o, const char *dev,
			  struct provider *p)
{
	char path[PATH_MAX], link[PATH_MAX], cand[3][64];
	unsigned int n = 0;
	size_t end = strlen(dev);
	ssize_t len;

	fmt(path, sizeof(path), "%s/%s/device/driver", o->sysfs, dev);
	len = readlink(path, link, sizeof(link) - 1);
	if (len > 0) {
		link[len] = '\0';
		fmt(p->driver, sizeof(p->driver), "%s",
		    strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
		fmt(cand[n++], 64, "%s", provider_for_driver(p->driver));
	}
	while (end > 0 && dev[end - 1] >= '0' && dev[end - 1] <= '9')
		end--;
	fmt(cand[n++], 64, "%.*s", (int)end, dev);
	if (strcspn(dev, "_") > 0 && strcspn(dev, "_") < end)
		fmt(cand[n++], 64, "%.*s", (int)strcspn(dev, "_"), dev);
	if (len <= 0)
		fmt(p->driver, sizeof(p->driver), "%s", cand[n - 1]);
	fmt(p->want, sizeof(p->want), "%s", len > 0 ? cand[0] : p->driver);
	p->found = 0;
	for (unsigned int c = 0; c < n && p->found <= 0; c++)
		p->found = config_driver(o->confdir, cand[c], p->lib,
					 sizeof(p->lib));
}

/*
 * libibverbs dlopens lib<NAME>-rdmav<ABI>.so from <its libdir>/libibverbs,
 * where ABI is its IBVERBS_PRIVATE_<ABI> node.  True, with a diagnosis,
 * when that file is missing or present only for another ABI.
 */
static bool provider_abi_problem(struct report *r, const char *dev,
				 const struct provider *p)
{
	const struct vs_library_info *lib = &r->libs[VS_LIB_IBVERBS];
	const char *slash = lib->path ? strrchr(lib->path, '/') : NULL;
	char dir[PATH_MAX], file[PATH_MAX + 80], prefix[80], others[256] = "";
	struct dirent *de;
	DIR *d;

	if (p->lib[0] == '/') {	/* a full path in the config, no ABI in it */
		if (!access(p->lib, R_OK))
			return false;
		diag(r, "the provider library %s for driver %s (device %s) is "
		     "missing: reinstall the rdma-core providers.", p->lib,
		     p->driver, dev);
		return true;
	}
	if (lib->provider_abi < 0 || !slash)
		return false;	/* unversioned library: nothing to compare */
	fmt(dir, sizeof(dir), "%.*s/libibverbs", (int)(slash - lib->path),
	    lib->path);
	fmt(file, sizeof(file), "%s/lib%s-rdmav%d.so", dir, p->lib,
	    lib->provider_abi);
	if (!access(file, R_OK))
		return false;
	fmt(prefix, sizeof(prefix), "lib%s-rdmav", p->lib);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)) &&
		    strlen(others) + strlen(de->d_name) + 3 < sizeof(others))
			fmt(others + strlen(others), sizeof(others) - strlen(others),
			    "%s%s", others[0] ? ", " : "", de->d_name);
	if (d)
		closedir(d);
	if (others[0])
		diag(r, "provider ABI mismatch for driver %s (device %s): %s "
		     "needs provider ABI %d (%s) but %s has only %s. Install "
		     "the providers of the same rdma-core release as "
		     "libibverbs.", p->driver, dev, lib->path, lib->provider_abi,
		     file, dir, others);
	else
		diag(r, "no provider library for driver %s (device %s): %s is "
		     "missing. Install the rdma-core providers (Debian/Ubuntu: "
		     "ibverbs-providers) that go with %s.", p->driver, dev,
		     file, lib->path);
	return true;
}

/* The sysfs devices to diagnose: all, or the one of -d.  NULL and *n = -1
 * when the directory does not exist. */
static struct dirent **sysfs_devices(const struct options *o, int *n)
{
	struct dirent **list = NULL;
	int k = 0;

	*n = scandir(o->sysfs, &list, NULL, alphasort);
	for (int i = 0; i < *n; i++) {
		if (list[i]->d_name[0] == '.' ||
		    (o->device && strcmp(list[i]->d_name, o->device)))
			free(list[i]);
		else
			list[k++] = list[i];
	}
	*n = *n < 0 ? -1 : k;
	return list;
}

/* Which of /dev/infiniband/uverbs* exist, and how many this user may open. */
static int count_uverbs(const struct options *o, int *usable)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(o->devdir);
	int n = 0;

	*usable = 0;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "uverbs", 6)) {
			fmt(path, sizeof(path), "%s/%s", o->devdir, de->d_name);
			n++;
			*usable += !access(path, R_OK | W_OK);
		}
	if (d)
		closedir(d);
	return n;
}

/* libibverbs listed no device: the checks in the order a person would fix
 * them, each over every device; the first that applies is the diagnosis. */
static void diagnose_no_device(struct report *r, const struct options *o)
{
	struct provider *prov = NULL;
	struct dirent **devs;
	int ndev, nuverbs, nusable, i;

	devs = sysfs_devices(o, &ndev);
	if (ndev < 0) {
		diag(r, "no %s: the kernel has no RDMA support loaded. Load "
		     "the driver of your adapter (e.g. modprobe mlx5_ib), or "
		     "for SoftRoCE: modprobe rdma_rxe && rdma link add rxe0 "
		     "type rxe netdev eth0.", o->sysfs);
		return;
	}
	nuverbs = count_uverbs(o, &nusable);
	if (ndev == 0 && o->device)
		diag(r, "no device named %s (nor in %s). Run verbshim-info "
		     "without -d to list the devices.", o->device, o->sysfs);
	else if (ndev == 0)
		diag(r, "%s is empty: the RDMA core is loaded but no device "
		     "driver is bound. Load your adapter's RDMA driver (e.g. "
		     "modprobe mlx5_ib), or add a SoftRoCE device: rdma link "
		     "add rxe0 type rxe netdev eth0.", o->sysfs);
	else if (!nuverbs)
		diag(r, "no %s/uverbs*: the kernel has RDMA device %s but "
		     "ib_uverbs is not loaded, so user space cannot reach it. "
		     "Run modprobe ib_uverbs.", o->devdir, devs[0]->d_name);
	else if (!nusable)
		diag(r, "%s/uverbs* exist but this user may not open them: run "
		     "as root, or grant access (udev rule, group rdma).",
		     o->devdir);
	else if (!(prov = calloc((size_t)ndev, sizeof(*prov))))
		diag(r, "out of memory");
	if (!prov)
		goto out;
	for (i = 0; i < ndev; i++)
		find_provider(o, devs[i]->d_name, &prov[i]);
	for (i = 0; i < ndev && prov[i].found > 0; i++)
		;
	if (i < ndev) {
		diag(r, "no provider for driver %s (device %s): no \"driver %s\" "
		     "line in %s%s. Install the rdma-core providers "
		     "(Debian/Ubuntu: ibverbs-providers, RHEL/Fedora: "
		     "libibverbs).", prov[i].driver, devs[i]->d_name,
		     prov[i].want, o->confdir,
		     prov[i].found < 0 ? " (no such directory)" : "");
		goto out;
	}
	for (i = 0; i < ndev; i++)
		if (provider_abi_problem(r, devs[i]->d_name, &prov[i]))
			goto out;
	diag(r, "the kernel has device %s and its provider is installed, yet "
	     "libibverbs lists no device: rerun with IBV_SHOW_WARNINGS=1 to "
	     "see why libibverbs rejected it.", devs[0]->d_name);
out:
	free(prov);
	for (i = 0; i < ndev; i++)
		free(devs[i]);
	free(devs);
}

static bool port_has_roce_v2(const struct port_row *p)
{
	for (size_t i = 0; i < p->ngids; i++)
		if (p->gids[i].type == IBV_GID_TYPE_ROCE_V2)
			return true;
	return false;
}

/* Devices listed: usable when a port is ACTIVE; RoCE also wants a v2 GID. */
static void diagnose_ports(struct report *r)
{
	const struct dev_row *down_dev = NULL, *nogid_dev = NULL;
	const struct port_row *down = NULL, *nogid = NULL;
	bool roce_ok = false, err_seen = false;

	diag(r, "ibv_query_port failed on every port of %s.", r->devs[0].name);
	for (size_t i = 0; i < r->ndevs; i++) {
		const struct dev_row *d = &r->devs[i];

		if (d->err && !err_seen) {
			diag(r, "%s failed on %s: %s. Check the permissions of "
			     "/dev/infiniband/uverbs* and the kernel log.",
			     d->err_what, d->name, strerror(d->err));
			err_seen = true;
		}
		for (unsigned int p = 0; p < d->nports; p++) {
			const struct port_row *pr = &d->ports[p];

			if (pr->err)
				continue;
			if (pr->attr.state != IBV_PORT_ACTIVE) {
				if (!down)
					down = pr, down_dev = d;
				continue;
			}
			r->usable = true;
			if (pr->attr.link_layer != IBV_LINK_LAYER_ETHERNET ||
			    port_has_roce_v2(pr))
				roce_ok = true;
			else if (!nogid)
				nogid = pr, nogid_dev = d;
		}
	}
	if (!r->usable && down)
		diag(r, "port down: %s port %u is %s. For InfiniBand check the "
		     "cable and that a subnet manager runs (opensm); for RoCE "
		     "or SoftRoCE bring the netdev up (ip link set %s up).",
		     down_dev->name, down->num, port_state_name(down->attr.state),
		     down->ngids && down->gids[0].netdev[0] ?
		     down->gids[0].netdev : "NETDEV");
	else if (r->usable && !roce_ok && nogid)
		diag(r, "no RoCE v2 GID on %s port %u (Ethernet): give its "
		     "netdev an IP address (ip addr add ADDR dev NETDEV); RoCE "
		     "v2 GIDs come from the netdev's addresses.",
		     nogid_dev->name, nogid->num);
	else if (r->usable)
		r->diagnosis[0] = '\0';
}

static void diagnose(struct report *r, const struct options *o)
{
	const struct vs_library_info *lib = &r->libs[VS_LIB_IBVERBS];

	bool nokernel = access(o->sysfs, F_OK) != 0;

	if (!lib->loaded)
		diag(r, "libibverbs did not load (%s). Install libibverbs1 "
		     "(Debian/Ubuntu) or libibverbs (RHEL/Fedora), or fix "
		     "VERBSHIM_LIBIBVERBS.%s%s%s", lib->error ? lib->error : "?",
		     nokernel ? " The kernel has no RDMA device either (no " : "",
		     nokernel ? o->sysfs : "", nokernel ? ")." : "");
	else if (r->ndevs == 0)
		diagnose_no_device(r, o);
	else
		diagnose_ports(r);
}

/* ---- text output ------------------------------------------------------ */

static void print_libraries_text(const struct report *r)
{
	printf("Libraries (dlopened by verbshim at first use):\n");
	for (int i = 0; i < VS_LIB_COUNT; i++) {
		const struct vs_library_info *l = &r->libs[i];

		printf("  %-11s %s\n", l->name,
		       l->loaded ? l->path : "not loaded");
		if (!l->loaded) {
			printf("%14s%-15s%s\n", "", "error:",
			       l->error ? l->error : strerror(l->load_errno));
			continue;
		}
		printf("%14s%-15s%s", "", "version node:",
		       l->highest_node[0] ? l->highest_node : "none (unversioned)");
		if (l->min_release > 0)
			printf(" (rdma-core >= v%d)", l->min_release);
		putchar('\n');
		if (i == VS_LIB_IBVERBS && l->provider_abi >= 0)
			printf("%14s%-15s%d (IBVERBS_PRIVATE_%d)\n", "",
			       "provider ABI:", l->provider_abi, l->provider_abi);
		printf("%14s%-15s%u of %u resolved\n", "", "symbols:",
		       l->symbols_resolved, l->symbols_known);
	}
}

static void print_port_text(const struct port_row *p)
{
	const struct ibv_port_attr *a = &p->attr;
	const char *sname;
	double lane = lane_gbps(a->active_speed, &sname);
	int lanes = width_lanes(a->active_width);
	char gid[INET6_ADDRSTRLEN];

	printf("\tport: %u\n", p->num);
	if (p->err) {
		printf("\t\tibv_query_port failed: %s\n", strerror(p->err));
		return;
	}
	printf("\t\t%-13s%s (%d)\n", "state:", port_state_name(a->state),
	       a->state);
	printf("\t\t%-13s%d (%d)\n", "active_mtu:", mtu_bytes(a->active_mtu),
	       a->active_mtu);
	printf("\t\t%-13s%g Gb/s (%dx %s)\n", "speed:", lane * lanes, lanes,
	       sname);
	printf("\t\t%-13s%s\n", "link_layer:", link_layer_name(a->link_layer));
	printf("\t\t%-13s%zu valid of %d\n", "GIDs:", p->ngids, a->gid_tbl_len);
	for (size_t i = 0; i < p->ngids; i++) {
		const struct gid_row *g = &p->gids[i];

		gid_str(&g->gid, gid, sizeof(gid));
		printf("\t\tGID[%4u]:   %-40s %-8s %s\n", g->index, gid,
		       gid_type_name(g->type), g->netdev[0] ? g->netdev : "-");
	}
	if (p->gid_err)
		printf("\t\tGID scan stopped: %s\n", strerror(p->gid_err));
}

static void print_text(const struct report *r)
{
	char guid[24];

	/* The version nodes that the rdma-core headers libverbshim.a was
	 * compiled against declared: functions of the others are not in it. */
	printf("Build (version nodes in libverbshim.a):\n");
	printf("  %-12s%s\n", "compiled in", r->build.nodes_in);
	printf("  %-12s%s\n", "left out",
	       r->build.nodes_out[0] ? r->build.nodes_out : "none");
	putchar('\n');
	print_libraries_text(r);
	if (!r->libs[VS_LIB_IBVERBS].loaded)
		printf("\nDevices: not listed (libibverbs did not load)\n");
	else if (r->list_err)
		printf("\nDevices: none (ibv_get_device_list: %s)\n",
		       strerror(r->list_err));
	else
		printf("\nDevices: %zu\n", r->ndevs);
	for (size_t i = 0; i < r->ndevs; i++) {
		const struct dev_row *d = &r->devs[i];

		guid_str(d->guid, guid, sizeof(guid));
		printf("\nhca_id: %s\n\t%-13s%s\n", d->name, "node_guid:", guid);
		if (d->err)
			printf("\t%s failed: %s\n", d->err_what,
			       strerror(d->err));
		for (unsigned int p = 0; p < d->nports; p++)
			print_port_text(&d->ports[p]);
	}
	if (r->diagnosis[0])
		printf("\nDiagnosis: %s\n", r->diagnosis);
}

/* ---- JSON output -------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @s (never past its NUL), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		   s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string, or null.  Paths and loader errors are arbitrary bytes:
 * control characters are escaped and invalid UTF-8 becomes U+FFFD, so the
 * output always parses. */
static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p++);
		else if (*p == '\n' || *p == '\t')
			fputs(*p++ == '\n' ? "\\n" : "\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p++);
		else if (*p < 0x80)
			fputc(*p++, f);
		else if ((n = utf8_len(p)))
			p += fwrite(p, 1, n, f);
		else
			fputs("\\ufffd", f), p++;
	}
	fputc('"', f);
}

/* "key": N, or null when the value is unknown (negative). */
static void json_int(FILE *f, const char *key, long v)
{
	if (v < 0)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %ld", key, v);
}

static void print_libraries_json(FILE *f, const struct report *r)
{
	fputs("  \"libraries\": [", f);
	for (int i = 0; i < VS_LIB_COUNT; i++) {
		const struct vs_library_info *l = &r->libs[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, l->name);
		fprintf(f, ", \"loaded\": %s, \"path\": ",
			l->loaded ? "true" : "false");
		json_str(f, l->path);
		fputs(", \"error\": ", f);
		json_str(f, l->loaded ? NULL : l->error);
		fputs(",\n     \"highest_node\": ", f);
		json_str(f, l->loaded ? l->highest_node : NULL);
		json_int(f, "min_release", l->min_release > 0 ? l->min_release : -1);
		json_int(f, "provider_abi", l->provider_abi);
		fprintf(f, ",\n     \"symbols_resolved\": %u, \"symbols_known\": %u}",
			l->symbols_resolved, l->symbols_known);
	}
	fputs("\n  ],\n", f);
}

static void print_port_json(FILE *f, const struct port_row *p)
{
	const struct ibv_port_attr *a = &p->attr;
	const char *sname;
	int lanes = width_lanes(a->active_width);
	char gid[INET6_ADDRSTRLEN];

	fprintf(f, "\n        {\"port\": %u, ", p->num);
	if (p->err) {
		fputs("\"error\": ", f);
		json_str(f, strerror(p->err));
		fputs(", \"gids\": []}", f);
		return;
	}
	fprintf(f, "\"state\": \"%s\", \"mtu\": %d, \"speed_gbps\": %g, "
		"\"width\": \"%dx\", \"link_layer\": \"%s\",\n         \"gids\": [",
		port_state_name(a->state), mtu_bytes(a->active_mtu),
		lane_gbps(a->active_speed, &sname) * lanes, lanes,
		link_layer_name(a->link_layer));
	for (size_t i = 0; i < p->ngids; i++) {
		const struct gid_row *g = &p->gids[i];

		gid_str(&g->gid, gid, sizeof(gid));
		fprintf(f, "%s\n           {\"index\": %u, \"gid\": ",
			i ? "," : "", g->index);
		json_str(f, gid);
		fprintf(f, ", \"type\": \"%s\", \"netdev\": ",
			gid_type_name(g->type));
		json_str(f, g->netdev[0] ? g->netdev : NULL);
		fputc('}', f);
	}
	fputs(p->ngids ? "\n         ]}" : "]}", f);
}

static void print_json(FILE *f, const struct report *r)
{
	char guid[24];

	fputs("{\n  \"build\": {\"nodes_in\": ", f);
	json_str(f, r->build.nodes_in);
	fputs(", \"nodes_out\": ", f);
	json_str(f, r->build.nodes_out);
	fputs("},\n", f);
	print_libraries_json(f, r);
	fputs("  \"devices\": [", f);
	for (size_t i = 0; i < r->ndevs; i++) {
		const struct dev_row *d = &r->devs[i];

		guid_str(d->guid, guid, sizeof(guid));
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, d->name);
		fputs(", \"guid\": ", f);
		json_str(f, guid);
		if (d->err) {
			fputs(", \"error\": ", f);
			json_str(f, strerror(d->err));
		}
		fputs(",\n     \"ports\": [", f);
		for (unsigned int p = 0; p < d->nports; p++) {
			if (p)
				fputc(',', f);
			print_port_json(f, &d->ports[p]);
		}
		fputs(d->nports ? "\n     ]}" : "]}", f);
	}
	fputs(r->ndevs ? "\n  ],\n  \"diagnosis\": " : "],\n  \"diagnosis\": ", f);
	json_str(f, r->diagnosis[0] ? r->diagnosis : NULL);
	fputs("\n}\n", f);
}

/* ---- main ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: verbshim-info [-d DEV] [--json]\n"
	      "\n"
	      "What verbshim loaded (the rdma-core libraries, their version node\n"
	      "and provider ABI), the RDMA devices with their ports and GID\n"
	      "tables, and when no device is usable, why.\n"
	      "\n"
	      "  -d, --device DEV  only this device\n"
	      "  -j, --json        one JSON object instead of text\n"
	      "  -h, --help        this help\n"
	      "\n"
	      "Exit status: 0 a device with an active port was found, 2 none\n"
	      "(the diagnosis says why), 1 usage error.\n", f);
}

/* 0 run, 1 usage error, -1 help printed. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = secure_getenv("VERBSHIM_INFO_ROOT");
	int c;

	while ((c = getopt_long(argc, argv, "d:jh", longopts, NULL)) != -1) {
		if (c == 'd') {
			o->device = optarg;
		} else if (c == 'j') {
			o->json = true;
		} else if (c == 'h') {
			usage(stdout);
			return -1;
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "verbshim-info: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 1;
	}
	root = root ? root : "";
	fmt(o->sysfs, sizeof(o->sysfs), "%s%s", root, SYSFS_IB);
	fmt(o->devdir, sizeof(o->devdir), "%s%s", root, DEV_IB);
	fmt(o->confdir, sizeof(o->confdir), "%s%s", root, CONFIG_DIR);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct report r = { 0 };
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_SUCCESS : EXIT_USAGE;
	vs_build_query(&r.build);
	/* Loads each library now: its state is what the report shows. */
	for (int i = 0; i < VS_LIB_COUNT; i++)
		vs_library_query((enum vs_library)i, &r.libs[i]);
	ret = r.libs[VS_LIB_IBVERBS].loaded ? gather_devices(&r, &o) : 0;
	if (ret) {
		fprintf(stderr, "verbshim-info: %s\n", strerror(ret));
		report_free(&r);
		return EXIT_NODEV;
	}
	diagnose(&r, &o);
	if (o.json)
		print_json(stdout, &r);
	else
		print_text(&r);
	report_free(&r);
	if (fflush(stdout)) {
		perror("verbshim-info: stdout");
		return EXIT_NODEV;
	}
	return r.usable ? EXIT_USABLE : EXIT_NODEV;
}
