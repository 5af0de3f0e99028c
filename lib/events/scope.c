/* SPDX-License-Identifier: MIT */
/*
 * Scopes (verbshim/scope.h): every send posted through a scope's batch is
 * recorded, posted signaled and under a wr_id of the scope's (bit 63, 31
 * bits of the scope, the record's index), so its completion is known
 * exactly, whatever wr_ids the caller uses elsewhere; the scope waits
 * for all of them (vs_scope_end) or one (vs_scope_wait).
 *
 * The batch is an ordinary one whose ops are the scope's: ibv_qp_ex ops
 * that record the WR and pass it on to the QP's real ops (the provider's
 * or lib/core/legacy_sq.c's), so the ordinary inlines add to it and submit it,
 * and batches outside scopes pay nothing.
 */
#include "events.h"

#define TAG_BIT (1ull << 63)

struct scope_qp {
	struct ibv_qp_ex ex;    /* first: the ops of the scope's batches */
	struct ibv_qp_ex *real; /* the QP's, while a batch is open */
	struct vs__scope *s;
	struct vs_qp *qp;       /* held (a reference) until the scope ends */
	uint32_t kind;
	uint32_t first_new;     /* the open batch's records start here */
	uint32_t outstanding;
	bool open;
};

struct record {
	uint64_t wr_id;         /* the caller's */
	struct scope_qp *q;
	bool done, reported;
	struct vs_wc wc;        /* when done, with the caller's wr_id */
};

struct vs__scope {
	enum vs_wait_mode mode;
	uint64_t tag;           /* TAG_BIT | this scope's 31 bits << 32 */
	struct scope_qp **qps;
	uint32_t nqps;
	struct record *recs;
	uint32_t nrecs, cap;
	uint32_t outstanding;
	bool failed;
	struct vs_wc first_err;
};

static struct scope_qp *sq_of(struct ibv_qp_ex *ex)
{
	return (struct scope_qp *)ex;
}

/* Opens the next record and hands the WR to the real ops, signaled. */
static struct ibv_qp_ex *record(struct ibv_qp_ex *ex)
{
	struct scope_qp *q = sq_of(ex);
	struct vs__scope *s = q->s;
	uint32_t i = s->nrecs++; /* room reserved at the batch's start */

	s->recs[i] = (struct record){ .wr_id = ex->wr_id, .q = q };
	q->real->wr_id = s->tag | i;
	q->real->wr_flags = ex->wr_flags | IBV_SEND_SIGNALED;
	return q->real;
}

static void op_send(struct ibv_qp_ex *ex)
{
	ibv_wr_send(record(ex));
}

static void op_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	ibv_wr_send_imm(record(ex), imm);
}

static void op_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	ibv_wr_rdma_write(record(ex), rkey, raddr);
}

static void op_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
			 __be32 imm)
{
	ibv_wr_rdma_write_imm(record(ex), rkey, raddr, imm);
}

static void op_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr)
{
	ibv_wr_rdma_read(record(ex), rkey, raddr);
}

static void op_cas(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
		   uint64_t compare, uint64_t swap)
{
	ibv_wr_atomic_cmp_swp(record(ex), rkey, raddr, compare, swap);
}

static void op_faa(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t raddr,
		   uint64_t add)
{
	ibv_wr_atomic_fetch_add(record(ex), rkey, raddr, add);
}

static void op_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey)
{
	ibv_wr_set_ud_addr(sq_of(ex)->real, ah, remote_qpn, remote_qkey);
}

static void op_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
		   uint32_t length)
{
	ibv_wr_set_sge(sq_of(ex)->real, lkey, addr, length);
}

static void op_sge_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_sge *sgl)
{
	ibv_wr_set_sge_list(sq_of(ex)->real, n, sgl);
}

static void op_inline(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	ibv_wr_set_inline_data(sq_of(ex)->real, addr, length);
}

static void op_inline_list(struct ibv_qp_ex *ex, size_t n,
			   const struct ibv_data_buf *bufs)
{
	ibv_wr_set_inline_data_list(sq_of(ex)->real, n, bufs);
}

static void op_start(struct ibv_qp_ex *ex)
{
	ibv_wr_start(sq_of(ex)->real);
}

