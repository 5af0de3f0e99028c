// SPDX-License-Identifier: MIT
/*
 * Gathering: the build's version nodes, the three libraries (loaded now,
 * so that their state is what the report shows) and, when libibverbs
 * loaded, the devices with their ports and GID tables.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

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
				       .type = vs_gid_type_of(e.gid_type) };
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

/*
 * Through verbshim's typed API: each port's kind, and the EFA caps when
 * the device is an EFA one.
 */
static void gather_typed(struct dev_row *d)
{
	struct vs_context *c;
	struct vs_port_info pi;

	if (d->err || vs_device_open(d->name, &c))
		return;
	for (unsigned int i = 0; i < d->nports; i++)
		if (!d->ports[i].err && !vs_port_info(c, (uint8_t)d->ports[i].num, &pi))
			d->ports[i].kind = pi.kind;
	d->efa_caps.comp_mask = 0;
	d->efa = vs_efa_query_caps(c, &d->efa_caps) == 0;
	(void)vs_device_close(c); /* a failed close changes no fact reported */
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
	for (size_t i = 0; r->devs && i < r->ndevs && !ret; i++)
		gather_typed(&r->devs[i]);
	return r->devs ? ret : ENOMEM;
}

/* The ranges of one library in the build's "IBVERBS_1.0-1.18 RDMACM_1.0-1.5":
 * libibverbs' are those starting "IBVERBS_". */
static void build_nodes_of(const char *all, const char *lib, char *buf,
			   size_t len)
{
	static const char *const prefix[][2] = {
		{ "libibverbs", "IBVERBS_" }, { "librdmacm", "RDMACM_" },
		{ "libefa", "EFA_" }, { "libmlx5", "MLX5_" },
		{ "libmlx4", "MLX4_" }, { "libibumad", "IBUMAD_" },
		{ "libhns", "HNS_" }, { "libmana", "MANA_" },
		{ "libionic", "IONIC_" },
	};
	const char *pre = NULL, *p = all;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; lib && i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strcmp(prefix[i][0], lib))
			pre = prefix[i][1];
	while (pre && *p) {
		size_t n = strcspn(p, " ");

		if (!strncmp(p, pre, strlen(pre)) && used + n + 2 < len) {
			used += (size_t)snprintf(buf + used, len - used, "%s%.*s",
						 used ? " " : "", (int)n, p);
		}
		p += n;
		p += strspn(p, " ");
	}
}

int gather_report(struct report *r, const struct options *o)
{
	vs_build_query(&r->build);
	for (size_t k = 0; k < 4; k++)
		r->knobs[k] = secure_getenv(knob_names[k]);
	/* Loads each library now: its state is what the report shows. */
	for (int i = 0; i < VS_LIB_COUNT; i++) {
		vs_library_query((enum vs_library)i, &r->libs[i]);
		vs_library_nodes((enum vs_library)i, r->nodes_here[i],
				 sizeof(r->nodes_here[i]));
		build_nodes_of(r->build.nodes_in, r->libs[i].name,
			       r->nodes_in[i], sizeof(r->nodes_in[i]));
	}
	for (int i = 0; i < VS_FEATURE_COUNT; i++)
		vs_feature_query((enum vs_feature)i, &r->features[i]);
	return r->libs[VS_LIB_IBVERBS].loaded ? gather_devices(r, o) : 0;
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ndevs; i++) {
		for (unsigned int p = 0; p < r->devs[i].nports; p++)
			free(r->devs[i].ports[p].gids);
		free(r->devs[i].ports);
	}
	free(r->devs);
}
