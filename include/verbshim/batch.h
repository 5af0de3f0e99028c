/* SPDX-License-Identifier: MIT */
/*
 * The send batch engine (private: read only by the operations of
 * include/verbshim/post.h).  One batch is one doorbell: extended QPs post
 * through ibv_wr_start/ibv_wr_* /ibv_wr_complete, legacy QPs as one
 * chained ibv_post_send, with the same results both ways.  The batch
 * types are public; everything named vs__ is not.  One WR as an
 * operation describes it, and its flags: include/verbshim/wr.h.
 */
#ifndef VERBSHIM_BATCH_H
#define VERBSHIM_BATCH_H

#include "verbshim/wr.h"

VS_BEGIN_DECLS

/*
 * private.  The limits are copied at start so that, with the batch on the
 * caller's stack and never handed out of line, the compiler keeps them in
 * registers across the provider's indirect calls.
 */
struct vs__send_batch {
	struct vs_qp *qp;
	struct ibv_qp_ex *ops; /* qp->post_ops */
	uint32_t count;
	uint32_t max_batch;
	uint32_t max_sge;
};

struct vs_rc_batch { struct vs__send_batch b; };
struct vs_uc_batch { struct vs__send_batch b; };
struct vs_ud_batch { struct vs__send_batch b; };
struct vs_srd_batch { struct vs__send_batch b; }; /* include/verbshim/srd.h */

/* private: the out-of-line halves (error reports, inline payloads) */
int vs__batch_start_slow(bool have_batch, struct vs_qp *qp, uint32_t kind,
			 const char *verb) VS_COLD;
int vs__batch_add_failed(struct vs_qp *qp, uint32_t count, int op,
			 unsigned int flags,
			 const struct ibv_sge *sgl, size_t num_sge,
			 uint64_t remote_addr, const struct vs_ud_dest *dest,
			 const char *verb) VS_COLD;
int vs__batch_submit_failed(struct vs_qp *qp, int err, const char *verb) VS_COLD;
void vs__set_inline(struct vs_qp *qp, const struct ibv_sge *sgl,
		    size_t num_sge);

VS__INLINE int vs__batch_start(struct vs__send_batch *b, struct vs_qp *qp,
			      uint32_t kind, const char *verb)
{
	/*
	 * One compare: this kind, open, in RTS, no batch open (vs_handle),
	 * and a bounce ring if the provider needs one.  The slow half
	 * explains a refusal, or makes the ring of the QP's first batch and
	 * opens the gate (then the start goes on).
	 */
	if (VS_UNLIKELY(!b || !qp || qp->h.gate != kind)) {
		int ret = vs__batch_start_slow(b != NULL, qp, kind, verb);

		if (ret) {
			if (b) {
				b->qp = NULL;
				b->ops = NULL;
				b->count = 0;
				b->max_batch = 0;
				b->max_sge = 0;
			}
			return vs__neg(ret);
		}
	}
	qp->h.gate = VS__GATE_BATCH;
	b->qp = qp;
	b->ops = qp->post_ops;
	b->count = 0;
	b->max_batch = qp->max_batch;
	b->max_sge = qp->caps.max_send_sge;
	/* vs__qp_create refuses QPs without room for one WR of one SGE */
	VS_ASSUME(b->max_batch >= 1);
	VS_ASSUME(b->max_sge >= 1);
	ibv_wr_start(b->ops);
	return 0;
}

/*
 * private: the checks of an add; true when the WR may be added.  Only a
 * started batch has room (max_batch 0 otherwise), so b->qp is valid past
 * the first test.
 */
VS__FORCE_INLINE bool vs__batch_add_ok(const struct vs__send_batch *b,
				enum vs_transport t, const struct vs__wr *w)
{
	const struct vs_qp *qp = b->qp;

	/* max_sge >= 1: written so that one SGE needs no load */
	if (VS_UNLIKELY(b->count >= b->max_batch ||
			(w->num_sge > 1 && w->num_sge > b->max_sge) ||
			(w->flags & ~(unsigned int)VS_WR_FLAGS_ALL) ||
			(w->num_sge && !w->sgl)))
		return false;
	for (size_t i = 0; i < w->num_sge; i++)
		if (VS_UNLIKELY(vs__sge_poisoned(&w->sgl[i])))
			return false;
	if (VS_UNLIKELY(w->flags & VS_WR_INLINE)) {
		size_t total = 0;

		if (w->op == VS__READ || w->op == VS__CAS || w->op == VS__FAA)
			return false;
		for (size_t i = 0; i < w->num_sge; i++)
			total += w->sgl[i].length;
		if (total > qp->caps.max_inline_data || w->num_sge > 16)
			return false;
	}
	if ((w->op == VS__CAS || w->op == VS__FAA) &&
	    VS_UNLIKELY(w->num_sge != 1 || w->sgl[0].length != 8 || (w->raddr & 7)))
		return false;
	if (VS_UNLIKELY(w->num_sge > 1 && qp->bounce_slot_size &&
			!(w->flags & VS_WR_INLINE))) {
		/* the provider's SGE lists are broken: gathers are copied */
		size_t total = 0;

		for (size_t i = 0; i < w->num_sge; i++)
			total += w->sgl[i].length;
		if (w->op == VS__READ || total > qp->bounce_slot_size)
			return false;
	}
	if (vs__t_by_ah(t) &&
	    VS_UNLIKELY(!w->dest || !w->dest->ah ||
			w->dest->ah->h.magic != VS_KIND_AH))
		return false;
	/*
	 * SRD: RDMA read and write exist only when the EFA device says so;
	 * atomics only on a device that has them (not siw).  Both constant
	 * folded: a send or write of another transport tests nothing.
	 */
	if ((t == VS_TRANSPORT_SRD || w->op == VS__CAS || w->op == VS__FAA) &&
	    vs__op_send_flag(w->op) &&
	    VS_UNLIKELY(!(qp->send_ops & vs__op_send_flag(w->op))))
		return false;
	return true;
}

