/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues: one pool of receives for many QPs (post them with
 * vs_srq_recv_start(), include/verbshim/recv.h).
 */
#ifndef VERBSHIM_SRQ_H
#define VERBSHIM_SRQ_H

#include "verbshim/mem.h"

VS_BEGIN_DECLS

/* private: chained receive storage for the legacy-style receive batches */
struct vs__recv_store {
	struct ibv_recv_wr *wr;
	struct ibv_sge *sge;
	uint32_t cap;
	uint32_t max_sge;
	bool open;
};

struct vs_srq {
	struct vs_handle h; /* private */
	struct ibv_srq *srq;
	struct vs_pd *pd;
	uint32_t max_wr;
	uint32_t max_sge;
	struct vs__recv_store recv; /* private */
};

struct vs_srq_config {
	uint64_t comp_mask; /* must be 0 */
	uint32_t max_wr;    /* [256] */
	uint32_t max_sge;   /* [4] */
	uint32_t limit;     /* 0 = no limit event */
};

/**
 * vs_srq_create() - create a shared receive queue
 * @pd: an open PD
 * @cfg: the configuration, or NULL for the defaults where allowed
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EOPNOTSUPP no SRQs on the device; -EINVAL bad
 * handle, NULL out, sizes or limit out of range; the error of
 * ibv_create_srq. *out is NULL on any failure.
 */
VS_MUST_CHECK
int vs_srq_create(struct vs_pd *pd, const struct vs_srq_config *cfg,
		  struct vs_srq **out);
/**
 * vs_srq_set_limit() - arm the SRQ limit event
 * @srq: an open SRQ
 * @limit: receives left that raise IBV_EVENT_SRQ_LIMIT_REACHED
 *
 * Arms the limit event (IBV_EVENT_SRQ_LIMIT_REACHED) at limit receives.
 *
 * Return: 0 or -errno: -EINVAL bad handle; the error of ibv_modify_srq.
 */
int vs_srq_set_limit(struct vs_srq *srq, uint32_t limit);
/**
 * vs_srq_close() - the user's close of an SRQ (freed when its QPs are gone)
 * @srq: an open SRQ
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry); -EBUSY while a receive batch is open.
 */
int vs_srq_close(struct vs_srq *srq);
/**
 * vs_srq_raw() - the ibv_srq behind an SRQ
 * @srq: an open SRQ
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_srq *vs_srq_raw(const struct vs_srq *srq);

#ifdef VS__TYPE_GUARDS
#define vs_srq_create(pd, ...)                                                \
	vs_srq_create(VS__OUT(struct vs_srq **, VS__CFG(struct vs_srq_config, \
			VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__),   \
		      __VA_ARGS__)
#define vs_srq_set_limit(srq, ...) vs_srq_set_limit(VS__IS(struct vs_srq, srq), __VA_ARGS__)
#define vs_srq_close(srq) vs_srq_close(VS__IS(struct vs_srq, srq))
#define vs_srq_raw(srq) vs_srq_raw(VS__IS_C(struct vs_srq, srq))
#endif

VS_END_DECLS

#endif /* VERBSHIM_SRQ_H */
