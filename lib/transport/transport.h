/* SPDX-License-Identifier: MIT */
/*
 * The transports of the typed queue pairs: one X-macro row each, the one
 * source of everything lib/ does per transport (docs/ARCHITECTURE.md).
 *
 * Columns of X(T, name, qpt, create, ops, access, access_default, cfg,
 *              rules, datagram, reliable, by_gid, flatten, create_qp):
 *   T        suffix of VS_TRANSPORT_T and VS_KIND_T_QP (include/verbshim/common.h)
 *   name     as messages print it
 *   qpt      the ibv_qp_type created
 *   create   the vs_ call that creates one (named in its errors)
 *   ops      the IBV_QP_EX_WITH_* send operations it may post
 *   access   the IBV_ACCESS_* flags a QP may grant (0: none; a Q_Key instead)
 *   access_default  what it grants when the config says 0
 *   cfg      the VS_QP_CFG_* comp_mask bits its config knows
 *   rules    its column of the modify-mask rules (lib/transport/qp_rules.c)
 *   datagram addressed per WR (AH, QPN, Q_Key); its endpoint carries the Q_Key
 *   reliable acks, retries and RDMA read/atomic resources (the RC attributes)
 *   by_gid   addressed by GID whatever the port's link layer (its endpoint
 *            carries the GID, its address handles a GRH)
 *   flatten  create hook: the typed config copied into struct vs__qp_params
 *   create_qp  create hook: creates the ibv_qp from the prepared extended
 *            attributes (NULL: ibv_create_qp_ex, legacy ibv_create_qp as
 *            the fallback); it sets qp->qp and qp->qpx or records an error
 *
 * A new transport (EFA SRD, ...) is: a row here, its VS_TRANSPORT_ and
 * VS_KIND_ values in common.h, a lib/qp_NAME.c with its flatten hook and
 * what only it does, and an include/verbshim/NAME.h with its config, create
 * and operations.
 */
#ifndef VS_TRANSPORT_H
#define VS_TRANSPORT_H

#include "../base/base.h"

#define VS__OPS_SEND (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define VS__OPS_WRITE (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define VS__OPS_READ_ATOMIC (IBV_QP_EX_WITH_RDMA_READ |                     \
			     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |              \
			     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define VS__ACC_WRITE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

/* the rule sets of lib/transport/qp_rules.c (IB spec 11.2.5 columns) */
enum vs__rules { VS__RULES_RC, VS__RULES_UC, VS__RULES_UD, VS__RULES_N };

#define VS__TRANSPORTS(X)                                                     \
	X(RC, "RC", IBV_QPT_RC, "vs_rc_qp_create",                            \
	  VS__OPS_SEND | VS__OPS_WRITE | VS__OPS_READ_ATOMIC,                 \
	  VS__ACC_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,  \
	  VS_ACCESS_DEFAULT, VS_QP_CFG_GID_INDEX | VS_QP_CFG_PSN | VS_QP_CFG_RETRY, \
	  VS__RULES_RC, false, true, false, vs__flatten_rc, NULL)             \
	X(UC, "UC", IBV_QPT_UC, "vs_uc_qp_create",                            \
	  VS__OPS_SEND | VS__OPS_WRITE, VS__ACC_WRITE, VS__ACC_WRITE,         \
	  VS_QP_CFG_GID_INDEX | VS_QP_CFG_PSN,                                \
	  VS__RULES_UC, false, false, false, vs__flatten_uc, NULL)            \
	X(UD, "UD", IBV_QPT_UD, "vs_ud_qp_create",                            \
	  VS__OPS_SEND, 0, 0, VS_QP_CFG_GID_INDEX | VS_QP_CFG_PSN,            \
	  VS__RULES_UD, true, false, false, vs__flatten_ud, NULL)             \
	X(SRD, "SRD", IBV_QPT_DRIVER, "vs_srd_qp_create",                     \
	  VS__OPS_SEND | VS__OPS_WRITE | IBV_QP_EX_WITH_RDMA_READ, 0, 0,      \
	  VS_QP_CFG_GID_INDEX | VS_QP_CFG_PSN | VS_QP_CFG_RETRY,              \
	  VS__RULES_UD, true, false, true, vs__flatten_srd, vs__srd_create_qp)

