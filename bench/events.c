/* SPDX-License-Identifier: MIT */
/*
 * events: completion waiting, busy-poll vs the typed event wait vs a raw
 * verbs event loop written the textbook way (ibv_req_notify_cq /
 * ibv_get_cq_event on a blocking fd / ibv_ack_cq_events / ibv_poll_cq
 * until empty, the ibv_get_cq_event(3) man page's loop).
 *
 * Two RC QPs connected to each other, each with its own CQ (both queues)
 * and, in event modes, its own channel; a client thread sends a 64-byte
 * message and waits for the echo, a server thread waits for each message
 * and echoes it.  Round trips per second (two messages each) and the
 * round-trip time (p50, p99), and completions per wake-up (per batch).
 * The typed modes post with the typed batches, the raw mode with
 * ibv_post_send / ibv_post_recv on the same kind of QP, so each row is
 * typed or raw end to end.
 *
 *   events [-d dev] [-n round trips]          the table, every mode
 *   events --mode poll|typed|typed-legacy|raw [-n N]
 *                                             one mode, one line: name,
 *                                             round trips/s, p50, p99,
 *                                             completions per wake-up,
 *                                             wake-ups (for
 *                                             bench/events.sh's strace -c)
 *
 * Needs a device (the SoftRoCE VM: bench/events.sh boots it).  Figures
 * under TCG/rxe compare the modes with each other, nothing more.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <verbshim.h>

#define MSG 64
#define RECVS 16  /* receives kept posted on each side */
#define SIGNAL 16 /* one send in SIGNAL signaled */

enum mode { POLL, TYPED, TYPED_LEGACY, RAW, NMODES };
static const char *const mode_name[NMODES] = { "poll", "typed", "typed-legacy",
					       "raw" };
static const char *const mode_what[NMODES] = {
	"busy-poll (vs_cq_poll)",
	"typed events (vs_cq_wait), extended CQ",
	"typed events (vs_cq_wait), legacy CQ",
	"raw textbook event loop (ibv_get_cq_event, blocking fd)",
};

struct side {
	enum mode mode;
	struct vs_channel *ch;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct ibv_comp_channel *raw_ch; /* raw mode */
	struct ibv_cq *raw_cq;
	struct ibv_qp *raw_qp;
	struct ibv_sge send_sge, recv_sge[RECVS];
	uint64_t sends;
	int recvs_ready;                 /* polled, not yet consumed */
	uint64_t wakeups, completions;
};

static struct vs_context *ctx;
static struct vs_pd *pd;
static struct vs_mr *mr;
static long rounds = 5000;

static void die(const char *what)
{
	char buf[600];

	fprintf(stderr, "events: %s: %s\n", what,
		vs_format_error(vs_last_error(), buf, sizeof(buf)));
	exit(1);
}

static void die_raw(const char *what, int err)
{
	fprintf(stderr, "events: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void post_recv(struct side *s, int slot)
{
	if (s->mode == RAW) {
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)slot,
					  .sg_list = &s->recv_sge[slot],
					  .num_sge = 1 }, *bad;
		int err = ibv_post_recv(s->raw_qp, &wr, &bad);

		if (err)
			die_raw("ibv_post_recv", err);
		return;
	}
	struct vs_recv_batch rb;

	if (vs_rc_recv_start(s->qp, &rb) ||
	    vs_recv_add(&rb, (uint64_t)slot, &s->recv_sge[slot], 1) ||
	    vs_recv_submit(&rb))
		die("post receive");
}

static void post_send(struct side *s)
{
	bool sig = ++s->sends % SIGNAL == 0;

	if (s->mode == RAW) {
		struct ibv_send_wr wr = {
			.wr_id = s->sends, .sg_list = &s->send_sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = sig ? IBV_SEND_SIGNALED : 0u,
		}, *bad;
		int err = ibv_post_send(s->raw_qp, &wr, &bad);

		if (err)
			die_raw("ibv_post_send", err);
		return;
	}
	struct vs_rc_batch b;

	if (vs_rc_batch_start(s->qp, &b) ||
	    vs_rc_send(&b, s->sends, sig ? VS_WR_SIGNALED : 0, &s->send_sge, 1) ||
	    vs_rc_batch_submit(&b))
		die("post send");
}

