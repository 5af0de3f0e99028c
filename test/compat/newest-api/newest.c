// SPDX-License-Identifier: MIT
/*
 * A user's program that calls rdma-core API newer than the build
 * machine's own headers (the Debian 11 build root has rdma-core 33's):
 * ibv_reg_dmabuf_mr (34), ibv_query_port_speed (62), mlx5dv_reg_dmabuf_mr
 * (54), efadv_query_mr (50).  It compiles only with the headers verbshim
 * installs (verbshim.pc, verbshim::verbshim, the compat directory), and
 * links no rdma-core library.  Run, it prints what each call answered on
 * the machine (no device: it only lists them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/efadv.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	struct efadv_mr_attr ea = { 0 };
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	uint64_t speed = 0;
	int ret;

	if (!list || !list[0]) {
		printf("no RDMA device (%s)\n", strerror(errno));
		return 77;
	}
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!ctx || !(pd = ibv_alloc_pd(ctx)))
		return 1;
	ret = ibv_query_port_speed(ctx, 1, &speed);
	printf("ibv_query_port_speed: %d (%llu)\n", ret, (unsigned long long)speed);
	mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
	printf("ibv_reg_dmabuf_mr: %s\n", mr ? "an MR" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	mr = mlx5dv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE, 0);
	printf("mlx5dv_reg_dmabuf_mr: %s\n", mr ? "an MR" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, &ea, sizeof(ea), IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		printf("efadv_query_mr: %d\n", efadv_query_mr(mr, &ea, sizeof(ea)));
		ibv_dereg_mr(mr);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
