/* SPDX-License-Identifier: MIT */
/*
 * Checks over every row of the shim's symbol lists (needs the shim's
 * private headers: vs_shim.h; after trace/vs_trace.h, every library's
 * trace rows and wrappers too).
 */
#ifndef VS_ROWS_H
#define VS_ROWS_H

#include <dlfcn.h>
#include <stdio.h>

#include "loader/vs_shim.h"

/*
 * rdma-core only ever adds nodes: a row resolves exactly when its node's
 * first release is <= its library's limit (0: the library is absent).
 * Prints each row that disagrees; returns how many did.
 */
static inline unsigned int
vs_rows_check_by_release(const int limit[VS_LIB_COUNT], const char *label)
{
	unsigned int bad = 0;

#define VS_ROW_CHECK(lib, node, sym)                                           \
	do {                                                                   \
		int want = vs__nodes[VS_NODE_##node].release <= limit[lib];     \
		int got = vs_symbol_resolved(#sym);                            \
		if (got != want) {                                             \
			fprintf(stderr, "%s: %s@%s resolved %d, expected %d\n",\
				label, #sym, vs__nodes[VS_NODE_##node].name,    \
				got, want);                                    \
			bad++;                                                 \
		}                                                              \
	} while (0);
#define VS_ROW_IBVERBS(node, sym, ...) VS_ROW_CHECK(VS_LIB_IBVERBS, node, sym)
#define VS_ROW_RDMACM(node, sym, ...) VS_ROW_CHECK(VS_LIB_RDMACM, node, sym)
#define VS_ROW_EFA(node, sym, ...) VS_ROW_CHECK(VS_LIB_EFA, node, sym)
#define VS_ROW_MLX5(node, sym, ...) VS_ROW_CHECK(VS_LIB_MLX5, node, sym)
#define VS_ROW_MLX4(node, sym, ...) VS_ROW_CHECK(VS_LIB_MLX4, node, sym)
#define VS_ROW_IBUMAD(node, sym, ...) VS_ROW_CHECK(VS_LIB_IBUMAD, node, sym)
#define VS_ROW_HNS(node, sym, ...) VS_ROW_CHECK(VS_LIB_HNS, node, sym)
#define VS_ROW_MANA(node, sym, ...) VS_ROW_CHECK(VS_LIB_MANA, node, sym)
#define VS_ROW_IONIC(node, sym, ...) VS_ROW_CHECK(VS_LIB_IONIC, node, sym)
#define VS_ROW_LIB(lib, LIB, ...) VS_##LIB##_SYMBOLS(VS_ROW_##LIB)
	VS_LIBRARIES(VS_ROW_LIB)
#undef VS_ROW_LIB
#undef VS_ROW_IBVERBS
#undef VS_ROW_RDMACM
#undef VS_ROW_EFA
#undef VS_ROW_MLX5
#undef VS_ROW_MLX4
#undef VS_ROW_IBUMAD
#undef VS_ROW_HNS
#undef VS_ROW_MANA
#undef VS_ROW_IONIC
#undef VS_ROW_CHECK
	return bad;
}

#ifdef VS_TRACE_H
/*
 * The trace's rows and wrappers of every library (shim/trace/vs_trace.h)
 * linked, as in a program that calls into every library: a program links
 * those of the libraries it calls only.  Library lib's wrappers; sym's
 * wrapper (NULL: the row has none).
 */
#define VS_ROWS_TWRAPS(lib, ...) &vs__##lib##_twraps,
static const struct vs_twraps *const vs_rows_twraps_all[] = {
	VS_LIBRARIES(VS_ROWS_TWRAPS)
};
#undef VS_ROWS_TWRAPS

/* 1 when the trace finds them all (vs__trows()); a test that walks every
 * row asserts it first. */
static inline int vs_rows_trace_linked(void)
{
	unsigned int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		if (vs__trows(lib) != vs_rows_twraps_all[lib]->rows)
			return 0;
	return 1;
}

static inline void (*vs_rows_wrapper(enum vs_tsym sym))(void)
{
	unsigned int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		const struct vs_twraps *w = vs_rows_twraps_all[lib];

		if ((unsigned int)sym - w->rows->first < w->rows->n)
			return w->wrapper[sym - w->rows->first];
	}
	return NULL;
}

/*
 * Each slot of every loaded library holds what the dynamic loader itself
 * answers for name@node: the loader reads the library's own GNU hash
 * table instead of asking dlvsym() (shim/loader/elf_image.c) and must
 * land on the same address, NULL included.  With the trace's knobs on a
 * slot holds its wrapper: nothing is compared (-1).  Prints each slot that
 * differs and a summary line; returns how many differed.
 */
static inline int vs_rows_check_addresses(const char *label)
{
#define VS_ROWS_DESC(lib, ...) &vs__##lib##_desc,
	static const struct vs_lib_desc *const descs[] = {
		VS_LIBRARIES(VS_ROWS_DESC)
	};
#undef VS_ROWS_DESC
	unsigned int lib, i, compared = 0;
	int bad = 0;

	if (vs__trace_knobs_on())
		return -1;
	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		const struct vs_lib_desc *d = descs[lib];
		void *h = d->state->handle;

		for (i = 0; h && i < d->nsyms; i++) {
			const struct vs_sym *s = &d->syms[i];
			const char *name = vs__sym_name(d, s);
			void *slot = *(void *const *)((const char *)d->fn_base +
						      s->offset);
			void *want = d->state->highest_node[0] ?
				dlvsym(h, name, vs__nodes[s->node].name) :
				dlsym(h, name);

			compared++;
			if (slot != want) {
				fprintf(stderr, "%s: %s@%s: slot %p, dlvsym %p\n",
					label, name, vs__nodes[s->node].name,
					slot, want);
				bad++;
			}
		}
	}
	printf("  %s: %u slots compared with dlvsym(): %d differ\n", label,
	       compared, bad);
	return bad;
}
#endif

#endif /* VS_ROWS_H */
