/* SPDX-License-Identifier: MIT */
/*
 * verbshim typed API: what every family shares.
 *
 * Conventions (docs/API.md has the long form):
 *  - every fallible call returns 0 or a negative errno and hands results
 *    back through out-parameters; vs_last_error() says what went wrong;
 *  - handles are reference counted: a QP keeps its CQs, PD and SRQ alive,
 *    an MR its PD, so they may be closed in any order;
 *  - the data path (post, poll) is VS_INLINE in the headers so it costs
 *    what the raw verbs cost; struct fields marked private are read only
 *    by those inlines.
 */
#ifndef VERBSHIM_COMMON_H
#define VERBSHIM_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
#define VS_BEGIN_DECLS extern "C" {
#define VS_END_DECLS }
#else
#define VS_BEGIN_DECLS
#define VS_END_DECLS
#endif

/*
 * The one macro every public inline is defined behind (liburing's
 * IOURINGINLINE): the FFI twin, lib/core/ffi.c, defines it empty and
 * includes these headers, so each public inline is compiled there once more
 * as an external definition, renamed vs_ffi_NAME (include/verbshim/ffi.h).
 * VS__INLINE is the private helpers' (vs__NAME), never twinned.  VS__HOT
 * marks the adds of a send batch, inlined whatever the compiler's size
 * limits say (a call would cost more than their folded body); not in the
 * twin, whose functions are not inline.
 */
#ifndef VS_INLINE
#define VS_INLINE static inline
#if defined(__GNUC__)
#define VS__HOT __attribute__((always_inline))
#endif
#endif
#ifndef VS__HOT
#define VS__HOT
#endif
#define VS__INLINE static inline

#if defined(__GNUC__)
/* private: the pieces of one WR's add (see VS__HOT) */
#define VS__FORCE_INLINE static inline __attribute__((always_inline))
#define VS_LIKELY(x) __builtin_expect(!!(x), 1)
#define VS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define VS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define VS_COLD __attribute__((cold, noinline))
/* On creates and submits: ignoring their result loses an object or WRs. */
#define VS_MUST_CHECK __attribute__((warn_unused_result))
/* States an invariant the caller guarantees, so the compiler may use it. */
#define VS_ASSUME(x) do { if (!(x)) __builtin_unreachable(); } while (0)
#else
#define VS__FORCE_INLINE static inline
#define VS_ASSUME(x) do { } while (0)
#define VS_LIKELY(x) (x)
#define VS_UNLIKELY(x) (x)
#define VS_PRINTF(f, a)
#define VS_COLD
#define VS_MUST_CHECK
#endif

/*
 * Type guards (private).  Every typed entry point is also a function-like
 * macro of the same name that passes its handle and batch arguments
 * through _Generic, so an argument of another type is a hard error in
 * plain C11 with any compiler and no extra flags (an incompatible pointer
 * alone is only a warning there).  NULL and void * pass; the run-time
 * kind check refuses a wrong one.  Only leading arguments are guarded, up
 * to the first that may be a compound literal with commas (a config, an
 * SGE, a remote), which a macro would split; those follow as __VA_ARGS__.
 * C++ needs none: the pointer conversions are errors there already.
 * (vs_pd_close)(pd) and &vs_pd_close reach the function itself; the
 * library's sources define VS__NO_TYPE_GUARDS.
 */
#if !defined(__cplusplus) && !defined(VS__NO_TYPE_GUARDS)
#define VS__TYPE_GUARDS 1
#define VS__IS(T, x) _Generic((x), T *: (x), void *: (x))
#define VS__IS_C(T, x) _Generic((x), T *: (x), const T *: (x), void *: (x))
/*
 * A config and an out pointer are guarded where a macro cannot name them:
 * __VA_ARGS__ split at every comma, a compound literal's included, is
 * counted (2 to 32 pieces); its last piece is the out pointer and the
 * others, put back with their commas, the config, so
 * &(struct vs_rc_config){ .send_cq = cq, .recv_cq = cq } is checked whole.
 * Each guard is a _Generic that yields x, the call's first argument, when
 * the type is right (or void *, NULL) and is an error otherwise.
 */
#define VS__CFG(C, x, ...)                                                    \
	_Generic((VS__INIT(__VA_ARGS__)), C *: (x), const C *: (x), void *: (x))
