// SPDX-License-Identifier: MIT
/*
 * The function tables, their once-flags, and for each library the
 * descriptor the loader works from: all generated from VS_LIBRARIES and
 * shim/loader/syms_*.h.
 *
 * Compiled once per library (the Makefile's tables_<lib>.o, with
 * -DVS_TABLE_OF_<lib>=1): a program links the object of a library exactly
 * when it uses that library's table, so the ELF notes each object carries
 * (shim/tables/vs_notes.h) name exactly the libraries the program can load,
 * and the trace's rows and wrappers it links (trace_rows_<lib>.o,
 * trace_wrap_<lib>.o, reached from the fill) are those of these libraries.
 */
#include <stdio.h>

#include "vs_notes.h"
#include "trace/vs_trace.h"

#define VS_COUNT_NODE(id, str, release) +1
#define VS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Forward declarations of the once routines, for the descriptors. */
#define VS_LIB_LOAD_DECLARE(lib, ...)                                          \
	VS_IF_THIS(lib, static void vs__##lib##_load(void);)
VS_LIBRARIES(VS_LIB_LOAD_DECLARE)

/* A slot's address in the table: the slots are function pointers of many
 * types, stored here as what they all are. */
typedef void *vs_slot_t __attribute__((may_alias));

/*
 * Resolve every slot of a library: a loop over its rows (name, node, slot
 * offset), each looked up in the library's own GNU hash table (vs_elf.h).
 * A slot of a node the library does not define (vs_read_versions() read
 * them all) is NULL without a lookup.  With VERBSHIM_TRACE/STATS/FAULT on,
 * a slot may get the row's wrapper instead of the function.
 */
static unsigned int vs_fill(const struct vs_lib_desc *d,
			    const struct vs_twraps *tw, void *handle,
			    const struct vs_elf *elf)
{
	const struct vs_lib_state *st = d->state;
	int knobs = vs__trace_knobs_on();
	unsigned int i, n = 0;

	for (i = 0; i < d->nsyms; i++) {
		const struct vs_sym *s = &d->syms[i];
		void *p = !elf ||
				  vs__node_defined(st, s->node - d->first_node) ?
			vs__lookup(handle, elf, d, vs__sym_name(d, s),
				   (enum vs_node_id)s->node) : NULL;

		if (__builtin_expect(knobs, 0) && p)
			p = vs__trace_slot(tw, i, p);
		__atomic_store_n((vs_slot_t *)((char *)d->fn_base + s->offset),
				 p, __ATOMIC_RELEASE);
		n += p != NULL;
	}
	return n;
}

/* One library: its table, once-flag, symbol array (and names), fill
 * function, descriptor, ensure function and ELF notes. */
#define VS_LIBRARY(lib, LIB, soname_, probe_, family_, needs_ibverbs, pkg,    \
		   priority)                                                   \
	VS_NOTE_DLOPEN(lib, soname_, family_, priority)                        \
	VS_NOTE_TABLE(lib, LIB, soname_)                                       \
	struct vs_##lib##_table vs__##lib;                                     \
	pthread_once_t vs__##lib##_once = PTHREAD_ONCE_INIT;                   \
	static const struct vs_##lib##_names {                                 \
		VS_##LIB##_SYMBOLS(VS_SYM_NAME_FIELD)                          \
	} vs__##lib##_names = { VS_##LIB##_SYMBOLS(VS_SYM_NAME_TEXT) };        \
	_Static_assert(sizeof(vs__##lib##_names) <= 0xffff,                    \
		       "struct vs_sym's name is an unsigned short");           \
	static const struct vs_sym vs__##lib##_syms[] = {                      \
		VS_##LIB##_SYMBOLS(VS_##LIB##_SYM)                             \
	};                                                                     \
	static unsigned int vs__##lib##_fill(void *handle,                    \
					     const struct vs_elf *elf)         \
	{                                                                      \
		return vs_fill(&vs__##lib##_desc, &vs__##lib##_twraps, handle, \
			       elf);                                           \
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
		.names = (const char *)&vs__##lib##_names,                     \
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

#define VS_IBVERBS_SYM(node, name, ...) VS_SYM_ROW(ibverbs, node, name)
#define VS_RDMACM_SYM(node, name, ...) VS_SYM_ROW(rdmacm, node, name)
#define VS_EFA_SYM(node, name, ...) VS_SYM_ROW(efa, node, name)
#define VS_MLX5_SYM(node, name, ...) VS_SYM_ROW(mlx5, node, name)
#define VS_MLX4_SYM(node, name, ...) VS_SYM_ROW(mlx4, node, name)
#define VS_IBUMAD_SYM(node, name, ...) VS_SYM_ROW(ibumad, node, name)
#define VS_HNS_SYM(node, name, ...) VS_SYM_ROW(hns, node, name)
#define VS_MANA_SYM(node, name, ...) VS_SYM_ROW(mana, node, name)
#define VS_IONIC_SYM(node, name, ...) VS_SYM_ROW(ionic, node, name)

#define VS_LIBRARY_HERE(lib, ...) VS_IF_THIS(lib, VS_LIBRARY(lib, __VA_ARGS__))
VS_LIBRARIES(VS_LIBRARY_HERE)
