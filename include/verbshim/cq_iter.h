/* SPDX-License-Identifier: MIT */
/*
 * Completions one at a time, each field read only when asked for (the
 * lazy ibv_start_poll / ibv_next_poll path; vs_cq_poll() in cq.h reads
 * every field).
 */
#ifndef VERBSHIM_CQ_ITER_H
#define VERBSHIM_CQ_ITER_H

#include "verbshim/cq.h"

VS_BEGIN_DECLS

/*
 * Lazy iteration: the fields are read only when asked for.
 *
 *	if (vs_cq_iter_start(cq, &it) == 0) {
 *		do { use vs_cq_iter_wr_id(&it) ... } while (vs_cq_iter_next(&it) == 0);
 *		vs_cq_iter_end(&it);
 *	}
 *
 * start/next return 0 when a completion is current, -ENOENT when the CQ is
 * empty, another negative errno on failure.  After a successful start
 * call vs_cq_iter_end once, whatever next returned; after a failed start
 * vs_cq_iter_end does nothing.  While an iteration is open the CQ is held
 * (as between ibv_start_poll and ibv_end_poll).
 */
struct vs_cq_iter {
	struct ibv_cq_ex *ops; /* private: cq->poll_ops while active, else vs__cq_idle_ops */
	struct vs_cq *cq;      /* private: the CQ while active, else vs__cq_idle */
};

/* private */
VS__INLINE void vs__cq_iter_idle(struct vs_cq_iter *it)
{
	it->ops = (struct ibv_cq_ex *)&vs__cq_idle_ops;
	it->cq = &vs__cq_idle;
}

/**
 * vs_cq_iter_start() - hold the CQ and make its first completion current
 * @cq: an open CQ
 * @it: the iterator
 *
 * Return: 0 (a completion is current), -ENOENT (empty, nothing recorded),
 * or -errno: -EINVAL bad handle or NULL it; the provider's error.
 */
VS_INLINE int vs_cq_iter_start(struct vs_cq *cq, struct vs_cq_iter *it)
{
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_cq_ex *x;
	int ret;

	if (VS_UNLIKELY(!it || !cq || cq->h.magic != VS_KIND_CQ)) {
		if (it)
			vs__cq_iter_idle(it);
		return vs__neg(vs__cq_bad(cq, "it", "vs_cq_iter_start"));
	}
	/* a wait that stashes may switch it under us (lib/core/cq_stash.c) */
	x = __atomic_load_n(&cq->poll_ops, __ATOMIC_ACQUIRE);
	ret = ibv_start_poll(x, &attr);
	if (VS_UNLIKELY(ret)) {
		vs__cq_iter_idle(it);
		return ret == ENOENT ? -ENOENT :
				       vs__cq_poll_failed(x, ret, "vs_cq_iter_start");
	}
	vs__cq_iterating(cq, 1);
	it->cq = cq;
	it->ops = x;
	return 0;
}

/**
 * vs_cq_iter_next() - make the next completion current
 * @it: the iterator
 *
 * Return: 0, -ENOENT (no more), or -errno from the provider.
 */
VS_INLINE int vs_cq_iter_next(struct vs_cq_iter *it)
{
	struct ibv_cq_ex *x;
	int ret;

	if (VS_UNLIKELY(!it))
		return vs__cq_iter_null("vs_cq_iter_next");
	x = it->ops;
	if (VS_UNLIKELY(it->cq->one_per_start)) {
		struct ibv_poll_cq_attr attr = { 0 };

		vs__cq_iterating(it->cq, 0);
		ibv_end_poll(x);
		ret = ibv_start_poll(x, &attr);
		if (ret)
			vs__cq_iter_idle(it); /* nothing held any more */
		else
			vs__cq_iterating(it->cq, 1);
	} else {
		ret = ibv_next_poll(x);
	}
	if (ret == ENOENT)
		return -ENOENT;
	if (VS_UNLIKELY(ret))
		return vs__cq_poll_failed(x, ret, "vs_cq_iter_next");
	return 0;
}

/**
 * vs_cq_iter_end() - release the CQ after a successful start
 * @it: the iterator
 *
 * Return: nothing.
 */
VS_INLINE void vs_cq_iter_end(struct vs_cq_iter *it)
{
	if (VS_UNLIKELY(!it))
		return;
	vs__cq_iterating(it->cq, 0);
	ibv_end_poll(it->ops);
	vs__cq_iter_idle(it);
}

/**
 * vs_cq_iter_wr_id() - the current completion's wr_id
 * @it: the iterator
 *
 * The readers: the current completion's fields, 0 when none is current (it
 * is NULL, or the iteration ended).
 *
 * Return: the field.
 */
