/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs typed by transport (SRQs: srq.h; AHs and destinations: ah.h).
 *
 * struct vs_rc_qp, vs_uc_qp and vs_ud_qp are distinct types: an operation
 * that does not exist on a transport has no function taking that type, so
 * misuse is a compile error (RDMA read and atomics on RC only, write on RC
 * and UC, UD sends always with an address handle, QPN and qkey).
 */
#ifndef VERBSHIM_QP_H
#define VERBSHIM_QP_H

#include "verbshim/cq.h"
#include "verbshim/mem.h"
#include "verbshim/srq.h"
#include "verbshim/qp_config.h"
#include "verbshim/qp_rules.h"

VS_BEGIN_DECLS

struct vs__legacy_sq; /* lib/core/legacy_sq.c */

/*
 * The common part of every QP (private except through accessors and the
 * data-path inlines).
 */
struct vs_qp {
	struct vs_handle h;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;   /* the provider's; NULL: legacy posting */
	/*
	 * What the send inlines call: qpx, or on a legacy QP an emulation of
	 * the ibv_wr_* ops that builds one chained ibv_post_send (so the data
	 * path has one form and no branch on the QP's kind).
	 */
	struct ibv_qp_ex *post_ops;
	struct vs__legacy_sq *legacy;
	enum vs_transport transport;
	struct vs_pd *pd;
	struct vs_cq *send_cq;
	struct vs_cq *recv_cq;
	struct vs_srq *srq;
	struct vs_qp_caps caps;  /* what the QP really got */
	uint64_t send_ops;       /* IBV_QP_EX_WITH_* it was created with */
	uint32_t max_batch;
	enum ibv_qp_state state;
	uint8_t port;
	uint8_t link_row;        /* enum vs__link_row, chosen at create */
	uint16_t lid;
	uint32_t gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint32_t psn;
	uint32_t qkey;
	unsigned int access;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	bool rts_rnr_retry;      /* SRD: rnr_retry goes with RTR->RTS */
	bool cm_id_qp;           /* a CM id's: the CM brings it up, no handshake */
	/*
	 * Destroyed, but a step after the destroy failed (its bounce ring's
	 * MR would not deregister): closed, holding what is left, until a
	 * close again finishes (lib/core/qp.c, vs__qp_put).
	 */
	bool teardown_left;
	/*
	 * Bounce ring, only on providers whose ibv_wr_* SGE setters are
	 * broken (the quirk wr_sge_broken of lib/core/quirks.c).
	 * Inline payloads and multi-SGE gathers are copied into a registered
	 * QP-owned slot and posted as one SGE; the caller's buffer is free
	 * after the add, as with real inline.  One slot per send-queue entry.
	 * A multi-SGE RDMA read cannot be emulated: -EOPNOTSUPP there.
	 * bounce_slot_size is set at create; the ring and its MR come with
	 * the first batch start (the send gate is shut until then:
	 * lib/core/bounce.c), so a QP that never sends registers nothing.
	 */
	uint8_t *bounce;
	struct ibv_mr *bounce_mr;
	uint32_t bounce_slot_size;
	uint32_t bounce_next;
	struct vs__recv_store recv;
};

/* h.gate while a send batch is open (see struct vs_handle) */
#define VS__GATE_BATCH 1u

struct vs_rc_qp { struct vs_qp base; };
struct vs_uc_qp { struct vs_qp base; };
struct vs_ud_qp { struct vs_qp base; };
struct vs_srd_qp { struct vs_qp base; }; /* include/verbshim/srd.h */

/* private generic entry points behind the typed functions below */
int vs__qp_create(struct vs_pd *pd, enum vs_transport t, const void *cfg,
		  struct vs_qp **out);
int vs__qp_close(struct vs_qp *qp, uint32_t kind, const char *verb);
int vs__qp_modify(struct vs_qp *qp, uint32_t kind, const char *verb,
		  struct ibv_qp_attr *attr, int mask);

/**
 * vs_rc_qp_create() - create an RC QP, in INIT
 * @pd: an open PD
 * @cfg: the configuration, or NULL for the defaults where allowed
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL cfg or send_cq, sizes over
 * the device's, access or knobs out of range; -ENOENT no routable RoCE
 * GID; the error of ibv_create_qp[_ex] with the sizes. *out is NULL on any
 * failure.
 */
VS_MUST_CHECK
VS_INLINE int vs_rc_qp_create(struct vs_pd *pd, const struct vs_rc_config *cfg,
			      struct vs_rc_qp **out)
{
	struct vs_qp *qp = NULL;
	int ret = vs__qp_create(pd, VS_TRANSPORT_RC, cfg, out ? &qp : NULL);

	if (out)
		*out = (struct vs_rc_qp *)qp;
	return ret;
}

