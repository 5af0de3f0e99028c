/* SPDX-License-Identifier: MIT */
/*
 * Completion channels and async events on rxe, in extended and legacy
 * mode (docs/API.md, "Events"):
 *  - 8 CQs (8 RC QPs) on one channel: every completion attributed to its
 *    CQ and user context, the bytes that arrived checked;
 *  - no lost wake-up: a sender thread races the receiver's re-arm for
 *    VS_EVENTS_MESSAGES messages (default 100000), each carrying its
 *    sequence number, the receiver sleeping on the channel: for ever on
 *    the fd never handed out (blocking: asleep in its read of the event;
 *    the sender fails the test when nothing was consumed for 10 s), then
 *    with a 5 s timeout on the fd handed out (non-blocking: poll, read);
 *  - -EAGAIN (timeout 0) and -ETIMEDOUT within bounds;
 *  - a legacy CQ's buffered completions are served without sleeping;
 *  - closing CQs and the channel with events read but not acked, and
 *    with events never read, returns at once;
 *  - async events: SRQ limit reached (typed SRQ), QP last WQE reached (a
 *    QP on the SRQ moved to error: typed RC QP), port error then port
 *    active (the device's netdev set down and up again).
 */
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define NCQ 8
#define MSG 64

struct pair {
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	int tag; /* the CQ's user context points here */
};

static void self_connect(struct vs_rc_qp *qp)
{
	struct vs_endpoint ep;

	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
}

static void connect_pair(struct vs_rc_qp *a, struct vs_rc_qp *b)
{
	struct vs_endpoint ea, eb;

	VS_OK(vs_rc_endpoint(a, &ea));
	VS_OK(vs_rc_endpoint(b, &eb));
	VS_OK(vs_rc_handshake(a, &eb));
	VS_OK(vs_rc_handshake(b, &ea));
}

/* A signaled RDMA write of len bytes from 0 to 2048 of mr (no receive needed). */
static void post_write(struct vs_rc_qp *qp, uint64_t wr_id, struct vs_mr *mr,
		       uint32_t len)
{
	struct vs_rc_batch b;
	struct ibv_sge s = vs_mr_sge(mr, 0, len);

	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_write(&b, wr_id, VS_WR_SIGNALED, &s, 1, vs_mr_remote(mr, 2048)));
	VS_OK(vs_rc_batch_submit(&b));
}

