/* SPDX-License-Identifier: MIT */
/*
 * The out-of-line halves of the inline data path: precise error reports
 * (the inlines only detect), and receive storage.
 */
#include "core.h"

/*
 * A start the gate refused.  The first batch of a QP whose provider needs
 * the bounce ring (vs__qp_ring_missing) makes it and opens the gate: 0,
 * the start goes on.  A QP that never sends registers nothing.
 */
int vs__batch_start_slow(bool have_batch, struct vs_qp *qp, uint32_t kind,
			 const char *verb)
{
	int ret;

	if (!have_batch)
		return vs__set_error(verb, EINVAL, "batch is NULL");
	ret = vs__check_handle(qp, kind, verb, "qp");
	if (ret)
		return ret;
	if (vs__qp_batch_open(qp))
		return vs__set_error(verb, EBUSY,
				     "a batch is already open on this QP: submit "
				     "or abort it first");
	if (qp->state != IBV_QPS_RTS)
		return vs__set_error(verb, EINVAL,
				     "the QP is in state %s; sends need RTS (bring "
				     "it up with the handshake first)",
				     vs_qp_state_name(qp->state));
	if (vs__qp_ring_missing(qp)) {
		ret = vs__bounce_ready(qp, verb);
		if (ret)
			return ret;
		vs__qp_set_state(qp, qp->state); /* opens the gate */
		return 0;
	}
	return vs__set_error(verb, EINVAL, "cannot start a batch");
}

static const char *op_name(int op)
{
	switch (op) {
	case VS__SEND: return "send";
	case VS__SEND_IMM: return "send with immediate";
	case VS__WRITE: return "RDMA write";
	case VS__WRITE_IMM: return "RDMA write with immediate";
	case VS__READ: return "RDMA read";
	case VS__CAS: return "compare-and-swap";
	case VS__FAA: return "fetch-and-add";
	default: return "work request";
	}
}

int vs__batch_add_failed(struct vs_qp *qp, uint32_t count, int op,
			 unsigned int flags, const struct ibv_sge *sgl,
			 size_t num_sge, uint64_t remote_addr,
			 const struct vs_ud_dest *dest, const char *verb)
{
	const char *what = op_name(op);

	if (count >= qp->max_batch)
		return vs__set_error(verb, ENOSPC,
				     "the batch is full (%u WRs, the QP's max_batch): "
				     "submit it and start another", count);
	if (flags & ~(unsigned int)VS_WR_FLAGS_ALL)
		return vs__set_error(verb, EINVAL,
				     "flags 0x%x has bits that are not VS_WR_* "
				     "(0x%x)", flags, (unsigned int)VS_WR_FLAGS_ALL);
	if (num_sge && !sgl)
		return vs__set_error(verb, EINVAL, "sgl is NULL with %zu SGEs",
				     num_sge);
	if (num_sge > qp->caps.max_send_sge)
		return vs__set_error(verb, EINVAL,
				     "%zu SGEs, the QP allows at most %u per WR "
				     "(max_send_sge)", num_sge, qp->caps.max_send_sge);
	for (size_t i = 0; i < num_sge; i++)
		if (vs__sge_poisoned(&sgl[i]))
			return vs__set_error(verb, EINVAL,
					     "SGE #%zu has length 0 and lkey 0: the "
					     "entry a failed vs_mr_sge returns (NULL or "
					     "closed MR, range outside it: see the "
					     "error it recorded)", i);
	if (flags & VS_WR_INLINE) {
		size_t total = 0;

		if (op == VS__READ || op == VS__CAS || op == VS__FAA)
			return vs__set_error(verb, EINVAL,
					     "VS_WR_INLINE on %s %s: inline data "
					     "exists only for sends and writes",
					     vs__article(what), what);
		for (size_t i = 0; i < num_sge; i++)
			total += sgl[i].length;
		if (total > qp->caps.max_inline_data)
			return vs__set_error(verb, EINVAL,
					     "inline %s of %zu bytes exceeds the "
					     "QP's max_inline_data of %u bytes",
					     what, total, qp->caps.max_inline_data);
		if (num_sge > 16)
			return vs__set_error(verb, EINVAL,
					     "inline data from %zu SGEs: at most 16",
					     num_sge);
	}
	if (op == VS__CAS || op == VS__FAA) {
		if (num_sge != 1 || sgl[0].length != 8)
			return vs__set_error(verb, EINVAL,
					     "%s %s needs exactly one 8-byte SGE for "
					     "the old value (got %zu SGE%s of %u "
					     "bytes)", vs__article(what), what, num_sge,
					     num_sge == 1 ? "" : "s",
					     num_sge ? sgl[0].length : 0);
		if (remote_addr & 7)
			return vs__set_error(verb, EINVAL,
					     "the remote address 0x%llx of %s %s is "
					     "not 8-byte aligned",
					     (unsigned long long)remote_addr,
					     vs__article(what), what);
	}
	if (qp->bounce_slot_size && num_sge > 1 && !(flags & VS_WR_INLINE)) {
		size_t total = 0;

		for (size_t i = 0; i < num_sge; i++)
			total += sgl[i].length;
		if (op == VS__READ)
			return vs__set_error(verb, EOPNOTSUPP,
					     "an RDMA read into %zu SGEs: this "
					     "provider's ibv_wr_set_sge_list counts "
					     "only the first SGE's length (rxe); "
					     "read into one SGE, or create the QP "
					     "with .legacy = true", num_sge);
		if (total > qp->bounce_slot_size)
			return vs__set_error(verb, EOPNOTSUPP,
					     "a %zu-byte gather from %zu SGEs: this "
					     "provider's ibv_wr_set_sge_list is broken, "
					     "so gathers are copied, and at most %u "
					     "bytes fit; use one SGE, or .legacy = true",
					     total, num_sge, qp->bounce_slot_size);
	}
	if (vs__transport(qp->transport)->datagram) {
		int ret;

		if (!dest)
			return vs__set_error(verb, EINVAL,
					     "%s %s %s needs a destination (dest is NULL)",
					     vs__article(vs_transport_name(qp->transport)),
					     vs_transport_name(qp->transport), what);
		if (!dest->ah)
			return vs__set_error(verb, EINVAL,
					     "the destination has no address handle "
					     "(released, or never filled by "
					     "vs_%s_handshake?)",
					     qp->transport == VS_TRANSPORT_SRD ? "srd" : "ud");
		ret = vs__check_handle(dest->ah, VS_KIND_AH, verb, "dest->ah");
		if (ret)
			return ret;
	}
	if (vs__op_send_flag((enum vs__op)op) &&
	    !(qp->send_ops & vs__op_send_flag((enum vs__op)op)) &&
	    qp->transport != VS_TRANSPORT_SRD)
		return vs__set_error(verb, EOPNOTSUPP,
				     "%s %s on this %s QP: device %s has no "
				     "atomics (atomic_cap NONE), so the QP was "
				     "created without them", vs__article(what), what,
				     vs_transport_name(qp->transport),
				     qp->pd->ctx->name);
	if (vs__op_send_flag((enum vs__op)op) &&
	    !(qp->send_ops & vs__op_send_flag((enum vs__op)op)))
		return vs__set_error(verb, EOPNOTSUPP,
				     "%s %s on this %s QP: the device does not "
				     "report it (EFA device caps), so the QP was "
				     "created without it (vs_efa_query_caps says "
				     "what the device offers)", vs__article(what), what,
				     vs_transport_name(qp->transport));
	return vs__set_error(verb, EINVAL, "invalid %s", what);
}

