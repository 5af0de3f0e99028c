/* SPDX-License-Identifier: MIT */
/*
 * Receives: batches of receive WRs on a QP without an SRQ or on an SRQ,
 * posted by one chained ibv_post_recv / ibv_post_srq_recv.
 *
 *	struct vs_recv_batch rb;
 *	vs_rc_recv_start(qp, &rb);
 *	vs_recv_add(&rb, 1, &sge, 1);
 *	vs_recv_submit(&rb);
 */
#ifndef VERBSHIM_RECV_H
#define VERBSHIM_RECV_H

#include "verbshim/qp.h"

VS_BEGIN_DECLS

/* ---- Receives: chained ibv_post_recv / ibv_post_srq_recv ---- */

struct vs_recv_batch {
	struct vs__recv_store *store; /* private */
	struct ibv_qp *qp;            /* private */
	struct ibv_srq *srq;          /* private */
	uint32_t count;
};

int vs__recv_start(struct vs_recv_batch *rb, const void *owner, uint32_t kind,
		   const char *verb);
int vs__recv_failed(struct vs_recv_batch *rb, int err, size_t num_sge,
		    long bad_index, const char *verb) VS_COLD;

/*
 * private: the start's fast path.  An open QP (or SRQ) with a store free
 * opens it here; anything else goes to vs__recv_start (lib/core/post.c), which
 * checks again and records what is wrong.
 */
VS__INLINE int vs__recv_start_qp(struct vs_recv_batch *rb, struct vs_qp *qp,
				uint32_t kind, const char *verb)
{
	if (VS_LIKELY(rb && qp &&
		      __atomic_load_n(&qp->h.magic, __ATOMIC_ACQUIRE) == kind &&
		      !qp->srq && qp->state != IBV_QPS_RESET &&
		      qp->state != IBV_QPS_ERR && !qp->recv.open)) {
		qp->recv.open = true;
		rb->store = &qp->recv;
		rb->qp = qp->qp;
		rb->srq = NULL;
		rb->count = 0;
		return 0;
	}
	return vs__recv_start(rb, qp, kind, verb);
}

VS__INLINE int vs__recv_start_srq(struct vs_recv_batch *rb, struct vs_srq *srq,
				 const char *verb)
{
	if (VS_LIKELY(rb && srq &&
		      __atomic_load_n(&srq->h.magic, __ATOMIC_ACQUIRE) ==
			      VS_KIND_SRQ &&
		      !srq->recv.open)) {
		srq->recv.open = true;
		rb->store = &srq->recv;
		rb->qp = NULL;
		rb->srq = srq->srq;
		rb->count = 0;
		return 0;
	}
	return vs__recv_start(rb, srq, VS_KIND_SRQ, verb);
}

/**
 * vs_rc_recv_start() - open a receive batch on an RC QP without an SRQ
 * @qp: an open QP of this transport
 * @rb: the receive batch
 *
 * A receive batch on a QP without an SRQ (UD buffers need VS_UD_GRH_BYTES
 * more).
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL batch, QP with an SRQ or
 * in RESET/ERR; -EBUSY a receive batch is open.
 */
