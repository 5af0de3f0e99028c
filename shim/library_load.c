// SPDX-License-Identifier: MIT
/*
 * vs_library_load() and vs_library_query(): a library by its number, so
 * every library's table (and its ELF notes, shim/vs_notes.h) is linked
 * into a program that calls either; the rest of the loader API
 * (shim/introspect.c) links only what the program calls.
 */
#include "vs_shim.h"

#define VS_LIB_ENTRY(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const vs_all_libs[] = {
	VS_LIBRARIES(VS_LIB_ENTRY)
};
_Static_assert(sizeof(vs_all_libs) / sizeof(vs_all_libs[0]) == VS_LIB_COUNT,
	       "VS_LIBRARIES and enum vs_library disagree");

static const struct vs_lib_desc *vs_any_lib(enum vs_library lib)
{
	return (unsigned int)lib < VS_LIB_COUNT ? vs_all_libs[lib] : NULL;
}

int vs_library_load(enum vs_library lib)
{
	const struct vs_lib_desc *desc = vs_any_lib(lib);
	int ret;

	if (!desc)
		return -EINVAL;
	ret = vs__ensure(desc);
	if (ret)
		return -ret;
	return desc->state->handle ? 0 : -desc->state->load_errno;
}

int vs_library_query(enum vs_library lib, struct vs_library_info *info)
{
	return vs__library_describe(vs_any_lib(lib), info);
}
