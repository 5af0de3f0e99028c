/* SPDX-License-Identifier: MIT */
/*
 * One send work request: its flags (public), and how an operation of
 * include/verbshim/post.h describes it to the batch engine
 * (include/verbshim/batch.h; private: everything named vs__).
 */
#ifndef VERBSHIM_WR_H
#define VERBSHIM_WR_H

#include "verbshim/qp.h"
#include "verbshim/ah.h"

VS_BEGIN_DECLS

/* Work request modifiers; the values are the IBV_SEND_* bits. */
enum vs_wr_flags {
	VS_WR_FENCE = IBV_SEND_FENCE,
	VS_WR_SIGNALED = IBV_SEND_SIGNALED,
	VS_WR_SOLICITED = IBV_SEND_SOLICITED,
	VS_WR_INLINE = IBV_SEND_INLINE, /* copy the payload into the WQE */
};
#define VS_WR_FLAGS_ALL                                                       \
	(VS_WR_FENCE | VS_WR_SIGNALED | VS_WR_SOLICITED | VS_WR_INLINE)

/* private */
enum vs__op {
	VS__SEND,
	VS__SEND_IMM,
	VS__WRITE,
	VS__WRITE_IMM,
	VS__READ,
	VS__CAS,
	VS__FAA,
};

/* private: t addresses each WR by an address handle, QPN and Q_Key */
VS__INLINE bool vs__t_by_ah(enum vs_transport t)
{
	return t == VS_TRANSPORT_UD || t == VS_TRANSPORT_SRD;
}

/* private: the IBV_QP_EX_WITH_* flag a QP needs for op (0: every QP has it) */
VS__INLINE uint64_t vs__op_send_flag(enum vs__op op)
{
	switch (op) {
	case VS__WRITE: return IBV_QP_EX_WITH_RDMA_WRITE;
	case VS__WRITE_IMM: return IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	case VS__READ: return IBV_QP_EX_WITH_RDMA_READ;
	case VS__CAS: return IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	case VS__FAA: return IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	default: return 0;
	}
}

/*
 * private: s is the poisoned entry of a failed vs_mr_sge (length and lkey
 * both 0: one 8-byte compare).
 */
VS__INLINE bool vs__sge_poisoned(const struct ibv_sge *s)
{
	uint64_t w;

	memcpy(&w, &s->length, sizeof(w));
	return w == 0;
}

/*
 * private: one WR as its operation describes it.  vs__wr_prep() sets what
 * every WR has and zeroes the rest; each operation then sets what it
 * needs (vs__wr_remote, vs__wr_imm, vs__wr_atomic, vs__wr_dest), as
 * liburing's io_uring_prep_* over io_uring_prep_rw.  It lives in the
 * inline add and is never handed out of line, so its fields stay in
 * registers and the ones an operation does not read cost nothing.
 */
struct vs__wr {
	enum vs__op op;
	unsigned int flags;
	uint64_t wr_id;
	const struct ibv_sge *sgl;
	size_t num_sge;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;            /* host byte order */
	uint64_t compare_add;    /* CAS: the compare; FAA: the add */
	uint64_t swap;
	const struct vs_ud_dest *dest; /* UD and SRD */
};

VS__FORCE_INLINE void vs__wr_prep(struct vs__wr *w, enum vs__op op, uint64_t wr_id,
			   unsigned int flags, const struct ibv_sge *sgl,
			   size_t num_sge)
{
	w->op = op;
	w->flags = flags;
	w->wr_id = wr_id;
	w->sgl = sgl;
	w->num_sge = num_sge;
	w->raddr = 0;
	w->rkey = 0;
	w->imm = 0;
	w->compare_add = 0;
	w->swap = 0;
	w->dest = NULL;
}

VS__FORCE_INLINE void vs__wr_remote(struct vs__wr *w, struct vs_remote remote)
{
	w->raddr = remote.addr;
	w->rkey = remote.rkey;
}

VS__FORCE_INLINE void vs__wr_imm(struct vs__wr *w, uint32_t imm)
{
	w->imm = imm;
}

VS__FORCE_INLINE void vs__wr_atomic(struct vs__wr *w, uint64_t compare_add,
			     uint64_t swap)
{
	w->compare_add = compare_add;
	w->swap = swap;
}

VS__FORCE_INLINE void vs__wr_dest(struct vs__wr *w, const struct vs_ud_dest *dest)
{
	w->dest = dest;
}

VS_END_DECLS

#endif /* VERBSHIM_WR_H */
