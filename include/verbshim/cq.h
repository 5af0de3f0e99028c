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

struct vs_channel; /* verbshim/event.h */

struct vs_cq_config {
	uint64_t comp_mask;   /* must be 0 */
	uint32_t depth;       /* 0 = 256 */
	bool legacy;          /* force ibv_create_cq / ibv_poll_cq */
	bool timestamps;      /* hardware completion timestamps; -EOPNOTSUPP if none */
	/*
	 * optional: completion events go to this channel (verbshim/event.h),
	 * which the CQ keeps alive; the CQ is armed at creation
	 */
	struct vs_channel *channel;
	void *user_context;   /* given back by vs_cq_context */
	bool solicited_only;  /* events only for solicited completions */
	int comp_vector;
};

struct vs__legacy_cq; /* lib/core/legacy_cq.c */
struct vs__cq_stash;  /* lib/core/cq_stash.c */

struct vs_cq {
	struct vs_handle h; /* private */
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;     /* NULL on a legacy CQ */
	/*
	 * private: what the poll inlines call: cqx, or on a legacy CQ an
	 * emulation of the ibv_start_poll family over ibv_poll_cq.
	 */
	struct ibv_cq_ex *poll_ops;
	struct vs__legacy_cq *legacy;
	struct vs_context *ctx;
	uint32_t depth;
	uint64_t read_flags;       /* private: IBV_WC_EX_WITH_* created with */
	uint64_t clock_khz;        /* private: hca_core_clock, 0 if unknown */
	/*
	 * private: poll one completion per ibv_start_poll/ibv_end_poll pair
	 * (a provider quirk, lib/core/quirks.c); one per pair is right everywhere.
	 */
	bool one_per_start;
	/* events (lib/events/channel.c; the list and counts under the channel's lock) */
	struct vs_channel *channel;
	void *user_context;
	struct vs_cq *ch_prev, *ch_next; /* private: the channel's CQs */
	uint32_t unacked;          /* private: events read, not yet acked */
	bool solicited_only;       /* private */
	bool ev_pending;           /* private: may hold completions to poll */
	/*
	 * private: completions a wait (verbshim/scope.h) met that were not
	 * its own; poll_ops serves them first while there are any.
	 */
	struct vs__cq_stash *stash;
};

/**
 * vs_cq_create() - create a completion queue (extended where the provider can)
 * @ctx: an open device context
 * @cfg: the configuration, or NULL for the defaults where allowed
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL out, unknown comp_mask or
 * depth over the device's; -EOPNOTSUPP timestamps unsupported; the error
 * of ibv_create_cq[_ex]. *out is NULL on any failure.
 */
VS_MUST_CHECK
int vs_cq_create(struct vs_context *ctx, const struct vs_cq_config *cfg,
		 struct vs_cq **out);
/**
 * vs_cq_close() - the user's close of a CQ (freed when its QPs are gone)
 * @cq: an open CQ
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry).
 */
int vs_cq_close(struct vs_cq *cq);
/**
 * vs_cq_raw() - the ibv_cq behind a CQ
 * @cq: an open CQ
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_cq *vs_cq_raw(const struct vs_cq *cq);
/**
 * vs_cq_raw_ex() - the ibv_cq_ex behind an extended CQ
 * @cq: an open CQ
 *
 * NULL on a legacy CQ.
 *
 * Return: it; NULL on a legacy CQ or a bad handle.
 */
struct ibv_cq_ex *vs_cq_raw_ex(const struct vs_cq *cq);

/**
 * vs_cq_is_extended() - whether the CQ polls through ibv_start_poll
 * @cq: an open CQ
 *
 * Return: true for an extended CQ; false for a legacy one or a bad handle.
 */
