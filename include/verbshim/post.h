/* SPDX-License-Identifier: MIT */
/*
 * Posting: doorbell batches of send work requests, typed by transport
 * (receives: include/verbshim/recv.h).
 *
 *	struct vs_rc_batch b;
 *	vs_rc_batch_start(qp, &b);
 *	vs_rc_write(&b, 1, 0, &sge, 1, remote);
 *	vs_rc_send(&b, 2, VS_WR_SIGNALED, &sge, 1);
 *	vs_rc_batch_submit(&b);            // one doorbell
 *
 * Extended QPs post through ibv_wr_start/ibv_wr_* /ibv_wr_complete, legacy
 * QPs as one chained ibv_post_send: the same calls and results both ways.
 * A batch holds at most the QP's max_batch WRs; while one is open no
 * other batch may start on the QP (the provider holds the SQ).  An add
 * that fails leaves the batch as it was.  SGE arrays are copied at add
 * time; the bytes they point at (inline data included) must stay valid
 * until submit, and until the completion unless sent inline.
 */
#ifndef VERBSHIM_POST_H
#define VERBSHIM_POST_H

#include "verbshim/batch.h"

VS_BEGIN_DECLS

/* ---- RC: send, send+imm, write, write+imm, read, CAS, FAA ---- */

VS_INLINE int vs_rc_batch_start(struct vs_rc_qp *qp, struct vs_rc_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_RC_QP, "vs_rc_batch_start");
}

VS_INLINE int vs_rc_send(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
			 const struct ibv_sge *sgl, size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__SEND, wr_id, flags, sgl, num_sge, 0, 0,
			     0, 0, 0, NULL, "vs_rc_send");
}

/* imm in host byte order (the receiver's vs_wc.imm gives it back). */
VS_INLINE int vs_rc_send_imm(struct vs_rc_batch *b, uint64_t wr_id,
			     unsigned int flags, uint32_t imm,
			     const struct ibv_sge *sgl, size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__SEND_IMM, wr_id, flags, sgl, num_sge, 0,
			     0, imm, 0, 0, NULL, "vs_rc_send_imm");
}

VS_INLINE int vs_rc_write(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
			  const struct ibv_sge *sgl, size_t num_sge,
			  struct vs_remote remote)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__WRITE, wr_id, flags, sgl, num_sge,
			     remote.addr, remote.rkey, 0, 0, 0, NULL, "vs_rc_write");
}

VS_INLINE int vs_rc_write_imm(struct vs_rc_batch *b, uint64_t wr_id,
			      unsigned int flags, uint32_t imm,
			      const struct ibv_sge *sgl, size_t num_sge,
			      struct vs_remote remote)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__WRITE_IMM, wr_id, flags, sgl, num_sge,
			     remote.addr, remote.rkey, imm, 0, 0, NULL,
			     "vs_rc_write_imm");
}

/* Reads remote into the local SGEs. */
VS_INLINE int vs_rc_read(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
			 const struct ibv_sge *sgl, size_t num_sge,
			 struct vs_remote remote)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__READ, wr_id, flags, sgl, num_sge,
			     remote.addr, remote.rkey, 0, 0, 0, NULL, "vs_rc_read");
}

/*
 * 64-bit compare-and-swap at remote (8-byte aligned); the old value lands
 * in result (one 8-byte SGE), in the byte order of the remote memory.
 */
VS_INLINE int vs_rc_cas(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
			const struct ibv_sge *result, struct vs_remote remote,
			uint64_t compare, uint64_t swap)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__CAS, wr_id, flags, result, 1, remote.addr,
			     remote.rkey, 0, compare, swap, NULL, "vs_rc_cas");
}

/* 64-bit fetch-and-add at remote; the old value lands in result. */
VS_INLINE int vs_rc_faa(struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags,
			const struct ibv_sge *result, struct vs_remote remote,
			uint64_t add)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_RC,
			     VS__FAA, wr_id, flags, result, 1, remote.addr,
			     remote.rkey, 0, add, 0, NULL, "vs_rc_faa");
}

/* Rings the doorbell once for everything added; the batch is then closed. */
VS_MUST_CHECK
VS_INLINE int vs_rc_batch_submit(struct vs_rc_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_RC_QP,
				"vs_rc_batch_submit");
}

VS_INLINE void vs_rc_batch_abort(struct vs_rc_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_RC_QP);
}

/* ---- UC: send, send+imm, write, write+imm ---- */

VS_INLINE int vs_uc_batch_start(struct vs_uc_qp *qp, struct vs_uc_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_UC_QP, "vs_uc_batch_start");
}

VS_INLINE int vs_uc_send(struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags,
			 const struct ibv_sge *sgl, size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UC,
			     VS__SEND, wr_id, flags, sgl, num_sge, 0, 0,
			     0, 0, 0, NULL, "vs_uc_send");
}

VS_INLINE int vs_uc_send_imm(struct vs_uc_batch *b, uint64_t wr_id,
			     unsigned int flags, uint32_t imm,
			     const struct ibv_sge *sgl, size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UC,
			     VS__SEND_IMM, wr_id, flags, sgl, num_sge, 0,
			     0, imm, 0, 0, NULL, "vs_uc_send_imm");
}