/**
 * vs_uc_qp_create() - create a UC QP, in INIT
 * @pd: an open PD
 * @cfg: the configuration, or NULL for the defaults where allowed
 * @out: where the result goes
 *
 * Return: as vs_rc_qp_create().
 */
VS_MUST_CHECK
VS_INLINE int vs_uc_qp_create(struct vs_pd *pd, const struct vs_uc_config *cfg,
			      struct vs_uc_qp **out)
{
	struct vs_qp *qp = NULL;
	int ret = vs__qp_create(pd, VS_TRANSPORT_UC, cfg, out ? &qp : NULL);

	if (out)
		*out = (struct vs_uc_qp *)qp;
	return ret;
}

/**
 * vs_ud_qp_create() - create a UD QP, in INIT
 * @pd: an open PD
 * @cfg: the configuration, or NULL for the defaults where allowed
 * @out: where the result goes
 *
 * Return: as vs_rc_qp_create().
 */
VS_MUST_CHECK
VS_INLINE int vs_ud_qp_create(struct vs_pd *pd, const struct vs_ud_config *cfg,
			      struct vs_ud_qp **out)
{
	struct vs_qp *qp = NULL;
	int ret = vs__qp_create(pd, VS_TRANSPORT_UD, cfg, out ? &qp : NULL);

	if (out)
		*out = (struct vs_ud_qp *)qp;
	return ret;
}

/**
 * vs_rc_qp_close() - the user's close of an RC QP
 * @qp: an open QP of this transport
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry); -EBUSY while a send or receive batch is open.
 */