/*
 * ibv_wr_complete posts all or nothing; a chained ibv_post_send posts the
 * WRs before the one it refuses (bad_index of them).
 */
static void posted_note(char *buf, size_t len, long bad_index)
{
	if (bad_index > 0)
		snprintf(buf, len, "; WRs #0-#%ld of it were posted and will "
			 "complete", bad_index - 1);
	else if (bad_index < 0)
		snprintf(buf, len, "; the provider did not say which WRs "
			 "were posted");
	else
		buf[0] = 0;
}

int vs__batch_submit_failed(struct vs_qp *qp, int err, const char *verb)
{
	const char *raw = qp->legacy ? "ibv_post_send" : "ibv_wr_complete";
	long posted = qp->legacy ? vs__legacy_sq_bad_index(qp->legacy) : 0;
	char note[96];
	int ret;

	posted_note(note, sizeof(note), posted);
	/*
	 * A full queue is ENOMEM for ibv_post_send (and mlx5's ibv_wr_*), and
	 * ENOSPC from rxe's ibv_wr_*: one errno for it whichever way posted.
	 */
	if (err == ENOMEM || (err == ENOSPC && !qp->legacy))
		ret = vs__verb_error(verb, raw, ENOMEM,
				    "the send queue is full (max_send_wr %u): poll "
				    "completions, or signal more often so the "
				    "queue drains%s", qp->caps.max_send_wr,
				    note);
	else if (posted >= 0 && qp->legacy)
		ret = vs__verb_error(verb, raw, err,
				    "the provider refused WR #%ld of the batch; "
				    "none from it on was posted%s", posted,
				    note);
	else
		ret = vs__verb_error(verb, raw, err, "the provider refused the "
				    "batch%s", note);
	vs__error_set_batch_posted(posted);
	return ret;
}

/*
 * Inline payload of a WR, and gathers on providers with a bounce ring.
 * One buffer goes through ibv_wr_set_inline_data; several are gathered
 * first when small, because some providers get
 * ibv_wr_set_inline_data_list's length wrong.  QPs with a bounce ring
 * (see struct vs_qp) post a copy as an SGE instead; legacy QPs take the
 * list as it is (lib/core/legacy_sq.c keeps pointers until submit).
 */
