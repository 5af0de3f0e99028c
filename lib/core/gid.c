/* SPDX-License-Identifier: MIT */
/*
 * The GID table with type, netdev and IP, and the auto-pick of a routable
 * RoCE GID.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core.h"

const char *vs_gid_type_name(enum vs_gid_type type)
{
	switch (type) {
	case VS_GID_IB:
		return "IB";
	case VS_GID_ROCE_V1:
		return "RoCE v1";
	case VS_GID_ROCE_V2:
		return "RoCE v2";
	}
	return "unknown";
}

static bool gid_is_v4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static bool gid_is_zero(const union ibv_gid *g)
{
	static const union ibv_gid zero;

	return !memcmp(g, &zero, sizeof(zero));
}

char *vs_gid_to_str(const union ibv_gid *gid, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!buf || !len)
		return buf;
	if (!gid || !inet_ntop(AF_INET6, gid->raw, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	snprintf(buf, len, "%s", tmp);
	return buf;
}

/*
 * The netdev questions of one table read (a name by index, up or not)
 * go through one socket, opened at the first question, and the last
 * netdev's answers are kept: a table read is part of every typed QP's
 * create, its GIDs mostly share one netdev, and if_indextoname plus a
 * socket per flags query cost six system calls per GID.
 */
struct netdev_query {
	int fd; /* -1 until asked; -2: no socket to be had */
	unsigned int ifindex; /* of name, when name[0] */
	char name[IF_NAMESIZE];
	int up; /* of name: -1 not asked yet */
};

static bool netdev_socket(struct netdev_query *q)
{
	if (q->fd == -1)
		q->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		q->fd = -2;
	return q->fd >= 0;
}

/* name: IF_NAMESIZE bytes; "" when unknown */
static void netdev_name(struct netdev_query *q, unsigned int ifindex, char *name)
{
	struct ifreq ifr = { .ifr_ifindex = (int)ifindex };

	name[0] = 0;
	if (q->name[0] && q->ifindex == ifindex) {
		memcpy(name, q->name, IF_NAMESIZE);
		return;
	}
	if (!netdev_socket(q) || ioctl(q->fd, SIOCGIFNAME, &ifr))
		return;
	memcpy(name, ifr.ifr_name, IF_NAMESIZE);
	name[IF_NAMESIZE - 1] = 0;
	memcpy(q->name, name, IF_NAMESIZE);
	q->ifindex = ifindex;
	q->up = -1;
}

static bool netdev_is_up(struct netdev_query *q, const char *name)
{
	struct ifreq ifr;

	bool up;

	if (q->up >= 0 && !strcmp(name, q->name))
		return q->up;
	if (!name[0] || strlen(name) >= sizeof(ifr.ifr_name) || !netdev_socket(q))
		return false;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strlen(name) + 1);
	up = !ioctl(q->fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP);
	if (!strcmp(name, q->name))
		q->up = up;
	return up;
}

