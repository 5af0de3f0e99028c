// SPDX-License-Identifier: MIT
/*
 * Each row's description for the trace (shim/trace/vs_trace.h): its name, its
 * parameters and result as text, its library and its failure convention,
 * generated from shim/loader/syms_*.h.  The bottom of the trace: the knobs'
 * grammar, the decoders and the calls read it; it reads nothing of them.
 *
 * Compiled once per library (the Makefile's trace_rows_<lib>.o, with
 * -DVS_TABLE_OF_<lib>=1, as shim/tables/tables.c is): the library's wrappers
 * reach it, and the rest of the trace finds it only when it is linked
 * (shim/trace/trace_linked.c), so a program carries the rows of the
 * libraries it calls.
 */
#include "vs_trace.h"

/* The failure convention of each row, the CUSTOM rows by their upstream
 * one. */
#define VS_TCONV(conv, name) VS_TCONV_##conv(name)
#define VS_TCONV_PTR(n) VS_TC_PTR
#define VS_TCONV_ERRNO(n) VS_TC_ERRNO
#define VS_TCONV_NEG1(n) VS_TC_NEG1
#define VS_TCONV_NEGERR(n) VS_TC_NEGERR
#define VS_TCONV_ZERO(n) VS_TC_ZERO
#define VS_TCONV_STR(n) VS_TC_STR
#define VS_TCONV_VOID(n) VS_TC_VOID
#define VS_TCONV_CUSTOM(n) VS_TCONV_CUSTOM_##n
#define VS_TCONV_CUSTOM_ibv_get_device_list VS_TC_PTR
#define VS_TCONV_CUSTOM_ibv_fork_init VS_TC_ERRNO
#define VS_TCONV_CUSTOM_ibv_reg_mr_iova VS_TC_PTR
#define VS_TCONV_CUSTOM_ibv_reg_mr_iova2 VS_TC_PTR
#define VS_TCONV_CUSTOM__ibv_query_gid_ex VS_TC_ERRNO
#define VS_TCONV_CUSTOM__ibv_query_gid_table VS_TC_NEGERR
#define VS_TCONV_CUSTOM_ibv_is_fork_initialized VS_TC_NOFAIL
#define VS_TCONV_CUSTOM_rdma_get_devices VS_TC_PTR
#define VS_TCONV_CUSTOM_rfcntl VS_TC_NONE

/* The descriptions. */
#define VS_TINFO_ROW(LIB, name, ret, params, conv, facts)                      \
	[VS_TSYM_##name - VS_TSYM_FIRST_##LIB] = {                             \
		#name "\0" #params "\0" #ret "\0" facts, VS_LIB_##LIB,        \
		VS_TCONV(conv, name) },
#define VS_TINFO_IBVERBS(node, n, r, p, a, conv, facts) VS_TINFO_ROW(IBVERBS, n, r, p, conv, facts)
#define VS_TINFO_RDMACM(node, n, r, p, a, conv, facts) VS_TINFO_ROW(RDMACM, n, r, p, conv, facts)
#define VS_TINFO_EFA(node, n, r, p, a, conv, facts) VS_TINFO_ROW(EFA, n, r, p, conv, facts)
#define VS_TINFO_MLX5(node, n, r, p, a, conv, facts) VS_TINFO_ROW(MLX5, n, r, p, conv, facts)
#define VS_TINFO_MLX4(node, n, r, p, a, conv, facts) VS_TINFO_ROW(MLX4, n, r, p, conv, facts)
#define VS_TINFO_IBUMAD(node, n, r, p, a, conv, facts) VS_TINFO_ROW(IBUMAD, n, r, p, conv, facts)
#define VS_TINFO_HNS(node, n, r, p, a, conv, facts) VS_TINFO_ROW(HNS, n, r, p, conv, facts)
#define VS_TINFO_MANA(node, n, r, p, a, conv, facts) VS_TINFO_ROW(MANA, n, r, p, conv, facts)
#define VS_TINFO_IONIC(node, n, r, p, a, conv, facts) VS_TINFO_ROW(IONIC, n, r, p, conv, facts)

/* This object's library: its descriptions (row VS_TSYM_FIRST_<LIB> + i
 * at i), and their place in enum vs_tsym; their state is mapped when a
 * knob is on (shim/trace/trace.c). */
#define VS_LIB_TROWS(lib, LIB, ...)                                            \
	static const struct vs_tsym_info vs__##lib##_tinfo[] = {              \
		VS_##LIB##_SYMBOLS(VS_TINFO_##LIB)                             \
	};                                                                     \
	struct vs_trows vs__##lib##_trows = {                                  \
		.info = vs__##lib##_tinfo,                                     \
		.first = VS_TSYM_FIRST_##LIB,                                  \
		.n = VS_TSYM_END_##LIB - VS_TSYM_FIRST_##LIB,                  \
	};
#define VS_LIB_TROWS_HERE(lib, ...) VS_IF_THIS(lib, VS_LIB_TROWS(lib, __VA_ARGS__))
VS_LIBRARIES(VS_LIB_TROWS_HERE)
