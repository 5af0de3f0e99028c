/* SPDX-License-Identifier: MIT */
/*
 * A legacy send queue behind the ibv_wr_* ops.  The send inlines call the
 * same ops on every QP; where the provider has no ibv_qp_ex (or .legacy
 * was asked) they get these, which build one chained ibv_post_send that
 * wr_complete posts.  Private to the typed API: only the inlines of
 * post.h call it, after their checks (room in the batch, SGE count), and
 * only the ops they use are filled.
 *
 * Unlike a provider's ibv_wr_set_inline_data*, the payload is not copied
 * here: the WR points at it with IBV_SEND_INLINE and ibv_post_send copies
 * it, which the batch contract allows (the bytes stay valid until submit).
 */
#include "core.h"

struct vs__legacy_sq {
	struct ibv_qp_ex ex; /* first: the ops the inlines call */
	struct ibv_qp *qp;
	struct ibv_send_wr *wr; /* one per WR of a batch, chained as added */
	struct ibv_sge *sge;    /* max_sge per WR */
	uint32_t max_sge;
	uint32_t count;
	long bad_index; /* of the last refused post; -1 when unknown */
};

static struct vs__legacy_sq *sq_of(struct ibv_qp_ex *ex)
{
	return (struct vs__legacy_sq *)ex;
}

static struct ibv_send_wr *current_wr(struct ibv_qp_ex *ex)
{
	struct vs__legacy_sq *l = sq_of(ex);

	return &l->wr[l->count - 1];
}

/* Opens the next WR of the chain with the ex's wr_id and wr_flags. */
static struct ibv_send_wr *new_wr(struct ibv_qp_ex *ex,
				  enum ibv_wr_opcode opcode)
{
	struct vs__legacy_sq *l = sq_of(ex);
	struct ibv_send_wr *wr = &l->wr[l->count];

	*wr = (struct ibv_send_wr){
		.wr_id = ex->wr_id,
		.sg_list = l->sge + (size_t)l->count * l->max_sge,
		.opcode = opcode,
		.send_flags = ex->wr_flags,
	};
	if (l->count)
		wr[-1].next = wr;
	l->count++;
	return wr;
}

static void op_send(struct ibv_qp_ex *ex)
{
	new_wr(ex, IBV_WR_SEND);
}

static void op_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	new_wr(ex, IBV_WR_SEND_WITH_IMM)->imm_data = imm;
}

/* Opens an RDMA WR (write, write with immediate, read) to raddr/rkey. */
static struct ibv_send_wr *new_rdma_wr(struct ibv_qp_ex *ex,
				       enum ibv_wr_opcode opcode,
				       uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *wr = new_wr(ex, opcode);

	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = rkey;
	return wr;
}

static void op_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	new_rdma_wr(ex, IBV_WR_RDMA_WRITE, rkey, raddr);
}

static void op_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
			 __be32 imm)
{
	new_rdma_wr(ex, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, raddr)->imm_data = imm;
}

static void op_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	new_rdma_wr(ex, IBV_WR_RDMA_READ, rkey, raddr);
}

static void op_cas(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
		   uint64_t compare, uint64_t swap)
{
	struct ibv_send_wr *wr = new_wr(ex, IBV_WR_ATOMIC_CMP_AND_SWP);

	wr->wr.atomic.remote_addr = raddr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = compare;
	wr->wr.atomic.swap = swap;
}

static void op_faa(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
		   uint64_t add)
{
	struct ibv_send_wr *wr = new_wr(ex, IBV_WR_ATOMIC_FETCH_AND_ADD);

	wr->wr.atomic.remote_addr = raddr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = add;
}

static void op_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = current_wr(ex);

	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

static void op_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
		   uint32_t length)
{
	struct ibv_send_wr *wr = current_wr(ex);

	wr->sg_list[0] = (struct ibv_sge){
		.addr = addr, .length = length, .lkey = lkey };
	wr->num_sge = 1;
}

static void op_sge_list(struct ibv_qp_ex *ex, size_t num_sge,
			const struct ibv_sge *sgl)
{
	struct ibv_send_wr *wr = current_wr(ex);

	if (num_sge) /* a WR of no SGE may come with sgl NULL */
		memcpy(wr->sg_list, sgl, num_sge * sizeof(*sgl));
	wr->num_sge = (int)num_sge;
}

static void op_inline(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	op_sge(ex, 0, (uintptr_t)addr, (uint32_t)length);
	current_wr(ex)->send_flags |= IBV_SEND_INLINE;
}

static void op_inline_list(struct ibv_qp_ex *ex, size_t num_buf,
			   const struct ibv_data_buf *bufs)
{
	struct ibv_send_wr *wr = current_wr(ex);

	for (size_t i = 0; i < num_buf; i++)
		wr->sg_list[i] = (struct ibv_sge){
			.addr = (uintptr_t)bufs[i].addr,
			.length = (uint32_t)bufs[i].length,
		};
	wr->num_sge = (int)num_buf;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void op_start(struct ibv_qp_ex *ex)
{
	sq_of(ex)->count = 0;
}

static int op_complete(struct ibv_qp_ex *ex)
{
	struct vs__legacy_sq *l = sq_of(ex);
	struct ibv_send_wr *bad = NULL;
	int ret = 0;

	l->bad_index = -1;
	if (l->count)
		ret = ibv_post_send(l->qp, l->wr, &bad);
	/* rxe returns -ENOMEM for a full queue: errnos are positive here */
	if (ret < 0)
		ret = -ret;
	if (ret && bad)
		l->bad_index = (long)(bad - l->wr);
	l->count = 0;
	return ret;
}

static void op_abort(struct ibv_qp_ex *ex)
{
	sq_of(ex)->count = 0;
}

struct vs__legacy_sq *vs__legacy_sq_create(struct ibv_qp *qp, uint32_t cap,
					   uint32_t max_sge)
{
	struct vs__legacy_sq *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->wr = calloc(cap, sizeof(*l->wr));
	l->sge = calloc((size_t)cap * max_sge, sizeof(*l->sge));
	if (!l->wr || !l->sge) {
		vs__legacy_sq_free(l);
		return NULL;
	}
	l->qp = qp;
	l->max_sge = max_sge;
	l->bad_index = -1;
	l->ex.wr_send = op_send;
	l->ex.wr_send_imm = op_send_imm;
	l->ex.wr_rdma_write = op_write;
	l->ex.wr_rdma_write_imm = op_write_imm;
	l->ex.wr_rdma_read = op_read;
	l->ex.wr_atomic_cmp_swp = op_cas;
	l->ex.wr_atomic_fetch_add = op_faa;
	l->ex.wr_set_ud_addr = op_ud_addr;
	l->ex.wr_set_sge = op_sge;
	l->ex.wr_set_sge_list = op_sge_list;
	l->ex.wr_set_inline_data = op_inline;
	l->ex.wr_set_inline_data_list = op_inline_list;
	l->ex.wr_start = op_start;
	l->ex.wr_complete = op_complete;
	l->ex.wr_abort = op_abort;
	return l;
}

struct ibv_qp_ex *vs__legacy_sq_ops(struct vs__legacy_sq *l)
{
	return &l->ex;
}

long vs__legacy_sq_bad_index(const struct vs__legacy_sq *l)
{
	return l->bad_index;
}

void vs__legacy_sq_free(struct vs__legacy_sq *l)
{
	if (!l)
		return;
	free(l->wr);
	free(l->sge);
	free(l);
}
