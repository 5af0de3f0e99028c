// SPDX-License-Identifier: MIT
/*
 * The tracing wrappers, generated from shim/loader/syms_*.h: one per row, with
 * the row's exact prototype, so that the table slot can hold it in place
 * of the library's function; the top of the trace (the calls, the
 * decoders, the ids and the file are below it).  None of this runs unless a knob is set
 * (shim/trace/vs_trace.h).  Each wrapper packs its arguments as integers for the
 * decoder, asks whether to fail on purpose, calls the real function, and
 * reports the result with errno preserved.
 *
 * Compiled once per library (the Makefile's trace_wrap_<lib>.o, with
 * -DVS_TABLE_OF_<lib>=1): the library's table fill reaches its wrappers
 * (vs__<lib>_twraps), and nothing else does.
 */
#include <stdint.h>

#include "vs_trace.h"

/* Each argument as an integer; an empty argument list gives one 0.  The
 * empty case is told apart by pasting: VS_TEMPTY_ alone is a macro, any
 * VS_TEMPTY_<name> is not. */
#define VS_TSECOND(...) VS_TSECOND_(__VA_ARGS__)
#define VS_TSECOND_(a, b, ...) b
#define VS_TEMPTY_ ~, 0
#define VS_TA(x) VS_TSECOND(VS_TEMPTY_##x, (uint64_t)(uintptr_t)(x), ~)
#define VS_TA1(a) VS_TA(a)
#define VS_TA2(a, b) VS_TA(a), VS_TA(b)
#define VS_TA3(a, b, c) VS_TA(a), VS_TA2(b, c)
#define VS_TA4(a, b, c, d) VS_TA(a), VS_TA3(b, c, d)
#define VS_TA5(a, b, c, d, e) VS_TA(a), VS_TA4(b, c, d, e)
#define VS_TA6(a, b, c, d, e, f) VS_TA(a), VS_TA5(b, c, d, e, f)
#define VS_TA7(a, b, c, d, e, f, g) VS_TA(a), VS_TA6(b, c, d, e, f, g)
#define VS_TA8(a, b, c, d, e, f, g, h) VS_TA(a), VS_TA7(b, c, d, e, f, g, h)
#define VS_TNARG(...) VS_TNARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define VS_TNARG_(a, b, c, d, e, f, g, h, n, ...) n
#define VS_TCAT(a, b) VS_TCAT_(a, b)
#define VS_TCAT_(a, b) a##b
#define VS_TARGS(...) VS_TCAT(VS_TA, VS_TNARG(__VA_ARGS__))(__VA_ARGS__)

#define VS_TREAL(lib, name) ((__typeof__(vs__##lib.fn.name))c.real)

/*
 * A wrapper returning a value; fail is the row's failure, e the injected
 * errno.  The wrappers run only while a knob is on, and then the trace's
 * own work outweighs them: cold, they are compiled for size.  Their
 * begin clears errno for the real call, their end reads it and gives it
 * back (the caller's own on success).
 */
