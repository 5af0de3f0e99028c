// SPDX-License-Identifier: MIT
/*
 * bench/footprint.sh's typed-API program: a device, a PD, an MR and a CQ
 * through verbshim.h, closed again (what every typed program starts with).
 */
#include <stdio.h>

#include "verbshim.h"

int main(void)
{
	struct vs_device_entry dev;
	struct vs_cq_config cq_cfg = { .depth = 16 };
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_cq *cq;
	size_t n = 0;
	int ret;

	ret = vs_device_list(&dev, 1, &n);
	if (ret || !n) {
		fprintf(stderr, "no device: %s\n", vs_last_error()->message);
		return 1;
	}
	ret = vs_device_open(dev.name, &ctx);
	if (!ret) {
		ret = vs_pd_alloc(ctx, &pd);
		if (!ret) {
			ret = vs_mr_alloc(pd, 4096, IBV_ACCESS_LOCAL_WRITE, &mr);
			if (!ret)
				vs_mr_close(mr);
			vs_pd_close(pd);
		}
		if (!ret && !(ret = vs_cq_create(ctx, &cq_cfg, &cq)))
			vs_cq_close(cq);
		vs_device_close(ctx);
	}
	if (ret)
		fprintf(stderr, "%s\n", vs_last_error()->message);
	return ret ? 1 : 0;
}
