// SPDX-License-Identifier: MIT
/*
 * The JSON output: one object with stable keys (docs/verbshim-info.md).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "info.h"

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
		fprintf(f, ", \"loaded\": %s, \"absent\": %s, \"path\": ",
			l->loaded ? "true" : "false",
			!l->loaded && l->load_errno == ENOENT ? "true" : "false");
		json_str(f, l->path);
		fputs(", \"error\": ", f);
		json_str(f, l->loaded ? NULL : l->error);
		fputs(",\n     \"highest_node\": ", f);
		json_str(f, l->loaded ? l->highest_node : NULL);
		fputs(", \"nodes_compiled_in\": ", f);
		json_str(f, r->nodes_in[i]);
		fputs(", \"nodes_here\": ", f);
		json_str(f, l->loaded ? r->nodes_here[i] : NULL);
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
	char gid[INET6_ADDRSTRLEN];

	fprintf(f, "\n        {\"port\": %u, ", p->num);
	if (p->err) {
		fputs("\"error\": ", f);
		json_str(f, strerror(p->err));
		fputs(", \"gids\": []}", f);
		return;
	}
	fprintf(f, "\"state\": \"%s\", \"mtu\": %d, \"speed_gbps\": %g, "
		"\"width\": \"%ux\", \"link_layer\": \"%s\", \"kind\": \"%s\", ",
		port_state_name(a->state), mtu_bytes(a->active_mtu),
		port_gbps(a), vs_width_lanes(a->active_width),
		link_layer_name(a->link_layer), vs_link_kind_name(p->kind));
	/* LIDs address InfiniBand ports only */
	if (p->kind == VS_LINK_IB)
		fprintf(f, "\"lid\": %u, \"sm_lid\": %u,", a->lid, a->sm_lid);
	else
		fputs("\"lid\": null, \"sm_lid\": null,", f);
	fputs("\n         \"gids\": [", f);
	for (size_t i = 0; i < p->ngids; i++) {
		const struct gid_row *g = &p->gids[i];

		gid_str(&g->gid, gid, sizeof(gid));
		fprintf(f, "%s\n           {\"index\": %u, \"gid\": ",
			i ? "," : "", g->index);
		json_str(f, gid);
		fprintf(f, ", \"type\": \"%s\", \"netdev\": ",
			vs_gid_type_name(g->type));
		json_str(f, g->netdev[0] ? g->netdev : NULL);
		fputc('}', f);
	}
	fputs(p->ngids ? "\n         ]}" : "]}", f);
}

void print_json(FILE *f, const struct report *r)
{
	char guid[24];

	fputs("{\n  \"build\": {\"nodes_in\": ", f);
	json_str(f, r->build.nodes_in);
	fputs(", \"nodes_out\": ", f);
	json_str(f, r->build.nodes_out);
	fputs("},\n  \"knobs\": {", f);
	for (size_t k = 0; k < 4; k++) {
		fprintf(f, "%s\"%s\": ", k ? ", " : "", knob_names[k]);
		if (r->knobs[k])
			json_str(f, r->knobs[k]);
		else
			fputs("null", f);
	}
	fputs("},\n", f);
	print_libraries_json(f, r);
	fputs("  \"features\": [", f);
	for (int i = 0; i < VS_FEATURE_COUNT; i++) {
		const struct vs_feature_info *fi = &r->features[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, fi->name);
		fputs(", \"verb\": ", f);
		json_str(f, fi->verb);
		fputs(", \"node\": ", f);
		json_str(f, fi->node);
		fprintf(f, ", \"release\": %d, \"compiled_in\": %s, \"available\": %s}",
			fi->release, fi->compiled_in ? "true" : "false",
			fi->available ? "true" : "false");
	}
	fputs("\n  ],\n", f);
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
		if (d->efa) {
			const struct vs_efa_caps *c = &d->efa_caps;

			fprintf(f, ",\n     \"efa\": {\"max_sq_wr\": %u, "
				"\"max_rq_wr\": %u, \"max_sq_sge\": %u, "
				"\"max_rq_sge\": %u, \"inline_buf_size\": %u, "
				"\"max_rdma_size\": %u, \"device_caps\": %u, "
				"\"rdma_read\": %s, \"rdma_write\": %s, "
				"\"rnr_retry\": %s}", c->max_sq_wr, c->max_rq_wr,
				c->max_sq_sge, c->max_rq_sge, c->inline_buf_size,
				c->max_rdma_size, c->device_caps,
				c->flags & VS_EFA_CAP_RDMA_READ ? "true" : "false",
				c->flags & VS_EFA_CAP_RDMA_WRITE ? "true" : "false",
				c->flags & VS_EFA_CAP_RNR_RETRY ? "true" : "false");
		} else {
			fputs(", \"efa\": null", f);
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
