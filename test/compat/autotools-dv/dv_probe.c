/* SPDX-License-Identifier: MIT */
/*
 * dv_probe: the mlx5 direct-verbs and umad calls of a stock project whose
 * configure turned them on (HAVE_MLX5DV, HAVE_UMAD in config.h), written
 * against rdma-core's own headers only.  Linked through verbshim's compat
 * directory, every call reaches rdma-core through the shim:
 *   - umad_init() is 0 and libibumad.so.3 is then mapped in the process
 *     (the binary does not NEED it: the shim loaded it);
 *   - on the first device (or $VS_RXE_DEV): mlx5dv_is_supported() answers
 *     and, on a device that is not mlx5 (rxe), mlx5dv_create_qp() fails
 *     with EOPNOTSUPP as libmlx5 fails it; on mlx5 the QP is made.
 * Exit: 0 pass, 1 fail, 77 no RDMA device (after the umad checks).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#if HAVE_MLX5DV
#include <infiniband/mlx5dv.h>
#endif
#if HAVE_UMAD
#include <infiniband/umad.h>
#endif

static int mapped(const char *soname)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, soname) != NULL;
	fclose(f);
	return found;
}

int main(void)
{
#if !HAVE_MLX5DV || !HAVE_UMAD
	puts("FAIL: configure turned mlx5dv or umad off");
	return 1;
#else
	char cas[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	const char *want = getenv("VS_RXE_DEV");
	int rc, n, i, status = 0;

	rc = umad_init();
	if (rc != 0) {
		printf("FAIL: umad_init() = %d\n", rc);
		return 1;
	}
	if (!mapped("libibumad.so")) {
		puts("FAIL: umad_init() returned 0 but no libibumad is mapped");
		return 1;
	}
	n = umad_get_cas_names(cas, UMAD_MAX_DEVICES);
	printf("umad_init() = 0 (libibumad loaded); umad_get_cas_names() = %d\n", n);
	if (n < 0)
		return 1;
	umad_done();

	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		puts("no RDMA device here: the device calls were not made");
		return 77;
	}
	for (i = 0; i < n; i++)
		if (!want || strcmp(ibv_get_device_name(list[i]), want) == 0)
			break;
	if (i == n) {
		printf("FAIL: no device %s\n", want);
		return 1;
	}
	ctx = ibv_open_device(list[i]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("FAIL: open/alloc_pd/create_cq on %s: %s\n", ibv_get_device_name(list[i]), strerror(errno));
		return 1;
	}
	int mlx5 = mlx5dv_is_supported(list[i]);
	printf("%s: mlx5dv_is_supported() = %d\n", ibv_get_device_name(list[i]), mlx5);

	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct mlx5dv_qp_init_attr dv = { .comp_mask = 0 };

	errno = 0;
	qp = mlx5dv_create_qp(ctx, &attr, &dv);
	if (mlx5) {
		if (!qp) {
			printf("FAIL: mlx5dv_create_qp on an mlx5 device: %s\n", strerror(errno));
			status = 1;
		} else {
			puts("mlx5dv_create_qp: made an mlx5 QP");
			ibv_destroy_qp(qp);
		}
	} else if (qp || errno != EOPNOTSUPP) {
		printf("FAIL: mlx5dv_create_qp on a device that is not mlx5: qp %p, errno %d (%s), want EOPNOTSUPP\n",
		       (void *)qp, errno, strerror(errno));
		if (qp)
			ibv_destroy_qp(qp);
		status = 1;
	} else {
		puts("mlx5dv_create_qp on a device that is not mlx5: EOPNOTSUPP, as libmlx5 answers");
	}
	if (!mapped("libmlx5.so")) {
		puts("FAIL: no libmlx5 mapped after the mlx5dv calls");
		status = 1;
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return status;
#endif
}