/*
 * What differs per link layer: one X-macro row each, chosen once for a
 * port (vs__link_of, from the device's transport and the port's link
 * layer) and kept by every QP made on it (qp->link_row), so that no call
 * asks the link layer again.
 *
 * Columns of X(ROW, kind, by_lid, ethernet, cm_only):
 *   ROW      suffix of VS__LINK_ROW (private: the public kind may cover two)
 *   kind     the public enum vs_link_kind (vs_port_info()->kind)
 *   by_lid   InfiniBand: addressed by LID, which a subnet manager gives
 *            (an endpoint without one is refused naming that)
 *   ethernet an Ethernet port (RoCE, iWARP): addressed by GID, so every
 *            address handle and RTR carries a GRH, a failed RTR or AH is
 *            explained by its route (GID, netdev), endpoints say
 *            VS_EP_ETHERNET, a GID must be found for a QP
 *   cm_only  iWARP: only the connection manager connects its QPs (RC
 *            only, brought to RTS by iw_cm), no GID to pick
 *
 * A new link-layer rule is a column here and its question in the one
 * function that needs it (docs/ARCHITECTURE.md).
 */
#define VS__LINKS(X)                                                          \
	X(IB, VS_LINK_IB, true, false, false)                                 \
	X(ROCE, VS_LINK_ROCE, false, true, false)                             \
	X(IWARP, VS_LINK_IWARP, false, true, true)                            \
	X(EFA, VS_LINK_EFA, false, false, false)                              \
	X(OTHER_ETHERNET, VS_LINK_UNKNOWN, false, true, false)                \
	X(OTHER, VS_LINK_UNKNOWN, false, false, false)

#define VS__LINK_ROW_ENUM(ROW, ...) VS__LINK_##ROW,
enum vs__link_row { VS__LINKS(VS__LINK_ROW_ENUM) VS__LINK_N };
#undef VS__LINK_ROW_ENUM

struct vs__link {
	enum vs_link_kind kind;
	bool by_lid, ethernet, cm_only;
};

/* The row of a port: from its device's transport and its link layer. */
enum vs__link_row vs__link_of(const struct vs_context *c, uint8_t link_layer);
/* The row itself (row < VS__LINK_N: a QP's link_row, vs__link_of's answer). */
const struct vs__link *vs__link(enum vs__link_row row);

/* The typed configs flattened (they share field names, not layouts). */
struct vs__qp_params {
	uint64_t comp_mask;
	struct vs_cq *send_cq, *recv_cq;
	struct vs_srq *srq;
	struct vs_qp_caps caps;
	struct vs_qp_caps asked; /* caps as the config gave them (0: default) */
	uint8_t port;
	uint32_t gid_index, psn;
	enum ibv_mtu mtu;
	unsigned int access;
	uint32_t max_batch;
	bool legacy, sq_sig_all;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint32_t qkey;
};

/* One row, as lib/transport/transports.c lays it out. */
struct vs__transport {
	enum vs_transport t;
	uint32_t kind;
	const char *name, *create;
	enum ibv_qp_type qpt;
	uint64_t ops;
	unsigned int access, access_default;
	uint64_t cfg;
	enum vs__rules rules;
	bool datagram, reliable, by_gid;
	void (*flatten)(const void *cfg, struct vs__qp_params *p);
	int (*create_qp)(struct vs_pd *pd, const struct vs__qp_params *p,
			 struct ibv_qp_init_attr_ex *ia, struct vs_qp *qp,
			 const char *verb);
};

#define VS__FLATTEN_DECL(T, name, qpt, create, ops, acc, accdef, cfg, rules,  \
			 dg, rel, by_gid, flatten, create_qp)                 \
	void flatten(const void *cfg_, struct vs__qp_params *p);
VS__TRANSPORTS(VS__FLATTEN_DECL)
#undef VS__FLATTEN_DECL

/* lib/transport/qp_srd.c: efadv_create_qp_ex with the SRD driver type */
int vs__srd_create_qp(struct vs_pd *pd, const struct vs__qp_params *p,
		      struct ibv_qp_init_attr_ex *ia, struct vs_qp *qp,
		      const char *verb);

/* What every typed config has, copied into p (the flatten hooks). */
#define VS__COPY_COMMON(p, c)                                                 \
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
		(p)->sq_sig_all = (c)->sq_sig_all;                            \
	} while (0)

/* The row of t; NULL when t is no transport of this version. */
const struct vs__transport *vs__transport(enum vs_transport t);


/*
 * lib/transport/qp_srd.c (the one file with efadv.h): efadv_query_device,
 * efadv_query_ah and efadv_query_qp_wqs into the typed structs, on
 * behalf of call; the arguments are checked by the caller.
 */
int vs__efa_caps(struct vs_context *ctx, struct vs_efa_caps *out,
		 const char *call);
int vs__efa_ah(struct ibv_ah *ah, struct vs_efa_ah_info *out, const char *call);
int vs__efa_wqs(struct ibv_qp *qp, struct vs_efa_wqs *out, const char *call);

#endif /* VS_TRANSPORT_H */
