// SPDX-License-Identifier: MIT
/* The public loader introspection API (include/verbshim/loader.h). */
#include <stdio.h>
#include <string.h>

#include "loader/vs_shim.h"

/*
 * Weak: what lib/ calls here (vs_symbol_resolved, vs_feature_query, the
 * error record's reasons) must not link the table of a library the
 * program never calls, nor its ELF notes (shim/tables/vs_notes.h); such a
 * library is NULL below.  The public calls that take a library or a
 * feature by number (shim/tables/library_load.c) refer to them all: a program
 * that asks for any library can load any.
 */
#define VS_LIB_WEAK(lib, ...)                                                  \
	extern const struct vs_lib_desc vs__##lib##_desc __attribute__((weak));
VS_LIBRARIES(VS_LIB_WEAK)
#define VS_LIB_ENTRY(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const vs_libs[] = {
	VS_LIBRARIES(VS_LIB_ENTRY)
};
_Static_assert(sizeof(vs_libs) / sizeof(vs_libs[0]) == VS_LIB_COUNT,
	       "VS_LIBRARIES and enum vs_library disagree");
#define VS_LIB_NAME(lib, ...) "lib" #lib,
static const char *const vs_lib_names[] = { VS_LIBRARIES(VS_LIB_NAME) };

/* NULL for an unknown library or one this program does not link. */
static const struct vs_lib_desc *vs_lib_get(enum vs_library lib)
{
	if ((unsigned int)lib >= VS_LIB_COUNT)
		return NULL;
	return vs_libs[lib];
}

int vs__library_query_linked(int lib, struct vs_library_info *info)
{
	const struct vs_lib_desc *desc = vs_lib_get((enum vs_library)lib);

	return desc ? vs__library_describe(desc, info) : -ENOENT;
}

int vs__feature_query_linked(int feature, struct vs_feature_info *info)
{
	return vs__feature_describe((enum vs_feature)feature, info, vs_libs);
}