VS_INLINE uint64_t vs_cq_iter_wr_id(const struct vs_cq_iter *it)
{
	return it ? it->ops->wr_id : 0;
}

/**
 * vs_cq_iter_status() - the current completion's status
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE enum ibv_wc_status vs_cq_iter_status(const struct vs_cq_iter *it)
{
	return it ? it->ops->status : IBV_WC_SUCCESS;
}

/**
 * vs_cq_iter_opcode() - the current completion's opcode
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE enum ibv_wc_opcode vs_cq_iter_opcode(const struct vs_cq_iter *it)
{
	return it ? ibv_wc_read_opcode(it->ops) : IBV_WC_SEND;
}

/**
 * vs_cq_iter_byte_len() - the current completion's byte count
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE uint32_t vs_cq_iter_byte_len(const struct vs_cq_iter *it)
{
	return it ? ibv_wc_read_byte_len(it->ops) : 0;
}

/**
 * vs_cq_iter_wc_flags() - the current completion's IBV_WC_* flags
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE unsigned int vs_cq_iter_wc_flags(const struct vs_cq_iter *it)
{
	return it ? (unsigned int)ibv_wc_read_wc_flags(it->ops) : 0;
}

/**
 * vs_cq_iter_imm() - the current completion's immediate data
 * @it: the iterator
 *
 * Host byte order; 0 when the completion carries no immediate.
 *
 * Return: host byte order; 0 without one.
 */
VS_INLINE uint32_t vs_cq_iter_imm(const struct vs_cq_iter *it)
{
	if (!it || !(vs_cq_iter_wc_flags(it) & IBV_WC_WITH_IMM))
		return 0;
	return ntohl(ibv_wc_read_imm_data(it->ops));
}

/**
 * vs_cq_iter_qp_num() - the QP number of the current completion
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE uint32_t vs_cq_iter_qp_num(const struct vs_cq_iter *it)
{
	return it ? ibv_wc_read_qp_num(it->ops) : 0;
}

/**
 * vs_cq_iter_src_qp() - the source QP of the current (UD) completion
 * @it: the iterator
 *
 * Return: the field.
 */
VS_INLINE uint32_t vs_cq_iter_src_qp(const struct vs_cq_iter *it)
{
	return it ? ibv_wc_read_src_qp(it->ops) : 0;
}

/**
 * vs_cq_iter_timestamp() - the raw hardware timestamp of the current completion
 * @it: the iterator
 *
 * Raw hardware timestamp; 0 unless the CQ was created with timestamps.
 *
 * Return: it; 0 unless the CQ was created with timestamps.
 */
VS_INLINE uint64_t vs_cq_iter_timestamp(const struct vs_cq_iter *it)
{
	if (!it || !(it->cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP))
		return 0;
	return ibv_wc_read_completion_ts(it->ops);
}

/**
 * vs_cq_iter_read() - the whole current completion
 * @it: the iterator
 * @wc: the completion(s) read
 *
 * The whole current completion (what vs_cq_poll would have given).
 *
 * Return: nothing; @wc holds what vs_cq_poll() would have given.
 */
VS_INLINE void vs_cq_iter_read(const struct vs_cq_iter *it, struct vs_wc *wc)
{
	if (it && wc)
		vs__wc_read(it->cq, it->ops, wc);
}

#ifdef VS__TYPE_GUARDS
#define vs_cq_iter_start(cq, it) vs_cq_iter_start(VS__IS(struct vs_cq, cq), VS__IS(struct vs_cq_iter, it))
#define vs_cq_iter_next(it) vs_cq_iter_next(VS__IS(struct vs_cq_iter, it))
#define vs_cq_iter_end(it) vs_cq_iter_end(VS__IS(struct vs_cq_iter, it))
#define vs_cq_iter_wr_id(it) vs_cq_iter_wr_id(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_status(it) vs_cq_iter_status(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_opcode(it) vs_cq_iter_opcode(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_byte_len(it) vs_cq_iter_byte_len(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_wc_flags(it) vs_cq_iter_wc_flags(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_imm(it) vs_cq_iter_imm(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_qp_num(it) vs_cq_iter_qp_num(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_src_qp(it) vs_cq_iter_src_qp(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_timestamp(it) vs_cq_iter_timestamp(VS__IS_C(struct vs_cq_iter, it))
#define vs_cq_iter_read(it, ...) vs_cq_iter_read(VS__IS_C(struct vs_cq_iter, it), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_CQ_ITER_H */
