/* SPDX-License-Identifier: MIT */
/*
 * Completions: one CQ type, extended (ibv_cq_ex) where the provider has
 * it and legacy (ibv_poll_cq) otherwise; batch polling into an array or
 * lazy iteration reading fields on demand.
 */
#ifndef VERBSHIM_CQ_H
#define VERBSHIM_CQ_H

#include <arpa/inet.h>
#include "verbshim/device.h"

VS_BEGIN_DECLS

struct vs_cq_config {
	uint32_t comp_mask;   /* must be 0 */
	uint32_t depth;       /* 0 = 256 */
	bool legacy;          /* force ibv_create_cq / ibv_poll_cq */
	bool timestamps;      /* hardware completion timestamps; -EOPNOTSUPP if none */
	struct ibv_comp_channel *channel; /* optional */
	int comp_vector;
};

struct vs_cq {
	struct vs_handle h; /* private */
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;     /* NULL on a legacy CQ */
	struct vs_context *ctx;
	uint32_t depth;
	uint64_t read_flags;       /* private: IBV_WC_EX_WITH_* created with */
	uint64_t clock_khz;        /* private: hca_core_clock, 0 if unknown */
	/*
	 * private: poll one completion per ibv_start_poll/ibv_end_poll pair.
	 * rxe's ibv_next_poll stores the consumer index and unlocks when it
	 * returns ENOENT, so the ibv_end_poll every other provider needs
	 * after it would skip a CQE there; one per pair is right everywhere.
	 */
	bool one_per_start;
};

int vs_cq_create(struct vs_context *ctx, const struct vs_cq_config *cfg,
		 struct vs_cq **out);
int vs_cq_close(struct vs_cq *cq);
struct ibv_cq *vs_cq_raw(const struct vs_cq *cq);
/* NULL on a legacy CQ. */
struct ibv_cq_ex *vs_cq_raw_ex(const struct vs_cq *cq);

VS_INLINE bool vs_cq_is_extended(const struct vs_cq *cq)
{
	return cq->cqx != NULL;
}

/* One work completion.  Only wr_id, status, vendor_err and qp_num are
 * meaningful when status != IBV_WC_SUCCESS. */
struct vs_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t imm;          /* host byte order; valid if wc_flags & IBV_WC_WITH_IMM */
	uint32_t qp_num;
	uint32_t src_qp;       /* UD */
	unsigned int wc_flags; /* IBV_WC_GRH, IBV_WC_WITH_IMM, ... */
	uint32_t vendor_err;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint64_t timestamp;    /* raw hardware clock; 0 without timestamps */
	uint64_t timestamp_ns; /* converted where the clock rate is known, else 0 */
};

/* private */
VS_INLINE uint64_t vs__cycles_to_ns(uint64_t cycles, uint64_t khz)
{
	if (!khz)
		return 0;
	return cycles / khz * 1000000ull + cycles % khz * 1000000ull / khz;
}

/* private */
VS_INLINE void vs__wc_from_ex(const struct vs_cq *cq, struct vs_wc *wc)
{
	struct ibv_cq_ex *x = cq->cqx;

	wc->wr_id = x->wr_id;
	wc->status = x->status;
	wc->qp_num = ibv_wc_read_qp_num(x);
	wc->vendor_err = ibv_wc_read_vendor_err(x);
	wc->timestamp = 0;
	wc->timestamp_ns = 0;
	if (VS_UNLIKELY(wc->status != IBV_WC_SUCCESS)) {
		wc->opcode = IBV_WC_SEND;
		wc->byte_len = wc->imm = wc->src_qp = 0;
		wc->wc_flags = 0;
		wc->slid = 0;
		wc->sl = wc->dlid_path_bits = 0;
		return;
	}
	wc->opcode = ibv_wc_read_opcode(x);
	wc->byte_len = ibv_wc_read_byte_len(x);
	wc->wc_flags = ibv_wc_read_wc_flags(x);
	wc->imm = (wc->wc_flags & IBV_WC_WITH_IMM) ?
			  ntohl(ibv_wc_read_imm_data(x)) : 0;
	wc->src_qp = ibv_wc_read_src_qp(x);
	wc->slid = (uint16_t)ibv_wc_read_slid(x);
	wc->sl = ibv_wc_read_sl(x);
	wc->dlid_path_bits = ibv_wc_read_dlid_path_bits(x);
	if (cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) {
		wc->timestamp_ns = ibv_wc_read_completion_wallclock_ns(x);
	}
	if (cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) {
		wc->timestamp = ibv_wc_read_completion_ts(x);
		if (!wc->timestamp_ns)
			wc->timestamp_ns =
				vs__cycles_to_ns(wc->timestamp, cq->clock_khz);
	}
}