#define VS__OUT(O, x, ...) _Generic((VS__LAST(__VA_ARGS__)), O: (x), void *: (x))
#define VS__NARG(...) VS__NARG_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define VS__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...) N
#define VS__CAT(a, b) VS__CAT_(a, b)
#define VS__CAT_(a, b) a##b
#define VS__LAST(...) VS__CAT(VS__LAST_, VS__NARG(__VA_ARGS__))(__VA_ARGS__)
#define VS__INIT(...) VS__CAT(VS__INIT_, VS__NARG(__VA_ARGS__))(__VA_ARGS__)
#define VS__LAST_2(a1, a2) a2
#define VS__LAST_3(a1, a2, a3) a3
#define VS__LAST_4(a1, a2, a3, a4) a4
#define VS__LAST_5(a1, a2, a3, a4, a5) a5
#define VS__LAST_6(a1, a2, a3, a4, a5, a6) a6
#define VS__LAST_7(a1, a2, a3, a4, a5, a6, a7) a7
#define VS__LAST_8(a1, a2, a3, a4, a5, a6, a7, a8) a8
#define VS__LAST_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) a9
#define VS__LAST_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) a10
#define VS__LAST_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) a11
#define VS__LAST_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) a12
#define VS__LAST_13(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) a13
#define VS__LAST_14(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) a14
#define VS__LAST_15(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) a15
#define VS__LAST_16(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16) a16
#define VS__LAST_17(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17) a17
#define VS__LAST_18(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18) a18
#define VS__LAST_19(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19) a19
#define VS__LAST_20(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20) a20
#define VS__LAST_21(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21) a21
#define VS__LAST_22(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22) a22
#define VS__LAST_23(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23) a23
#define VS__LAST_24(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24) a24
#define VS__LAST_25(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25) a25
#define VS__LAST_26(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26) a26
#define VS__LAST_27(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27) a27
#define VS__LAST_28(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28) a28
#define VS__LAST_29(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29) a29
#define VS__LAST_30(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30) a30
#define VS__LAST_31(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31) a31
#define VS__LAST_32(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32) a32
#define VS__INIT_2(a1, a2) a1
#define VS__INIT_3(a1, a2, a3) a1, a2
#define VS__INIT_4(a1, a2, a3, a4) a1, a2, a3
#define VS__INIT_5(a1, a2, a3, a4, a5) a1, a2, a3, a4
#define VS__INIT_6(a1, a2, a3, a4, a5, a6) a1, a2, a3, a4, a5
#define VS__INIT_7(a1, a2, a3, a4, a5, a6, a7) a1, a2, a3, a4, a5, a6
#define VS__INIT_8(a1, a2, a3, a4, a5, a6, a7, a8) a1, a2, a3, a4, a5, a6, a7
#define VS__INIT_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) a1, a2, a3, a4, a5, a6, a7, a8
#define VS__INIT_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) a1, a2, a3, a4, a5, a6, a7, a8, a9
#define VS__INIT_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
#define VS__INIT_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11
#define VS__INIT_13(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12
#define VS__INIT_14(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13
#define VS__INIT_15(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14
#define VS__INIT_16(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
#define VS__INIT_17(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16
#define VS__INIT_18(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17
#define VS__INIT_19(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18
#define VS__INIT_20(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19
#define VS__INIT_21(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20
#define VS__INIT_22(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21
#define VS__INIT_23(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22
#define VS__INIT_24(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23
#define VS__INIT_25(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24
#define VS__INIT_26(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25
#define VS__INIT_27(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26
#define VS__INIT_28(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27
#define VS__INIT_29(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28
#define VS__INIT_30(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29
#define VS__INIT_31(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30
#define VS__INIT_32(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32) a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31
#endif

VS_BEGIN_DECLS

/*
 * private: r is a failure's return (a negative errno).  Said to the
 * compiler, so that a caller's "if (ret) return ret;" after a failed
 * start is known taken and later checks of the same batch fold away.
 */
static inline int vs__neg(int r)
{
	VS_ASSUME(r < 0);
	return r;
}

/* private: the error of a batch used before its start or after its end */
int vs__not_started(const char *verb) VS_COLD;

/* Transports of the typed queue pairs. */
enum vs_transport {
	VS_TRANSPORT_RC = 1,
	VS_TRANSPORT_UC = 2,
	VS_TRANSPORT_UD = 3,
	VS_TRANSPORT_SRD = 4, /* EFA's scalable reliable datagram (srd.h) */
};

/*
 * Every handle starts with this header (private).  The magic says which
 * kind of handle it is, so a handle cast to the wrong kind is refused with
 * a clear error instead of being used; after the user's close it is the
 * kind with VS__CLOSED set, so every public call refuses it by the same
 * one compare.  Handle memory is quarantined after the destroy
 * (lib/base/handle.c): a closed handle stays readable, marked closed, for at
 * least the next 4096 closes of its size class, so a second close or a
 * use after close is recognised, never a read of freed memory; then its
 * slot may be reused (docs/API.md, Lifetimes, rule 7).  refs counts the user's reference (until the close) and one per
 * dependant (a QP holds its CQs, PD and SRQ, ...); the ibv_* object is
 * destroyed when it drops to 0.  gate is the one word the send fast path
 * checks: on a QP it equals magic while a send batch may start (the QP is
 * open, in RTS, no batch open); on other kinds it is 0 (on a CQ: 1 while
 * an iteration holds it), never a QP's kind, so one compare refuses a
 * handle of another kind, a closed QP, a QP not in RTS and a second batch.
 */
struct vs_handle {
	uint32_t magic;
	uint32_t gate;
	int refs;
};

/* private: set in magic by the user's close */
#define VS__CLOSED 0x80000000u

enum vs_handle_kind {
	VS_KIND_CONTEXT = 0x76734358, /* "vsCX" */
	VS_KIND_PD = 0x76735044,
	VS_KIND_MR = 0x76734d52,
	VS_KIND_CQ = 0x76734351,
	VS_KIND_SRQ = 0x76735352,
	VS_KIND_AH = 0x76734148,
	VS_KIND_RC_QP = 0x76735243,
	VS_KIND_UC_QP = 0x76735543,
	VS_KIND_UD_QP = 0x76735544,
	VS_KIND_SRD_QP = 0x76735351, /* "vsSQ" */
	VS_KIND_CHANNEL = 0x76734348, /* "vsCH" */
	VS_KIND_CM_ID = 0x7673434d, /* "vsCM" */
	VS_KIND_CM_CHANNEL = 0x76734345, /* "vsCE" */
};

/**
 * vs_kind_name() - name of a handle kind
 * @magic: a handle's magic
 *
 * Returns the name of a kind ("PD", "RC QP", ...), "closed PD" (...) for
 * the magic of a closed handle, or "unknown handle".
 *
 * Return: "PD", "RC QP", ..., "closed PD" for a closed handle's magic,
 * "unknown handle"; a static string.
 */
const char *vs_kind_name(uint32_t magic);

VS_END_DECLS

#endif /* VERBSHIM_COMMON_H */
