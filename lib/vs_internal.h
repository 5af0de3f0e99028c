/* SPDX-License-Identifier: MIT */
/*
 * Private helpers of the typed API (the lib sources only).
 */
#ifndef VS_INTERNAL_H
#define VS_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* the definitions below are the functions, not the type-guard macros */
#define VS__NO_TYPE_GUARDS

#include "verbshim/common.h"
#include "verbshim/error.h"
#include "verbshim/device.h"
#include "verbshim/names.h"
#include "verbshim/mem.h"
#include "verbshim/cq.h"
#include "verbshim/cq_iter.h"
#include "verbshim/srq.h"
#include "verbshim/qp_config.h"
#include "verbshim/qp_rules.h"
#include "verbshim/qp.h"
#include "verbshim/ah.h"
#include "verbshim/endpoint.h"
#include "verbshim/batch.h"
#include "verbshim/post_rc.h"
#include "verbshim/post_uc.h"
#include "verbshim/post_ud.h"
#include "verbshim/post.h"
#include "verbshim/recv.h"
#include "verbshim/srd.h"
#include "verbshim/post_srd.h"
#include "transports.h"
#include "verbshim/event.h"
#include "verbshim/scope.h"

/*
 * Records the thread's last error (lib/error.c); returns -err.  call is
 * the vs_ call that failed, always; vs__verb_error also names the
 * provider function (verb) that failed inside it.
 */
int vs__set_error(const char *call, int err, const char *fmt, ...)
	VS_PRINTF(3, 4);
int vs__verb_error(const char *call, const char *verb, int err,
		   const char *fmt, ...) VS_PRINTF(4, 5);
int vs__errorv(const char *call, const char *verb, int err, const char *fmt,
	       va_list ap);
/*
 * When library lib (enum vs_library) did not load: "libibverbs did not
 * load: <the loader's reason, with the path>" into buf, returned; else NULL.
 */
const char *vs__library_reason(int lib, char *buf, size_t len);
void vs__error_set_batch_posted(long n);

/* errno after a failed verb, never 0 (a provider may forget to set it). */
static inline int vs__errno_or(int fallback)
{
	return errno ? errno : fallback;
}

/*
 * Handle memory (lib/handle.c): zeroed, from the handle arena.  NULL when
 * out of memory.  unpublish gives back a handle that was never handed out
 * (a failed create): reused at once.  free is the destroy's, once the
 * last reference went: the handle is marked closed (whatever its kind,
 * a borrowed context too) and its slot quarantined, untouched, for at
 * least the next VS__QUARANTINE closes of handles of its size class
 * before a create may reuse it (docs/API.md, Lifetimes, rule 7).
 */
#define VS__QUARANTINE 4096
void *vs__handle_alloc(size_t size);
void vs__handle_unpublish(void *h, size_t size);
void vs__handle_free(void *h, size_t size);
/*
 * For the tests only: the arena's heap chunks, in bytes (flat under
 * churn); seal: the next handle not taken from a closed slot needs a new
 * chunk (the rest of the current one and the spare slots are left), so
 * that the allocation failure test reaches the chunk's malloc;
 * quarantine_set: the window, for a test that cannot make VS__QUARANTINE
 * closes of a class in its time (test/rxe/cm_churn.c: connections).
 */
size_t vs__handle_arena_bytes(void);
void vs__handle_arena_seal(void);
void vs__handle_quarantine_set(size_t closes);

static inline void vs__handle_init(struct vs_handle *h, uint32_t kind)
{
	h->magic = kind;
	h->gate = 0;
	h->refs = 1;
}

static inline void vs__ref_get(struct vs_handle *h)
{
	__atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
}

/*
 * A reference unless the last one is gone already (a destroy under way):
 * for a wait that must keep a handle a concurrent close may release.
 */