/*
 * One accepted WR through the ibv_wr_* ops: the provider's on an extended
 * QP, the chain builder of lib/core/legacy_sq.c on a legacy one.  The caller
 * counts it.
 */
VS__FORCE_INLINE void vs__batch_put(const struct vs__send_batch *b, enum vs_transport t,
			     const struct vs__wr *w)
{
	struct ibv_qp_ex *x = b->ops;
	const struct ibv_sge *sgl = w->sgl;
	const size_t num_sge = w->num_sge;

	x->wr_id = w->wr_id;
	x->wr_flags = w->flags & ~(unsigned int)VS_WR_INLINE;
	switch (w->op) {
	case VS__SEND:
		ibv_wr_send(x);
		break;
	case VS__SEND_IMM:
		ibv_wr_send_imm(x, htonl(w->imm));
		break;
	case VS__WRITE:
		ibv_wr_rdma_write(x, w->rkey, w->raddr);
		break;
	case VS__WRITE_IMM:
		ibv_wr_rdma_write_imm(x, w->rkey, w->raddr, htonl(w->imm));
		break;
	case VS__READ:
		ibv_wr_rdma_read(x, w->rkey, w->raddr);
		break;
	case VS__CAS:
		ibv_wr_atomic_cmp_swp(x, w->rkey, w->raddr, w->compare_add,
				      w->swap);
		break;
	case VS__FAA:
		ibv_wr_atomic_fetch_add(x, w->rkey, w->raddr, w->compare_add);
		break;
	}
	if (vs__t_by_ah(t))
		ibv_wr_set_ud_addr(x, w->dest->ah->ah, w->dest->remote_qpn,
				   w->dest->remote_qkey);
	if (VS_UNLIKELY(w->flags & VS_WR_INLINE))
		vs__set_inline(b->qp, sgl, num_sge);
	else if (VS_LIKELY(num_sge == 1))
		ibv_wr_set_sge(x, sgl[0].lkey, sgl[0].addr, sgl[0].length);
	else if (VS_UNLIKELY(b->qp->bounce_slot_size != 0))
		vs__set_inline(b->qp, sgl, num_sge);
	else
		ibv_wr_set_sge_list(x, num_sge, sgl);
}

/* One WR (vs__wr_prep and its operation's setters): checked, put, counted. */
VS__FORCE_INLINE int vs__batch_add(struct vs__send_batch *b, enum vs_transport t,
			    const struct vs__wr *w, const char *verb)
{
	/* a batch not started has max_batch 0: the room check covers it */
	if (VS_UNLIKELY(!b || !vs__batch_add_ok(b, t, w))) {
		if (!b || !b->qp)
			return vs__neg(vs__not_started(verb));
		return vs__neg(vs__batch_add_failed(b->qp, b->count, (int)w->op,
						    w->flags, w->sgl, w->num_sge,
						    w->raddr, w->dest, verb));
	}
	vs__batch_put(b, t, w);
	b->count++;
	return 0;
}

/*
 * private: closes an open batch.  The QP was in RTS at start and an open
 * batch blocks state changes, so its gate reopens to its kind; the batch
 * is left "not started" (max_batch 0, see vs__batch_add_ok).
 */
VS__INLINE struct vs_qp *vs__batch_close(struct vs__send_batch *b,
					uint32_t kind)
{
	struct vs_qp *qp = b->qp;

	qp->h.gate = kind;
	b->qp = NULL;
	b->max_batch = 0;
	return qp;
}

VS__INLINE int vs__batch_submit(struct vs__send_batch *b, uint32_t kind,
			       const char *verb)
{
	struct vs_qp *qp;
	int ret;

	if (VS_UNLIKELY(!b || !b->qp))
		return vs__neg(vs__not_started(verb));
	qp = vs__batch_close(b, kind);
	if (VS_UNLIKELY(!b->count)) {
		ibv_wr_abort(b->ops);
		return 0;
	}
	ret = ibv_wr_complete(b->ops);
	if (VS_UNLIKELY(ret))
		return vs__neg(vs__batch_submit_failed(qp, ret, verb));
	return 0;
}

/* Drops the WRs added so far; nothing is posted. */
VS__INLINE void vs__batch_abort(struct vs__send_batch *b, uint32_t kind)
{
	if (!b || !b->qp)
		return;
	ibv_wr_abort(b->ops);
	vs__batch_close(b, kind);
}

VS_END_DECLS

#endif /* VERBSHIM_BATCH_H */