/* 8 CQs on one channel, each its QP's only CQ: attribution and bytes. */
static void test_many_cqs(struct vs_context *ctx, struct vs_pd *pd, bool legacy)
{
	struct vs_channel *ch;
	struct pair p[NCQ];
	struct vs_mr *mr;
	uint8_t *m;
	int sends[NCQ] = { 0 }, recvs[NCQ] = { 0 }, total = 0;
	uint64_t deadline;

	VS_OK(vs_channel_create(ctx, &ch));
	VS_ASSERT(vs_channel_fd(ch) >= 0);
	VS_OK(vs_mr_alloc(pd, 2 * NCQ * MSG, 0, &mr));
	m = vs_mr_ptr(mr, 0);
	for (int i = 0; i < NCQ; i++) {
		p[i].tag = i;
		VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){
			.channel = ch, .user_context = &p[i].tag, .depth = 16 },
			&p[i].cq));
		if (legacy) /* rdma-core 33's rxe has no extended CQs at all */
			VS_ASSERT(!vs_cq_is_extended(p[i].cq));
		VS_ASSERT_PTR_EQ(vs_cq_context(p[i].cq), &p[i].tag);
		VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = p[i].cq },
				      &p[i].qp));
		self_connect(p[i].qp);
		/* source: MSG bytes of pattern i at i*MSG; sink at (NCQ+i)*MSG */
		for (int k = 0; k < MSG; k++)
			m[i * MSG + k] = (uint8_t)(i * 37 + k);
		vs_t_rc_recv(p[i].qp, 1000 + (uint64_t)i,
			  vs_mr_sge(mr, (uint64_t)(NCQ + i) * MSG, MSG));
	}
	/* nothing yet: the wait says so at once */
	{
		struct vs_cq *from = (struct vs_cq *)&from;
		struct vs_wc wc[4];

		VS_ASSERT_EQ(vs_channel_wait(ch, 0, &from, wc, 4), -EAGAIN);
		VS_ASSERT_PTR_EQ(from, NULL);
	}
	/* in reverse order, so the channel's order is not the creation order */
	for (int i = NCQ - 1; i >= 0; i--)
		vs_t_rc_send(p[i].qp, 100 + (uint64_t)i, vs_mr_sge(mr, (uint64_t)i * MSG, MSG));
	deadline = vs_t_now_ms() + 10000;
	while (total < 2 * NCQ) {
		struct vs_cq *from;
		struct vs_wc wc[4];
		int n = vs_channel_wait(ch, 5000, &from, wc, 4), i;

		if (n < 0)
			VS_FAIL("vs_channel_wait = %d after %d of %d completions: %s",
				n, total, 2 * NCQ, vs_t_err());
		i = *(int *)vs_cq_context(from);
		VS_ASSERT(i >= 0 && i < NCQ);
		VS_ASSERT_PTR_EQ(from, p[i].cq);
		for (int k = 0; k < n; k++) {
			VS_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS);
			VS_ASSERT_EQ(wc[k].qp_num, vs_rc_qp_num(p[i].qp));
			if (wc[k].opcode == IBV_WC_SEND) {
				VS_ASSERT_EQ(wc[k].wr_id, 100 + (uint64_t)i);
				sends[i]++;
			} else {
				VS_ASSERT_EQ(wc[k].opcode, IBV_WC_RECV);
				VS_ASSERT_EQ(wc[k].wr_id, 1000 + (uint64_t)i);
				VS_ASSERT_EQ(wc[k].byte_len, MSG);
				VS_ASSERT_MEMEQ(m + (NCQ + i) * MSG, m + i * MSG, MSG);
				recvs[i]++;
			}
		}
		total += n;
		VS_ASSERT(vs_t_now_ms() < deadline);
	}
	for (int i = 0; i < NCQ; i++) {
		VS_ASSERT_EQ(sends[i], 1);
		VS_ASSERT_EQ(recvs[i], 1);
	}
	/* all drained: nothing left, no event left */
	{
		struct vs_cq *from;
		struct vs_wc wc[4];

		VS_ASSERT_EQ(vs_channel_wait(ch, 0, &from, wc, 4), -EAGAIN);
	}
	/* the channel refuses to go while its CQs are open, naming them */
	VS_FAILS(vs_channel_close(ch), EBUSY, "8 CQs are still on this channel");
	VS_FAILS(vs_channel_close(ch), EBUSY, "user context");
	for (int i = 0; i < NCQ; i++) {
		VS_OK(vs_rc_qp_close(p[i].qp));
		VS_OK(vs_cq_close(p[i].cq));
	}
	VS_OK(vs_channel_close(ch));
	VS_OK(vs_mr_close(mr));
	printf("  8 CQs on one channel: 16 completions attributed, bytes checked\n");
}

/* ---- no lost wake-up ---- */

#define RING 128 /* receives outstanding */

struct race {
	struct vs_rc_qp *tx;
	struct vs_cq *tx_cq;
	struct vs_mr *mr;
	long count;
	long consumed; /* receives completed and re-posted (atomic) */
	int err;
	bool forever; /* the receiver waits with timeout -1 */
};

