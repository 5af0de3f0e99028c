// SPDX-License-Identifier: MIT
/*
 * The text output, laid out like ibv_devinfo.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "info.h"

static void print_libraries_text(const struct report *r)
{
	printf("Libraries (dlopened by verbshim at first use):\n");
	for (int i = 0; i < VS_LIB_COUNT; i++) {
		const struct vs_library_info *l = &r->libs[i];

		/* absent (not installed: no libefa before 24) is not broken */
		printf("  %-11s %s\n", l->name,
		       l->loaded ? l->path :
		       l->load_errno == ENOENT ? "not loaded: absent (not installed)" :
		       "not loaded: broken (there, but it failed to load)");
		printf("%14s%-15s%s\n", "", "compiled in:",
		       r->nodes_in[i][0] ? r->nodes_in[i] : "none");
		if (!l->loaded) {
			printf("%14s%-15s%s\n", "", "error:",
			       l->error ? l->error : strerror(l->load_errno));
			continue;
		}
		printf("%14s%-15s%s", "", "version node:",
		       l->highest_node[0] ? l->highest_node : "none (unversioned)");
		if (l->min_release > 0)
			printf(" (rdma-core %d or later)", l->min_release);
		putchar('\n');
		printf("%14s%-15s%s\n", "", "nodes here:",
		       r->nodes_here[i][0] ? r->nodes_here[i] : "none");
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
	unsigned int lanes = vs_width_lanes(a->active_width);
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
	printf("\t\t%-13s%g Gb/s (%ux %s)\n", "speed:", port_gbps(a), lanes,
	       vs_speed_name(a->active_speed));
	printf("\t\t%-13s%s\n", "link_layer:", link_layer_name(a->link_layer));
	printf("\t\t%-13s%s\n", "kind:", vs_link_kind_name(p->kind));
	if (p->kind == VS_LINK_IB) /* addressed by LID */
		printf("\t\t%-13s%u (SM lid %u)\n", "lid:", a->lid, a->sm_lid);
	printf("\t\t%-13s%zu valid of %d\n", "GIDs:", p->ngids, a->gid_tbl_len);
	for (size_t i = 0; i < p->ngids; i++) {
		const struct gid_row *g = &p->gids[i];

		gid_str(&g->gid, gid, sizeof(gid));
		printf("\t\tGID[%4u]:   %-40s %-8s %s\n", g->index, gid,
		       vs_gid_type_name(g->type), g->netdev[0] ? g->netdev : "-");
	}
	if (p->gid_err)
		printf("\t\tGID scan stopped: %s\n", strerror(p->gid_err));
}

static void print_efa_text(const struct vs_efa_caps *c)
{
	printf("\t%-13s%s%s%s%s%s\n", "EFA (SRD):", "send/recv",
	       c->flags & VS_EFA_CAP_RDMA_READ ? ", RDMA read" : "",
	       c->flags & VS_EFA_CAP_RDMA_WRITE ? ", RDMA write" : "",
	       c->flags & VS_EFA_CAP_RNR_RETRY ? ", RNR retry" : "",
	       c->flags & VS_EFA_CAP_UNSOLICITED_WRITE_RECV ?
	       ", unsolicited write recv" : "");
	printf("\t\t%-13s%u WRs x %u SGEs\n", "send queue:", c->max_sq_wr,
	       c->max_sq_sge);
	printf("\t\t%-13s%u WRs x %u SGEs\n", "recv queue:", c->max_rq_wr,
	       c->max_rq_sge);
	printf("\t\t%-13s%u bytes\n", "inline:", c->inline_buf_size);
	printf("\t\t%-13s%u bytes\n", "max RDMA:", c->max_rdma_size);
	printf("\t\t%-13s0x%x\n", "device_caps:", c->device_caps);
}

void print_text(const struct report *r)
{
	char guid[24];

	/* The version nodes that the rdma-core headers libverbshim.a was
	 * compiled against declared: functions of the others are not in it. */
	printf("Build (version nodes in libverbshim.a):\n");
	printf("  %-12s%s\n", "compiled in", r->build.nodes_in);
	printf("  %-12s%s\n", "left out",
	       r->build.nodes_out[0] ? r->build.nodes_out : "none");
	putchar('\n');
	/* verbshim's own debugging knobs (docs/trace.md): a program that
	 * seems to run untraced shows here whether it sees them */
	printf("Call trace, counters, faults (docs/trace.md):\n");
	for (size_t k = 0; k < 4; k++)
		printf("  %-20s%s\n", knob_names[k],
		       r->knobs[k] ? r->knobs[k] : "unset");
	putchar('\n');
	print_libraries_text(r);
	/* What the typed API's newer calls need, and whether it is here. */
	printf("\nFeatures (the version node each needs):\n");
	for (int i = 0; i < VS_FEATURE_COUNT; i++) {
		const struct vs_feature_info *fi = &r->features[i];

		printf("  %-38s %-3s %s, %s (rdma-core %d)%s\n", fi->name,
		       fi->available ? "yes" : "no", fi->verb, fi->node,
		       fi->release, fi->compiled_in ? "" : ", not compiled in");
	}
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
		if (d->efa)
			print_efa_text(&d->efa_caps);
		for (unsigned int p = 0; p < d->nports; p++)
			print_port_text(&d->ports[p]);
	}
	if (r->diagnosis[0])
		printf("\nDiagnosis: %s\n", r->diagnosis);
}
