/* SPDX-License-Identifier: MIT */
/*
 * Posting on UD: send and send+imm, always to an explicit destination (struct vs_ud_dest) QPs (include/verbshim/post.h has the common rules).
 */
#ifndef VERBSHIM_POST_UD_H
#define VERBSHIM_POST_UD_H

#include "verbshim/batch.h"

VS_BEGIN_DECLS

/**
 * vs_ud_batch_start() - open a send batch on a UD QP in RTS
 * @qp: an open QP of this transport
 * @b: the batch
 *
 * Return: as vs_rc_batch_start().
 */
VS_INLINE int vs_ud_batch_start(struct vs_ud_qp *qp, struct vs_ud_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_UD_QP, "vs_ud_batch_start");
}

/**
 * vs_ud_send() - add a send to a destination
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the UD destination (vs_ud_handshake())
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_rc_send(), and -EINVAL for a NULL or released destination.
 */
VS_INLINE VS__HOT int vs_ud_send(struct vs_ud_batch *b, uint64_t wr_id, unsigned int flags,
				 const struct vs_ud_dest *dest, const struct ibv_sge *sgl,
				 size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND, wr_id, flags, sgl, num_sge);
	vs__wr_dest(&w, dest);
	return vs__batch_add(&b->b, VS_TRANSPORT_UD, &w, "vs_ud_send");
}

/**
 * vs_ud_send_imm() - add a send with immediate data to a destination
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the UD destination (vs_ud_handshake())
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_ud_send().
 */
VS_INLINE VS__HOT int vs_ud_send_imm(struct vs_ud_batch *b, uint64_t wr_id,
				     unsigned int flags, const struct vs_ud_dest *dest,
				     uint32_t imm, const struct ibv_sge *sgl,
				     size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_imm(&w, imm);
	vs__wr_dest(&w, dest);
	return vs__batch_add(&b->b, VS_TRANSPORT_UD, &w, "vs_ud_send_imm");
}

/**
 * vs_ud_batch_submit() - post the batch with one doorbell
 * @b: the batch
 *
 * Return: as vs_rc_batch_submit().
 */
VS_MUST_CHECK
VS_INLINE int vs_ud_batch_submit(struct vs_ud_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_UD_QP,
				"vs_ud_batch_submit");
}

/**
 * vs_ud_batch_abort() - drop the batch; nothing is posted
 * @b: the batch
 *
 * Return: nothing.
 */
VS_INLINE void vs_ud_batch_abort(struct vs_ud_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_UD_QP);
}

#ifdef VS__TYPE_GUARDS
#define vs_ud_batch_start(qp, b) vs_ud_batch_start(VS__IS(struct vs_ud_qp, qp), VS__IS(struct vs_ud_batch, b))
#define vs_ud_batch_submit(b) vs_ud_batch_submit(VS__IS(struct vs_ud_batch, b))
#define vs_ud_batch_abort(b) vs_ud_batch_abort(VS__IS(struct vs_ud_batch, b))
#define vs_ud_send(b, wr_id, flags, dest, ...) vs_ud_send(VS__IS(struct vs_ud_batch, b), wr_id, flags, VS__IS_C(struct vs_ud_dest, dest), __VA_ARGS__)
#define vs_ud_send_imm(b, wr_id, flags, dest, ...) vs_ud_send_imm(VS__IS(struct vs_ud_batch, b), wr_id, flags, VS__IS_C(struct vs_ud_dest, dest), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_POST_UD_H */
