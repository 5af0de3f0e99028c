/* SPDX-License-Identifier: MIT */
/*
 * Posting on SRD QPs: send batches and their operations over the batch
 * engine (batch.h), as post_ud.h does for UD.  RDMA read and write are
 * refused with -EOPNOTSUPP where the EFA device does not report them.
 */
#ifndef VERBSHIM_POST_SRD_H
#define VERBSHIM_POST_SRD_H

#include "verbshim/srd.h"

VS_BEGIN_DECLS

/**
 * vs_srd_batch_start() - open a send batch on an SRD QP in RTS
 * @qp: an open SRD QP
 * @b: the batch
 *
 * Return: as vs_rc_batch_start().
 */
VS_INLINE int vs_srd_batch_start(struct vs_srd_qp *qp, struct vs_srd_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_SRD_QP, "vs_srd_batch_start");
}

/* private: the UD destination inside an SRD one (its first member) */
VS__INLINE const struct vs_ud_dest *vs__srd_ud(const struct vs_srd_dest *dest)
{
	return (const struct vs_ud_dest *)(const void *)dest;
}

/**
 * vs_srd_send() - add a send to a destination
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the destination (vs_srd_handshake())
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_ud_send().
 */
VS_INLINE VS__HOT int vs_srd_send(struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags,
				  const struct vs_srd_dest *dest, const struct ibv_sge *sgl,
				  size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND, wr_id, flags, sgl, num_sge);
	vs__wr_dest(&w, vs__srd_ud(dest));
	return vs__batch_add(&b->b, VS_TRANSPORT_SRD, &w, "vs_srd_send");
}

/**
 * vs_srd_send_imm() - add a send with immediate data to a destination
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the destination (vs_srd_handshake())
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: as vs_ud_send().
 */
VS_INLINE VS__HOT int vs_srd_send_imm(struct vs_srd_batch *b, uint64_t wr_id,
				      unsigned int flags, const struct vs_srd_dest *dest,
				      uint32_t imm, const struct ibv_sge *sgl,
				      size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_imm(&w, imm);
	vs__wr_dest(&w, vs__srd_ud(dest));
	return vs__batch_add(&b->b, VS_TRANSPORT_SRD, &w, "vs_srd_send_imm");
}

/**
 * vs_srd_write() - add an RDMA write to a destination's memory
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the destination (vs_srd_handshake())
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_ud_send(), and -EOPNOTSUPP when the device does not
 * report RDMA write (VS_EFA_CAP_RDMA_WRITE).
 */
VS_INLINE VS__HOT int vs_srd_write(struct vs_srd_batch *b, uint64_t wr_id,
				   unsigned int flags, const struct vs_srd_dest *dest,
				   const struct ibv_sge *sgl, size_t num_sge,
				   struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	vs__wr_dest(&w, vs__srd_ud(dest));
	return vs__batch_add(&b->b, VS_TRANSPORT_SRD, &w, "vs_srd_write");
}

/**
 * vs_srd_write_imm() - add an RDMA write with immediate data
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the destination (vs_srd_handshake())
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_srd_write().
 */
VS_INLINE VS__HOT int vs_srd_write_imm(struct vs_srd_batch *b, uint64_t wr_id,
				       unsigned int flags, const struct vs_srd_dest *dest,
				       uint32_t imm, const struct ibv_sge *sgl,
				       size_t num_sge, struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	vs__wr_imm(&w, imm);
	vs__wr_dest(&w, vs__srd_ud(dest));
	return vs__batch_add(&b->b, VS_TRANSPORT_SRD, &w, "vs_srd_write_imm");
}

/**
 * vs_srd_read() - add an RDMA read from a destination's memory
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @dest: the destination (vs_srd_handshake())
 * @sgl: the scatter list the bytes land in
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_ud_send(), and -EOPNOTSUPP when the device does not
 * report RDMA read (VS_EFA_CAP_RDMA_READ).
 */
VS_INLINE VS__HOT int vs_srd_read(struct vs_srd_batch *b, uint64_t wr_id,
				  unsigned int flags, const struct vs_srd_dest *dest,
				  const struct ibv_sge *sgl, size_t num_sge,
				  struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__READ, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	vs__wr_dest(&w, vs__srd_ud(dest));
	return vs__batch_add(&b->b, VS_TRANSPORT_SRD, &w, "vs_srd_read");
}

/**
 * vs_srd_batch_submit() - post the batch with one doorbell
 * @b: the batch
 *
 * Return: as vs_rc_batch_submit().
 */
VS_MUST_CHECK
VS_INLINE int vs_srd_batch_submit(struct vs_srd_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_SRD_QP,
				"vs_srd_batch_submit");
}

/**
 * vs_srd_batch_abort() - drop the batch; nothing is posted
 * @b: the batch
 *
 * Return: nothing.
 */
VS_INLINE void vs_srd_batch_abort(struct vs_srd_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_SRD_QP);
}

#ifdef VS__TYPE_GUARDS
#define vs_srd_batch_start(qp, b) vs_srd_batch_start(VS__IS(struct vs_srd_qp, qp), VS__IS(struct vs_srd_batch, b))
#define vs_srd_batch_submit(b) vs_srd_batch_submit(VS__IS(struct vs_srd_batch, b))
#define vs_srd_batch_abort(b) vs_srd_batch_abort(VS__IS(struct vs_srd_batch, b))
#define vs_srd_send(b, wr_id, flags, dest, ...) vs_srd_send(VS__IS(struct vs_srd_batch, b), wr_id, flags, VS__IS_C(struct vs_srd_dest, dest), __VA_ARGS__)
#define vs_srd_send_imm(b, wr_id, flags, dest, ...) vs_srd_send_imm(VS__IS(struct vs_srd_batch, b), wr_id, flags, VS__IS_C(struct vs_srd_dest, dest), __VA_ARGS__)
#define vs_srd_write(b, wr_id, flags, dest, ...) vs_srd_write(VS__IS(struct vs_srd_batch, b), wr_id, flags, VS__IS_C(struct vs_srd_dest, dest), __VA_ARGS__)
#define vs_srd_write_imm(b, wr_id, flags, dest, ...) vs_srd_write_imm(VS__IS(struct vs_srd_batch, b), wr_id, flags, VS__IS_C(struct vs_srd_dest, dest), __VA_ARGS__)
#define vs_srd_read(b, wr_id, flags, dest, ...) vs_srd_read(VS__IS(struct vs_srd_batch, b), wr_id, flags, VS__IS_C(struct vs_srd_dest, dest), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_POST_SRD_H */
