/* SPDX-License-Identifier: MIT */
/*
 * The transport table (rows in lib/transport/transport.h), its names, and
 * the create hooks of RC, UC and UD (SRD's: lib/transport/qp_srd.c): each
 * typed config flattened into struct vs__qp_params.
 */
#include "transport.h"

#define ROW(T, name_, qpt_, create_, ops_, acc_, accdef_, cfg_, rules_, dg_, \
	    rel_, by_gid_, flatten_, create_qp_)                              \
	[VS_TRANSPORT_##T] = {                                                \
		.t = VS_TRANSPORT_##T, .kind = VS_KIND_##T##_QP,              \
		.name = name_, .create = create_, .qpt = qpt_, .ops = ops_,   \
		.access = acc_, .access_default = accdef_, .cfg = cfg_,       \
		.rules = rules_, .datagram = dg_, .reliable = rel_,           \
		.by_gid = by_gid_, .flatten = flatten_,                       \
		.create_qp = create_qp_,                                      \
	},
static const struct vs__transport rows[] = { VS__TRANSPORTS(ROW) };
#undef ROW

const struct vs__transport *vs__transport(enum vs_transport t)
{
	if ((unsigned int)t >= sizeof(rows) / sizeof(rows[0]) || !rows[t].name)
		return NULL;
	return &rows[t];
}

/* the row's name: the one place a transport is named */
const char *vs_transport_name(enum vs_transport t)
{
	const struct vs__transport *tr = vs__transport(t);

	return tr ? tr->name : "unknown transport";
}

void vs__flatten_rc(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_rc_config *c = cfg;

	VS__COPY_COMMON(p, c);
	p->legacy = c->legacy;
	p->mtu = c->mtu;
	p->access = c->access;
	p->timeout = c->timeout;
	p->retry_cnt = c->retry_cnt;
	p->rnr_retry = c->rnr_retry;
	p->min_rnr_timer = c->min_rnr_timer;
	p->max_rd_atomic = c->max_rd_atomic;
	p->max_dest_rd_atomic = c->max_dest_rd_atomic;
}

void vs__flatten_uc(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_uc_config *c = cfg;

	VS__COPY_COMMON(p, c);
	p->legacy = c->legacy;
	p->mtu = c->mtu;
	p->access = c->access;
}

void vs__flatten_ud(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_ud_config *c = cfg;

	VS__COPY_COMMON(p, c);
	p->legacy = c->legacy;
	p->qkey = c->qkey;
}
