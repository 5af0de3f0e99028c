// SPDX-License-Identifier: MIT
/*
 * bench/footprint.sh's program that uses every library the shim loads:
 * one function of each (never called with a device: the program is
 * measured, not run).  FP_NO_<LIB> leaves a library out, for the links
 * against an rdma-core that lacks it.
 */
#include <stdio.h>

#include <infiniband/efadv.h>
#include <infiniband/mlx4dv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/umad.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#ifndef FP_NO_HNS
#include <infiniband/hnsdv.h>
#endif
#ifndef FP_NO_MANA
#include <infiniband/manadv.h>
#endif
#ifndef FP_NO_IONIC
#include <infiniband/ionic_dv.h>
#endif

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = 0, ret = 0;

	(void)argv;
	list = ibv_get_device_list(&n);
	if (!list || !n || argc < 2) {
		if (list)
			ibv_free_device_list(list);
		return 0;
	}
	ctx = ibv_open_device(list[0]);
	if (ctx) {
		struct efadv_device_attr efa;
		struct mlx4dv_context mlx4 = { 0 };
		struct rdma_event_channel *ch;

		ret |= efadv_query_device(ctx, &efa, sizeof(efa));
		ret |= mlx5dv_is_supported(list[0]);
		ret |= mlx4dv_query_device(ctx, &mlx4);
#ifndef FP_NO_HNS
		ret |= hnsdv_is_supported(list[0]);
#endif
#ifndef FP_NO_MANA
		{
			struct manadv_obj obj = { 0 };

			ret |= manadv_init_obj(&obj, 0);
		}
#endif
#ifndef FP_NO_IONIC
		ret |= ionic_dv_ctx_get_udma_count(ctx);
#endif
		ret |= umad_init();
		ch = rdma_create_event_channel();
		if (ch)
			rdma_destroy_event_channel(ch);
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	printf("%d\n", ret);
	return 0;
}