/* private */
VS_INLINE void vs__wc_from_legacy(const struct ibv_wc *in, struct vs_wc *wc)
{
	wc->wr_id = in->wr_id;
	wc->status = in->status;
	wc->opcode = in->opcode;
	wc->byte_len = in->byte_len;
	wc->wc_flags = in->wc_flags;
	wc->imm = (in->wc_flags & IBV_WC_WITH_IMM) ? ntohl(in->imm_data) : 0;
	wc->qp_num = in->qp_num;
	wc->src_qp = in->src_qp;
	wc->vendor_err = in->vendor_err;
	wc->slid = in->slid;
	wc->sl = in->sl;
	wc->dlid_path_bits = in->dlid_path_bits;
	wc->timestamp = 0;
	wc->timestamp_ns = 0;
}

int vs__cq_poll_failed(struct vs_cq *cq, int err);

/*
 * Polls up to max completions into wc[]; returns how many (0 = none) or
 * a negative errno.
 */
VS_INLINE int vs_cq_poll(struct vs_cq *cq, struct vs_wc *wc, int max)
{
	int n = 0, ret;

	if (VS_UNLIKELY(max <= 0))
		return 0;
	if (VS_LIKELY(cq->cqx != NULL)) {
		struct ibv_poll_cq_attr attr = { 0 };

		if (VS_UNLIKELY(cq->one_per_start)) {
			while (n < max) {
				ret = ibv_start_poll(cq->cqx, &attr);
				if (ret == ENOENT)
					break;
				if (VS_UNLIKELY(ret))
					return vs__cq_poll_failed(cq, ret);
				vs__wc_from_ex(cq, &wc[n++]);
				ibv_end_poll(cq->cqx);
			}
			return n;
		}
		ret = ibv_start_poll(cq->cqx, &attr);
		if (ret == ENOENT)
			return 0;
		if (VS_UNLIKELY(ret))
			return vs__cq_poll_failed(cq, ret);
		for (;;) {
			vs__wc_from_ex(cq, &wc[n++]);
			if (n == max)
				break;
			ret = ibv_next_poll(cq->cqx);
			if (ret)
				break;
		}
		ibv_end_poll(cq->cqx);
		if (VS_UNLIKELY(ret && ret != ENOENT))
			return vs__cq_poll_failed(cq, ret);
		return n;
	}
	while (n < max) {
		struct ibv_wc raw[16];
		int want = max - n < 16 ? max - n : 16;
		int got = ibv_poll_cq(cq->cq, want, raw);

		if (VS_UNLIKELY(got < 0))
			return vs__cq_poll_failed(cq, -got > 0 ? -got : EIO);
		for (int i = 0; i < got; i++)
			vs__wc_from_legacy(&raw[i], &wc[n + i]);
		n += got;
		if (got < want)
			break;
	}
	return n;
}

/*
 * Lazy iteration: the fields are read only when asked for.
 *
 *	if (vs_cq_iter_start(cq, &it) == 0) {
 *		do { use vs_cq_iter_wr_id(&it) ... } while (vs_cq_iter_next(&it) == 0);
 *		vs_cq_iter_end(&it);
 *	}
 *
 * start/next return 0 when a completion is current, -ENOENT when the CQ is
 * empty, another negative errno on failure (the iteration is then over;
 * still call vs_cq_iter_end after a successful start).
 */
struct vs_cq_iter {
	struct vs_cq *cq;
	struct ibv_cq_ex *cqx; /* private: cq->cqx, kept in a register */
	struct ibv_wc wc;      /* private: the current completion of a legacy CQ */
	bool active;           /* private */
};

VS_INLINE int vs_cq_iter_start(struct vs_cq *cq, struct vs_cq_iter *it)
{
	int ret;

	it->cq = cq;
	it->cqx = cq->cqx;
	it->active = false;
	if (VS_LIKELY(it->cqx != NULL)) {
		struct ibv_poll_cq_attr attr = { 0 };

		ret = ibv_start_poll(it->cqx, &attr);
		if (ret == ENOENT)
			return -ENOENT;
		if (VS_UNLIKELY(ret))
			return vs__cq_poll_failed(cq, ret);
		it->active = true;
		return 0;
	}
	ret = ibv_poll_cq(cq->cq, 1, &it->wc);
	if (ret == 0)
		return -ENOENT;
	if (VS_UNLIKELY(ret < 0))
		return vs__cq_poll_failed(cq, -ret > 0 ? -ret : EIO);
	return 0;
}

