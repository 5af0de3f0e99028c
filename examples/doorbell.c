/* SPDX-License-Identifier: MIT */
/*
 * doorbell: the same number of RDMA writes posted one doorbell per write
 * and in batches of 8 and 32 (only the last WR of a batch signaled), on a
 * self-connected RC QP; prints messages per second and checks the bytes.
 *
 *   doorbell [-d device] [-n writes] [-s size] [-l]
 */
#include <getopt.h>
#include <string.h>

#include "common/ex_common.h"

int main(int argc, char **argv)
{
	const char *dev = ex_default_device();
	int total = 4096, size = 64, opt;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;
	static const int batches[] = { 1, 8, 32 };
	uint8_t *m;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:n:s:l")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': total = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		case 'l': vs_set_force_legacy(true); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-n writes] [-s size] [-l]\n",
				argv[0]);
			return 2;
		}
	}
	if (total < 32 || size < 1 || size > 4096) {
		fprintf(stderr, "need -n >= 32 and 1 <= -s <= 4096\n");
		return 2;
	}
	ex_check(vs_device_open(dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 256 }, &cq),
		 "vs_cq_create");
	ex_own(cq);
	ex_check(vs_mr_alloc(pd, (size_t)2 * 32 * 4096, 0, &mr), "vs_mr_alloc");
	ex_own(mr);
	ex_check(vs_rc_qp_create(pd, &(struct vs_rc_config){
		.send_cq = cq, .caps = { .max_send_wr = 128 } }, &qp),
		 "vs_rc_qp_create");
	ex_own(qp);
	ex_check(vs_rc_endpoint(qp, &ep), "vs_rc_endpoint");
	ex_check(vs_rc_handshake(qp, &ep), "vs_rc_handshake");
	m = vs_mr_ptr(mr, 0);
	printf("doorbell batching on %s (%s posting), %d writes of %d bytes\n",
	       ctx->name, vs_rc_qp_is_extended(qp) ? "ibv_wr_*" : "ibv_post_send",
	       total, size);
	printf("  %-6s %12s %12s\n", "batch", "msgs/s", "us/msg");
	for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
		int batch = batches[k], posted = 0;
		uint64_t t0;

		memset(m + 32 * 4096, 0, 32 * 4096);
		for (int i = 0; i < 32 * size && i < 32 * 4096; i++)
			m[i] = (uint8_t)(i * 11 + batch);
		t0 = ex_now_ns();
		while (posted < total) {
			struct vs_rc_batch b;
			struct vs_wc wc;

			ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
			for (int j = 0; j < batch; j++) {
				size_t slot = (size_t)((posted + j) % 32) * (size_t)size;
				struct ibv_sge s = vs_mr_sge(mr, slot, (uint32_t)size);

				ex_check(vs_rc_write(&b, (uint64_t)(posted + j),
						     j == batch - 1 ? VS_WR_SIGNALED : 0,
						     &s, 1,
						     vs_mr_remote(mr, 32 * 4096 + slot)),
					 "vs_rc_write");
			}
			ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
			posted += batch;
			if (ex_wait(cq, &wc, 1, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
				ex_fail("batch of %d: completion missing or failed", batch);
			}
		}
		{
			double secs = (double)(ex_now_ns() - t0) / 1e9;

			printf("  %-6d %12.0f %12.2f\n", batch, total / secs,
			       secs * 1e6 / total);
		}
		if (memcmp(m + 32 * 4096, m, (size_t)32 * (size_t)size)) {
			ex_fail("batch of %d: written bytes differ", batch);
		}
	}
	ex_close(qp);
	ex_close(mr);
	ex_close(cq);
	ex_close(pd);
	ex_close(ctx);
	printf("doorbell: all writes checked\n");
	return 0;
}