/* Takes a batch of completions: receives are counted, then reposted. */
static void consume(struct side *s, const uint64_t *recv_ids, int nrecv)
{
	for (int i = 0; i < nrecv; i++)
		post_recv(s, (int)recv_ids[i]);
	s->recvs_ready += nrecv;
}

static void raw_poll(struct side *s)
{
	struct ibv_wc wc[RECVS];
	uint64_t ids[RECVS];
	int n;

	while ((n = ibv_poll_cq(s->raw_cq, RECVS, wc)) > 0) {
		int r = 0;

		s->completions += (uint64_t)n;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "events: completion %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_RECV)
				ids[r++] = wc[i].wr_id;
		}
		consume(s, ids, r);
	}
	if (n < 0)
		die_raw("ibv_poll_cq", -n);
}

/* Until at least one message has arrived; consumes it. */
static void wait_message(struct side *s)
{
	while (!s->recvs_ready) {
		struct vs_wc wc[RECVS];
		uint64_t ids[RECVS];
		int n = 0, r = 0;

		switch (s->mode) {
		case POLL:
			n = vs_cq_poll(s->cq, wc, RECVS);
			break;
		case TYPED:
		case TYPED_LEGACY:
			n = vs_cq_wait(s->cq, -1, wc, RECVS);
			break;
		case RAW: {
			struct ibv_cq *ev_cq;
			void *ev_ctx;

			/* the man page's loop: get, ack, re-arm, poll until empty */
			if (ibv_get_cq_event(s->raw_ch, &ev_cq, &ev_ctx))
				die_raw("ibv_get_cq_event", errno);
			ibv_ack_cq_events(ev_cq, 1);
			if (ibv_req_notify_cq(ev_cq, 0))
				die_raw("ibv_req_notify_cq", EIO);
			s->wakeups++;
			raw_poll(s);
			continue;
		}
		default:
			break;
		}
		if (n < 0)
			die("wait");
		if (!n)
			continue;
		s->wakeups++;
		s->completions += (uint64_t)n;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "events: completion %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_RECV)
				ids[r++] = wc[i].wr_id;
		}
		consume(s, ids, r);
	}
	s->recvs_ready--;
}

static void side_up(struct side *s, enum mode m, size_t base)
{
	bool events = m != POLL, legacy = m == TYPED_LEGACY || m == RAW;

	memset(s, 0, sizeof(*s));
	s->mode = m;
	if (events && vs_channel_create(ctx, &s->ch))
		die("vs_channel_create");
	if (vs_cq_create(ctx, &(struct vs_cq_config){
		    .depth = 256, .legacy = legacy, .channel = s->ch }, &s->cq) ||
	    vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = s->cq,
			    .legacy = legacy }, &s->qp))
		die("create");
	s->send_sge = vs_mr_sge(mr, base, MSG);
	for (int i = 0; i < RECVS; i++)
		s->recv_sge[i] = vs_mr_sge(mr, base + (size_t)(i + 1) * MSG, MSG);
	if (m == RAW) {
		/* the textbook's own objects: a blocking channel fd */
		int fl;

		s->raw_ch = vs_channel_raw(s->ch);
		s->raw_cq = vs_cq_raw(s->cq);
		s->raw_qp = vs_rc_qp_raw(s->qp);
		fl = fcntl(s->raw_ch->fd, F_GETFL);
		if (fl < 0 || fcntl(s->raw_ch->fd, F_SETFL, fl & ~O_NONBLOCK))
			die_raw("fcntl", errno);
		if (ibv_req_notify_cq(s->raw_cq, 0))
			die_raw("ibv_req_notify_cq", EIO);
	}
}

