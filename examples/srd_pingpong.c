/* SPDX-License-Identifier: MIT */
/*
 * srd_pingpong: ud_pingpong over AWS EFA's SRD.  Endpoints (GID, QPN,
 * Q_Key) are exchanged over TCP, each side makes a destination toward the
 * other with vs_srd_handshake, and messages bounce back and forth with
 * every byte checked (SRD receives carry no GRH).  It prints the device's
 * EFA caps first.
 *
 *   srd_pingpong [-d dev] [-i port] [-g gid_index] [-p tcp_port]
 *                [-n iters] [-s size] [-e] [server_host]
 *
 * (-l is accepted and changes nothing: SRD QPs always post through ibv_wr_*.)
 *
 * SRD exists only on EFA devices: anywhere else (rxe, mlx5, ...) it says
 * why and exits 77 without touching the network.  Exit 0 on success, 1 on
 * a failure, 2 for a bad command line.  NOT RUN ON REAL EFA by this
 * project's tests (none is reachable from them): on rxe only its refusal
 * is tested (test/device/srd_not_efa.c).
 */
#include <string.h>

#include "common/ex_pingpong.h"

#define EXIT_NOT_EFA 77

static void print_caps(const char *dev, const struct vs_efa_caps *c)
{
	printf("EFA device %s: sq %u WRs x %u SGEs, rq %u WRs x %u SGEs, "
	       "inline %u bytes, RDMA %u bytes max%s%s%s\n", dev, c->max_sq_wr,
	       c->max_sq_sge, c->max_rq_wr, c->max_rq_sge, c->inline_buf_size,
	       c->max_rdma_size,
	       c->flags & VS_EFA_CAP_RDMA_READ ? ", RDMA read" : "",
	       c->flags & VS_EFA_CAP_RDMA_WRITE ? ", RDMA write" : "",
	       c->flags & VS_EFA_CAP_RNR_RETRY ? ", RNR retry" : "");
}

int main(int argc, char **argv)
{
	struct ex_pingpong_opts o;
	struct vs_context *ctx;
	struct vs_efa_caps caps = { 0 };
	struct vs_pd *pd;
	struct ex_cq cq;
	struct vs_mr *mr;
	struct vs_srd_qp *qp;
	struct vs_srd_dest dest;
	struct vs_endpoint local, remote;
	uint8_t *m;
	uint64_t sends = 0, recvs = 0, t0;
	size_t size;
	int fd, side, iters, ret;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	if (ex_pingpong_parse(argc, argv, 18517, 512, &o))
		return 2;
	size = o.size;
	iters = o.iters;
	side = o.server ? 0 : 1;

	ex_check(vs_device_open(o.dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ret = vs_efa_query_caps(ctx, &caps);
	if (ret == -EOPNOTSUPP) {
		char why[VS_ERROR_MSG_MAX + 64];

		fprintf(stderr, "srd_pingpong: cannot run here: %s\n"
			"srd_pingpong: SRD is AWS EFA's transport; it needs an EFA "
			"device (the efa kernel driver and rdma-core's efa provider "
			"with libefa). Use ud_pingpong or rc_pingpong on this device.\n",
			vs_format_error(vs_last_error(), why, sizeof(why)));
		ex_close(ctx);
		return EXIT_NOT_EFA;
	}
	ex_check(ret, "vs_efa_query_caps");
	print_caps(ctx->name, &caps);

	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_cq_open(ctx, 16, o.events, &cq);
	ex_check(vs_mr_alloc(pd, 2 * size, 0, &mr), "vs_mr_alloc");
	ex_own(mr);
	ex_check(vs_srd_qp_create(pd, &(struct vs_srd_config){
		.send_cq = cq.cq,
		.port = (uint8_t)o.port,
		.comp_mask = o.gid_index >= 0 ? VS_QP_CFG_GID_INDEX : 0,
		.gid_index = o.gid_index >= 0 ? (uint32_t)o.gid_index : 0,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			  .max_recv_sge = 1 },
	}, &qp), "vs_srd_qp_create");
	ex_own(qp);
	ex_check(vs_srd_endpoint(qp, &local), "vs_srd_endpoint");
	fd = ex_exchange_endpoints(o.server, o.tcp_port, &local, &remote);
	if (fd < 0)
		return ex_exit(1);
	ex_check(vs_srd_handshake(qp, &remote, &dest), "vs_srd_handshake");

	m = vs_mr_ptr(mr, 0);
	t0 = ex_now_ns();
	for (int i = 0; i < iters; i++) {
		struct ibv_sge rs = vs_mr_sge(mr, size, (uint32_t)size);
		struct ibv_sge ss = vs_mr_sge(mr, 0, (uint32_t)size);
		struct vs_recv_batch rb;
		struct vs_srd_batch sb;
		uint8_t a = 1, b;

		ex_check(vs_srd_recv_start(qp, &rb), "vs_srd_recv_start");
		ex_check(vs_recv_add(&rb, 2, &rs, 1), "vs_recv_add");
		ex_check(vs_recv_submit(&rb), "vs_recv_submit");
		/* a receive must be posted before the peer sends (RNR) */
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
		ex_payload_fill(m, size, i, side);
		ex_check(vs_srd_batch_start(qp, &sb), "vs_srd_batch_start");
		ex_check(vs_srd_send(&sb, 1, VS_WR_SIGNALED, &dest, &ss, 1),
			 "vs_srd_send");
		ex_check(vs_srd_batch_submit(&sb), "vs_srd_batch_submit");
		if (ex_dgram_wait(&cq, i, &sends, &recvs, (uint32_t)size,
				  remote.qpn, m + size, size, !side))
			return ex_exit(1);
	}
	{
		double us = (double)(ex_now_ns() - t0) / 1000.0;
		uint8_t a = 2, b;

		printf("%d SRD exchanges of %zu bytes in %.0f us (%.2f us each); "
		       "every byte checked\n", iters, size, us, us / iters);
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
	}
	ex_tcp_close(fd);
	ex_check(vs_srd_dest_release(&dest), "vs_srd_dest_release");
	ex_close(qp);
	ex_close(mr);
	ex_cq_close(&cq);
	ex_close(pd);
	ex_close(ctx);
	return 0;
}
