/* SPDX-License-Identifier: MIT */
/*
 * The transport table (rows in lib/transports.h) and the create hooks of
 * RC, UC and UD: each typed config flattened into struct vs__qp_params.
 */
#include "vs_internal.h"

#define ROW(T, name_, qpt_, create_, ops_, acc_, accdef_, cfg_, rules_, dg_, \
	    rel_, flatten_)                                                   \
	[VS_TRANSPORT_##T] = {                                                \
		.t = VS_TRANSPORT_##T, .kind = VS_KIND_##T##_QP,              \
		.name = name_, .create = create_, .qpt = qpt_, .ops = ops_,   \
		.access = acc_, .access_default = accdef_, .cfg = cfg_,       \
		.rules = rules_, .datagram = dg_, .reliable = rel_,           \
		.flatten = flatten_,                                          \
	},
static const struct vs__transport rows[] = { VS__TRANSPORTS(ROW) };
#undef ROW

const struct vs__transport *vs__transport(enum vs_transport t)
{
	if ((unsigned int)t >= sizeof(rows) / sizeof(rows[0]) || !rows[t].name)
		return NULL;
	return &rows[t];
}

#define COPY_COMMON(p, c)                                                     \
	do {                                                                  \
		(p)->comp_mask = (c)->comp_mask;                              \
		(p)->send_cq = (c)->send_cq;                                  \
		(p)->recv_cq = (c)->recv_cq;                                  \
		(p)->srq = (c)->srq;                                          \
		(p)->caps = (c)->caps;                                        \
		(p)->port = (c)->port;                                        \
		(p)->gid_index = (c)->gid_index;                              \
		(p)->psn = (c)->psn;                                          \
		(p)->max_batch = (c)->max_batch;                              \
		(p)->legacy = (c)->legacy;                                    \
		(p)->sq_sig_all = (c)->sq_sig_all;                            \
	} while (0)

void vs__flatten_rc(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_rc_config *c = cfg;

	COPY_COMMON(p, c);
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

	COPY_COMMON(p, c);
	p->mtu = c->mtu;
	p->access = c->access;
}

void vs__flatten_ud(const void *cfg, struct vs__qp_params *p)
{
	const struct vs_ud_config *c = cfg;

	COPY_COMMON(p, c);
	p->qkey = c->qkey;
}