static inline bool vs__ref_get_live(struct vs_handle *h)
{
	int refs = __atomic_load_n(&h->refs, __ATOMIC_RELAXED);

	do {
		if (refs <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&h->refs, &refs, refs + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/* true when this was the last reference */
static inline bool vs__ref_put(struct vs_handle *h)
{
	return __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) == 0;
}

/*
 * 0 when h points at an open handle of the given kind; else -EINVAL with
 * "what is NULL", "what is a PD the caller already closed" or "what is a
 * handle of another kind (PD, expected MR)".
 */
int vs__check_handle_failed(const void *h, uint32_t kind, const char *verb,
			    const char *what) VS_COLD;

/* inline: every call checks its handles, and an open one costs a compare */
static inline int vs__check_handle(const void *h, uint32_t kind,
				   const char *verb, const char *what)
{
	if (VS_LIKELY(h && __atomic_load_n(&((const struct vs_handle *)h)->magic,
					   __ATOMIC_ACQUIRE) == kind))
		return 0;
	return vs__check_handle_failed(h, kind, verb, what);
}

/*
 * The user's close: checks h like vs__check_handle, then marks it closed
 * (once, atomically; the send gate shuts with it).  The caller then drops
 * the user's reference with its put.
 */
int vs__user_close(void *handle, uint32_t kind, const char *verb,
		   const char *what);

/*
 * A destroy failed (the provider said EBUSY, ...): the object stays, and
 * the handle is open again with the user's one reference, so the user
 * may retry the close.
 */
void vs__handle_reopen(struct vs_handle *h, uint32_t kind);

/* What a provider needs done differently (lib/quirks.c, keyed by vendor). */
struct vs__quirks {
	uint32_t vendor_id;
	const char *name;
	bool cq_one_per_start; /* one completion per start/end poll pair */
	bool wr_sge_broken;    /* ibv_wr_set_inline_data / _sge_list wrong */
};
/* The quirks of c's device; all false for a provider without any. */
const struct vs__quirks *vs__quirks(const struct vs_context *c);

/* A port's kind from c's transport and the port's link layer. */
enum vs_link_kind vs__link_kind(const struct vs_context *c, uint8_t link_layer);
/* -EOPNOTSUPP when c is iWARP, whose QPs only the CM connects (pointing at vs_cm_*); else 0 */
int vs__iwarp_cm_only(const struct vs_context *c, const char *verb);
/* vs_port_info and vs_gid_pick on behalf of call (errors name it). */
int vs__port_info(const struct vs_context *c, uint8_t port,
		  struct vs_port_info *out, const char *call);
/*
 * The port's fields that never change while c is open (port, link_layer,
 * gid_tbl_len; the rest of out zero), cached by vs__port_info: false
 * when not read yet (or port beyond the cache).
 */
bool vs__port_fixed(const struct vs_context *c, uint8_t port,
		    struct vs_port_info *out);
/* lib/bounce.c: a quirky provider's ring for inline data and gathers */
int vs__bounce_ready(struct vs_qp *qp, const char *verb);
void vs__bounce_free(struct vs_qp *qp);
/*
 * What a CM id's route says of its port (lib/cm_qp.c), so the QP's
 * create reads neither the port nor a GID (lib/qp.c): the route's MTU
 * and source LID are the ones the CM brings the QP up with.
 */
struct vs__port_now {
	enum ibv_mtu mtu;
	uint16_t lid;
	bool gid_at_rtr; /* RC: the source GID is the CM's, read at RTR */
	/*
	 * iWARP: the route has no path, and the QP no path MTU or LID (the
	 * CM, not the library, brings it to RTS): mtu and lid stay 0
	 */
	bool no_path;
};
int vs__qp_create_now(struct vs_pd *pd, enum vs_transport t, const void *cfg,
		      const struct vs__port_now *now, struct vs_qp **out);
int vs__gid_pick(struct vs_context *c, uint8_t port, struct vs_gid_info *out,
		 const char *call);

/*
 * A context handle over librdmacm's ibv_context of a CM id (lib/cm_*.c):
 * borrowed, so its last put never closes the device and the user's close
 * is refused.
 */
int vs__context_borrow(struct ibv_context *raw, struct vs_context **out,
		       const char *call);

/* Internal drops used by dependants (no user-visible reference check). */
int vs__context_put(struct vs_context *ctx, const char *verb);
int vs__pd_put(struct vs_pd *pd, const char *verb);
int vs__cq_put(struct vs_cq *cq, const char *verb);
/* the destroy behind vs__cq_put, once the last reference is gone */
int vs__cq_destroy(struct vs_cq *cq, const char *verb);
int vs__srq_put(struct vs_srq *srq, const char *verb);
int vs__ah_put(struct vs_ah *ah, const char *verb);
int vs__qp_put(struct vs_qp *qp, const char *verb);

/*
 * rxe's bounce ring still to be made (lib/bounce.c): the send gate stays
 * shut, so the first batch start goes the slow way and makes it.
 */
static inline bool vs__qp_ring_missing(const struct vs_qp *qp)
{
	return qp->bounce_slot_size && !qp->bounce_mr;
}

/* Records a QP state change and opens or shuts the send gate with it. */
static inline void vs__qp_set_state(struct vs_qp *qp, enum ibv_qp_state s)
{
	qp->state = s;
	if (qp->h.gate != VS__GATE_BATCH) /* state changes wait for the batch */
		qp->h.gate = s == IBV_QPS_RTS && !vs__qp_ring_missing(qp) ?
			     qp->h.magic : 0;
}

/* The RESET->INIT attributes of qp (port, pkey 0, qkey or access); the mask. */
int vs__qp_init_attr(const struct vs_qp *qp, struct ibv_qp_attr *a);

static inline bool vs__qp_batch_open(const struct vs_qp *qp)
{
	return qp->h.gate == VS__GATE_BATCH;
}

/* lib/legacy_sq.c: the ibv_wr_* ops over a chained ibv_post_send */
struct vs__legacy_sq *vs__legacy_sq_create(struct ibv_qp *qp, uint32_t cap,
					   uint32_t max_sge);
struct ibv_qp_ex *vs__legacy_sq_ops(struct vs__legacy_sq *l);
long vs__legacy_sq_bad_index(const struct vs__legacy_sq *l);
void vs__legacy_sq_free(struct vs__legacy_sq *l);

/* lib/legacy_cq.c: the ibv_start_poll family over ibv_poll_cq */
struct vs__legacy_cq *vs__legacy_cq_create(struct ibv_cq *cq);
struct ibv_cq_ex *vs__legacy_cq_ops(struct vs__legacy_cq *l);
bool vs__legacy_cq_is(const struct ibv_cq_ex *ops);
void vs__legacy_cq_free(struct vs__legacy_cq *l);

/*
 * lib/channel_cqs.c: the CQs of a channel.  A CQ joins its channel at
 * creation (arming it; the channel gains a reference) and leaves it at its
 * destroy: unlinked and its outstanding events acked under the channel's
 * lock, then ibv_destroy_cq outside it, so the destroy never waits for an
 * acknowledgement that only a lock holder could give.
 */
struct vs__channel_cqs {
	pthread_mutex_t lock;
	struct vs_cq *head, *tail;
	int n;
	bool slept; /* the last successful wait slept (lib/channel.c) */
	/*
	 * lib/channel.c: reader (atomic) is the right to read the fd: taken
	 * by compare-and-swap, under the lock for a read that cannot block,
	 * or for a sleep on the fd (the sleeper; a vs_cq_wait for ever takes
	 * it without the lock).  Waits that find it taken sleep on turn,
	 * counted in turn_waiters (atomic), until it is given back.  The fd is
	 * blocking until it is handed out (nonblocking, atomic: once set it
	 * stays).
	 */
	pthread_cond_t turn;
	bool reader;
	int turn_waiters;
	bool nonblocking;
};

void vs__channel_cqs_append(struct vs__channel_cqs *l, struct vs_cq *cq);
void vs__channel_cqs_remove(struct vs__channel_cqs *l, struct vs_cq *cq);
int vs__channel_attach(struct vs_channel *ch, struct vs_cq *cq, const char *call);
int vs__channel_cq_destroy(struct vs_cq *cq);
int vs__channel_put(struct vs_channel *ch, const char *call);
/*
 * lib/wait.c: the deadline of a wait of timeout_ms (0 and -1: none), and
 * one sleep on fd until it is readable or the deadline: 0 (look again),
 * -EAGAIN when timeout_ms is 0, -ETIMEDOUT past the deadline (neither
 * recorded as an error: they are answers), or poll's errno.
 */
int64_t vs__now_deadline(int timeout_ms);
/* inline: a wait for ever or of 0 reads no clock */
static inline int64_t vs__deadline(int timeout_ms)
{
	return timeout_ms > 0 ? vs__now_deadline(timeout_ms) : 0;
}
int vs__wait_fd(int fd, int timeout_ms, int64_t deadline, const char *call);
/*
 * lib/wait.c: the same rules for a sleep on cond (a CLOCK_MONOTONIC one,
 * vs__cond_init), lock held: 0 (woken: look again), -EAGAIN, -ETIMEDOUT.
 */
int vs__wait_cond(pthread_cond_t *cond, pthread_mutex_t *lock, int timeout_ms,
		  int64_t deadline);
int vs__cond_init(pthread_cond_t *cond);
/* lib/legacy_cq.c: completions polled from the provider, not yet consumed */
bool vs__legacy_cq_buffered(struct vs__legacy_cq *l);
/*
 * lib/cq_stash.c: a CQ's stash.  vs__cq_take gives match every completion
 * of cq, the stashed ones first, then the CQ's until it is empty; those
 * match refuses (returns false) are stashed, in order, for the CQ's next
 * polls and waits.  Returns how many match took, or a negative errno
 * (recorded for call).  match may rewrite the completion it takes.
 */
typedef bool (*vs__wc_match)(void *arg, struct vs_wc *wc);
int vs__cq_take(struct vs_cq *cq, vs__wc_match match, void *arg,
		const char *call);
bool vs__cq_stash_waiting(const struct vs_cq *cq);
void vs__cq_stash_free(struct vs__cq_stash *st);
/*
 * lib/channel.c: the sleep of a wait on cq's channel, after a poll of cq
 * found nothing it wanted: reads the channel's events (re-arming their
 * CQs); 0 when cq may have completions now (poll it again), else sleeps
 * until the channel fd is readable: 0, -EAGAIN, -ETIMEDOUT or an error.
 */
int vs__channel_sleep(struct vs_cq *cq, int timeout_ms, int64_t deadline,
		      const char *call);
/*
 * lib/wr_wait.c: -EINVAL unless mode is known and, to sleep, cq has a
 * channel; the pause between two passes over cq that did not find what a
 * wait wants (0: pass again; -EAGAIN, -ETIMEDOUT, an error); -EIO
 * recorded for a WR that completed in error.
 */
int vs__wait_mode_check(struct vs_cq *cq, enum vs_wait_mode mode,
			const char *call);
int vs__wait_pause(struct vs_cq *cq, enum vs_wait_mode mode, int timeout_ms,
		   int64_t deadline, unsigned int *spins, const char *call);
int vs__wc_failed(const struct vs_wc *wc, const char *call);
/* lib/wait.c: whether a wait of timeout_ms begun at deadline is over */
int vs__wait_over(int timeout_ms, int64_t deadline);
/* lib/handle.c: p points at a handle of the arena (safe to read its magic) */
bool vs__handle_in_arena(const void *p, size_t size);

/* Keeps the first failure of a teardown sequence. */
static inline int vs__first_err(int a, int b)
{
	return a ? a : b;
}

/* Receive storage shared by QPs and SRQs. */
int vs__recv_store_init(struct vs__recv_store *st, uint32_t cap, uint32_t max_sge);
void vs__recv_store_free(struct vs__recv_store *st);

/* Names of IBV_QP_* mask bits into buf ("IBV_QP_AV|IBV_QP_PATH_MTU"). */
void vs__qp_mask_names(int mask, char *buf, size_t len);

/*
 * 0 when ep is a well-formed endpoint (the rules of vs_endpoint_from_bytes);
 * else -EINVAL with "what endpoint: the field and what is wrong with it".
 */
int vs__endpoint_check(const struct vs_endpoint *ep, const char *verb,
		       const char *what);

/* Creates an AH toward remote from (pd, port, gid index, link layer). */
int vs__ah_create_for(struct vs_pd *pd, const struct vs_qp *qp,
		      const struct vs_endpoint *remote, struct vs_ah **out,
		      const char *verb);
/* Fills ah_attr toward remote the way the QP's link layer needs. */
void vs__fill_ah_attr(const struct vs_qp *qp, const struct vs_endpoint *remote,
		      struct ibv_ah_attr *ah);

/* Explains a failed RTR on RoCE: sgid index, dgid, netdev, type, link-local. */
void vs__describe_route(const struct vs_qp *qp, const union ibv_gid *dgid,
			char *buf, size_t len);

/*
 * Records the error of a failed ibv_modify_qp(from -> to, mask) that call
 * made (err: its positive errno): a wrong mask names the missing and the
 * extra bits, a complete one says a value is out of range, a RoCE RTR
 * toward dgid (NULL: none known) names the route.  Returns -err.
 */
int vs__modify_failed(const struct vs_qp *qp, const char *call, int err,
		      enum ibv_qp_state from, enum ibv_qp_state to, int mask,
		      const union ibv_gid *dgid, uint32_t dest_qpn);

/*
 * lib/qp_srd.c (the one file with efadv.h): efadv_query_device,
 * efadv_query_ah and efadv_query_qp_wqs into the typed structs, on
 * behalf of call; the arguments are checked by the caller.
 */
int vs__efa_caps(struct vs_context *ctx, struct vs_efa_caps *out,
		 const char *call);
int vs__efa_ah(struct ibv_ah *ah, struct vs_efa_ah_info *out, const char *call);
int vs__efa_wqs(struct ibv_qp *qp, struct vs_efa_wqs *out, const char *call);

#endif /* VS_INTERNAL_H */
