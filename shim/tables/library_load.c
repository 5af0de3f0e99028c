// SPDX-License-Identifier: MIT
/*
 * The loader API's calls that take a library or a feature by number
 * (vs_library_load, vs_library_query, vs_library_nodes, vs_feature_query):
 * a program that calls one can load any library, so every library's table
 * (and its ELF notes, shim/tables/vs_notes.h) is linked in.  The rest of the
 * loader API (shim/tables/introspect.c) links only what the program calls.
 */
#include "loader/vs_shim.h"

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

int vs_library_nodes(enum vs_library lib, char *buf, size_t len)
{
	const struct vs_lib_desc *desc = vs_any_lib(lib);
	int ret;

	if ((unsigned int)lib >= VS_LIB_COUNT || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (!desc)	/* not linked: never loaded */
		return 0;
	ret = vs__ensure(desc);
	if (ret)
		return -ret;
	return (int)vs__nodes_found_text(desc, buf, len);
}

int vs_feature_query(enum vs_feature feature, struct vs_feature_info *info)
{
	return vs__feature_describe(feature, info, vs_all_libs);
}