static void *sender(void *arg)
{
	struct race *r = arg;
	struct vs_wc wc[32];
	long sent = 0, done = 0, seen = -1;
	uint32_t *src = vs_mr_ptr(r->mr, 0);
	uint64_t since = vs_t_now_ms();

	while (done < r->count) {
		long consumed = __atomic_load_n(&r->consumed, __ATOMIC_ACQUIRE);

		if (consumed != seen) {
			seen = consumed;
			since = vs_t_now_ms();
		} else if (r->forever && consumed < r->count &&
			   vs_t_now_ms() - since > 10000) {
			/* the receiver cannot time out: say why it hangs */
			printf("FAIL: lost wake-up: vs_cq_wait(-1) asleep for 10 s "
			       "after %ld of %ld messages (%ld sent)\n", consumed,
			       r->count, sent);
			exit(1);
		}
		/* never more in flight than receives posted */
		while (sent < r->count &&
		       sent - __atomic_load_n(&r->consumed, __ATOMIC_ACQUIRE) < RING &&
		       sent - done < 64) {
			struct vs_rc_batch b;
			struct ibv_sge s = vs_mr_sge(r->mr, (uint64_t)(sent % 64) * 4, 4);

			src[sent % 64] = (uint32_t)sent;
			if (vs_rc_batch_start(r->tx, &b) ||
			    vs_rc_send(&b, (uint64_t)sent, VS_WR_SIGNALED, &s, 1) ||
			    vs_rc_batch_submit(&b)) {
				r->err = 1;
				return NULL;
			}
			sent++;
		}
		int n = vs_cq_poll(r->tx_cq, wc, 32);

		if (n < 0) {
			r->err = 2;
			return NULL;
		}
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != (uint64_t)done++) {
				r->err = 3;
				return NULL;
			}
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void test_no_lost_wakeup(struct vs_context *ctx, struct vs_pd *pd, long count,
				bool forever)
{
	struct vs_channel *ch;
	struct vs_cq *rx_cq;
	struct vs_rc_qp *rx;
	struct race r = { .count = count, .forever = forever };
	int flags;
	pthread_t th;
	uint32_t *dst;
	long got = 0, waits = 0;
	uint64_t t0 = vs_t_now_ms();

	VS_OK(vs_channel_create(ctx, &ch));
	/* blocking until handed out; non-blocking from then on */
	flags = fcntl(ch->ch->fd, F_GETFL);
	VS_ASSERT(flags >= 0 && !(flags & O_NONBLOCK));
	if (!forever) {
		flags = fcntl(vs_channel_fd(ch), F_GETFL);
		VS_ASSERT(flags >= 0 && (flags & O_NONBLOCK));
	}
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .channel = ch, .depth = 512 },
			   &rx_cq));
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 512 }, &r.tx_cq));
	VS_OK(vs_mr_alloc(pd, 4096 + RING * 4, 0, &r.mr));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = r.tx_cq,
		.caps.max_send_wr = 128 }, &r.tx));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = r.tx_cq,
		.recv_cq = rx_cq, .caps.max_recv_wr = RING }, &rx));
	connect_pair(r.tx, rx);
	dst = vs_mr_ptr(r.mr, 4096);
	for (int i = 0; i < RING; i++)
		vs_t_rc_recv(rx, (uint64_t)i, vs_mr_sge(r.mr, 4096 + (uint64_t)i * 4, 4));
	VS_ASSERT_EQ(pthread_create(&th, NULL, sender, &r), 0);
	while (got < count) {
		struct vs_wc wc[16];
		int n = vs_cq_wait(rx_cq, forever ? -1 : 5000, wc, 16);

		waits++;
		if (n < 0)
			VS_FAIL("vs_cq_wait = %d after %ld of %ld messages: %s", n,
				got, count, vs_t_err());
		for (int i = 0; i < n; i++, got++) {
			uint64_t slot = wc[i].wr_id;

			VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
			VS_ASSERT_EQ(wc[i].opcode, IBV_WC_RECV);
			VS_ASSERT_EQ(wc[i].byte_len, 4);
			VS_ASSERT_EQ(slot, (uint64_t)(got % RING)); /* RC: in order */
			VS_ASSERT_EQ(dst[slot], (uint32_t)got);
			dst[slot] = 0xdeadbeef;
			if (got + RING < count)
				vs_t_rc_recv(rx, slot, vs_mr_sge(r.mr, 4096 + slot * 4, 4));
			__atomic_store_n(&r.consumed, got + 1, __ATOMIC_RELEASE);
		}
	}
	VS_ASSERT_EQ(pthread_join(th, NULL), 0);
	VS_ASSERT_EQ(r.err, 0);
	printf("  no lost wake-up (%s): %ld messages in %llu ms, %ld waits "
	       "(%.1f per wait)\n", forever ? "timeout -1, blocking fd" :
	       "timeout 5 s, fd handed out", count,
	       (unsigned long long)(vs_t_now_ms() - t0), waits,
	       (double)count / (double)waits);
	VS_OK(vs_rc_qp_close(rx));
	VS_OK(vs_rc_qp_close(r.tx));
	VS_OK(vs_cq_close(rx_cq));
	VS_OK(vs_cq_close(r.tx_cq));
	VS_OK(vs_mr_close(r.mr));
	VS_OK(vs_channel_close(ch));
}

