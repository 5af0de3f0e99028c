/* SPDX-License-Identifier: MIT */
/*
 * rc_pingpong: two processes exchange their endpoints over TCP (like
 * ibv_rc_pingpong) and bounce a message back and forth over RC, checking
 * every byte on both sides.  Exit 0 only when every exchange checked out.
 *
 *   server: rc_pingpong [options]
 *   client: rc_pingpong [options] server_host
 *
 *   -d dev        device (default $VS_RXE_DEV or the first)
 *   -i port       device port (default 1)
 *   -g gid_index  source GID index (default: auto-pick a routable one)
 *   -p tcp_port   TCP port for the endpoint exchange (default 18515)
 *   -n iters      round trips (default 1000)
 *   -s size       message size in bytes (default 4096)
 *   -l            legacy verbs (ibv_post_send / ibv_poll_cq)
 *   -e            sleep on completion events instead of busy polling
 *                 (the default when only one CPU is online: polling would
 *                 starve a software provider such as rxe)
 */
#include <string.h>

#include "common/ex_pingpong.h"

struct peer {
	struct ex_cq cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	size_t size;
	uint64_t sends_done, recvs_done;
};

/* Waits until the given numbers of sends and receives have completed. */
static int wait_for(struct peer *p, uint64_t sends, uint64_t recvs, int iter)
{
	uint64_t deadline = ex_now_ns() + 10ull * 1000000000ull;

	while (p->sends_done < sends || p->recvs_done < recvs) {
		struct vs_wc wc[4];
		int n = ex_cq_poll_or_wait(&p->cq, wc, 4);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "iteration %d: %s completion failed: "
					"%s\n", iter, wc[i].opcode == IBV_WC_RECV ?
					"receive" : "send",
					ibv_wc_status_str(wc[i].status));
				return -1;
			}
			if (wc[i].opcode == IBV_WC_RECV) {
				if (wc[i].byte_len != p->size) {
					fprintf(stderr, "iteration %d: received %u "
						"bytes, expected %zu\n", iter,
						wc[i].byte_len, p->size);
					return -1;
				}
				p->recvs_done++;
			} else {
				p->sends_done++;
			}
		}
		if (!n && ex_now_ns() > deadline) {
			fprintf(stderr, "iteration %d: timed out waiting for the "
				"peer\n", iter);
			return -1;
		}
	}
	return 0;
}

static void post_recv(struct peer *p)
{
	struct vs_recv_batch rb;
	struct ibv_sge s = vs_mr_sge(p->mr, p->size, (uint32_t)p->size);

	ex_check(vs_rc_recv_start(p->qp, &rb), "vs_rc_recv_start");
	ex_check(vs_recv_add(&rb, 2, &s, 1), "vs_recv_add");
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
}

static void send_msg(struct peer *p, int iter, int side)
{
	uint8_t *out = vs_mr_ptr(p->mr, 0);
	struct ibv_sge s = vs_mr_sge(p->mr, 0, (uint32_t)p->size);
	struct vs_rc_batch b;

	ex_payload_fill(out, p->size, iter, side);
	ex_check(vs_rc_batch_start(p->qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_send(&b, 1, VS_WR_SIGNALED, &s, 1), "vs_rc_send");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
}

static int check_msg(struct peer *p, int iter, int side)
{
	return ex_payload_check(vs_mr_ptr(p->mr, p->size), p->size, iter, side);
}

int main(int argc, char **argv)
{
	struct ex_pingpong_opts o;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_endpoint local, remote;
	struct peer p;
	uint64_t t0;
	int side, fd, iters;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	if (ex_pingpong_parse(argc, argv, 18515, 4096, &o))
		return 2;
	if (o.size > (1u << 30)) {
		fprintf(stderr, "-s %zu: at most 1 GiB\n", o.size);
		return 2;
	}
	iters = o.iters;
	side = o.server ? 0 : 1; /* the client sends first */

	memset(&p, 0, sizeof(p));
	p.size = o.size;
	ex_check(vs_device_open(o.dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_cq_open(ctx, 16, o.events, &p.cq);
	ex_check(vs_mr_alloc(pd, 2 * o.size, 0, &p.mr), "vs_mr_alloc");
	ex_own(p.mr);
	ex_check(vs_rc_qp_create(pd, &(struct vs_rc_config){
		.send_cq = p.cq.cq,
		.port = (uint8_t)o.port,
		.comp_mask = o.gid_index >= 0 ? VS_QP_CFG_GID_INDEX : 0,
		.gid_index = o.gid_index >= 0 ? (uint32_t)o.gid_index : 0,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4 },
	}, &p.qp), "vs_rc_qp_create");
	ex_own(p.qp);
	ex_check(vs_rc_endpoint(p.qp, &local), "vs_rc_endpoint");
	fd = ex_exchange_endpoints(o.server, o.tcp_port, &local, &remote);
	if (fd < 0)
		return ex_exit(1);
	ex_check(vs_rc_handshake(p.qp, &remote), "vs_rc_handshake");
	/* the first receive is posted before the peer may send */
	post_recv(&p);
	{
		uint8_t a = 1, b;

		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
	}

	t0 = ex_now_ns();
	for (int i = 0; i < iters; i++) {
		if (side == 0) {
			send_msg(&p, i, 0);
			if (wait_for(&p, (uint64_t)i + 1, (uint64_t)i + 1, i) ||
			    check_msg(&p, i, 1))
				return ex_exit(1);
			if (i + 1 < iters)
				post_recv(&p);
		} else {
			if (wait_for(&p, (uint64_t)i, (uint64_t)i + 1, i) ||
			    check_msg(&p, i, 0))
				return ex_exit(1);
			if (i + 1 < iters)
				post_recv(&p);
			send_msg(&p, i, 1);
		}
	}
	if (side == 1 && wait_for(&p, (uint64_t)iters, (uint64_t)iters, iters))
		return ex_exit(1);
	{
		double us = (double)(ex_now_ns() - t0) / 1000.0;
		uint8_t a = 2, b;

		printf("%d round trips of %zu bytes in %.0f us: %.2f us/iter, "
		       "%.1f Mbit/s; every byte checked (%s, %s)\n", iters, o.size,
		       us, us / iters, 2.0 * 8.0 * (double)o.size * iters / us,
		       vs_rc_qp_is_extended(p.qp) ? "ibv_wr_*" : "ibv_post_send",
		       p.cq.channel ? "completion events" : "busy polling");
		/* the last sync: neither side tears down while the other polls */
		if (ex_tcp_exchange(fd, &a, &b, 1))
			return ex_exit(1);
	}
	ex_tcp_close(fd);
	ex_close(p.qp);
	ex_close(p.mr);
	ex_cq_close(&p.cq);
	ex_close(pd);
	ex_close(ctx);
	return 0;
}