VS_INLINE int vs_uc_write(struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags,
			  const struct ibv_sge *sgl, size_t num_sge,
			  struct vs_remote remote)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UC,
			     VS__WRITE, wr_id, flags, sgl, num_sge,
			     remote.addr, remote.rkey, 0, 0, 0, NULL, "vs_uc_write");
}

VS_INLINE int vs_uc_write_imm(struct vs_uc_batch *b, uint64_t wr_id,
			      unsigned int flags, uint32_t imm,
			      const struct ibv_sge *sgl, size_t num_sge,
			      struct vs_remote remote)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UC,
			     VS__WRITE_IMM, wr_id, flags, sgl, num_sge,
			     remote.addr, remote.rkey, imm, 0, 0, NULL,
			     "vs_uc_write_imm");
}

VS_MUST_CHECK
VS_INLINE int vs_uc_batch_submit(struct vs_uc_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_UC_QP,
				"vs_uc_batch_submit");
}

VS_INLINE void vs_uc_batch_abort(struct vs_uc_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_UC_QP);
}

/* ---- UD: send and send+imm, always to an explicit destination ---- */

VS_INLINE int vs_ud_batch_start(struct vs_ud_qp *qp, struct vs_ud_batch *b)
{
	return vs__batch_start(b ? &b->b : NULL, (struct vs_qp *)qp,
			       VS_KIND_UD_QP, "vs_ud_batch_start");
}

VS_INLINE int vs_ud_send(struct vs_ud_batch *b, uint64_t wr_id, unsigned int flags,
			 const struct vs_ud_dest *dest, const struct ibv_sge *sgl,
			 size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UD,
			     VS__SEND, wr_id, flags, sgl, num_sge, 0, 0,
			     0, 0, 0, dest, "vs_ud_send");
}

VS_INLINE int vs_ud_send_imm(struct vs_ud_batch *b, uint64_t wr_id,
			     unsigned int flags, const struct vs_ud_dest *dest,
			     uint32_t imm, const struct ibv_sge *sgl,
			     size_t num_sge)
{
	return vs__batch_add(&b->b, VS_TRANSPORT_UD,
			     VS__SEND_IMM, wr_id, flags, sgl, num_sge, 0,
			     0, imm, 0, 0, dest, "vs_ud_send_imm");
}

VS_MUST_CHECK
VS_INLINE int vs_ud_batch_submit(struct vs_ud_batch *b)
{
	return vs__batch_submit(b ? &b->b : NULL, VS_KIND_UD_QP,
				"vs_ud_batch_submit");
}

VS_INLINE void vs_ud_batch_abort(struct vs_ud_batch *b)
{
	vs__batch_abort(b ? &b->b : NULL, VS_KIND_UD_QP);
}

#ifdef VS__TYPE_GUARDS
#define vs_rc_batch_start(qp, b) vs_rc_batch_start(VS__IS(struct vs_rc_qp, qp), VS__IS(struct vs_rc_batch, b))
#define vs_rc_batch_submit(b) vs_rc_batch_submit(VS__IS(struct vs_rc_batch, b))
#define vs_rc_batch_abort(b) vs_rc_batch_abort(VS__IS(struct vs_rc_batch, b))
#define vs_uc_batch_start(qp, b) vs_uc_batch_start(VS__IS(struct vs_uc_qp, qp), VS__IS(struct vs_uc_batch, b))
#define vs_uc_batch_submit(b) vs_uc_batch_submit(VS__IS(struct vs_uc_batch, b))
#define vs_uc_batch_abort(b) vs_uc_batch_abort(VS__IS(struct vs_uc_batch, b))
#define vs_ud_batch_start(qp, b) vs_ud_batch_start(VS__IS(struct vs_ud_qp, qp), VS__IS(struct vs_ud_batch, b))
#define vs_ud_batch_submit(b) vs_ud_batch_submit(VS__IS(struct vs_ud_batch, b))
#define vs_ud_batch_abort(b) vs_ud_batch_abort(VS__IS(struct vs_ud_batch, b))
#define vs_rc_send(b, ...) vs_rc_send(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_send_imm(b, ...) vs_rc_send_imm(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_write(b, ...) vs_rc_write(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_write_imm(b, ...) vs_rc_write_imm(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_uc_send(b, ...) vs_uc_send(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_send_imm(b, ...) vs_uc_send_imm(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_write(b, ...) vs_uc_write(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_uc_write_imm(b, ...) vs_uc_write_imm(VS__IS(struct vs_uc_batch, b), __VA_ARGS__)
#define vs_rc_read(b, ...) vs_rc_read(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_cas(b, ...) vs_rc_cas(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_rc_faa(b, ...) vs_rc_faa(VS__IS(struct vs_rc_batch, b), __VA_ARGS__)
#define vs_ud_send(b, wr_id, flags, dest, ...) vs_ud_send(VS__IS(struct vs_ud_batch, b), wr_id, flags, VS__IS_C(struct vs_ud_dest, dest), __VA_ARGS__)
#define vs_ud_send_imm(b, wr_id, flags, dest, ...) vs_ud_send_imm(VS__IS(struct vs_ud_batch, b), wr_id, flags, VS__IS_C(struct vs_ud_dest, dest), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_POST_H */
