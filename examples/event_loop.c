/* SPDX-License-Identifier: MIT */
/*
 * event_loop: one epoll loop serving N RC connections (default 64) on one
 * completion channel fd, plus a timerfd that prints progress.  Each
 * connection is a client QP and a server QP on the same device; the
 * client sends a ping carrying (connection, sequence), the server checks
 * it and echoes it back, the client checks the pong and sends the next.
 * Every QP has its own CQ on the one channel, its user context the
 * connection; the loop sleeps in epoll_wait, never busy-polls.
 *
 *   event_loop [-d device] [-c connections] [-n round trips each] [-l]
 */
#include <getopt.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/ex_common.h"

#define SLOT 16 /* bytes per message: conn, seq, magic */

struct conn {
	int id;
	struct vs_rc_qp *cli, *srv;
	struct vs_cq *cli_cq, *srv_cq;
	uint32_t sent, ponged;
};

struct msg {
	uint32_t conn, seq, magic, pad;
};

static struct vs_mr *mr;

/* 4 slots per connection: client tx, client rx, server rx, server tx */
static uint64_t slot(const struct conn *c, int k)
{
	return ((uint64_t)c->id * 4 + (uint64_t)k) * SLOT;
}

static void post_recv(struct vs_rc_qp *qp, uint64_t off)
{
	struct vs_recv_batch rb;
	struct ibv_sge s = vs_mr_sge(mr, off, SLOT);

	ex_check(vs_rc_recv_start(qp, &rb), "vs_rc_recv_start");
	ex_check(vs_recv_add(&rb, off, &s, 1), "vs_recv_add");
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
}

static void send_msg(struct vs_rc_qp *qp, uint64_t off, const struct msg *m)
{
	struct vs_rc_batch b;
	struct ibv_sge s = vs_mr_sge(mr, off, SLOT);

	memcpy(vs_mr_ptr(mr, off), m, sizeof(*m));
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_send(&b, off, VS_WR_SIGNALED, &s, 1), "vs_rc_send");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
}