VS_INLINE int vs_rc_recv_start(struct vs_rc_qp *qp, struct vs_recv_batch *rb)
{
	return vs__recv_start_qp(rb, (struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_recv_start");
}

/**
 * vs_uc_recv_start() - open a receive batch on a UC QP without an SRQ
 * @qp: an open QP of this transport
 * @rb: the receive batch
 *
 * Return: as vs_rc_recv_start().
 */
VS_INLINE int vs_uc_recv_start(struct vs_uc_qp *qp, struct vs_recv_batch *rb)
{
	return vs__recv_start_qp(rb, (struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_recv_start");
}

/**
 * vs_ud_recv_start() - open a receive batch on a UD QP (buffers need VS_UD_GRH_BYTES more)
 * @qp: an open QP of this transport
 * @rb: the receive batch
 *
 * Return: as vs_rc_recv_start().
 */
VS_INLINE int vs_ud_recv_start(struct vs_ud_qp *qp, struct vs_recv_batch *rb)
{
	return vs__recv_start_qp(rb, (struct vs_qp *)qp, VS_KIND_UD_QP, "vs_ud_recv_start");
}

/**
 * vs_srq_recv_start() - open a receive batch on an SRQ
 * @srq: an open SRQ
 * @rb: the receive batch
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL batch; -EBUSY a receive
 * batch is open.
 */
VS_INLINE int vs_srq_recv_start(struct vs_srq *srq, struct vs_recv_batch *rb)
{
	return vs__recv_start_srq(rb, srq, "vs_srq_recv_start");
}

/**
 * vs_recv_add() - add a receive
 * @rb: the receive batch
 * @wr_id: the caller's id, given back in the completion
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: 0 or -errno: -EINVAL bad batch or SGEs; -ENOSPC the batch is
 * full (the queue's size).
 */
VS_INLINE int vs_recv_add(struct vs_recv_batch *rb, uint64_t wr_id,
			  const struct ibv_sge *sgl, size_t num_sge)
{
	struct vs__recv_store *st;
	struct ibv_recv_wr *wr;
	struct ibv_sge *s;

	if (VS_UNLIKELY(!rb || !rb->store))
		return vs__not_started("vs_recv_add");
	st = rb->store;
	if (VS_UNLIKELY(rb->count >= st->cap || num_sge > st->max_sge ||
			(num_sge && !sgl)))
		return vs__recv_failed(rb, 0, num_sge, -1, "vs_recv_add");
	wr = &st->wr[rb->count];
	s = st->sge + (size_t)rb->count * st->max_sge;
	for (size_t i = 0; i < num_sge; i++)
		s[i] = sgl[i];
	wr->wr_id = wr_id;
	wr->next = NULL;
	wr->sg_list = s;
	wr->num_sge = (int)num_sge;
	if (rb->count)
		wr[-1].next = wr;
	rb->count++;
	return 0;
}

/**
 * vs_recv_submit() - post the receives with one call; the batch is then closed
 * @rb: the receive batch
 *
 * Return: 0 or -errno: -EINVAL a batch not started; the provider's error
 * (batch_posted says how many went out).
 */
VS_MUST_CHECK
VS_INLINE int vs_recv_submit(struct vs_recv_batch *rb)
{
	struct ibv_recv_wr *bad = NULL;
	struct vs__recv_store *st;
	int ret = 0;

	if (VS_UNLIKELY(!rb || !rb->store))
		return vs__not_started("vs_recv_submit");
	st = rb->store;
	rb->store = NULL;
	st->open = false;
	if (!rb->count)
		return 0;
	if (rb->srq)
		ret = ibv_post_srq_recv(rb->srq, st->wr, &bad);
	else
		ret = ibv_post_recv(rb->qp, st->wr, &bad);
	if (VS_UNLIKELY(ret))
		return vs__recv_failed(rb, ret, 0, bad ? (long)(bad - st->wr) : -1,
				       "vs_recv_submit");
	return 0;
}

/**
 * vs_recv_abort() - drop the receive batch; nothing is posted
 * @rb: the receive batch
 *
 * Return: nothing.
 */
VS_INLINE void vs_recv_abort(struct vs_recv_batch *rb)
{
	if (!rb || !rb->store)
		return;
	rb->store->open = false;
	rb->store = NULL;
}

#ifdef VS__TYPE_GUARDS
#define vs_rc_recv_start(qp, rb) vs_rc_recv_start(VS__IS(struct vs_rc_qp, qp), VS__IS(struct vs_recv_batch, rb))
#define vs_uc_recv_start(qp, rb) vs_uc_recv_start(VS__IS(struct vs_uc_qp, qp), VS__IS(struct vs_recv_batch, rb))
#define vs_ud_recv_start(qp, rb) vs_ud_recv_start(VS__IS(struct vs_ud_qp, qp), VS__IS(struct vs_recv_batch, rb))
#define vs_srq_recv_start(srq, rb) vs_srq_recv_start(VS__IS(struct vs_srq, srq), VS__IS(struct vs_recv_batch, rb))
#define vs_recv_add(rb, ...) vs_recv_add(VS__IS(struct vs_recv_batch, rb), __VA_ARGS__)
#define vs_recv_submit(rb) vs_recv_submit(VS__IS(struct vs_recv_batch, rb))
#define vs_recv_abort(rb) vs_recv_abort(VS__IS(struct vs_recv_batch, rb))
#endif

VS_END_DECLS

#endif /* VERBSHIM_RECV_H */
