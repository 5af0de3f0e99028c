// SPDX-License-Identifier: MIT
/*
 * The rows this program links: each library's rows (trace_rows_<lib>.o)
 * are linked with its table, that is when the program calls one of its
 * functions; the rest of the trace finds them here, through weak
 * references that link nothing (as shim/tables/introspect.c finds the
 * tables).  The bottom of the trace, beside the rows.
 */
#include "vs_trace.h"

#define VS_TROWS_WEAK(lib, ...)                                                \
	extern VS_HIDDEN struct vs_trows vs__##lib##_trows                     \
		__attribute__((weak));
VS_LIBRARIES(VS_TROWS_WEAK)
#define VS_TROWS_ENTRY(lib, ...) &vs__##lib##_trows,
static struct vs_trows *const vs_trows_linked[] = {
	VS_LIBRARIES(VS_TROWS_ENTRY)
};
_Static_assert(sizeof(vs_trows_linked) / sizeof(vs_trows_linked[0]) ==
		       VS_LIB_COUNT,
	       "VS_LIBRARIES and enum vs_library disagree");
/* one past each library's last row */
#define VS_TROWS_END(lib, LIB, ...) VS_TSYM_END_##LIB,
static const unsigned short vs_trows_end[] = { VS_LIBRARIES(VS_TROWS_END) };

struct vs_trows *vs__trows(unsigned int lib)
{
	return lib < VS_LIB_COUNT ? vs_trows_linked[lib] : NULL;
}

static struct vs_trows *vs_trows_of(enum vs_tsym sym)
{
	unsigned int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		if ((unsigned int)sym < vs_trows_end[lib])
			return vs_trows_linked[lib];
	return NULL;
}

const struct vs_tsym_info *vs__tsym_info(enum vs_tsym sym)
{
	const struct vs_trows *rows = vs_trows_of(sym);

	return rows ? &rows->info[sym - rows->first] : NULL;
}

struct vs_tsym_state *vs__tsym_state(enum vs_tsym sym)
{
	struct vs_trows *rows = vs_trows_of(sym);
	struct vs_tsym_state *state =
		rows ? __atomic_load_n(&rows->state, __ATOMIC_ACQUIRE) : NULL;

	return state ? &state[sym - rows->first] : NULL;
}
