/* SPDX-License-Identifier: MIT */
/*
 * A plugin that links libverbshim.a statically, as UCX's IB modules or a
 * Python module built on the drop-in do: unit/trace_copies.c loads two
 * builds of it (libplugin_a.so, libplugin_b.so) into one program, so the
 * process holds two copies of the shim, each with its own tables, knobs
 * and counters.  Its calls go through its own copy's drop-ins.
 */
#include <infiniband/verbs.h>

struct ibv_context *plugin_open(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;

	if (!list || !list[0])
		return NULL;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	return ctx;
}

struct ibv_pd *plugin_alloc_pd(struct ibv_context *ctx)
{
	return ibv_alloc_pd(ctx);
}

int plugin_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_dealloc_pd(pd);
}

int plugin_close(struct ibv_context *ctx)
{
	return ibv_close_device(ctx);
}