/* ---- timeouts, legacy buffering, close with events outstanding ---- */

static void test_timeouts_and_close(struct vs_context *ctx, struct vs_pd *pd)
{
	struct vs_channel *ch;
	struct vs_cq *cq, *cq2;
	struct vs_rc_qp *qp, *qp2;
	struct vs_mr *mr;
	struct vs_wc wc[32];
	uint64_t t0, dt;
	bool extended;

	VS_OK(vs_channel_create(ctx, &ch));
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .channel = ch, .depth = 64 }, &cq));
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .channel = ch, .depth = 64 }, &cq2));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq2 }, &qp2));
	extended = vs_cq_is_extended(cq);
	self_connect(qp);
	self_connect(qp2);

	VS_ASSERT_EQ(vs_cq_wait(cq, 0, wc, 32), -EAGAIN);
	t0 = vs_t_now_ms();
	VS_ASSERT_EQ(vs_cq_wait(cq, 200, wc, 32), -ETIMEDOUT);
	dt = vs_t_now_ms() - t0;
	if (dt < 200 || dt > 2200)
		VS_FAIL("a 200 ms wait took %llu ms", (unsigned long long)dt);
	t0 = vs_t_now_ms();
	{
		struct vs_cq *from;

		VS_ASSERT_EQ(vs_channel_wait(ch, 150, &from, wc, 32), -ETIMEDOUT);
	}
	dt = vs_t_now_ms() - t0;
	if (dt < 150 || dt > 2150)
		VS_FAIL("a 150 ms channel wait took %llu ms", (unsigned long long)dt);

	/*
	 * 20 completions, one event: served one at a time with timeout 0
	 * (a legacy CQ holds 15 of them in the library after the first).
	 */
	for (int i = 0; i < 20; i++)
		post_write(qp, (uint64_t)i, mr, 8);
	{
		uint64_t deadline = vs_t_now_ms() + 5000;
		int r;

		/* the first: wait for the event */
		VS_ASSERT_EQ(vs_cq_wait(cq, 5000, wc, 1), 1);
		VS_ASSERT_EQ(wc[0].wr_id, 0);
		/* the rest of what has arrived, never -EAGAIN while some remain */
		for (int i = 1; i < 20; i++) {
			while ((r = vs_cq_wait(cq, 0, wc, 1)) == -EAGAIN &&
			       vs_t_now_ms() < deadline)
				; /* not all may have completed yet: only then */
			if (r != 1)
				VS_FAIL("completion %d: vs_cq_wait = %d: %s", i, r, vs_t_err());
			VS_ASSERT_EQ(wc[0].wr_id, (uint64_t)i);
			VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
		}
		VS_ASSERT_EQ(vs_cq_wait(cq, 0, wc, 1), -EAGAIN);
	}
	/* waiting on a CQ without a channel, or a closed one, is refused */
	{
		struct vs_cq *plain;

		VS_OK(vs_cq_create(ctx, NULL, &plain));
		VS_FAILS(vs_cq_wait(plain, 0, wc, 1), EINVAL, "no completion channel");
		VS_OK(vs_cq_close(plain));
		VS_FAILS(vs_cq_wait(plain, 0, wc, 1), EINVAL, "already closed");
	}

	/*
	 * Close with events outstanding: cq's events are read and counted
	 * but not acked (fewer than the ack batch), cq2's never read.
	 */
	for (int i = 0; i < 3; i++) {
		post_write(qp, 50 + (uint64_t)i, mr, 8);
		VS_ASSERT_EQ(vs_cq_wait(cq, 5000, wc, 32), 1);
		post_write(qp2, 60 + (uint64_t)i, mr, 8);
	}
	usleep(100000); /* let cq2's completions raise their event */
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_rc_qp_close(qp2));
	t0 = vs_t_now_ms();
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_cq_close(cq2));
	VS_OK(vs_channel_close(ch));
	VS_ASSERT(vs_t_now_ms() - t0 < 2000);
	VS_OK(vs_mr_close(mr));
	printf("  -EAGAIN, -ETIMEDOUT in bounds, %s CQ served without sleeping, "
	       "close with events outstanding returns\n", extended ? "extended" : "legacy");
}

