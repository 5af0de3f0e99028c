/* SPDX-License-Identifier: MIT */
/*
 * ud_pingpong: like rc_pingpong over UD: endpoints (with the qkey) are
 * exchanged over TCP, each side builds an address handle toward the other
 * with vs_ud_handshake, and datagrams bounce back and forth with every
 * byte checked (after the 40-byte GRH).  Exit 0 only on success.
 *
 *   ud_pingpong [-d dev] [-i port] [-g gid_index] [-p tcp_port]
 *               [-n iters] [-s size (<= MTU)] [-l] [server_host]
 */
#include <getopt.h>
#include <sched.h>
#include <string.h>

#include "common/ex_common.h"

static uint8_t pattern(int iter, size_t j, int side)
{
	return (uint8_t)(iter * 13 + (int)j * 3 + side * 77);
}

int main(int argc, char **argv)
{
	const char *dev = ex_default_device(), *server = NULL;
	int port = 1, gid_index = -1, tcp_port = 18516, iters = 1000, opt, fd, side;
	size_t size = 512;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_ud_qp *qp;
	struct vs_ud_dest dest;
	struct vs_endpoint local, remote;
	uint8_t out[VS_ENDPOINT_WIRE_SIZE], in[VS_ENDPOINT_WIRE_SIZE], *m;
	uint64_t sends = 0, recvs = 0, t0;
	char text[200];

	while ((opt = getopt(argc, argv, "d:i:g:p:n:s:l")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'i': port = atoi(optarg); break;
		case 'g': gid_index = atoi(optarg); break;
		case 'p': tcp_port = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 's': size = (size_t)strtoul(optarg, NULL, 0); break;
		case 'l': vs_set_force_legacy(true); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-i port] [-g gid_index] "
				"[-p tcp_port] [-n iters] [-s size] [-l] "
				"[server_host]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		server = argv[optind];
	if (port < 1 || port > 255 || iters < 1 || size < 1 || size > 4096) {
		fprintf(stderr, "bad -i, -n or -s (a datagram fits one MTU)\n");
		return 2;
	}
	side = server ? 0 : 1;

	ex_check(vs_device_open(dev, &ctx), "vs_device_open");
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 16 }, &cq),
		 "vs_cq_create");
	ex_check(vs_mr_alloc(pd, 2 * (size + VS_UD_GRH_BYTES), 0, &mr), "vs_mr_alloc");
	ex_check(vs_ud_qp_create(pd, &(struct vs_ud_config){
		.send_cq = cq,
		.port = (uint8_t)port,
		.comp_mask = gid_index >= 0 ? VS_QP_CFG_GID_INDEX : 0,
		.gid_index = gid_index >= 0 ? (uint32_t)gid_index : 0,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4 },
	}, &qp), "vs_ud_qp_create");
	ex_check(vs_ud_endpoint(qp, &local), "vs_ud_endpoint");
	if (size > (size_t)(128 << local.mtu)) {
		fprintf(stderr, "-s %zu exceeds the path MTU %d\n", size,
			128 << local.mtu);
		return 2;
	}
	ex_check(vs_endpoint_to_bytes(&local, out), "vs_endpoint_to_bytes");
	printf("local:  %s\n", vs_endpoint_to_str(&local, text, sizeof(text)));
	fd = ex_tcp_open(server, tcp_port);
	if (fd < 0 || ex_tcp_exchange(fd, out, in, sizeof(in)))
		return 1;
	ex_check(vs_endpoint_from_bytes(in, sizeof(in), &remote),
		 "vs_endpoint_from_bytes");
	printf("remote: %s\n", vs_endpoint_to_str(&remote, text, sizeof(text)));
	ex_check(vs_ud_handshake(qp, &remote, &dest), "vs_ud_handshake");

	m = vs_mr_ptr(mr, 0);
	t0 = ex_now_ns();
	for (int i = 0; i < iters; i++) {
		struct ibv_sge rs = vs_mr_sge(mr, size, (uint32_t)(size + VS_UD_GRH_BYTES));
		struct ibv_sge ss = vs_mr_sge(mr, 0, (uint32_t)size);
		struct vs_recv_batch rb;
		uint64_t deadline;
		uint8_t a = 1, b;

		ex_check(vs_ud_recv_start(qp, &rb), "vs_ud_recv_start");
		ex_check(vs_recv_add(&rb, 2, &rs, 1), "vs_recv_add");
		ex_check(vs_recv_submit(&rb), "vs_recv_submit");
		/* UD drops datagrams without a posted receive: sync first */
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return 1;
		{
			struct vs_ud_batch ub;

			for (size_t j = 0; j < size; j++)
				m[j] = pattern(i, j, side);
			ex_check(vs_ud_batch_start(qp, &ub), "vs_ud_batch_start");
			ex_check(vs_ud_send(&ub, 1, VS_WR_SIGNALED, &dest, &ss, 1),
				 "vs_ud_send");
			ex_check(vs_ud_batch_submit(&ub), "vs_ud_batch_submit");
		}
		deadline = ex_now_ns() + 10ull * 1000000000ull;
		while (sends < (uint64_t)i + 1 || recvs < (uint64_t)i + 1) {
			struct vs_wc wc[4];
			int n = vs_cq_poll(cq, wc, 4);

			if (n < 0)
				ex_die("vs_cq_poll");
			for (int k = 0; k < n; k++) {
				if (wc[k].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "iteration %d: completion %s\n",
						i, ibv_wc_status_str(wc[k].status));
					return 1;
				}
				if (wc[k].opcode != IBV_WC_RECV) {
					sends++;
					continue;
				}
				recvs++;
				if (wc[k].byte_len != size + VS_UD_GRH_BYTES ||
				    wc[k].src_qp != remote.qpn) {
					fprintf(stderr, "iteration %d: %u bytes from "
						"qpn 0x%x, expected %zu from 0x%x\n", i,
						wc[k].byte_len, wc[k].src_qp,
						size + VS_UD_GRH_BYTES, remote.qpn);
					return 1;
				}
				for (size_t j = 0; j < size; j++) {
					uint8_t got = m[size + VS_UD_GRH_BYTES + j];

					if (got != pattern(i, j, !side)) {
						fprintf(stderr, "iteration %d: byte %zu "
							"is 0x%02x, expected 0x%02x\n",
							i, j, got, pattern(i, j, !side));
						return 1;
					}
				}
			}
			if (!n)
			sched_yield(); /* let a software provider's threads run */
		if (!n && ex_now_ns() > deadline) {
				fprintf(stderr, "iteration %d: timed out\n", i);
				return 1;
			}
		}
	}
	{
		double us = (double)(ex_now_ns() - t0) / 1000.0;
		uint8_t a = 2, b;

		printf("%d datagram exchanges of %zu bytes in %.0f us (%.2f us "
		       "each); every byte checked (%s)\n", iters, size, us,
		       us / iters, vs_ud_qp_is_extended(qp) ? "ibv_wr_*" :
		       "ibv_post_send");
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return 1;
	}
	ex_tcp_close(fd);
	ex_check(vs_ud_dest_release(&dest), "vs_ud_dest_release");
	ex_check(vs_ud_qp_close(qp), "vs_ud_qp_close");
	ex_check(vs_mr_close(mr), "vs_mr_close");
	ex_check(vs_cq_close(cq), "vs_cq_close");
	ex_check(vs_pd_close(pd), "vs_pd_close");
	ex_check(vs_context_close(ctx), "vs_context_close");
	return 0;
}