VS_INLINE int vs_rc_qp_close(struct vs_rc_qp *qp)
{
	return vs__qp_close((struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_qp_close");
}

/**
 * vs_uc_qp_close() - the user's close of a UC QP
 * @qp: an open QP of this transport
 *
 * Return: as vs_rc_qp_close().
 */
VS_INLINE int vs_uc_qp_close(struct vs_uc_qp *qp)
{
	return vs__qp_close((struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_qp_close");
}

/**
 * vs_ud_qp_close() - the user's close of a UD QP
 * @qp: an open QP of this transport
 *
 * Return: as vs_rc_qp_close().
 */
VS_INLINE int vs_ud_qp_close(struct vs_ud_qp *qp)
{
	return vs__qp_close((struct vs_qp *)qp, VS_KIND_UD_QP, "vs_ud_qp_close");
}

/**
 * vs_rc_qp_modify() - ibv_modify_qp on an RC QP, explained when refused
 * @qp: an open QP of this transport
 * @attr: the ibv_qp_attr to apply
 * @mask: IBV_QP_* bits of @attr to apply
 *
 * The manual path: ibv_modify_qp with a mask. When the kernel answers
 * EINVAL, the error names the attributes missing and not allowed for this
 * transport and transition.
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL attr, and the kernel's
 * EINVAL explained (missing and not-allowed mask bits, or a value out of
 * range); -EBUSY while a batch is open; RoCE RTR failures name the route.
 */
VS_INLINE int vs_rc_qp_modify(struct vs_rc_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return vs__qp_modify((struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_qp_modify", attr, mask);
}

/**
 * vs_uc_qp_modify() - ibv_modify_qp on a UC QP, explained when refused
 * @qp: an open QP of this transport
 * @attr: the ibv_qp_attr to apply
 * @mask: IBV_QP_* bits of @attr to apply
 *
 * Return: as vs_rc_qp_modify().
 */
VS_INLINE int vs_uc_qp_modify(struct vs_uc_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return vs__qp_modify((struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_qp_modify", attr, mask);
}

/**
 * vs_ud_qp_modify() - ibv_modify_qp on a UD QP, explained when refused
 * @qp: an open QP of this transport
 * @attr: the ibv_qp_attr to apply
 * @mask: IBV_QP_* bits of @attr to apply
 *
 * Return: as vs_rc_qp_modify().
 */
VS_INLINE int vs_ud_qp_modify(struct vs_ud_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return vs__qp_modify((struct vs_qp *)qp, VS_KIND_UD_QP, "vs_ud_qp_modify", attr, mask);
}

/* private: qp when it is an open QP of the kind, else NULL */
VS__INLINE const struct vs_qp *vs__qp_open(const void *qp, uint32_t kind)
{
	const struct vs_qp *q = (const struct vs_qp *)qp;

	return q && q->h.magic == kind ? q : NULL;
}

/*
 * Accessors: the raw ibv_qp, its number, whether sends go through ibv_wr_*
 * (extended) or ibv_post_send, the sizes the QP really got.  NULL, 0,
 * false and NULL for a NULL, closed or other-kind handle.
 */
#define VS__QP_ACCESSORS(t, KIND)                                             \
	VS_INLINE struct ibv_qp *vs_##t##_qp_raw(const struct vs_##t##_qp *qp) \
	{                                                                     \
		const struct vs_qp *q = vs__qp_open(qp, KIND);                \
		return q ? q->qp : NULL;                                      \
	}                                                                     \
	VS_INLINE uint32_t vs_##t##_qp_num(const struct vs_##t##_qp *qp)      \
	{                                                                     \
		const struct vs_qp *q = vs__qp_open(qp, KIND);                \
		return q ? q->qp->qp_num : 0;                                 \
	}                                                                     \
	VS_INLINE bool vs_##t##_qp_is_extended(const struct vs_##t##_qp *qp)  \
	{                                                                     \
		const struct vs_qp *q = vs__qp_open(qp, KIND);                \
		return q && q->qpx != NULL;                                   \
	}                                                                     \
	VS_INLINE const struct vs_qp_caps *                                   \
	vs_##t##_qp_caps(const struct vs_##t##_qp *qp)                        \
	{                                                                     \
		const struct vs_qp *q = vs__qp_open(qp, KIND);                \
		return q ? &q->caps : NULL;                                   \
	}
VS__QP_ACCESSORS(rc, VS_KIND_RC_QP)
VS__QP_ACCESSORS(uc, VS_KIND_UC_QP)
VS__QP_ACCESSORS(ud, VS_KIND_UD_QP)

#ifdef VS__TYPE_GUARDS
#define vs_rc_qp_create(pd, ...)                                              \
	vs_rc_qp_create(VS__OUT(struct vs_rc_qp **, VS__CFG(struct vs_rc_config, \
			VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__),     \
			 __VA_ARGS__)
#define vs_rc_qp_close(qp) vs_rc_qp_close(VS__IS(struct vs_rc_qp, qp))
#define vs_rc_qp_modify(qp, ...) vs_rc_qp_modify(VS__IS(struct vs_rc_qp, qp), __VA_ARGS__)
#define vs_rc_qp_raw(qp) vs_rc_qp_raw(VS__IS_C(struct vs_rc_qp, qp))
#define vs_rc_qp_num(qp) vs_rc_qp_num(VS__IS_C(struct vs_rc_qp, qp))
#define vs_rc_qp_is_extended(qp) vs_rc_qp_is_extended(VS__IS_C(struct vs_rc_qp, qp))
#define vs_rc_qp_caps(qp) vs_rc_qp_caps(VS__IS_C(struct vs_rc_qp, qp))
#define vs_uc_qp_create(pd, ...)                                              \
	vs_uc_qp_create(VS__OUT(struct vs_uc_qp **, VS__CFG(struct vs_uc_config, \
			VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__),     \
			 __VA_ARGS__)
#define vs_uc_qp_close(qp) vs_uc_qp_close(VS__IS(struct vs_uc_qp, qp))
#define vs_uc_qp_modify(qp, ...) vs_uc_qp_modify(VS__IS(struct vs_uc_qp, qp), __VA_ARGS__)
#define vs_uc_qp_raw(qp) vs_uc_qp_raw(VS__IS_C(struct vs_uc_qp, qp))
#define vs_uc_qp_num(qp) vs_uc_qp_num(VS__IS_C(struct vs_uc_qp, qp))
#define vs_uc_qp_is_extended(qp) vs_uc_qp_is_extended(VS__IS_C(struct vs_uc_qp, qp))
#define vs_uc_qp_caps(qp) vs_uc_qp_caps(VS__IS_C(struct vs_uc_qp, qp))
#define vs_ud_qp_create(pd, ...)                                              \
	vs_ud_qp_create(VS__OUT(struct vs_ud_qp **, VS__CFG(struct vs_ud_config, \
			VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__),     \
			 __VA_ARGS__)
#define vs_ud_qp_close(qp) vs_ud_qp_close(VS__IS(struct vs_ud_qp, qp))
#define vs_ud_qp_modify(qp, ...) vs_ud_qp_modify(VS__IS(struct vs_ud_qp, qp), __VA_ARGS__)
#define vs_ud_qp_raw(qp) vs_ud_qp_raw(VS__IS_C(struct vs_ud_qp, qp))
#define vs_ud_qp_num(qp) vs_ud_qp_num(VS__IS_C(struct vs_ud_qp, qp))
#define vs_ud_qp_is_extended(qp) vs_ud_qp_is_extended(VS__IS_C(struct vs_ud_qp, qp))
#define vs_ud_qp_caps(qp) vs_ud_qp_caps(VS__IS_C(struct vs_ud_qp, qp))
#endif

VS_END_DECLS

#endif /* VERBSHIM_QP_H */
