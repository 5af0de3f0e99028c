// SPDX-License-Identifier: MIT
/*
 * Calls each function configure found declared (HAVE_DECL_*), newer than
 * rdma-core 33, on the first device, and prints one line per call:
 * "NAME (rdma-core N): ANSWER", N the release that added it.  On an older
 * release the answer must be the shim's "Operation not supported"
 * (test/shell/build_root.sh); a function configure did not see is
 * "not declared".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/efadv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

static void mr_answer(const char *name, int release, struct ibv_mr *mr)
{
	printf("%s (rdma-core %d): %s\n", name, release, mr ? "an MR" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
}

static void ret_answer(const char *name, int release, int ret)
{
	/* the drop-ins and rdma-core give a positive errno, some libraries -errno */
	printf("%s (rdma-core %d): %s\n", name, release, ret ? strerror(abs(ret)) : "0");
}

static void undeclared(const char *name, int release)
{
	printf("%s (rdma-core %d): not declared\n", name, release);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	static char buf[4096];
	struct ibv_context *ctx;
	struct ibv_mr *mr;
	struct ibv_pd *pd;

	if (!list || !list[0]) {
		printf("no RDMA device (%s)\n", strerror(errno));
		return 77;
	}
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!ctx || !(pd = ibv_alloc_pd(ctx)))
		return 1;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return 1;
#if HAVE_DECL_IBV_REG_DMABUF_MR
	mr_answer("ibv_reg_dmabuf_mr", 34, ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE));
#else
	undeclared("ibv_reg_dmabuf_mr", 34);
#endif
#if HAVE_DECL_IBV_REG_MR_EX
	{
		static char buf2[4096];
		struct ibv_mr_init_attr attr = {
			.length = sizeof(buf2),
			.access = IBV_ACCESS_LOCAL_WRITE,
			.comp_mask = IBV_REG_MR_MASK_ADDR,
			.addr = buf2,
		};

		mr_answer("ibv_reg_mr_ex", 59, ibv_reg_mr_ex(pd, &attr));
	}
#else
	undeclared("ibv_reg_mr_ex", 59);
#endif
#if HAVE_DECL_IBV_QUERY_PORT_SPEED
	{
		uint64_t speed = 0;

		ret_answer("ibv_query_port_speed", 62, ibv_query_port_speed(ctx, 1, &speed));
	}
#else
	undeclared("ibv_query_port_speed", 62);
#endif
#if HAVE_DECL_MLX5DV_GET_DATA_DIRECT_SYSFS_PATH
	{
		char path[256];

		ret_answer("mlx5dv_get_data_direct_sysfs_path", 54,
			   mlx5dv_get_data_direct_sysfs_path(ctx, path, sizeof(path)));
	}
#else
	undeclared("mlx5dv_get_data_direct_sysfs_path", 54);
#endif
#if HAVE_DECL_EFADV_QUERY_MR
	{
		struct efadv_mr_attr attr = { 0 };

		ret_answer("efadv_query_mr", 50, efadv_query_mr(mr, &attr, sizeof(attr)));
	}
#else
	undeclared("efadv_query_mr", 50);
#endif
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
