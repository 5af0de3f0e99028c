// SPDX-License-Identifier: MIT
/* The public loader introspection API (include/verbshim/loader.h). */
#include <string.h>

#include "vs_shim.h"

#define VS_LIB_ENTRY(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const vs_libs[] = {
	VS_LIBRARIES(VS_LIB_ENTRY)
};
_Static_assert(sizeof(vs_libs) / sizeof(vs_libs[0]) == VS_LIB_COUNT,
	       "VS_LIBRARIES and enum vs_library disagree");

static const struct vs_lib_desc *vs_lib_get(enum vs_library lib)
{
	if ((unsigned int)lib >= VS_LIB_COUNT)
		return NULL;
	return vs_libs[lib];
}

int vs_library_load(enum vs_library lib)
{
	const struct vs_lib_desc *desc = vs_lib_get(lib);

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
	const struct vs_lib_desc *desc = vs_lib_get(lib);
	const struct vs_lib_state *st;

	if (!desc || !info)
		return -EINVAL;
	if (vs__ensure(desc)) {
		/* Asked from inside the load (a constructor): the state is
		 * half written; say only why there is no answer yet. */
		int dep = desc->depends &&
			  __atomic_load_n(&desc->depends->state->loading,
					  __ATOMIC_ACQUIRE);

		*info = (struct vs_library_info){
			.name = desc->name,
			.load_errno = EDEADLK,
			.error = dep ? desc->reentry_dep : desc->reentry_self,
			.provider_abi = -1,
			.symbols_known = desc->nsyms,
		};
		return 0;
	}
	st = desc->state;
	*info = (struct vs_library_info){
		.name = desc->name,
		.loaded = st->handle != NULL,
		.load_errno = st->handle ? 0 : st->load_errno,
		.path = st->path[0] ? st->path : NULL,
		.error = st->error[0] ? st->error : NULL,
		.highest_node = st->handle ? st->highest_node : NULL,
		.min_release = st->min_release,
		.provider_abi = st->provider_abi,
		.symbols_known = desc->nsyms,
		.symbols_resolved = st->resolved,
	};
	return 0;
}

static const struct vs_sym *vs_sym_find(const char *name,
					const struct vs_lib_desc **owner)
{
	unsigned int lib, i;

	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		for (i = 0; i < vs_libs[lib]->nsyms; i++)
			if (!strcmp(vs_libs[lib]->syms[i].name, name)) {
				*owner = vs_libs[lib];
				return &vs_libs[lib]->syms[i];
			}
	return NULL;
}

int vs_symbol_resolved(const char *name)
{
	const struct vs_lib_desc *desc;
	const struct vs_sym *sym;
	void *slot;
	int ret;

	if (!name)
		return -EINVAL;
	sym = vs_sym_find(name, &desc);
	if (!sym)
		return -ENOENT;
	ret = vs__ensure(desc);
	if (ret)
		return -ret;
	/* Written once under the once-flag that ensure() synchronised. */
	memcpy(&slot, (const char *)desc->fn_base + sym->offset, sizeof(slot));
	return slot != NULL;
}

const char *vs_symbol_node(const char *name)
{
	const struct vs_lib_desc *desc;
	const struct vs_sym *sym = name ? vs_sym_find(name, &desc) : NULL;

	return sym ? vs__nodes[sym->node].name : NULL;
}

int vs_build_query(struct vs_build_info *info)
{
	if (!info)
		return -EINVAL;
	*info = (struct vs_build_info){
		.nodes_in = VS_CONFIG_NODES_IN,
		.nodes_out = VS_CONFIG_NODES_OUT,
	};
	return 0;
}
