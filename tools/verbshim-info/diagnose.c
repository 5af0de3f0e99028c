// SPDX-License-Identifier: MIT
/*
 * Diagnosis: why there is no usable device.  The checks run in the order
 * a person would fix things (library, kernel, uverbs, provider, provider
 * ABI, port state, RoCE v2 GID); the first that applies is reported.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info.h"

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
		if (p->gids[i].type == VS_GID_ROCE_V2)
			return true;
	return false;
}

/* Devices listed: usable when a port is ACTIVE; RoCE also wants a v2 GID. */
static void diagnose_ports(struct report *r)
{
	const struct dev_row *down_dev = NULL, *nogid_dev = NULL, *iw_dev = NULL;
	const struct port_row *down = NULL, *nogid = NULL, *iw = NULL;
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
			/* iWARP has no RoCE GIDs to want: it connects by the CM */
			if (pr->kind == VS_LINK_IWARP) {
				if (!iw)
					iw = pr, iw_dev = d;
				roce_ok = true;
			} else if (pr->attr.link_layer != IBV_LINK_LAYER_ETHERNET ||
			    port_has_roce_v2(pr))
				roce_ok = true;
			else if (!nogid)
				nogid = pr, nogid_dev = d;
		}
	}
	if (!r->usable && down && down->kind == VS_LINK_IB)
		diag(r, "port down: %s port %u (InfiniBand) is %s%s. Check the "
		     "cable and that a subnet manager runs on the fabric "
		     "(opensm): a port no subnet manager configured stays INIT "
		     "without a LID.", down_dev->name, down->num,
		     port_state_name(down->attr.state),
		     down->attr.lid ? "" : ", no LID");
	else if (!r->usable && down)
		diag(r, "port down: %s port %u%s is %s. %sring its netdev up "
		     "(ip link set %s up)%s.", down_dev->name, down->num,
		     down->attr.link_layer == IBV_LINK_LAYER_ETHERNET ?
		     " (Ethernet)" : "", port_state_name(down->attr.state),
		     down->attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "B" :
		     "For RoCE, SoftRoCE or iWARP b",
		     down->ngids && down->gids[0].netdev[0] ?
		     down->gids[0].netdev : "NETDEV",
		     down->attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "" :
		     "; for InfiniBand check the cable and that a subnet "
		     "manager runs (opensm)");
	else if (r->usable && !roce_ok && nogid)
		diag(r, "no RoCE v2 GID on %s port %u (Ethernet): give its "
		     "netdev an IP address (ip addr add ADDR dev NETDEV); RoCE "
		     "v2 GIDs come from the netdev's addresses.",
		     nogid_dev->name, nogid->num);
	else if (r->usable && iw)
		diag(r, "%s port %u is iWARP: its QPs connect only through the "
		     "connection manager (vs_cm_*, rdma_cm) by IP address and "
		     "port, RC only: no UD, and no endpoint bytes or handshake "
		     "(docs/API.md, \"Link layers\").", iw_dev->name, iw->num);
	else if (r->usable)
		r->diagnosis[0] = '\0';
}

void diagnose(struct report *r, const struct options *o)
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
