/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <sched.h>
#include <unistd.h>

#include "ex_pingpong.h"

int ex_pingpong_parse(int argc, char **argv, int tcp_port, size_t size,
		      struct ex_pingpong_opts *o)
{
	int opt;

	*o = (struct ex_pingpong_opts){
		.dev = ex_default_device(),
		.port = 1,
		.gid_index = -1,
		.tcp_port = tcp_port,
		.iters = 1000,
		.size = size,
		/* one CPU: busy polling would starve a software provider */
		.events = sysconf(_SC_NPROCESSORS_ONLN) == 1,
	};
	while ((opt = getopt(argc, argv, "d:i:g:p:n:s:le")) != -1) {
		switch (opt) {
		case 'd': o->dev = optarg; break;
		case 'i': o->port = atoi(optarg); break;
		case 'g': o->gid_index = atoi(optarg); break;
		case 'p': o->tcp_port = atoi(optarg); break;
		case 'n': o->iters = atoi(optarg); break;
		case 's': o->size = (size_t)strtoul(optarg, NULL, 0); break;
		case 'l': vs_set_force_legacy(true); break;
		case 'e': o->events = true; break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-i port] [-g gid_index] "
				"[-p tcp_port] [-n iters] [-s size] [-l] [-e] "
				"[server_host]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		o->server = argv[optind];
	if (o->port < 1 || o->port > 255 || o->iters < 1 || o->size < 1) {
		fprintf(stderr, "bad -i, -n or -s\n");
		return 2;
	}
	return 0;
}

void ex_cq_open(struct vs_context *ctx, uint32_t depth, bool events,
		struct ex_cq *c)
{
	c->channel = NULL;
	if (events) {
		ex_check(vs_channel_create(ctx, &c->channel), "vs_channel_create");
		ex_own(c->channel);
	}
	ex_check(vs_cq_create(ctx, &(struct vs_cq_config){
		.depth = depth, .channel = c->channel }, &c->cq), "vs_cq_create");
	ex_own(c->cq);
}

int ex_cq_poll_or_wait(struct ex_cq *c, struct vs_wc *wc, int max)
{
	int n;

	if (c->channel) {
		/* arm, ack, re-arm and drain are the library's (race-free) */
		n = vs_cq_wait(c->cq, 1000, wc, max);
		if (n == -ETIMEDOUT)
			return 0;
	} else {
		n = vs_cq_poll(c->cq, wc, max);
		if (n == 0)
			sched_yield(); /* let a software provider's threads run */
	}
	if (n < 0)
		ex_die(c->channel ? "vs_cq_wait" : "vs_cq_poll");
	return n;
}

void ex_cq_close(struct ex_cq *c)
{
	ex_close(c->cq);
	if (c->channel)
		ex_close(c->channel);
}

int ex_exchange_endpoints(const char *server_host, int tcp_port,
			  const struct vs_endpoint *local,
			  struct vs_endpoint *remote)
{
	uint8_t out[VS_ENDPOINT_WIRE_SIZE], in[VS_ENDPOINT_WIRE_SIZE];
	char text[200];
	int fd;

	ex_check(vs_endpoint_to_bytes(local, out), "vs_endpoint_to_bytes");
	printf("local:  %s\n", vs_endpoint_to_str(local, text, sizeof(text)));
	fd = ex_tcp_open(server_host, tcp_port);
	if (fd < 0)
		return -1;
	if (ex_tcp_exchange(fd, out, in, sizeof(in))) {
		ex_tcp_close(fd);
		return -1;
	}
	ex_check(vs_endpoint_from_bytes(in, sizeof(in), remote),
		 "vs_endpoint_from_bytes");
	printf("remote: %s\n", vs_endpoint_to_str(remote, text, sizeof(text)));
	return fd;
}

/* different per iteration, offset and side, so that a stale or crossed message shows */
static uint8_t payload_byte(int iter, size_t j, int side)
{
	return (uint8_t)(iter * 31 + (int)j * 7 + side * 101);
}

void ex_payload_fill(uint8_t *buf, size_t size, int iter, int side)
{
	for (size_t j = 0; j < size; j++)
		buf[j] = payload_byte(iter, j, side);
}

int ex_payload_check(const uint8_t *buf, size_t size, int iter, int side)
{
	for (size_t j = 0; j < size; j++) {
		if (buf[j] != payload_byte(iter, j, side)) {
			fprintf(stderr, "iteration %d: byte %zu is 0x%02x, expected "
				"0x%02x\n", iter, j, buf[j], payload_byte(iter, j, side));
			return -1;
		}
	}
	return 0;
}

int ex_dgram_wait(struct ex_cq *cq, int iter, uint64_t *sends, uint64_t *recvs,
		  uint32_t byte_len, uint32_t src_qp, const uint8_t *payload,
		  size_t size, int side)
{
	uint64_t deadline = ex_now_ns() + 10ull * 1000000000ull;

	while (*sends < (uint64_t)iter + 1 || *recvs < (uint64_t)iter + 1) {
		struct vs_wc wc[4];
		int n = ex_cq_poll_or_wait(cq, wc, 4);

		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "iteration %d: completion %s\n",
					iter, ibv_wc_status_str(wc[k].status));
				return -1;
			}
			if (wc[k].opcode != IBV_WC_RECV) {
				(*sends)++;
				continue;
			}
			(*recvs)++;
			if (wc[k].byte_len != byte_len || wc[k].src_qp != src_qp) {
				fprintf(stderr, "iteration %d: %u bytes from qpn "
					"0x%x, expected %u from 0x%x\n", iter,
					wc[k].byte_len, wc[k].src_qp, byte_len,
					src_qp);
				return -1;
			}
			if (ex_payload_check(payload, size, iter, side))
				return -1;
		}
		if (!n && ex_now_ns() > deadline) {
			fprintf(stderr, "iteration %d: timed out\n", iter);
			return -1;
		}
	}
	return 0;
}
