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

static const struct vs_sym vs_ibverbs_syms[] = { VS_IBVERBS_SYMBOLS(VS_IBVERBS_SYM) };
static const struct vs_sym vs_rdmacm_syms[] = { VS_RDMACM_SYMBOLS(VS_RDMACM_SYM) };
static const struct vs_sym vs_efa_syms[] = { VS_EFA_SYMBOLS(VS_EFA_SYM) };

#define VS_IBVERBS_FILL(node, name, ret, params, args, conv)                   \
	VS_FILL_SLOT(ibverbs, handle, node, name)
#define VS_RDMACM_FILL(node, name, ret, params, args, conv)                    \
	VS_FILL_SLOT(rdmacm, handle, node, name)
#define VS_EFA_FILL(node, name, ret, params, args, conv)                       \
	VS_FILL_SLOT(efa, handle, node, name)

static unsigned int vs_ibverbs_fill(void *handle, int versioned)
{
	unsigned int n = 0;

	VS_IBVERBS_SYMBOLS(VS_IBVERBS_FILL)
	return n;
}

static unsigned int vs_rdmacm_fill(void *handle, int versioned)
{
	unsigned int n = 0;

	VS_RDMACM_SYMBOLS(VS_RDMACM_FILL)
	return n;
}

static unsigned int vs_efa_fill(void *handle, int versioned)
{
	unsigned int n = 0;

	VS_EFA_SYMBOLS(VS_EFA_FILL)
	return n;
}

#define VS_COUNT_NODE(id, str, release) +1
#define VS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct vs_lib_desc vs_ibverbs_desc = {
	.name = "libibverbs",
	.soname = "libibverbs.so.1",
	.devname = "libibverbs.so",
	.env = "VERBSHIM_LIBIBVERBS",
	.node_prefix = "IBVERBS_",
	.probe = "ibv_get_device_list",
	.first_node = VS_NODE_IBVERBS_1_0,
	.nnodes = 0 VS_IBVERBS_NODES(VS_COUNT_NODE),
	.syms = vs_ibverbs_syms,
	.nsyms = VS_ARRAY_SIZE(vs_ibverbs_syms),
	.state = &vs_ibverbs.state,
	.fn_base = &vs_ibverbs.fn,
	.ensure = vs_ensure_ibverbs,
	.fill = vs_ibverbs_fill,
};

const struct vs_lib_desc vs_rdmacm_desc = {
	.name = "librdmacm",
	.soname = "librdmacm.so.1",
	.devname = "librdmacm.so",
	.env = "VERBSHIM_LIBRDMACM",
	.node_prefix = "RDMACM_",
	.probe = "rdma_create_id",
	.first_node = VS_NODE_RDMACM_1_0,
	.nnodes = 0 VS_RDMACM_NODES(VS_COUNT_NODE),
	.syms = vs_rdmacm_syms,
	.nsyms = VS_ARRAY_SIZE(vs_rdmacm_syms),
	.state = &vs_rdmacm.state,
	.fn_base = &vs_rdmacm.fn,
	.ensure = vs_ensure_rdmacm,
	.fill = vs_rdmacm_fill,
};

const struct vs_lib_desc vs_efa_desc = {
	.name = "libefa",
	.soname = "libefa.so.1",
	.devname = "libefa.so",
	.env = "VERBSHIM_LIBEFA",
	.node_prefix = "EFA_",
	.probe = "efadv_query_device",
	.first_node = VS_NODE_EFA_1_0,
	.nnodes = 0 VS_EFA_NODES(VS_COUNT_NODE),
	.syms = vs_efa_syms,
	.nsyms = VS_ARRAY_SIZE(vs_efa_syms),
	.state = &vs_efa.state,
	.fn_base = &vs_efa.fn,
	.ensure = vs_ensure_efa,
	.fill = vs_efa_fill,
};

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
