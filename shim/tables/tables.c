// SPDX-License-Identifier: MIT
/*
 * The function tables, their once-flags, and for each library the
 * descriptor the loader works from: all generated from VS_LIBRARIES and
 * shim/loader/syms_*.h.
 *
 * Compiled once per library (the Makefile's tables_<lib>.o, with
 * -DVS_TABLE_OF_<lib>=1): a program links the object of a library exactly
 * when it uses that library's table, so the ELF notes each object carries
 * (shim/tables/vs_notes.h) name exactly the libraries the program can load.
 */
#include <stdio.h>

#include "vs_notes.h"
#include "trace/vs_trace.h"

/* 1 when the Makefile passed -DVS_TABLE_OF_<lib>=1, else 0 (Linux's
 * IS_ENABLED: an undefined name leaves junk in the first argument). */
#define VS_ARG_PLACEHOLDER_1 0,
#define VS_TAKE_SECOND(ignored, val, ...) val
#define VS_IS_ON(x) VS_IS_ON_(x)
#define VS_IS_ON_(val) VS_IS_ON__(VS_ARG_PLACEHOLDER_##val)
#define VS_IS_ON__(arg1_or_junk) VS_TAKE_SECOND(arg1_or_junk 1, 0)
#define VS_WHEN(c) VS_WHEN_(c)
#define VS_WHEN_(c) VS_WHEN_##c
#define VS_WHEN_1(...) __VA_ARGS__
#define VS_WHEN_0(...)
/* The tokens that follow, when lib is this object's library. */
#define VS_IF_THIS(lib, ...) VS_WHEN(VS_IS_ON(VS_TABLE_OF_##lib))(__VA_ARGS__)

