/* SPDX-License-Identifier: MIT */
/*
 * Posting on UC: send, send+imm, RDMA write, write+imm QPs (include/verbshim/post.h has the common rules).
 */
#ifndef VERBSHIM_POST_UC_H
#define VERBSHIM_POST_UC_H

#include "verbshim/batch.h"

VS_BEGIN_DECLS

/**
 * vs_uc_batch_start() - open a send batch on a UC QP in RTS
 * @qp: an open QP of this transport
 * @b: the batch
 *
 * Return: as vs_rc_batch_start().
 */
VS_INLINE int vs_uc_batch_start(struct vs_uc_qp *qp, struct vs_uc_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_UC_QP, "vs_uc_batch_start");
}

/**
 * vs_uc_send() - add a send
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_uc_send(struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags,
				 const struct ibv_sge *sgl, size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND, wr_id, flags, sgl, num_sge);
	return vs__batch_add(&b->b, VS_TRANSPORT_UC, &w, "vs_uc_send");
}

/**
 * vs_uc_send_imm() - add a send with immediate data
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_uc_send_imm(struct vs_uc_batch *b, uint64_t wr_id,
				     unsigned int flags, uint32_t imm,
				     const struct ibv_sge *sgl, size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_imm(&w, imm);
	return vs__batch_add(&b->b, VS_TRANSPORT_UC, &w, "vs_uc_send_imm");
}

/**
 * vs_uc_write() - add an RDMA write
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_uc_write(struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags,
				  const struct ibv_sge *sgl, size_t num_sge,
				  struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	return vs__batch_add(&b->b, VS_TRANSPORT_UC, &w, "vs_uc_write");
}

/**
 * vs_uc_write_imm() - add an RDMA write with immediate data
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_uc_write_imm(struct vs_uc_batch *b, uint64_t wr_id,
				      unsigned int flags, uint32_t imm,
				      const struct ibv_sge *sgl, size_t num_sge,
				      struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	vs__wr_imm(&w, imm);
	return vs__batch_add(&b->b, VS_TRANSPORT_UC, &w, "vs_uc_write_imm");
}

/**
 * vs_uc_batch_submit() - post the batch with one doorbell
 * @b: the batch
 *
 * Return: as vs_rc_batch_submit().
 */
VS_MUST_CHECK
VS_INLINE int vs_uc_batch_submit(struct vs_uc_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_UC_QP,
				"vs_uc_batch_submit");
}

/**
 * vs_uc_batch_abort() - drop the batch; nothing is posted
 * @b: the batch
 *
 * Return: nothing.
 */
VS_INLINE void vs_uc_batch_abort(struct vs_uc_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_UC_QP);
}

#ifdef VS__TYPE_GUARDS
#define vs_uc_batch_start(qp, b) vs_uc_batch_start(VS__IS(struct vs_uc_qp, qp), VS__IS(struct vs_uc_batch, b))
#define vs_uc_batch_submit(b) vs_uc_batch_submit(VS__IS(struct vs_uc_batch, b))
#define vs_uc_batch_abort(b) vs_uc_batch_abort(VS__IS(struct vs_uc_batch, b))
#define vs_uc_send(b, ...) vs_uc_send(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_send_imm(b, ...) vs_uc_send_imm(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_write(b, ...) vs_uc_write(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_write_imm(b, ...) vs_uc_write_imm(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_POST_UC_H */