int vs__library_describe(const struct vs_lib_desc *desc,
			 struct vs_library_info *info)
{
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
		for (i = 0; vs_libs[lib] && i < vs_libs[lib]->nsyms; i++)
			if (!strcmp(vs__sym_name(vs_libs[lib],
						 &vs_libs[lib]->syms[i]), name)) {
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

size_t vs__nodes_found_text(const struct vs_lib_desc *desc, char *buf,
			    size_t len)
{
	const struct vs_lib_state *st = desc->state;
	size_t used = 0;
	unsigned int i, first;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!st->handle)
		return 0;
	/* Runs of nodes the library defines, in the table's order. */
	for (i = 0; i < desc->nnodes && i < 64; i++) {
		const char *a, *b;
		int n;

		if (!(st->nodes_found & (1ull << i)))
			continue;
		first = i;
		while (i + 1 < desc->nnodes && i + 1 < 64 &&
		       (st->nodes_found & (1ull << (i + 1))))
			i++;
		a = vs__nodes[desc->first_node + first].name;
		b = vs__nodes[desc->first_node + i].name + strlen(desc->node_prefix);
		if (first == i)
			n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", a);
		else
			n = snprintf(buf + used, len - used, "%s%s-%s", used ? " " : "", a, b);
		if (n < 0 || (size_t)n >= len - used)
			return len - 1;
		used += (size_t)n;
	}
	return used;
}

/* The release span of the newest node a library has: the node's own
 * release up to the one before the next newer node this build knows. */
static void vs_release_span(const struct vs_lib_desc *desc, char *buf,
			    size_t len)
{
	const struct vs_lib_state *st = desc->state;
	int low = st->min_release, next = 0;
	unsigned int i;

	for (i = 0; i < desc->nnodes; i++) {
		int r = vs__nodes[desc->first_node + i].release;

		if (r > low && (!next || r < next))
			next = r;
	}
	if (!next)
		snprintf(buf, len, "rdma-core %d or later", low);
	else if (next - 1 == low)
		snprintf(buf, len, "rdma-core %d", low);
	else if (next - 2 == low)
		snprintf(buf, len, "rdma-core %d/%d", low, next - 1);
	else
		snprintf(buf, len, "rdma-core %d-%d", low, next - 1);
}

void vs__found_text(const struct vs_lib_desc *desc, char *buf, size_t len)
{
	const struct vs_lib_state *st = desc->state;
	char span[48];

	if (vs__ensure(desc)) {
		snprintf(buf, len, "%s is loading (called back from its load)",
			 desc->name);
		return;
	}
	if (!st->handle) {
		snprintf(buf, len, "no %s: %s", desc->name,
			 st->error[0] ? st->error : "not loaded");
		return;
	}
	if (!st->highest_node[0]) {
		snprintf(buf, len, "%s without version nodes (%s)", desc->name,
			 st->path);
		return;
	}
	vs_release_span(desc, span, sizeof(span));
	snprintf(buf, len, "%s (%s)", st->highest_node, span);
}

/* Each feature: its name, the verb that tells, its node and library
 * (known even to a build whose headers lack the verb; a unit test checks
 * them against the symbol tables). */
static const struct {
	const char *name, *verb, *node;
	enum vs_library lib;
} vs_features[VS_FEATURE_COUNT] = {
#define F(id, n, v, nd, l) [VS_FEATURE_##id] = { n, v, nd, VS_LIB_##l },
	F(DMABUF_MR, "dmabuf memory regions", "ibv_reg_dmabuf_mr", "IBVERBS_1.12", IBVERBS)
	F(GID_TABLE, "GID table query", "_ibv_query_gid_table", "IBVERBS_1.11", IBVERBS)
	F(ECE, "enhanced connection establishment", "ibv_query_ece", "IBVERBS_1.10", IBVERBS)
	F(CM_ECE, "ECE through the CM", "rdma_set_local_ece", "RDMACM_1.3", RDMACM)
	F(FORK_STATUS, "fork protection status", "ibv_is_fork_initialized", "IBVERBS_1.13", IBVERBS)
	F(DATA_IN_ORDER, "data-in-order query", "ibv_query_qp_data_in_order", "IBVERBS_1.14", IBVERBS)
	F(MR_EX, "extended MR registration, DMA handles", "ibv_reg_mr_ex", "IBVERBS_1.15", IBVERBS)
	F(PORT_SPEED, "port speed query", "ibv_query_port_speed", "IBVERBS_1.16", IBVERBS)
	F(BUF, "library-allocated buffers", "ibv_alloc_buf", "IBVERBS_1.17", IBVERBS)
	F(COMP_CNTR, "completion counters", "ibv_create_comp_cntr", "IBVERBS_1.18", IBVERBS)
	F(CM_ADDRINFO, "CM address resolution by name", "rdma_resolve_addrinfo", "RDMACM_1.4", RDMACM)
	F(SRD_WQS, "SRD work queue query", "efadv_query_qp_wqs", "EFA_1.4", EFA)
	F(MLX5_DMABUF_MR, "mlx5 dmabuf memory regions", "mlx5dv_reg_dmabuf_mr", "MLX5_1.25", MLX5)
#undef F
};

/* The release a node first shipped in. */
static int vs_node_release(const char *node)
{
	unsigned int i;

	for (i = 0; i < VS_NODE_COUNT; i++)
		if (!strcmp(vs__nodes[i].name, node))
			return vs__nodes[i].release;
	return 0;
}

int vs__feature_describe(enum vs_feature feature, struct vs_feature_info *info,
			 const struct vs_lib_desc *const *libs)
{
	const struct vs_lib_desc *desc;

	if ((unsigned int)feature >= VS_FEATURE_COUNT || !info)
		return -EINVAL;
	*info = (struct vs_feature_info){
		.name = vs_features[feature].name,
		.verb = vs_features[feature].verb,
		.node = vs_features[feature].node,
		.release = vs_node_release(vs_features[feature].node),
		.compiled_in = vs_symbol_node(vs_features[feature].verb) != NULL,
	};
	info->available = info->compiled_in && vs_symbol_resolved(info->verb) == 1;
	desc = libs[vs_features[feature].lib];
	if (desc)
		vs__found_text(desc, info->found, sizeof(info->found));
	else
		snprintf(info->found, sizeof(info->found),
			 "%s is not linked into this program",
			 vs_lib_names[vs_features[feature].lib]);
	return 0;
}
