// SPDX-License-Identifier: MIT
/*
 * The three function tables, their once-flags, and for each library the
 * descriptor the loader works from: all generated from shim/syms_*.h.
 */
#include <stdio.h>

#include "vs_shim.h"

struct vs_ibverbs_table vs_ibverbs;
struct vs_rdmacm_table vs_rdmacm;
struct vs_efa_table vs_efa;
pthread_once_t vs_ibverbs_once = PTHREAD_ONCE_INIT;
pthread_once_t vs_rdmacm_once = PTHREAD_ONCE_INIT;
pthread_once_t vs_efa_once = PTHREAD_ONCE_INIT;

#define VS_IBVERBS_SYM(node, name, ret, params, args, conv)                    \
	VS_SYM_ROW(ibverbs, node, name)
#define VS_RDMACM_SYM(node, name, ret, params, args, conv)                     \
	VS_SYM_ROW(rdmacm, node, name)
#define VS_EFA_SYM(node, name, ret, params, args, conv)                        \
	VS_SYM_ROW(efa, node, name)

#define VS_IBVERBS_FILL(node, name, ret, params, args, conv)                   \
	VS_FILL_SLOT(ibverbs, handle, node, name)
#define VS_RDMACM_FILL(node, name, ret, params, args, conv)                    \
	VS_FILL_SLOT(rdmacm, handle, node, name)
#define VS_EFA_FILL(node, name, ret, params, args, conv)                       \
	VS_FILL_SLOT(efa, handle, node, name)

#define VS_COUNT_NODE(id, str, release) +1
#define VS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One library: its symbol array, fill function and descriptor. */
#define VS_LIBRARY(lib, LIB, first, probe_symbol)                              \
	static const struct vs_sym vs_##lib##_syms[] = {                       \
		VS_##LIB##_SYMBOLS(VS_##LIB##_SYM)                             \
	};                                                                     \
	static unsigned int vs_##lib##_fill(void *handle, int versioned)       \
	{                                                                      \
		unsigned int n = 0;                                            \
		VS_##LIB##_SYMBOLS(VS_##LIB##_FILL)                            \
		return n;                                                      \
	}                                                                      \
	const struct vs_lib_desc vs_##lib##_desc = {                           \
		.name = "lib" #lib,                                            \
		.soname = "lib" #lib ".so.1",                                  \
		.devname = "lib" #lib ".so",                                   \
		.env = "VERBSHIM_LIB" #LIB,                                    \
		.node_prefix = #LIB "_",                                       \
		.probe = probe_symbol,                                         \
		.first_node = VS_NODE_##first,                                 \
		.nnodes = 0 VS_##LIB##_NODES(VS_COUNT_NODE),                   \
		.syms = vs_##lib##_syms,                                       \
		.nsyms = VS_ARRAY_SIZE(vs_##lib##_syms),                       \
		.state = &vs_##lib.state,                                      \
		.fn_base = &vs_##lib.fn,                                       \
		.ensure = vs_ensure_##lib,                                     \
		.fill = vs_##lib##_fill,                                       \
	};

VS_LIBRARY(ibverbs, IBVERBS, IBVERBS_1_0, "ibv_get_device_list")
VS_LIBRARY(rdmacm, RDMACM, RDMACM_1_0, "rdma_create_id")
VS_LIBRARY(efa, EFA, EFA_1_0, "efadv_query_device")

static void vs_ibverbs_load(void)
{
	vs_lib_load(&vs_ibverbs_desc);
}

/*
 * librdmacm and libefa need libibverbs: load it first, so that theirs is
 * the copy this process already uses (joined by soname).  When it did not
 * load they are not loaded either: their own dependency would pull in some
 * other libibverbs behind the table's back.
 */
static void vs_load_on_ibverbs(const struct vs_lib_desc *desc)
{
	vs_ensure_ibverbs();
	if (!vs_ibverbs.state.handle) {
		desc->state->provider_abi = -1;
		desc->state->load_errno = vs_ibverbs.state.load_errno;
		snprintf(desc->state->error, sizeof(desc->state->error),
			 "%s not loaded: it needs libibverbs, which did not load",
			 desc->name);
		return;
	}
	vs_lib_load(desc);
}

static void vs_rdmacm_load(void)
{
	vs_load_on_ibverbs(&vs_rdmacm_desc);
}

static void vs_efa_load(void)
{
	vs_load_on_ibverbs(&vs_efa_desc);
}

void vs_ensure_ibverbs(void)
{
	pthread_once(&vs_ibverbs_once, vs_ibverbs_load);
}

void vs_ensure_rdmacm(void)
{
	pthread_once(&vs_rdmacm_once, vs_rdmacm_load);
}

void vs_ensure_efa(void)
{
	pthread_once(&vs_efa_once, vs_efa_load);
}