VS_INLINE int vs_cq_iter_next(struct vs_cq_iter *it)
{
	int ret;

	if (VS_LIKELY(it->cqx != NULL)) {
		if (VS_UNLIKELY(it->cq->one_per_start)) {
			struct ibv_poll_cq_attr attr = { 0 };

			ibv_end_poll(it->cqx);
			it->active = false;
			ret = ibv_start_poll(it->cqx, &attr);
			if (ret == ENOENT)
				return -ENOENT;
			if (VS_UNLIKELY(ret))
				return vs__cq_poll_failed(it->cq, ret);
			it->active = true;
			return 0;
		}
		ret = ibv_next_poll(it->cqx);
		if (ret == ENOENT)
			return -ENOENT;
		if (VS_UNLIKELY(ret))
			return vs__cq_poll_failed(it->cq, ret);
		return 0;
	}
	ret = ibv_poll_cq(it->cq->cq, 1, &it->wc);
	if (ret == 0)
		return -ENOENT;
	if (VS_UNLIKELY(ret < 0))
		return vs__cq_poll_failed(it->cq, -ret > 0 ? -ret : EIO);
	return 0;
}

VS_INLINE void vs_cq_iter_end(struct vs_cq_iter *it)
{
	if (it->active)
		ibv_end_poll(it->cqx);
	it->active = false;
}

VS_INLINE uint64_t vs_cq_iter_wr_id(const struct vs_cq_iter *it)
{
	return it->cqx ? it->cqx->wr_id : it->wc.wr_id;
}

VS_INLINE enum ibv_wc_status vs_cq_iter_status(const struct vs_cq_iter *it)
{
	return it->cqx ? it->cqx->status : it->wc.status;
}

VS_INLINE enum ibv_wc_opcode vs_cq_iter_opcode(const struct vs_cq_iter *it)
{
	return it->cqx ? ibv_wc_read_opcode(it->cqx) : it->wc.opcode;
}

VS_INLINE uint32_t vs_cq_iter_byte_len(const struct vs_cq_iter *it)
{
	return it->cqx ? ibv_wc_read_byte_len(it->cqx) : it->wc.byte_len;
}

VS_INLINE unsigned int vs_cq_iter_wc_flags(const struct vs_cq_iter *it)
{
	return it->cqx ? (unsigned int)ibv_wc_read_wc_flags(it->cqx) :
			     it->wc.wc_flags;
}

/* Host byte order; 0 when the completion carries no immediate. */
VS_INLINE uint32_t vs_cq_iter_imm(const struct vs_cq_iter *it)
{
	if (!(vs_cq_iter_wc_flags(it) & IBV_WC_WITH_IMM))
		return 0;
	return ntohl(it->cqx ? ibv_wc_read_imm_data(it->cqx) :
				   it->wc.imm_data);
}

VS_INLINE uint32_t vs_cq_iter_qp_num(const struct vs_cq_iter *it)
{
	return it->cqx ? ibv_wc_read_qp_num(it->cqx) : it->wc.qp_num;
}

VS_INLINE uint32_t vs_cq_iter_src_qp(const struct vs_cq_iter *it)
{
	return it->cqx ? ibv_wc_read_src_qp(it->cqx) : it->wc.src_qp;
}

/* Raw hardware timestamp; 0 unless the CQ was created with timestamps. */
VS_INLINE uint64_t vs_cq_iter_timestamp(const struct vs_cq_iter *it)
{
	if (!it->cqx ||
	    !(it->cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP))
		return 0;
	return ibv_wc_read_completion_ts(it->cqx);
}

/* The whole current completion (what vs_cq_poll would have given). */
VS_INLINE void vs_cq_iter_read(const struct vs_cq_iter *it, struct vs_wc *wc)
{
	if (it->cqx)
		vs__wc_from_ex(it->cq, wc);
	else
		vs__wc_from_legacy(&it->wc, wc);
}

VS_END_DECLS

#endif /* VERBSHIM_CQ_H */