void vs__set_inline(struct vs_qp *qp, const struct ibv_sge *sgl, size_t num_sge)
{
	struct ibv_qp_ex *x = qp->post_ops;
	struct ibv_data_buf bufs[16];
	uint8_t gather[256];
	size_t total = 0;

	if (qp->bounce_mr) {
		uint8_t *slot = qp->bounce +
				(size_t)qp->bounce_next * qp->bounce_slot_size;

		for (size_t i = 0; i < num_sge; i++) {
			memcpy(slot + total, (const void *)(uintptr_t)sgl[i].addr,
			       sgl[i].length);
			total += sgl[i].length;
		}
		if (++qp->bounce_next == qp->caps.max_send_wr)
			qp->bounce_next = 0;
		ibv_wr_set_sge(x, qp->bounce_mr->lkey, (uintptr_t)slot,
			       (uint32_t)total);
		return;
	}
	if (num_sge == 1) {
		ibv_wr_set_inline_data(x, (void *)(uintptr_t)sgl[0].addr,
				       sgl[0].length);
		return;
	}
	for (size_t i = 0; i < num_sge; i++)
		total += sgl[i].length;
	if (!qp->legacy && total <= sizeof(gather)) {
		total = 0;
		for (size_t i = 0; i < num_sge; i++) {
			memcpy(gather + total, (const void *)(uintptr_t)sgl[i].addr,
			       sgl[i].length);
			total += sgl[i].length;
		}
		/* the provider copies the bytes before returning */
		ibv_wr_set_inline_data(x, gather, total);
		return;
	}
	for (size_t i = 0; i < num_sge; i++) {
		bufs[i].addr = (void *)(uintptr_t)sgl[i].addr;
		bufs[i].length = sgl[i].length;
	}
	ibv_wr_set_inline_data_list(x, num_sge, bufs);
}

int vs__recv_start(struct vs_recv_batch *rb, const void *owner, uint32_t kind,
		   const char *verb)
{
	struct vs__recv_store *st;
	int ret;

	if (!rb)
		return vs__set_error(verb, EINVAL, "batch is NULL");
	memset(rb, 0, sizeof(*rb));
	if (kind == VS_KIND_SRQ) {
		struct vs_srq *srq = (struct vs_srq *)owner;

		ret = vs__check_handle(srq, kind, verb, "srq");
		if (ret)
			return ret;
		st = &srq->recv;
		rb->srq = srq->srq;
	} else {
		struct vs_qp *qp = (struct vs_qp *)owner;

		ret = vs__check_handle(qp, kind, verb, "qp");
		if (ret)
			return ret;
		if (qp->srq)
			return vs__set_error(verb, EINVAL,
					     "this QP takes its receives from an "
					     "SRQ: post them with vs_srq_recv_start");
		if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_ERR)
			return vs__set_error(verb, EINVAL,
					     "the QP is in state %s; receives can "
					     "be posted from INIT on",
					     vs_qp_state_name(qp->state));
		st = &qp->recv;
		rb->qp = qp->qp;
	}
	if (st->open)
		return vs__set_error(verb, EBUSY,
				     "a receive batch is already open here: submit "
				     "or abort it first");
	st->open = true;
	rb->store = st;
	return 0;
}

int vs__recv_failed(struct vs_recv_batch *rb, int err, size_t num_sge,
		    long bad_index, const char *verb)
{
	const char *raw = rb->srq ? "ibv_post_srq_recv" : "ibv_post_recv";
	char note[96];
	int ret;

	if (!err) {
		struct vs__recv_store *st = rb->store;

		if (rb->count >= st->cap)
			return vs__set_error(verb, ENOSPC,
					     "the receive batch is full (%u WRs, the "
					     "queue's size): submit it first", rb->count);
		if (num_sge > st->max_sge)
			return vs__set_error(verb, EINVAL,
					     "%zu SGEs, the receive queue allows at "
					     "most %u", num_sge, st->max_sge);
		return vs__set_error(verb, EINVAL, "sgl is NULL with %zu SGEs",
				     num_sge);
	}
	/* rxe returns -ENOMEM for a full queue */
	if (err < 0)
		err = -err;
	posted_note(note, sizeof(note), bad_index);
	if (err == ENOMEM)
		ret = vs__verb_error(verb, raw, err,
				    "the receive queue is full: fewer "
				    "receives, or wait for completions%s",
				    note);
	else if (bad_index >= 0)
		ret = vs__verb_error(verb, raw, err,
				    "the provider refused receive #%ld of the "
				    "batch%s", bad_index, note);
	else
		ret = vs__verb_error(verb, raw, err, "the provider refused the "
				    "batch%s", note);
	vs__error_set_batch_posted(bad_index);
	return ret;
}