VS_INLINE bool vs_cq_is_extended(const struct vs_cq *cq)
{
	return cq && cq->h.magic == VS_KIND_CQ && cq->cqx != NULL;
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
VS__INLINE uint64_t vs__cycles_to_ns(uint64_t cycles, uint64_t khz)
{
	if (!khz)
		return 0;
	return cycles / khz * 1000000ull + cycles % khz * 1000000ull / khz;
}

/* private: the current completion of a start/next poll */
VS__INLINE void vs__wc_read(const struct vs_cq *cq, struct ibv_cq_ex *x,
			   struct vs_wc *wc)
{
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
	if (VS_UNLIKELY(cq->read_flags &
			(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))) {
		if (cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
			wc->timestamp_ns = ibv_wc_read_completion_wallclock_ns(x);
		if (cq->read_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) {
			wc->timestamp = ibv_wc_read_completion_ts(x);
			if (!wc->timestamp_ns)
				wc->timestamp_ns = vs__cycles_to_ns(wc->timestamp,
								    cq->clock_khz);
		}
	}
}

/* private: the out-of-line halves */
int vs__cq_poll_failed(struct ibv_cq_ex *ops, int err, const char *call) VS_COLD;
int vs__cq_bad(const struct vs_cq *cq, const char *out_name, const char *verb) VS_COLD;
int vs__cq_iter_null(const char *verb) VS_COLD;

/*
 * private: what an iterator holds while no completion is current (before
 * a successful start, after the end or the last next): ops whose polls
 * say ENOENT, whose end does nothing and whose reads give 0, and a CQ of
 * no kind.  So next, end and the readers need no test, and never touch a
 * CQ that is not being iterated.
 */
extern const struct ibv_cq_ex vs__cq_idle_ops;
extern struct vs_cq vs__cq_idle; /* only its gate is ever written (0) */

/*
 * private: on a CQ, h.gate is 1 while an iteration holds it.  Written only
 * while the provider's poll lock is held (between ibv_start_poll and
 * ibv_end_poll), so iterations of several threads keep it right; a close
 * of the CQ in the middle of one is refused with -EBUSY.
 */
VS__INLINE void vs__cq_iterating(struct vs_cq *cq, uint32_t on)
{
	__atomic_store_n(&cq->h.gate, on, __ATOMIC_RELAXED);
}

/**
 * vs_cq_poll() - read up to max completions, every field
 * @cq: an open CQ
 * @wc: the completion(s) read
 * @max: capacity of @wc
 *
 * Polls up to max completions into wc[]; returns how many (0 = none) or a
 * negative errno (only when none was polled).
 *
 * Return: the number read (0: none), or -errno: -EINVAL bad handle or NULL
 * wc; the provider's error when the poll fails before any completion.
 */
VS_INLINE int vs_cq_poll(struct vs_cq *cq, struct vs_wc *wc, int max)
{
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_cq_ex *x;
	int n = 0, ret;

	/* atomic: a close may race it (vs_cq_wait polls while one may come) */
	if (VS_UNLIKELY(!cq || __atomic_load_n(&cq->h.magic, __ATOMIC_RELAXED) !=
				       VS_KIND_CQ || !wc))
		return vs__neg(vs__cq_bad(cq, "wc", "vs_cq_poll"));
	if (VS_UNLIKELY(max <= 0))
		return 0;
	/* a wait that stashes may switch it under us (lib/core/cq_stash.c) */
	x = __atomic_load_n(&cq->poll_ops, __ATOMIC_ACQUIRE);
	if (VS_UNLIKELY(cq->one_per_start)) {
		while (n < max) {
			ret = ibv_start_poll(x, &attr);
			if (ret == ENOENT)
				break;
			if (VS_UNLIKELY(ret))
				return vs__cq_poll_failed(x, ret, "vs_cq_poll");
			vs__wc_read(cq, x, &wc[n++]);
			ibv_end_poll(x);
		}
		return n;
	}
	ret = ibv_start_poll(x, &attr);
	if (ret == ENOENT)
		return 0;
	if (VS_UNLIKELY(ret))
		return vs__cq_poll_failed(x, ret, "vs_cq_poll");
	for (;;) {
		vs__wc_read(cq, x, &wc[n++]);
		if (n == max)
			break;
		ret = ibv_next_poll(x);
		if (ret)
			break;
	}
	ibv_end_poll(x);
	/* n >= 1 here: a failing next_poll shows on the next poll's start */
	return n;
}

#ifdef VS__TYPE_GUARDS
#define vs_cq_create(c, ...)                                                  \
	vs_cq_create(VS__OUT(struct vs_cq **, VS__CFG(struct vs_cq_config,    \
			VS__IS(struct vs_context, c), __VA_ARGS__), __VA_ARGS__), \
		     __VA_ARGS__)
#define vs_cq_close(cq) vs_cq_close(VS__IS(struct vs_cq, cq))
#define vs_cq_raw(cq) vs_cq_raw(VS__IS_C(struct vs_cq, cq))
#define vs_cq_raw_ex(cq) vs_cq_raw_ex(VS__IS_C(struct vs_cq, cq))
#define vs_cq_is_extended(cq) vs_cq_is_extended(VS__IS_C(struct vs_cq, cq))
#define vs_cq_poll(cq, ...) vs_cq_poll(VS__IS(struct vs_cq, cq), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_CQ_H */
