/* SPDX-License-Identifier: MIT */
/*
 * Posting on RC: send, send+imm, RDMA write, write+imm, read, compare-and-swap, fetch-and-add QPs (include/verbshim/post.h has the common rules).
 */
#ifndef VERBSHIM_POST_RC_H
#define VERBSHIM_POST_RC_H

#include "verbshim/batch.h"

VS_BEGIN_DECLS

/**
 * vs_rc_batch_start() - open a send batch on an RC QP in RTS
 * @qp: an open QP of this transport
 * @b: the batch
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL batch, QP not in RTS;
 * -EBUSY a batch is already open.
 */
VS_INLINE int vs_rc_batch_start(struct vs_rc_qp *qp, struct vs_rc_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_RC_QP, "vs_rc_batch_start");
}

/**
 * vs_rc_send() - add a send
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * Return: 0 or -errno: -EINVAL bad batch, flags, SGEs (NULL, count, range,
 * poisoned); -ENOSPC the batch is full. The batch is unchanged on failure.
 */
VS_INLINE VS__HOT int vs_rc_send(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
				 const struct ibv_sge *sgl, size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND, wr_id, flags, sgl, num_sge);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_send");
}

/**
 * vs_rc_send_imm() - add a send with immediate data
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @imm: immediate data, host byte order
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 *
 * imm in host byte order (the receiver's vs_wc.imm gives it back).
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_rc_send_imm(struct vs_rc_batch *b, uint64_t wr_id,
				     unsigned int flags, uint32_t imm,
				     const struct ibv_sge *sgl, size_t num_sge)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__SEND_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_imm(&w, imm);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_send_imm");
}

/**
 * vs_rc_write() - add an RDMA write
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_rc_write(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
				  const struct ibv_sge *sgl, size_t num_sge,
				  struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_write");
}

/**
 * vs_rc_write_imm() - add an RDMA write with immediate data
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
VS_INLINE VS__HOT int vs_rc_write_imm(struct vs_rc_batch *b, uint64_t wr_id,
				      unsigned int flags, uint32_t imm,
				      const struct ibv_sge *sgl, size_t num_sge,
				      struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__WRITE_IMM, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	vs__wr_imm(&w, imm);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_write_imm");
}

/**
 * vs_rc_read() - add an RDMA read into the local SGEs
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @sgl: the gather list (copied at add time)
 * @num_sge: entries in @sgl
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Reads remote into the local SGEs.
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_rc_read(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
				 const struct ibv_sge *sgl, size_t num_sge,
				 struct vs_remote remote)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__READ, wr_id, flags, sgl, num_sge);
	vs__wr_remote(&w, remote);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_read");
}

/**
 * vs_rc_cas() - add a 64-bit compare-and-swap
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @result: where the old 64-bit value lands
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 * @compare: the value expected at @remote
 * @swap: the value written when it matches
 *
 * 64-bit compare-and-swap at remote (8-byte aligned); the old value lands
 * in result (one 8-byte SGE), in the byte order of the remote memory.
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_rc_cas(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
				const struct ibv_sge *result, struct vs_remote remote,
				uint64_t compare, uint64_t swap)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__CAS, wr_id, flags, result, 1);
	vs__wr_remote(&w, remote);
	vs__wr_atomic(&w, compare, swap);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_cas");
}

/**
 * vs_rc_faa() - add a 64-bit fetch-and-add
 * @b: the batch
 * @wr_id: the caller's id, given back in the completion
 * @flags: enum vs_wr_flags
 * @result: where the old 64-bit value lands
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 * @add: the value added
 *
 * 64-bit fetch-and-add at remote; the old value lands in result.
 *
 * Return: as vs_rc_send().
 */
VS_INLINE VS__HOT int vs_rc_faa(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
				const struct ibv_sge *result, struct vs_remote remote,
				uint64_t add)
{
	struct vs__wr w;

	vs__wr_prep(&w, VS__FAA, wr_id, flags, result, 1);
	vs__wr_remote(&w, remote);
	vs__wr_atomic(&w, add, 0);
	return vs__batch_add(&b->b, VS_TRANSPORT_RC, &w, "vs_rc_faa");
}

/**
 * vs_rc_batch_submit() - post the batch with one doorbell; it is then closed
 * @b: the batch
 *
 * Rings the doorbell once for everything added; the batch is then closed.
 *
 * Return: 0 or -errno: -EINVAL a batch not started; the provider's error
 * (vs_last_error()->batch_posted says how many went out).
 */
VS_MUST_CHECK
VS_INLINE int vs_rc_batch_submit(struct vs_rc_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_RC_QP,
				"vs_rc_batch_submit");
}

/**
 * vs_rc_batch_abort() - drop the batch; nothing is posted
 * @b: the batch
 *
 * Return: nothing.
 */
VS_INLINE void vs_rc_batch_abort(struct vs_rc_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_RC_QP);
}

#ifdef VS__TYPE_GUARDS
#define vs_rc_batch_start(qp, b) vs_rc_batch_start(VS__IS(struct vs_rc_qp, qp), VS__IS(struct vs_rc_batch, b))
#define vs_rc_batch_submit(b) vs_rc_batch_submit(VS__IS(struct vs_rc_batch, b))
#define vs_rc_batch_abort(b) vs_rc_batch_abort(VS__IS(struct vs_rc_batch, b))
#define vs_rc_send(b, ...) vs_rc_send(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_send_imm(b, ...) vs_rc_send_imm(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_write(b, ...) vs_rc_write(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_write_imm(b, ...) vs_rc_write_imm(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_read(b, ...) vs_rc_read(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_cas(b, ...) vs_rc_cas(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_faa(b, ...) vs_rc_faa(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_POST_RC_H */