#define VS_COUNT_NODE(id, str, release) +1
#define VS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Forward declarations of the once routines, for the descriptors. */
#define VS_LIB_LOAD_DECLARE(lib, ...)                                          \
	VS_IF_THIS(lib, static void vs__##lib##_load(void);)
VS_LIBRARIES(VS_LIB_LOAD_DECLARE)

/* One library: its table, once-flag, symbol array, fill function,
 * descriptor, ensure function and ELF notes. */
#define VS_LIBRARY(lib, LIB, soname_, probe_, family_, needs_ibverbs, pkg,    \
		   priority)                                                   \
	VS_NOTE_DLOPEN(lib, soname_, family_, priority)                        \
	VS_NOTE_TABLE(lib, LIB, soname_)                                       \
	struct vs_##lib##_table vs__##lib;                                     \
	pthread_once_t vs__##lib##_once = PTHREAD_ONCE_INIT;                   \
	static const struct vs_sym vs__##lib##_syms[] = {                      \
		VS_##LIB##_SYMBOLS(VS_##LIB##_SYM)                             \
	};                                                                     \
	static unsigned int vs__##lib##_fill(void *handle, int versioned)      \
	{                                                                      \
		unsigned int n = 0;                                            \
		/* VERBSHIM_TRACE/STATS/FAULT: wrappers in the slots */        \
		int vs_tknobs = vs__trace_knobs_on();                          \
		/* (a list the headers left empty uses none of them) */       \
		(void)handle, (void)versioned, (void)vs_tknobs;                \
		VS_##LIB##_SYMBOLS(VS_##LIB##_FILL)                            \
		return n;                                                      \
	}                                                                      \
	const struct vs_lib_desc vs__##lib##_desc = {                          \
		.name = "lib" #lib,                                            \
		.soname = soname_,                                             \
		.devname = "lib" #lib ".so",                                   \
		.knob = VS_KNOB_LIB##LIB,                                      \
		.node_prefix = #LIB "_",                                       \
		.probe = probe_,                                               \
		.package = pkg,                                                \
		.family = family_,                                             \
		.reentry_self = "lib" #lib " called back into " family_        \
				" while loading",                              \
		.reentry_dep = "libibverbs called back into " family_          \
			       " while loading",                               \
		.first_node = VS_FIRST_NODE_##lib,                             \
		.nnodes = 0 VS_##LIB##_NODES(VS_COUNT_NODE),                   \
		.syms = vs__##lib##_syms,                                      \
		.nsyms = VS_ARRAY_SIZE(vs__##lib##_syms),                      \
		.state = &vs__##lib.state,                                     \
		.fn_base = &vs__##lib.fn,                                      \
		.once = &vs__##lib##_once,                                     \
		.load = vs__##lib##_load,                                      \
		.depends = needs_ibverbs ? &vs__ibverbs_desc : NULL,           \
		.fill = vs__##lib##_fill,                                      \
	};                                                                     \
	static void vs__##lib##_load(void)                                     \
	{                                                                      \
		vs__lib_load(&vs__##lib##_desc);                               \
	}                                                                      \
	int vs__ensure_##lib(void)                                             \
	{                                                                      \
		return vs__ensure(&vs__##lib##_desc);                          \
	}

#define VS_IBVERBS_SYM(node, name, ret, params, args, conv, facts)                    \
	VS_SYM_ROW(ibverbs, node, name)
#define VS_RDMACM_SYM(node, name, ret, params, args, conv, facts)                     \
	VS_SYM_ROW(rdmacm, node, name)
#define VS_EFA_SYM(node, name, ret, params, args, conv, facts)                        \
	VS_SYM_ROW(efa, node, name)

#define VS_IBVERBS_FILL(node, name, ret, params, args, conv, facts)                   \
	VS_FILL_SLOT(ibverbs, handle, node, name)
#define VS_RDMACM_FILL(node, name, ret, params, args, conv, facts)                    \
	VS_FILL_SLOT(rdmacm, handle, node, name)
#define VS_EFA_FILL(node, name, ret, params, args, conv, facts)                       \
	VS_FILL_SLOT(efa, handle, node, name)
#define VS_MLX5_SYM(node, name, ret, params, args, conv, facts)                       \
	VS_SYM_ROW(mlx5, node, name)
#define VS_MLX5_FILL(node, name, ret, params, args, conv, facts)                      \
	VS_FILL_SLOT(mlx5, handle, node, name)
#define VS_MLX4_SYM(node, name, ret, params, args, conv, facts)                       \
	VS_SYM_ROW(mlx4, node, name)
#define VS_MLX4_FILL(node, name, ret, params, args, conv, facts)                      \
	VS_FILL_SLOT(mlx4, handle, node, name)
#define VS_IBUMAD_SYM(node, name, ret, params, args, conv, facts)                     \
	VS_SYM_ROW(ibumad, node, name)
#define VS_IBUMAD_FILL(node, name, ret, params, args, conv, facts)                    \
	VS_FILL_SLOT(ibumad, handle, node, name)

#define VS_HNS_SYM(node, name, ret, params, args, conv, facts)                        \
	VS_SYM_ROW(hns, node, name)
#define VS_HNS_FILL(node, name, ret, params, args, conv, facts)                       \
	VS_FILL_SLOT(hns, handle, node, name)
#define VS_MANA_SYM(node, name, ret, params, args, conv, facts)                       \
	VS_SYM_ROW(mana, node, name)
#define VS_MANA_FILL(node, name, ret, params, args, conv, facts)                      \
	VS_FILL_SLOT(mana, handle, node, name)
#define VS_IONIC_SYM(node, name, ret, params, args, conv, facts)                      \
	VS_SYM_ROW(ionic, node, name)
#define VS_IONIC_FILL(node, name, ret, params, args, conv, facts)                     \
	VS_FILL_SLOT(ionic, handle, node, name)

#define VS_LIBRARY_HERE(lib, ...) VS_IF_THIS(lib, VS_LIBRARY(lib, __VA_ARGS__))
VS_LIBRARIES(VS_LIBRARY_HERE)