/* ---- async events ---- */

/* true when the event of that type arrived within ms (others are shown) */
static bool next_async(struct vs_context *ctx, enum ibv_event_type type,
		       struct vs_async_event *ev, int ms)
{
	uint64_t deadline = vs_t_now_ms() + (uint64_t)ms;

	for (;;) {
		int r = vs_async_next(ctx, 200, ev);

		if (r == 0 && ev->type == type)
			return true;
		if (r == 0)
			printf("  (other async event: %s)\n", ev->name);
		else if (r != -ETIMEDOUT)
			VS_FAIL("waiting for %s: vs_async_next = %d: %s",
				vs_async_event_name(type), r, vs_t_err());
		if (vs_t_now_ms() > deadline)
			return false;
	}
}

static void expect_async(struct vs_context *ctx, enum ibv_event_type type,
			 struct vs_async_event *ev)
{
	if (!next_async(ctx, type, ev, 5000))
		VS_FAIL("no %s within 5 s", vs_async_event_name(type));
}

static int set_link(const char *netdev, bool up)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret = -1;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", netdev);
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return ret;
}

static void test_async(struct vs_context *ctx, struct vs_pd *pd)
{
	struct vs_async_event ev;
	struct vs_srq *srq;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	struct vs_recv_batch rb;
	struct vs_wc wc[8];

	VS_ASSERT(vs_async_fd(ctx) >= 0);
	VS_ASSERT_EQ(vs_async_next(ctx, 0, &ev), -EAGAIN);
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	VS_OK(vs_srq_create(pd, &(struct vs_srq_config){ .max_wr = 16 }, &srq));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq, .srq = srq },
			      &qp));
	self_connect(qp);
	VS_OK(vs_srq_recv_start(srq, &rb));
	for (int i = 0; i < 4; i++) {
		struct ibv_sge s = vs_mr_sge(mr, 1024 + (uint64_t)i * 64, 64);

		VS_OK(vs_recv_add(&rb, 10 + (uint64_t)i, &s, 1));
	}
	VS_OK(vs_recv_submit(&rb));
	VS_OK(vs_srq_set_limit(srq, 3));
	vs_t_rc_send(qp, 1, vs_mr_sge(mr, 0, 16));
	vs_t_rc_send(qp, 2, vs_mr_sge(mr, 0, 16));
	vs_t_wait(cq, wc, 4);
	expect_async(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &ev);
	VS_ASSERT_EQ(ev.about, VS_ASYNC_SRQ);
	VS_ASSERT_PTR_EQ(ev.srq, srq);
	VS_ASSERT_STREQ(ev.name, "IBV_EVENT_SRQ_LIMIT_REACHED");
	printf("  async: %s for the typed SRQ\n", ev.name);

	/* a QP on an SRQ moved to error: its last WQE */
	VS_OK(vs_rc_qp_modify(qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR },
			      IBV_QP_STATE));
	if (next_async(ctx, IBV_EVENT_QP_LAST_WQE_REACHED, &ev, 2000)) {
		VS_ASSERT_EQ(ev.about, VS_ASYNC_QP);
		VS_ASSERT_EQ(ev.qp_transport, VS_TRANSPORT_RC);
		VS_ASSERT_PTR_EQ(ev.rc_qp, qp);
		VS_ASSERT_PTR_EQ(ev.uc_qp, NULL);
		printf("  async: %s for the typed RC QP\n", ev.name);
	} else {
		/* older rxe raises no last-WQE event (it has no such code path) */
		printf("  async: no IBV_EVENT_QP_LAST_WQE_REACHED from this kernel's "
		       "rxe within 2 s (QP on an SRQ moved to error)\n");
	}
	/* closing after its events were acked does not wait */
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_srq_close(srq));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_mr_close(mr));

	/* the port: the device's netdev down, then up */
	{
		char path[256], netdev[IF_NAMESIZE + 1] = "";
		struct vs_port_info pi;
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 ibv_get_device_name(vs_context_raw(ctx)->device));
		f = fopen(path, "r");
		if (!f || !fgets(netdev, sizeof(netdev), f))
			VS_FAIL("cannot read the device's netdev from %s", path);
		fclose(f);
		netdev[strcspn(netdev, "\n")] = 0;
		if (strncmp(netdev, "dummy", 5)) {
			/* a real link (the two-VM net) is not ours to take down */
			printf("  async: port events not driven: netdev %s is not a dummy\n",
			       netdev);
			return;
		}
		if (set_link(netdev, false))
			VS_FAIL("cannot set %s down: %s", netdev, strerror(errno));
		expect_async(ctx, IBV_EVENT_PORT_ERR, &ev);
		VS_ASSERT_EQ(ev.about, VS_ASYNC_PORT);
		VS_ASSERT_EQ(ev.port, 1);
		if (set_link(netdev, true))
			VS_FAIL("cannot set %s up again: %s", netdev, strerror(errno));
		expect_async(ctx, IBV_EVENT_PORT_ACTIVE, &ev);
		VS_ASSERT_EQ(ev.about, VS_ASYNC_PORT);
		VS_ASSERT_EQ(ev.port, 1);
		VS_OK(vs_port_info(ctx, 1, &pi));
		VS_ASSERT_EQ(pi.state, IBV_PORT_ACTIVE);
		/* the tests after this one need the RoCE GID back */
		{
			uint64_t until = vs_t_now_ms() + 10000;
			struct vs_gid_info g;

			while (vs_gid_pick(ctx, 1, &g)) {
				if (vs_t_now_ms() > until)
					VS_FAIL("no RoCE GID 10 s after %s up: %s",
						netdev, vs_t_err());
				usleep(50000);
			}
		}
		printf("  async: IBV_EVENT_PORT_ERR, IBV_EVENT_PORT_ACTIVE on port 1 "
		       "(%s down, up)\n", netdev);
	}
}

static void run(bool legacy, long count)
{
	struct vs_context *ctx;
	struct vs_pd *pd;

	vs_set_force_legacy(legacy);
	VS_OK(vs_device_open(vs_t_dev(), &ctx));
	VS_OK(vs_pd_alloc(ctx, &pd));
	printf("mode: %s\n", legacy ? "legacy" : "extended where the provider has it");
	test_many_cqs(ctx, pd, legacy);
	test_timeouts_and_close(ctx, pd);
	test_no_lost_wakeup(ctx, pd, count, true);
	test_no_lost_wakeup(ctx, pd, count, false);
	if (!legacy)
		test_async(ctx, pd);
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
}

int main(void)
{
	const char *n = getenv("VS_EVENTS_MESSAGES");
	long count = n && *n ? atol(n) : 100000;

	vs_test_require_device();
	vs_t_skip_on_iwarp(VS_T_IWARP_NO_HANDSHAKE);
	setvbuf(stdout, NULL, _IONBF, 0);
	run(false, count);
	run(true, count);
	return 0;
}
