/* SPDX-License-Identifier: MIT */
/*
 * The bottom room of the typed API (lib/base/): errors, handles, names,
 * knobs.  Every lib/ file reaches it through its own room's header; it
 * includes the public headers whose types the rooms above share.
 */
#ifndef VS_BASE_H
#define VS_BASE_H

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
#include "verbshim/event.h"
#include "verbshim/scope.h"
#include "verbshim/trace.h"
#include "loader/vs_knobs.h" /* the shim's one reader of the VERBSHIM_ knobs */

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
/* -EINVAL, recorded as call's "out is NULL": every out parameter's refusal. */
int vs__out_null(const char *call) VS_COLD;
/*
 * The *out rule of a create (docs/API.md): out refused when NULL, else
 * cleared before any other check, so that a failed create leaves NULL.
 * 0 or -EINVAL.
 */
#define vs__out_clear(out, call) ((out) ? (*(out) = NULL, 0) : vs__out_null(call))
/*
 * When library lib (enum vs_library) did not load: "libibverbs did not
 * load: <the loader's reason, with the path>" into buf, returned; else NULL.
 */
const char *vs__library_reason(int lib, char *buf, size_t len);
void vs__error_set_batch_posted(long n);
/*
 * From the shim (shim/trace/trace.c): the name of the last call VERBSHIM_FAULT
 * made fail on this thread (until that function is called again), or
 * NULL; the VERBSHIM_STATS counters (0, -ENODATA when off, -errno).
 */
const char *vs__fault_last(void);
int vs__tstats_get(struct vs_call_stat *out, size_t max, size_t *count);
/* vs_library_query() for a library this program links, vs_feature_query()
 * as this program links the libraries (shim/tables/introspect.c: they link no
 * other library's table); -ENOENT when the library is not linked. */
struct vs_library_info;
int vs__library_query_linked(int lib, struct vs_library_info *info);
struct vs_feature_info;
int vs__feature_query_linked(int feature, struct vs_feature_info *info);
int vs__tstats_print(int fd);
/*
 * lib/base/names.c: "a" or "an" before w, by its spoken sound (an RC, an
 * MR, an SRQ, a UD, a QP, a compare-and-swap, an RDMA write): for a
 * message whose noun is chosen at run time ("%s %s QP").
 */
const char *vs__article(const char *w);
/* Puts back a record saved earlier (a failure that stands after a look). */
void vs__error_restore(const struct vs_error *e);
/*
 * A parent's destroy that failed in another handle's close (its close was
 * deferred to its last child's: docs/API.md, Lifetimes, rules 4 and 6):
 * appends what to retry to the record, when verb is not own (the parent's
 * close, "vs_pd_close"); what: "PD".  The child's handle is gone with its
 * object, so its close again is the double close of rule 3.
 */
void vs__deferred_note(const char *verb, const char *own, const char *what) VS_COLD;
/* Appends to this thread's record's message (printf; cut like any). */
void vs__error_append(const char *fmt, ...) VS_COLD
	__attribute__((format(printf, 1, 2)));

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
 * closes of a class in its time (test/device/cm_churn.c: connections).
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
 * A close guard, per thread: while set, the user's close (vs__user_close)
 * of one of handles[0..n) in this thread fails -EBUSY, recorded as
 * "<what> is <why>" (a one-call server's objects while its before_accept
 * hook runs).  n 0 clears it.  The array must outlive the guard.
 */
void vs__close_guard(const void *const *handles, size_t n, const char *why);

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

/* lib/handle.c: p points at a handle of the arena (safe to read its magic) */
bool vs__handle_in_arena(const void *p, size_t size);

/* Keeps the first failure of a teardown sequence. */
static inline int vs__first_err(int a, int b)
{
	return a ? a : b;
}

/*
 * A teardown of several steps that goes on after a failure keeps the
 * first one: its return and its record (a later step's failure would
 * otherwise overwrite the cause the caller needs).  vs__first_keep()
 * after each step, vs__first_end() returns the first failure (0: none)
 * with its record put back.
 */
struct vs__first {
	int err;
	struct vs_error rec;
};

static inline void vs__first_keep(struct vs__first *f, int ret)
{
	if (ret && !f->err) {
		f->err = ret;
		f->rec = *vs_last_error();
	}
}

static inline int vs__first_end(struct vs__first *f)
{
	if (f->err)
		vs__error_restore(&f->rec);
	return f->err;
}

/* Names of IBV_QP_* mask bits into buf ("IBV_QP_AV|IBV_QP_PATH_MTU"). */
void vs__qp_mask_names(int mask, char *buf, size_t len);

#endif /* VS_BASE_H */