static void check_msg(const struct conn *c, uint64_t off, uint32_t seq,
		      uint32_t magic)
{
	struct msg m;

	memcpy(&m, vs_mr_ptr(mr, off), sizeof(m));
	if (m.conn != (uint32_t)c->id || m.seq != seq || m.magic != magic) {
		fprintf(stderr, "connection %d: got (%u, %u, 0x%x), expected (%d, %u, 0x%x)\n",
			c->id, m.conn, m.seq, m.magic, c->id, seq, magic);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *dev = ex_default_device();
	int nconn = 64, iters = 50, opt, ep, tfd, done = 0;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_channel *ch;
	struct conn *conns;
	struct epoll_event ev;
	uint64_t t0, events = 0, waits = 0, completions = 0;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:c:n:l")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'c': nconn = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'l': vs_set_force_legacy(true); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-c connections] "
				"[-n round trips] [-l]\n", argv[0]);
			return 2;
		}
	}
	if (nconn < 1 || nconn > 1024 || iters < 1) {
		fprintf(stderr, "need 1 <= -c <= 1024 and -n >= 1\n");
		return 2;
	}
	ex_check(vs_device_open(dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_check(vs_channel_create(ctx, &ch), "vs_channel_create");
	ex_own(ch);
	ex_check(vs_mr_alloc(pd, (size_t)nconn * 4 * SLOT, 0, &mr), "vs_mr_alloc");
	ex_own(mr);
	conns = calloc((size_t)nconn, sizeof(*conns));
	if (!conns)
		ex_die("calloc");
	for (int i = 0; i < nconn; i++) {
		struct conn *c = &conns[i];
		struct vs_qp_caps caps = { .max_send_wr = 4, .max_recv_wr = 4,
					   .max_send_sge = 1, .max_recv_sge = 1 };
		struct vs_endpoint a, b;

		c->id = i;
		ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 16,
			.channel = ch, .user_context = c }, &c->cli_cq), "vs_cq_create");
		ex_own(c->cli_cq);
		ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 16,
			.channel = ch, .user_context = c }, &c->srv_cq), "vs_cq_create");
		ex_own(c->srv_cq);
		ex_check(vs_rc_qp_create(pd, &(struct vs_rc_config){
			.send_cq = c->cli_cq, .caps = caps }, &c->cli), "vs_rc_qp_create");
		ex_own(c->cli);
		ex_check(vs_rc_qp_create(pd, &(struct vs_rc_config){
			.send_cq = c->srv_cq, .caps = caps }, &c->srv), "vs_rc_qp_create");
		ex_own(c->srv);
		ex_check(vs_rc_endpoint(c->cli, &a), "vs_rc_endpoint");
		ex_check(vs_rc_endpoint(c->srv, &b), "vs_rc_endpoint");
		ex_check(vs_rc_handshake(c->cli, &b), "vs_rc_handshake");
		ex_check(vs_rc_handshake(c->srv, &a), "vs_rc_handshake");
		post_recv(c->cli, slot(c, 1));
		post_recv(c->srv, slot(c, 2));
	}

	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (ep < 0 || tfd < 0)
		ex_die("epoll_create1/timerfd_create");
	timerfd_settime(tfd, 0, &(struct itimerspec){
		.it_interval = { .tv_nsec = 500000000 },
		.it_value = { .tv_nsec = 500000000 } }, NULL);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = vs_channel_fd(ch) };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
		ex_die("epoll_ctl");
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = tfd };
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev))
		ex_die("epoll_ctl");

	t0 = ex_now_ns();
	for (int i = 0; i < nconn; i++) {
		struct msg m = { .conn = (uint32_t)i, .seq = 0, .magic = 0x50494e47 };

		send_msg(conns[i].cli, slot(&conns[i], 0), &m);
		conns[i].sent = 1;
	}
	while (done < nconn) {
		struct epoll_event got[2];
		int n = epoll_wait(ep, got, 2, 10000);

		if (n <= 0) {
			ex_fail("epoll_wait: %s after %d of %d connections",
				n ? "failed" : "nothing for 10 s", done, nconn);
		}
		events++;
		for (int e = 0; e < n; e++) {
			if (got[e].data.fd == tfd) {
				uint64_t ticks;

				if (read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
					printf("  %d of %d connections done, %llu completions\n",
					       done, nconn, (unsigned long long)completions);
				continue;
			}
			/* the channel: serve until it says -EAGAIN */
			for (;;) {
				struct vs_cq *from;
				struct vs_wc wc[8];
				int k = vs_channel_wait(ch, 0, &from, wc, 8);
				struct conn *c;

				if (k == -EAGAIN)
					break;
				if (k < 0)
					ex_die("vs_channel_wait");
				waits++;
				completions += (uint64_t)k;
				c = vs_cq_context(from);
				for (int j = 0; j < k; j++) {
					struct msg m;

					if (wc[j].status != IBV_WC_SUCCESS) {
						ex_fail("connection %d: %s", c->id,
							ibv_wc_status_str(wc[j].status));
					}
					if (wc[j].opcode != IBV_WC_RECV)
						continue; /* a send's completion */
					if (from == c->srv_cq) {
						/* a ping: check, re-post, echo */
						check_msg(c, slot(c, 2), c->sent - 1, 0x50494e47);
						memcpy(&m, vs_mr_ptr(mr, slot(c, 2)), sizeof(m));
						post_recv(c->srv, slot(c, 2));
						m.magic = 0x504f4e47;
						send_msg(c->srv, slot(c, 3), &m);
						continue;
					}
					check_msg(c, slot(c, 1), c->ponged, 0x504f4e47);
					c->ponged++;
					if (c->ponged == (uint32_t)iters) {
						done++;
						continue;
					}
					post_recv(c->cli, slot(c, 1));
					m = (struct msg){ .conn = (uint32_t)c->id,
						.seq = c->sent++, .magic = 0x50494e47 };
					send_msg(c->cli, slot(c, 0), &m);
				}
			}
		}
	}
	{
		double s = (double)(ex_now_ns() - t0) / 1e9;

		printf("event_loop: %d connections x %d round trips on one channel "
		       "fd in %.2f s (%.0f round trips/s), %llu epoll wake-ups, "
		       "%llu completions in %llu waits, every message checked\n",
		       nconn, iters, s, (double)nconn * iters / s,
		       (unsigned long long)events, (unsigned long long)completions,
		       (unsigned long long)waits);
	}
	for (int i = 0; i < nconn; i++) {
		ex_close(conns[i].cli);
		ex_close(conns[i].srv);
		ex_close(conns[i].cli_cq);
		ex_close(conns[i].srv_cq);
	}
	ex_close(ch);
	ex_close(mr);
	ex_close(pd);
	ex_close(ctx);
	close(tfd);
	close(ep);
	free(conns);
	return 0;
}