#define VS_TW_VALUE(lib, name, ret, params, args, fail)                        \
	static __attribute__((cold)) ret vs_tw_##name params                   \
	{                                                                      \
		const uint64_t a[] = { VS_TARGS args };                        \
		struct vs_tcall c;                                             \
		ret r;                                                         \
									       \
		if (vs__tcall_begin(&c, VS_TSYM_##name, a)) {                  \
			int e = c.fault_errno;                                 \
									       \
			(void)e;                                               \
			r = fail;                                              \
		} else {                                                       \
			r = VS_TREAL(lib, name) args;                          \
		}                                                              \
		vs__tcall_return(&c, (uint64_t)(uintptr_t)r);                  \
		return r;                                                      \
	}
#define VS_TW_VOIDFN(lib, name, ret, params, args)                             \
	static __attribute__((cold)) void vs_tw_##name params                  \
	{                                                                      \
		const uint64_t a[] = { VS_TARGS args };                        \
		struct vs_tcall c;                                             \
									       \
		vs__tcall_begin(&c, VS_TSYM_##name, a);                        \
		VS_TREAL(lib, name) args;                                      \
		vs__tcall_return(&c, 0);                                       \
	}

#define VS_TW_PTR(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, NULL)
#define VS_TW_ERRNO(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, (r)e)
#define VS_TW_NEG1(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, (r)-1)
#define VS_TW_NEGERR(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, (r)-e)
#define VS_TW_ZERO(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, (r)0)
/* strings and void cannot fail: the rule parser refuses them */
#define VS_TW_STR(l, n, r, p, a) VS_TW_VALUE(l, n, r, p, a, "unknown")
#define VS_TW_VOID(l, n, r, p, a) VS_TW_VOIDFN(l, n, r, p, a)
#define VS_TW_NONE(l, n, r, p, a)
/* The hand-written rows, by their upstream convention. */
#define VS_TW_CUSTOM(l, n, r, p, a) VS_TW_CUSTOM_##n(l, n, r, p, a)
#define VS_TW_CUSTOM_ibv_get_device_list VS_TW_PTR
#define VS_TW_CUSTOM_ibv_fork_init VS_TW_ERRNO
#define VS_TW_CUSTOM_ibv_reg_mr_iova VS_TW_PTR
#define VS_TW_CUSTOM_ibv_reg_mr_iova2 VS_TW_PTR
#define VS_TW_CUSTOM__ibv_query_gid_ex VS_TW_ERRNO
#define VS_TW_CUSTOM__ibv_query_gid_table VS_TW_NEGERR
#define VS_TW_CUSTOM_ibv_is_fork_initialized VS_TW_ZERO
#define VS_TW_CUSTOM_rdma_get_devices VS_TW_PTR
/* variadic: its wrapper could not forward the optional argument */
#define VS_TW_CUSTOM_rfcntl VS_TW_NONE

#define VS_TW_IBVERBS(node, n, r, p, a, conv, facts) VS_TW_##conv(ibverbs, n, r, p, a)
#define VS_TW_RDMACM(node, n, r, p, a, conv, facts) VS_TW_##conv(rdmacm, n, r, p, a)
#define VS_TW_EFA(node, n, r, p, a, conv, facts) VS_TW_##conv(efa, n, r, p, a)
#define VS_TW_MLX5(node, n, r, p, a, conv, facts) VS_TW_##conv(mlx5, n, r, p, a)
#define VS_TW_MLX4(node, n, r, p, a, conv, facts) VS_TW_##conv(mlx4, n, r, p, a)
#define VS_TW_IBUMAD(node, n, r, p, a, conv, facts) VS_TW_##conv(ibumad, n, r, p, a)
#define VS_TW_HNS(node, n, r, p, a, conv, facts) VS_TW_##conv(hns, n, r, p, a)
#define VS_TW_MANA(node, n, r, p, a, conv, facts) VS_TW_##conv(mana, n, r, p, a)
#define VS_TW_IONIC(node, n, r, p, a, conv, facts) VS_TW_##conv(ionic, n, r, p, a)

/* The wrappers' addresses, NULL for the rows that have none. */
#define VS_TWP_PTR(n) (void (*)(void))vs_tw_##n,
#define VS_TWP_ERRNO VS_TWP_PTR
#define VS_TWP_NEG1 VS_TWP_PTR
#define VS_TWP_NEGERR VS_TWP_PTR
#define VS_TWP_ZERO VS_TWP_PTR
#define VS_TWP_STR VS_TWP_PTR
#define VS_TWP_VOID VS_TWP_PTR
#define VS_TWP_CUSTOM(n) VS_TWP_CUSTOM_##n(n)
#define VS_TWP_CUSTOM_ibv_get_device_list VS_TWP_PTR
#define VS_TWP_CUSTOM_ibv_fork_init VS_TWP_PTR
#define VS_TWP_CUSTOM_ibv_reg_mr_iova VS_TWP_PTR
#define VS_TWP_CUSTOM_ibv_reg_mr_iova2 VS_TWP_PTR
#define VS_TWP_CUSTOM__ibv_query_gid_ex VS_TWP_PTR
#define VS_TWP_CUSTOM__ibv_query_gid_table VS_TWP_PTR
#define VS_TWP_CUSTOM_ibv_is_fork_initialized VS_TWP_PTR
#define VS_TWP_CUSTOM_rdma_get_devices VS_TWP_PTR
#define VS_TWP_CUSTOM_rfcntl(n) NULL,
#define VS_TWP_ROW(node, n, r, p, a, conv, facts) VS_TWP_##conv(n)

/* This object's library: its wrappers, and what its fill is given. */
#define VS_LIB_TW(lib, LIB, ...)                                               \
	VS_##LIB##_SYMBOLS(VS_TW_##LIB)                                        \
	static void (*const vs__##lib##_twrapper[])(void) = {                 \
		VS_##LIB##_SYMBOLS(VS_TWP_ROW)                                 \
	};                                                                     \
	const struct vs_twraps vs__##lib##_twraps = {                          \
		.rows = &vs__##lib##_trows,                                    \
		.wrapper = vs__##lib##_twrapper,                               \
	};
#define VS_LIB_TW_HERE(lib, ...) VS_IF_THIS(lib, VS_LIB_TW(lib, __VA_ARGS__))
VS_LIBRARIES(VS_LIB_TW_HERE)