/* The batch ends: its records wait for their completions, or go. */
static void batch_closed(struct scope_qp *q, uint32_t posted)
{
	struct vs__scope *s = q->s;

	s->nrecs = q->first_new + posted;
	s->outstanding += posted;
	q->outstanding += posted;
	q->open = false;
}

static int op_complete(struct ibv_qp_ex *ex)
{
	struct scope_qp *q = sq_of(ex);
	uint32_t added = q->s->nrecs - q->first_new, posted = added;
	int ret = ibv_wr_complete(q->real);

	if (ret) {
		/*
		 * extended: all or nothing; legacy: those before the refused
		 * WR went out.  Not known: all are kept (waiting in vain is
		 * safe, a buffer handed back early is not).
		 */
		long ok = q->qp->legacy ? vs__legacy_sq_bad_index(q->qp->legacy) : 0;

		posted = ok < 0 ? added : (uint32_t)ok;
	}
	batch_closed(q, posted);
	return ret;
}

static void op_abort(struct ibv_qp_ex *ex)
{
	struct scope_qp *q = sq_of(ex);

	ibv_wr_abort(q->real);
	batch_closed(q, 0);
}

static const struct ibv_qp_ex scope_ops = {
	.wr_send = op_send,
	.wr_send_imm = op_send_imm,
	.wr_rdma_write = op_write,
	.wr_rdma_write_imm = op_write_imm,
	.wr_rdma_read = op_read,
	.wr_atomic_cmp_swp = op_cas,
	.wr_atomic_fetch_add = op_faa,
	.wr_set_ud_addr = op_ud_addr,
	.wr_set_sge = op_sge,
	.wr_set_sge_list = op_sge_list,
	.wr_set_inline_data = op_inline,
	.wr_set_inline_data_list = op_inline_list,
	.wr_start = op_start,
	.wr_complete = op_complete,
	.wr_abort = op_abort,
};

/* Record i belongs to the batch still open (not posted yet). */
static bool unposted(const struct vs__scope *s, uint32_t i)
{
	const struct scope_qp *q = s->recs[i].q;

	return q->open && i >= q->first_new;
}

/* A completion of cq: the scope's when it carries one of its tags. */
static bool take_own(void *arg, struct vs_wc *wc)
{
	struct vs__scope *s = arg;
	uint64_t i = wc->wr_id & 0xffffffffu;
	struct record *r;

	if ((wc->wr_id & ~0xffffffffull) != s->tag || i >= s->nrecs)
		return false;
	r = &s->recs[i];
	if (r->done || unposted(s, i) || wc->qp_num != r->q->qp->qp->qp_num)
		return false;
	r->done = true;
	r->wc = *wc;
	r->wc.wr_id = r->wr_id;
	s->outstanding--;
	r->q->outstanding--;
	/*
	 * The first error, but a cause before a flush: rxe of kernel 6.12
	 * flushes a WR ahead of the one that failed when the NAK comes first.
	 */
	if (wc->status != IBV_WC_SUCCESS &&
	    (!s->failed || (s->first_err.status == IBV_WC_WR_FLUSH_ERR &&
			    wc->status != IBV_WC_WR_FLUSH_ERR))) {
		s->failed = true;
		s->first_err = r->wc;
	}
	return true;
}

static int scope_open(const struct vs_scope *s, const char *call)
{
	if (!s)
		return vs__set_error(call, EINVAL, "s is NULL");
	if (!s->p)
		return vs__set_error(call, EINVAL, "the scope is not open "
				     "(vs_scope_begin) or has ended");
	return 0;
}

int vs_scope_begin(struct vs_scope *s, enum vs_wait_mode mode)
{
	static const char call[] = "vs_scope_begin";
	struct vs__scope *p;

	if (!s)
		return vs__set_error(call, EINVAL, "s is NULL");
	s->p = NULL;
	if (mode != VS_WAIT_POLL && mode != VS_WAIT_SLEEP)
		return vs__set_error(call, EINVAL, "mode is %d: VS_WAIT_POLL or "
				     "VS_WAIT_SLEEP", (int)mode);
	p = calloc(1, sizeof(*p));
	if (!p)
		return vs__set_error(call, ENOMEM, "out of memory");
	p->mode = mode;
	/* 31 bits of the state's address: scopes alive at once differ */
	p->tag = TAG_BIT | (((uint64_t)((uintptr_t)p >> 4) & 0x7fffffffu) << 32);
	s->p = p;
	return 0;
}