static void netdev_done(struct netdev_query *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

static void fill_info(struct vs_gid_info *out, const union ibv_gid *gid,
		      uint32_t index, uint8_t port, enum vs_gid_type type,
		      const char *netdev, struct netdev_query *q)
{
	memset(out, 0, sizeof(*out));
	out->gid = *gid;
	out->index = index;
	out->port = port;
	out->type = type;
	snprintf(out->netdev, sizeof(out->netdev), "%s", netdev ? netdev : "");
	out->netdev_up = netdev_is_up(q, out->netdev);
	out->ipv4_mapped = gid_is_v4_mapped(gid);
	out->link_local = gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80;
	if (out->ipv4_mapped)
		inet_ntop(AF_INET, gid->raw + 12, out->ip, sizeof(out->ip));
	else
		inet_ntop(AF_INET6, gid->raw, out->ip, sizeof(out->ip));
}

static int read_sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct vs_gid_info *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* Old kernels and libraries: ibv_query_gid plus sysfs for type and netdev. */
static int table_from_sysfs(struct vs_context *c, uint8_t port, int tbl_len,
			    uint8_t link_layer, struct vs_gid_info *tmp,
			    size_t *n, struct netdev_query *q)
{
	int limit = tbl_len < 256 ? tbl_len : 256;

	*n = 0;
	for (int i = 0; i < limit; i++) {
		char path[256], type_s[32] = "", ndev[64] = "";
		enum vs_gid_type type = VS_GID_IB;
		union ibv_gid gid;

		if (ibv_query_gid(c->ctx, port, i, &gid) || gid_is_zero(&gid))
			continue;
		if (link_layer == IBV_LINK_LAYER_ETHERNET) {
			snprintf(path, sizeof(path),
				 "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d",
				 c->name, port, i);
			read_sysfs_line(path, type_s, sizeof(type_s));
			type = strstr(type_s, "v2") ? VS_GID_ROCE_V2 : VS_GID_ROCE_V1;
			snprintf(path, sizeof(path),
				 "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d",
				 c->name, port, i);
			read_sysfs_line(path, ndev, sizeof(ndev));
		}
		fill_info(&tmp[(*n)++], &gid, (uint32_t)i, port, type, ndev, q);
	}
	return 0;
}

/* GID table entries asked for first (collect) */
#define GID_TABLE_FIRST_ASK 32

static int collect(struct vs_context *c, uint8_t port, struct vs_gid_info **res,
		   size_t *count, uint8_t *link_layer, const char *verb)
{
	struct vs_port_info pi;
	struct netdev_query q = { .fd = -1, .up = -1 };
	struct ibv_gid_entry *ents;
	struct vs_gid_info *tmp;
	size_t total = 0, n = 0;
	ssize_t got;
	int ret;

	/* link layer and table size never change while c is open */
	if (!vs__port_fixed(c, port, &pi)) {
		ret = vs__port_info(c, port, &pi, verb);
		if (ret)
			return ret;
	}
	*link_layer = pi.link_layer;
	for (uint8_t p = 1; p <= c->attr.orig_attr.phys_port_cnt; p++) {
		struct ibv_port_attr pa;

		if (p == port) /* read just now */
			total += (size_t)(pi.gid_tbl_len > 0 ? pi.gid_tbl_len : 0);
		else if (!ibv_query_port(c->ctx, p, &pa))
			total += (size_t)pa.gid_tbl_len;
	}
	if (!total)
		total = 1;
	/*
	 * A table has many slots (rxe: 1024) and few in use, and both the
	 * kernel (it zeroes max_entries of them) and a zeroed buffer here
	 * cost per slot: ask for a few first, for all only when the kernel
	 * says there are more in use (EINVAL) or the short ask fails at all.
	 */
	ents = malloc(total * sizeof(*ents));
	if (!ents)
		return vs__set_error(verb, ENOMEM, "out of memory");
	got = -EINVAL;
	if (total > GID_TABLE_FIRST_ASK)
		got = ibv_query_gid_table(c->ctx, ents, GID_TABLE_FIRST_ASK, 0);
	if (got < 0)
		got = ibv_query_gid_table(c->ctx, ents, total, 0);
	/*
	 * every entry returned (room for one when none, for calloc), or the
	 * sysfs walk's at most 256
	 */
	tmp = calloc(got > 0 ? (size_t)got : got == 0 ? 1 : 256, sizeof(*tmp));
	if (!tmp) {
		free(ents);
		return vs__set_error(verb, ENOMEM, "out of memory");
	}
	if (got >= 0) {
		for (ssize_t i = 0; i < got; i++) {
			char ndev[IF_NAMESIZE] = "";
			enum vs_gid_type type;

			if (ents[i].port_num != port || gid_is_zero(&ents[i].gid) ||
			    ents[i].gid_index >= (uint32_t)pi.gid_tbl_len)
				continue;
			if (ents[i].ndev_ifindex)
				netdev_name(&q, ents[i].ndev_ifindex, ndev);
			type = vs_gid_type_of((enum ibv_gid_type)ents[i].gid_type);
			fill_info(&tmp[n++], &ents[i].gid, ents[i].gid_index, port,
				  type, ndev, &q);
		}
		qsort(tmp, n, sizeof(*tmp), cmp_index);
	} else {
		table_from_sysfs(c, port, pi.gid_tbl_len, pi.link_layer, tmp, &n, &q);
	}
	netdev_done(&q);
	free(ents);
	*res = tmp;
	*count = n;
	return 0;
}

int vs_gid_table(struct vs_context *c, uint8_t port, struct vs_gid_info *out,
		 size_t cap, size_t *count)
{
	struct vs_gid_info *tmp;
	uint8_t ll;
	size_t n;
	int ret = vs__check_handle(c, VS_KIND_CONTEXT, "vs_gid_table", "ctx");

	if (ret)
		return ret;
	if (!count || (cap && !out))
		return vs__set_error("vs_gid_table", EINVAL,
				     "%s is NULL", count ? "out" : "count");
	ret = collect(c, port, &tmp, &n, &ll, "vs_gid_table");
	if (ret)
		return ret;
	if (n && cap) /* out may be NULL with cap 0 */
		memcpy(out, tmp, (n < cap ? n : cap) * sizeof(*tmp));
	*count = n;
	free(tmp);
	return 0;
}

static int pick_rank(const struct vs_gid_info *g)
{
	if (g->type != VS_GID_ROCE_V2 || !g->netdev_up)
		return 0;
	if (g->ipv4_mapped)
		return 3;
	/* global IPv6: not link-local, not the deprecated site-local fec0::/10 */
	if (!g->link_local && !(g->gid.raw[0] == 0xfe && (g->gid.raw[1] & 0xc0) == 0xc0))
		return 2;
	return 0;
}

int vs__gid_pick(struct vs_context *c, uint8_t port, struct vs_gid_info *out,
		 const char *call)
{
	struct vs_gid_info *tmp;
	const struct vs_gid_info *best = NULL;
	char seen[256] = "";
	size_t n, used = 0;
	uint8_t ll;
	int ret = vs__check_handle(c, VS_KIND_CONTEXT, call, "ctx");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null(call);
	ret = collect(c, port, &tmp, &n, &ll, call);
	if (ret)
		return ret;
	if (ll != IBV_LINK_LAYER_ETHERNET) {
		/* IB: the port GID at index 0 is always the right source. */
		for (size_t i = 0; i < n && !best; i++)
			if (tmp[i].index == 0)
				best = &tmp[i];
		if (!best && n)
			best = &tmp[0];
	} else {
		int rank = 0;

		for (size_t i = 0; i < n; i++) {
			int r = pick_rank(&tmp[i]);

			if (r > rank) {
				rank = r;
				best = &tmp[i];
			}
		}
	}
	if (!best) {
		/* what the table has, for the message */
		for (size_t i = 0; i < n && used < sizeof(seen); i++)
			used += (size_t)snprintf(seen + used, sizeof(seen) - used,
						 "%s[%u] %s %s %s%s", i ? "; " : "",
						 tmp[i].index, tmp[i].ip,
						 vs_gid_type_name(tmp[i].type),
						 tmp[i].netdev[0] ? tmp[i].netdev : "no netdev",
						 tmp[i].netdev_up ? "" : " (down)");
		ret = vs__set_error(call, ENOENT,
				    "no routable GID on %s port %u: RoCE needs a "
				    "RoCE v2 GID with an IPv4-mapped or global IPv6 "
				    "address on an up netdev; the table has: %s",
				    c->name, port, n ? seen : "no valid GID");
		free(tmp);
		return ret;
	}
	*out = *best;
	free(tmp);
	return 0;
}

int vs_gid_pick(struct vs_context *c, uint8_t port, struct vs_gid_info *out)
{
	return vs__gid_pick(c, port, out, "vs_gid_pick");
}