static void side_down(struct side *s)
{
	if (vs_rc_qp_close(s->qp) || vs_cq_close(s->cq) ||
	    (s->ch && vs_channel_close(s->ch)))
		die("close");
}

static void connect_sides(struct side *a, struct side *b)
{
	struct vs_endpoint ea, eb;

	if (vs_rc_endpoint(a->qp, &ea) || vs_rc_endpoint(b->qp, &eb) ||
	    vs_rc_handshake(a->qp, &eb) || vs_rc_handshake(b->qp, &ea))
		die("connect");
}

static void *server(void *arg)
{
	struct side *s = arg;

	for (long i = 0; i < rounds; i++) {
		wait_message(s);
		post_send(s);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	double rt_per_s, p50_us, p99_us, per_wakeup;
	uint64_t wakeups; /* both sides' waits that returned completions */
};

static struct result run(enum mode m)
{
	struct side c, s;
	pthread_t t;
	uint64_t *rtt = malloc(sizeof(*rtt) * (size_t)rounds), t0;
	struct result r;

	if (!rtt)
		die_raw("malloc", ENOMEM);
	side_up(&c, m, 0);
	side_up(&s, m, 4096);
	connect_sides(&c, &s);
	for (int i = 0; i < RECVS; i++) {
		post_recv(&c, i);
		post_recv(&s, i);
	}
	if (pthread_create(&t, NULL, server, &s))
		die_raw("pthread_create", EAGAIN);
	t0 = now_ns();
	for (long i = 0; i < rounds; i++) {
		uint64_t t1 = now_ns();

		post_send(&c);
		wait_message(&c);
		rtt[i] = now_ns() - t1;
	}
	r.rt_per_s = (double)rounds * 1e9 / (double)(now_ns() - t0);
	pthread_join(t, NULL);
	qsort(rtt, (size_t)rounds, sizeof(*rtt), cmp_u64);
	r.p50_us = (double)rtt[rounds / 2] / 1e3;
	r.p99_us = (double)rtt[rounds * 99 / 100] / 1e3;
	r.wakeups = c.wakeups + s.wakeups;
	r.per_wakeup = (double)(c.completions + s.completions) /
		       (double)r.wakeups;
	free(rtt);
	side_down(&c);
	side_down(&s);
	return r;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int only = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			dev = argv[++i];
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			rounds = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			for (int m = 0; m < NMODES; m++)
				if (!strcmp(argv[i], mode_name[m]))
					only = m;
			if (only < 0) {
				fprintf(stderr, "events: no mode %s\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: events [-d dev] [-n round trips] "
				"[--mode poll|typed|typed-legacy|raw]\n");
			return 2;
		}
	}
	if (rounds < 100)
		rounds = 100;
	if (!dev)
		dev = getenv("VS_RXE_DEV");
	if (vs_device_open(dev, &ctx) || vs_pd_alloc(ctx, &pd) ||
	    vs_mr_alloc(pd, 8192 + 2 * (RECVS + 1) * MSG, 0, &mr))
		die("setup");
	if (only >= 0) {
		struct result r = run((enum mode)only);

		printf("%s %.0f %.1f %.1f %.2f %llu\n", mode_name[only],
		       r.rt_per_s, r.p50_us, r.p99_us, r.per_wakeup,
		       (unsigned long long)r.wakeups);
	} else {
		printf("| mode | round trips/s | messages/s | RTT p50 (us) | "
		       "RTT p99 (us) | completions per wake-up |\n"
		       "|---|---:|---:|---:|---:|---:|\n");
		for (int m = 0; m < NMODES; m++) {
			struct result r = run((enum mode)m);

			printf("| %s | %.0f | %.0f | %.1f | %.1f | %.2f |\n",
			       mode_what[m], r.rt_per_s, 2 * r.rt_per_s,
			       r.p50_us, r.p99_us, r.per_wakeup);
		}
	}
	if (vs_mr_close(mr) || vs_pd_close(pd) || vs_device_close(ctx))
		die("teardown");
	return 0;
}