/* The scope's entry for qp, made (holding qp) at its first batch. */
static int scope_qp_get(struct vs__scope *s, struct vs_qp *qp, uint32_t kind,
			struct scope_qp **out, const char *call)
{
	struct scope_qp **qps, *q;

	for (uint32_t i = 0; i < s->nqps; i++)
		if (s->qps[i]->qp == qp) {
			*out = s->qps[i];
			return 0;
		}
	qps = realloc(s->qps, (s->nqps + 1) * sizeof(*qps));
	if (!qps)
		return vs__set_error(call, ENOMEM, "out of memory");
	s->qps = qps;
	q = calloc(1, sizeof(*q));
	if (!q)
		return vs__set_error(call, ENOMEM, "out of memory");
	q->ex = scope_ops;
	q->s = s;
	q->qp = qp;
	q->kind = kind;
	vs__ref_get(&qp->h);
	s->qps[s->nqps++] = q;
	*out = q;
	return 0;
}

static int reserve(struct vs__scope *s, uint32_t more, const char *call)
{
	struct record *r;
	uint32_t cap = s->cap ? s->cap : 64;

	while (cap - s->nrecs < more)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	r = realloc(s->recs, cap * sizeof(*r));
	if (!r)
		return vs__set_error(call, ENOMEM, "out of memory (%u WRs in "
				     "the scope)", s->nrecs);
	s->recs = r;
	s->cap = cap;
	return 0;
}

/* -EBUSY while a batch of the scope is open (one at a time) */
static int batch_open(const struct vs__scope *s, const char *call)
{
	for (uint32_t i = 0; i < s->nqps; i++)
		if (s->qps[i]->open)
			return vs__set_error(call, EBUSY, "a batch of the scope "
					     "is open on QP %u: submit or abort "
					     "it first", s->qps[i]->qp->qp->qp_num);
	return 0;
}

static int scope_start(struct vs_scope *s, struct vs_qp *qp, uint32_t kind,
		       struct vs__send_batch *b, const char *call)
{
	struct scope_qp *q = NULL;
	int ret = scope_open(s, call);

	if (!ret)
		ret = batch_open(s->p, call);
	if (!ret)
		ret = vs__check_handle(qp, kind, call, "qp");
	if (!ret)
		ret = vs__wait_mode_check(qp->send_cq, s->p->mode, call);
	if (!ret && !b)
		ret = vs__set_error(call, EINVAL, "b is NULL");
	if (!ret)
		ret = scope_qp_get(s->p, qp, kind, &q, call);
	if (!ret)
		ret = reserve(s->p, qp->max_batch, call);
	/* the CQ is drained first: every WR signaled needs no deeper CQ */
	if (!ret)
		ret = vs__cq_take(qp->send_cq, take_own, s->p, call);
	if (ret < 0) {
		if (b)
			*b = (struct vs__send_batch){ 0 };
		return ret;
	}
	ret = vs__batch_start(b, qp, kind, call);
	if (ret)
		return ret;
	q->real = b->ops;
	q->first_new = s->p->nrecs;
	q->open = true;
	b->ops = &q->ex;
	return 0;
}

int vs_scope_rc_batch_start(struct vs_scope *s, struct vs_rc_qp *qp,
			    struct vs_rc_batch *b)
{
	return scope_start(s, qp ? &qp->base : NULL, VS_KIND_RC_QP,
			   b ? &b->b : NULL, "vs_scope_rc_batch_start");
}

int vs_scope_uc_batch_start(struct vs_scope *s, struct vs_uc_qp *qp,
			    struct vs_uc_batch *b)
{
	return scope_start(s, qp ? &qp->base : NULL, VS_KIND_UC_QP,
			   b ? &b->b : NULL, "vs_scope_uc_batch_start");
}

