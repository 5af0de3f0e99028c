/* SPDX-License-Identifier: MIT */
/*
 * show_gids: every device, its ports and their GID tables (type, netdev,
 * IP), and the GID the typed API would pick for a QP on each port.
 *
 *   show_gids [-d device]
 */
#include <errno.h>
#include <getopt.h>

#include "common/ex_common.h"

static const char *state_name(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

static void show(const char *name)
{
	struct vs_context *ctx;
	struct ibv_device_attr_ex attr;
	int ret;

	ex_check(vs_device_open(name, &ctx), "vs_device_open");
	ex_own(ctx);	/* closed on every way out */
	ex_check(vs_device_attr(ctx, &attr), "vs_device_attr");
	printf("%s: fw %s, %u port(s), max_qp %d, max_qp_wr %d, max_sge %d, "
	       "max_cqe %d, atomics %s, %s attributes\n", ctx->name,
	       attr.orig_attr.fw_ver, attr.orig_attr.phys_port_cnt,
	       attr.orig_attr.max_qp, attr.orig_attr.max_qp_wr,
	       attr.orig_attr.max_sge, attr.orig_attr.max_cqe,
	       attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE ? "no" : "yes",
	       ctx->attr_extended ? "extended" : "legacy");
	for (uint8_t port = 1; port <= attr.orig_attr.phys_port_cnt; port++) {
		struct vs_port_info pi;
		struct vs_gid_info gids[64], pick;
		size_t n = 0;

		ex_check(vs_port_info(ctx, port, &pi), "vs_port_info");
		printf("  port %u: %s, %s, mtu %d (max %d), lid %u, %u Mbit/s\n",
		       port, state_name(pi.state),
		       pi.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
		       128 << pi.active_mtu, 128 << pi.max_mtu, pi.lid, pi.rate_mbps);
		ex_check(vs_gid_table(ctx, port, gids, 64, &n), "vs_gid_table");
		printf("    %-5s %-40s %-8s %-10s %s\n", "index", "gid", "type",
		       "netdev", "ip");
		for (size_t i = 0; i < n && i < 64; i++) {
			char g[64];

			printf("    %-5u %-40s %-8s %-10s %s%s\n", gids[i].index,
			       vs_gid_to_str(&gids[i].gid, g, sizeof(g)),
			       vs_gid_type_name(gids[i].type),
			       gids[i].netdev[0] ? gids[i].netdev : "-",
			       gids[i].ip, gids[i].netdev[0] && !gids[i].netdev_up ?
			       " (netdev down)" : "");
		}
		if (n > 64)
			printf("    ... %zu more\n", n - 64);
		ret = vs_gid_pick(ctx, port, &pick);
		if (ret == 0)
			printf("    a QP on this port uses GID index %u (%s, %s)\n",
			       pick.index, pick.ip, vs_gid_type_name(pick.type));
		else if (ret == -ENOENT)	/* none routable: an answer */
			printf("    no usable GID: %s\n", vs_last_error()->message);
		else
			ex_die("vs_gid_pick");
	}
	ex_close(ctx);
}

int main(int argc, char **argv)
{
	struct vs_device_entry devs[16];
	const char *only = NULL;
	size_t n = 0;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd') {
			fprintf(stderr, "usage: %s [-d device]\n", argv[0]);
			return 2;
		}
		only = optarg;
	}
	if (only) {
		show(only);
		return 0;
	}
	ex_check(vs_device_list(devs, 16, &n), "vs_device_list");
	if (!n) {
		printf("no RDMA devices\n");
		return 0;
	}
	for (size_t i = 0; i < n && i < 16; i++)
		show(devs[i].name);
	return 0;
}
