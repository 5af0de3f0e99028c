/* SPDX-License-Identifier: MIT */
/*
 * ud_pingpong: like rc_pingpong over UD: endpoints (with the qkey) are
 * exchanged over TCP, each side builds an address handle toward the other
 * with vs_ud_handshake, and datagrams bounce back and forth with every
 * byte checked (after the 40-byte GRH).  Exit 0 only on success.
 *
 *   ud_pingpong [-d dev] [-i port] [-g gid_index] [-p tcp_port]
 *               [-n iters] [-s size (<= MTU)] [-l] [-e] [server_host]
 *
 * The options are rc_pingpong's (-e: sleep on completion events).
 */
#include <string.h>

#include "common/ex_pingpong.h"

int main(int argc, char **argv)
{
	struct ex_pingpong_opts o;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct ex_cq cq;
	struct vs_mr *mr;
	struct vs_ud_qp *qp;
	struct vs_ud_dest dest;
	struct vs_endpoint local, remote;
	uint8_t *m;
	uint64_t sends = 0, recvs = 0, t0;
	size_t size;
	int fd, side, iters;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	if (ex_pingpong_parse(argc, argv, 18516, 512, &o))
		return 2;
	size = o.size;
	iters = o.iters;
	side = o.server ? 0 : 1;

	ex_check(vs_device_open(o.dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_cq_open(ctx, 16, o.events, &cq);
	ex_check(vs_mr_alloc(pd, 2 * (size + VS_UD_GRH_BYTES), 0, &mr), "vs_mr_alloc");
	ex_own(mr);
	ex_check(vs_ud_qp_create(pd, &(struct vs_ud_config){
		.send_cq = cq.cq,
		.port = (uint8_t)o.port,
		.comp_mask = o.gid_index >= 0 ? VS_QP_CFG_GID_INDEX : 0,
		.gid_index = o.gid_index >= 0 ? (uint32_t)o.gid_index : 0,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4 },
	}, &qp), "vs_ud_qp_create");
	ex_own(qp);
	ex_check(vs_ud_endpoint(qp, &local), "vs_ud_endpoint");
	if (size > (size_t)(128 << local.mtu)) {
		fprintf(stderr, "-s %zu exceeds the path MTU %d (a datagram "
			"fits one MTU)\n", size, 128 << local.mtu);
		return 2;
	}
	fd = ex_exchange_endpoints(o.server, o.tcp_port, &local, &remote);
	if (fd < 0)
		return ex_exit(1);
	ex_check(vs_ud_handshake(qp, &remote, &dest), "vs_ud_handshake");

	m = vs_mr_ptr(mr, 0);
	t0 = ex_now_ns();
	for (int i = 0; i < iters; i++) {
		struct ibv_sge rs = vs_mr_sge(mr, size, (uint32_t)(size + VS_UD_GRH_BYTES));
		struct ibv_sge ss = vs_mr_sge(mr, 0, (uint32_t)size);
		struct vs_recv_batch rb;
		uint8_t a = 1, b;

		ex_check(vs_ud_recv_start(qp, &rb), "vs_ud_recv_start");
		ex_check(vs_recv_add(&rb, 2, &rs, 1), "vs_recv_add");
		ex_check(vs_recv_submit(&rb), "vs_recv_submit");
		/* UD drops datagrams without a posted receive: sync first */
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
		{
			struct vs_ud_batch ub;

			ex_payload_fill(m, size, i, side);
			ex_check(vs_ud_batch_start(qp, &ub), "vs_ud_batch_start");
			ex_check(vs_ud_send(&ub, 1, VS_WR_SIGNALED, &dest, &ss, 1),
				 "vs_ud_send");
			ex_check(vs_ud_batch_submit(&ub), "vs_ud_batch_submit");
		}
		if (ex_dgram_wait(&cq, i, &sends, &recvs,
				  (uint32_t)(size + VS_UD_GRH_BYTES), remote.qpn,
				  m + size + VS_UD_GRH_BYTES, size, !side))
			return ex_exit(1);
	}
	{
		double us = (double)(ex_now_ns() - t0) / 1000.0;
		uint8_t a = 2, b;

		printf("%d datagram exchanges of %zu bytes in %.0f us (%.2f us "
		       "each); every byte checked (%s, %s)\n", iters, size, us,
		       us / iters, vs_ud_qp_is_extended(qp) ? "ibv_wr_*" :
		       "ibv_post_send",
		       cq.channel ? "completion events" : "busy polling");
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
	}
	ex_tcp_close(fd);
	ex_check(vs_ud_dest_release(&dest), "vs_ud_dest_release");
	ex_close(qp);
	ex_close(mr);
	ex_cq_close(&cq);
	ex_close(pd);
	ex_close(ctx);
	return 0;
}