int vs_scope_ud_batch_start(struct vs_scope *s, struct vs_ud_qp *qp,
			    struct vs_ud_batch *b)
{
	return scope_start(s, qp ? &qp->base : NULL, VS_KIND_UD_QP,
			   b ? &b->b : NULL, "vs_scope_ud_batch_start");
}

/*
 * Takes the scope's completions from its CQs until record `until` is
 * done (or, with until == UINT32_MAX, every record): 0, or -EAGAIN,
 * -ETIMEDOUT, an error.
 */
static int run(struct vs__scope *s, uint32_t until, int timeout_ms,
	       const char *call)
{
	int64_t deadline = vs__deadline(timeout_ms);
	unsigned int spins = 0;

	for (;;) {
		struct vs_cq *pause_on = NULL;

		for (uint32_t i = 0; i < s->nqps; i++) {
			struct scope_qp *q = s->qps[i];
			int ret;

			if (!q->outstanding)
				continue;
			ret = vs__cq_take(q->qp->send_cq, take_own, s, call);
			if (ret < 0)
				return ret;
			if (q->outstanding && !pause_on)
				pause_on = q->qp->send_cq;
		}
		if (until == UINT32_MAX ? !s->outstanding : s->recs[until].done)
			return 0;
		if (until != UINT32_MAX)
			pause_on = s->recs[until].q->qp->send_cq;
		{
			int ret = vs__wait_pause(pause_on, s->mode, timeout_ms,
						 deadline, &spins, call);

			if (ret)
				return ret;
		}
	}
}

int vs_scope_wait(struct vs_scope *s, uint64_t wr_id, int timeout_ms,
		  struct vs_wc *wc)
{
	static const char call[] = "vs_scope_wait";
	struct vs__scope *p;
	uint32_t i;
	int ret = scope_open(s, call);

	if (ret)
		return ret;
	if (!wc)
		return vs__set_error(call, EINVAL, "wc is NULL");
	p = s->p;
	for (i = 0; i < p->nrecs; i++)
		if (p->recs[i].wr_id == wr_id && !p->recs[i].reported &&
		    !unposted(p, i))
			break;
	if (i == p->nrecs)
		return vs__set_error(call, ENOENT, "no WR with wr_id %llu was "
				     "posted in this scope, or its status was "
				     "given already", (unsigned long long)wr_id);
	ret = run(p, i, timeout_ms, call);
	if (ret == -ETIMEDOUT)
		return vs__set_error(call, ETIMEDOUT, "WR %llu of the scope did "
				     "not complete within %d ms (timed out; the "
				     "scope is still open: its buffers are not "
				     "the caller's yet)", (unsigned long long)wr_id,
				     timeout_ms);
	if (ret)
		return ret;
	p->recs[i].reported = true;
	*wc = p->recs[i].wc;
	return wc->status == IBV_WC_SUCCESS ? 0 : vs__wc_failed(wc, call);
}

int vs_scope_end(struct vs_scope *s, int timeout_ms, struct vs_wc *first_err)
{
	static const char call[] = "vs_scope_end";
	struct vs__scope *p;
	int ret = scope_open(s, call), put = 0;

	if (ret)
		return ret;
	p = s->p;
	ret = batch_open(p, call);
	if (ret)
		return ret;
	ret = run(p, UINT32_MAX, timeout_ms, call);
	if (ret == -ETIMEDOUT)
		return vs__set_error(call, ETIMEDOUT, "%u WRs of the scope had "
				     "not completed within %d ms (timed out; the "
				     "scope is still open: its buffers are not "
				     "the caller's yet)", (unsigned)p->outstanding,
				     timeout_ms);
	if (ret)
		return ret; /* still open: its buffers are not safe */
	if (p->failed) {
		if (first_err)
			*first_err = p->first_err;
		ret = vs__wc_failed(&p->first_err, call);
	}
	for (uint32_t i = 0; i < p->nqps; i++) {
		put = vs__first_err(put, vs__qp_put(p->qps[i]->qp, call));
		free(p->qps[i]);
	}
	free(p->qps);
	free(p->recs);
	free(p);
	s->p = NULL;
	return vs__first_err(ret, put);
}
