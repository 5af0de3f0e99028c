/* SPDX-License-Identifier: MIT */
/*
 * Completion channels and the wait against the fake provider (host; run
 * plain, under ASan+UBSan and valgrind), on extended and legacy verbs:
 * attribution to CQ and user context, -EAGAIN / -ETIMEDOUT, a legacy
 * CQ's buffered completions, bad input (no channel, closed CQ or channel,
 * wrong kinds, NULLs, a channel of another context), closing in the wrong
 * order, closes with events read but not acked and with events never
 * read (the fake aborts where a real ibv_destroy_cq would block for
 * ever), a failing arm at creation.  The rxe test (test/device/typed_events)
 * proves the same on a real device.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "../common/vs_fake.h"

static struct {
	char verb[48];
	int err;
} *fail_next;
static int *live; /* ctx pd mr cq qp srq ah */

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_channel *ch;
	struct vs_cq *cq[3];
	struct vs_rc_qp *qp[3];
	int tag[3];
};

static void rig_up(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	VS_OK(vs_device_open("fake0", &r->ctx));
	VS_OK(vs_pd_alloc(r->ctx, &r->pd));
	VS_OK(vs_mr_alloc(r->pd, 4096, 0, &r->mr));
	VS_OK(vs_channel_create(r->ctx, &r->ch));
	for (int i = 0; i < 3; i++) {
		struct vs_endpoint ep;

		r->tag[i] = i;
		VS_OK(vs_cq_create(r->ctx, &(struct vs_cq_config){
			.channel = r->ch, .user_context = &r->tag[i] }, &r->cq[i]));
		VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
			.send_cq = r->cq[i] }, &r->qp[i]));
		VS_OK(vs_rc_endpoint(r->qp[i], &ep));
		VS_OK(vs_rc_handshake(r->qp[i], &ep));
	}
}

static void rig_down(struct rig *r)
{
	for (int i = 0; i < 3; i++) {
		if (r->qp[i])
			VS_OK(vs_rc_qp_close(r->qp[i]));
		if (r->cq[i])
			VS_OK(vs_cq_close(r->cq[i]));
	}
	if (r->ch)
		VS_OK(vs_channel_close(r->ch));
	VS_OK(vs_mr_close(r->mr));
	VS_OK(vs_pd_close(r->pd));
	VS_OK(vs_device_close(r->ctx));
	for (int k = 0; k < 7; k++)
		if (live[k])
			VS_FAIL("%d objects of kind %d left", live[k], k);
}

/* n signaled sends on QP i (the fake completes them at once) */
static void send_n(struct rig *r, int i, int n, uint64_t first)
{
	struct ibv_sge s = vs_mr_sge(r->mr, 0, 8);
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->qp[i], &b));
	for (int k = 0; k < n; k++)
		VS_OK(vs_rc_send(&b, first + (uint64_t)k, VS_WR_SIGNALED, &s, 1));
	VS_OK(vs_rc_batch_submit(&b));
}

static void test_attribution(void)
{
	struct rig r;
	struct vs_wc wc[8];
	struct vs_cq *from;
	int seen[3] = { 0 }, flags;

	rig_up(&r);
	/* blocking until handed out, non-blocking from then on */
	flags = fcntl(r.ch->ch->fd, F_GETFL);
	VS_ASSERT(flags >= 0 && !(flags & O_NONBLOCK));
	flags = fcntl(vs_channel_fd(r.ch), F_GETFL);
	VS_ASSERT(flags >= 0 && (flags & O_NONBLOCK));
	VS_ASSERT(vs_channel_raw(r.ch) != NULL);
	VS_ASSERT_EQ(vs_channel_wait(r.ch, 0, &from, wc, 8), -EAGAIN);
	VS_ASSERT_PTR_EQ(from, NULL);
	send_n(&r, 2, 2, 20);
	send_n(&r, 0, 3, 0);
	for (int got = 0; got < 5;) {
		int n = vs_channel_wait(r.ch, 1000, &from, wc, 8), i;

		VS_ASSERT(n > 0);
		i = *(int *)vs_cq_context(from);
		VS_ASSERT_PTR_EQ(from, r.cq[i]);
		for (int k = 0; k < n; k++) {
			VS_ASSERT_EQ(wc[k].wr_id, (uint64_t)(i * 10 + seen[i]));
			VS_ASSERT_EQ(wc[k].qp_num, vs_rc_qp_num(r.qp[i]));
			seen[i]++;
		}
		got += n;
	}
	VS_ASSERT_EQ(seen[0], 3);
	VS_ASSERT_EQ(seen[1], 0);
	VS_ASSERT_EQ(seen[2], 2);
	VS_ASSERT_EQ(vs_channel_wait(r.ch, 0, &from, wc, 8), -EAGAIN);
	/* a CQ's wait keeps another CQ's event for that CQ */
	send_n(&r, 1, 1, 10);
	VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 0, wc, 8), -EAGAIN);
	VS_ASSERT_EQ(vs_cq_wait(r.cq[1], 0, wc, 8), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 10);
	rig_down(&r);
}

static void test_timeouts_and_buffering(bool extended)
{
	struct rig r;
	struct vs_wc wc[4];
	struct vs_cq *from;
	uint64_t t0 = vs_t_now_ms(), dt;

	rig_up(&r);
	VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 100, wc, 4), -ETIMEDOUT);
	VS_ASSERT_EQ(vs_channel_wait(r.ch, 100, &from, wc, 4), -ETIMEDOUT);
	dt = vs_t_now_ms() - t0;
	VS_ASSERT(dt >= 200 && dt < 2200);
	/* 20 completions and one event: served one at a time, never -EAGAIN */
	send_n(&r, 0, 20, 0);
	for (int k = 0; k < 20; k++) {
		VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 0, wc, 1), 1);
		VS_ASSERT_EQ(wc[0].wr_id, (uint64_t)k);
	}
	VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 0, wc, 1), -EAGAIN);
	/* re-armed by the wait: the next completion raises the next event */
	send_n(&r, 0, 1, 99);
	VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 0, wc, 4), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 99);
	VS_ASSERT_EQ(vs_cq_is_extended(r.cq[0]), extended);
	rig_down(&r);
}

static void test_bad_input(void)
{
	struct rig r;
	struct vs_wc wc[2];
	struct vs_cq *plain, *from, *cq;
	struct vs_channel *ch2;
	struct vs_context *ctx2;

	rig_up(&r);
	VS_OK(vs_cq_create(r.ctx, NULL, &plain));
	VS_FAILS(vs_cq_wait(plain, 0, wc, 2), EINVAL, "cq has no completion channel");
	VS_OK(vs_cq_close(plain));
	VS_FAILS(vs_cq_wait(plain, 0, wc, 2), EINVAL, "cq is a CQ the caller already closed");
	VS_FAILS(vs_cq_wait(NULL, 0, wc, 2), EINVAL, "cq is NULL");
	VS_FAILS(vs_cq_wait(r.cq[0], 0, NULL, 2), EINVAL, "wc is NULL");
	VS_FAILS(vs_cq_wait(r.cq[0], 0, wc, 0), EINVAL, "max is 0");
	VS_FAILS(vs_channel_wait(r.ch, 0, NULL, wc, 2), EINVAL, "cq_out is NULL");
	VS_FAILS(vs_channel_wait((void *)r.cq[0], 0, &from, wc, 2), EINVAL,
		 "ch is a handle of another kind (CQ, expected completion channel)");
	VS_FAILS(vs_cq_wait((void *)r.ch, 0, wc, 2), EINVAL,
		 "(completion channel, expected CQ)");
	VS_FAILS(vs_channel_create(r.ctx, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_cq_create(r.ctx, &(struct vs_cq_config){ .channel = (void *)r.pd },
			      &cq), EINVAL, "cfg->channel is a handle of another kind");
	/* a channel of another context */
	VS_OK(vs_device_open("fake0", &ctx2));
	VS_OK(vs_channel_create(ctx2, &ch2));
	VS_FAILS(vs_cq_create(r.ctx, &(struct vs_cq_config){ .channel = ch2 }, &cq),
		 EINVAL, "another device context");
	VS_OK(vs_channel_close(ch2));
	VS_FAILS(vs_channel_close(ch2), EINVAL, "already closed");
	VS_ASSERT_EQ(vs_channel_fd(ch2), -1);
	VS_ASSERT_PTR_EQ(vs_channel_raw(ch2), NULL);
	VS_FAILS(vs_channel_wait(ch2, 0, &from, wc, 2), EINVAL, "already closed");
	VS_FAILS(vs_cq_create(ctx2, &(struct vs_cq_config){ .channel = ch2 }, &cq),
		 EINVAL, "cfg->channel is a completion channel the caller already closed");
	VS_OK(vs_device_close(ctx2));
	/* the fake's async fd is -1: a clear error, not a crash */
	VS_ASSERT(vs_async_fd(r.ctx) < 0);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_async_fd");
	VS_ASSERT(strstr(vs_last_error()->message, "fcntl") != NULL);
	{
		struct vs_async_event ev;

		VS_FAILS(vs_async_next(NULL, 0, &ev), EINVAL, "ctx is NULL");
	}
	VS_ASSERT_STREQ(vs_async_event_name(IBV_EVENT_PORT_ERR), "IBV_EVENT_PORT_ERR");
	VS_ASSERT_STREQ(vs_async_event_name((enum ibv_event_type)999), "unknown event");
	VS_ASSERT_PTR_EQ(vs_cq_context(plain), NULL);
	/* the arm at creation fails: the CQ is not created, nothing leaks */
	snprintf(fail_next->verb, sizeof(fail_next->verb), "ibv_req_notify_cq");
	fail_next->err = EIO;
	VS_FAILS(vs_cq_create(r.ctx, &(struct vs_cq_config){ .channel = r.ch }, &cq),
		 EIO, "cannot arm the new CQ");
	VS_ASSERT_PTR_EQ(cq, NULL);
	rig_down(&r);
}

static void test_close_order(void)
{
	struct rig r;
	struct vs_wc wc[4];

	rig_up(&r);
	/* the channel first: refused, naming the open CQs and their contexts */
	VS_FAILS(vs_channel_close(r.ch), EBUSY, "3 CQs are still on this channel");
	VS_FAILS(vs_channel_close(r.ch), EBUSY, "close them first");
	/* events read but not acked (cq 0), and never read (cq 1) */
	send_n(&r, 0, 2, 0);
	VS_ASSERT_EQ(vs_cq_wait(r.cq[0], 0, wc, 4), 2);
	send_n(&r, 0, 1, 5); /* re-armed: another event, unread */
	send_n(&r, 1, 1, 0);
	VS_OK(vs_cq_close(r.cq[0])); /* its QP keeps it: the channel may go */
	VS_OK(vs_cq_close(r.cq[1]));
	VS_OK(vs_cq_close(r.cq[2]));
	r.cq[0] = r.cq[1] = r.cq[2] = NULL;
	VS_OK(vs_channel_close(r.ch)); /* deferred to the last CQ */
	VS_FAILS(vs_channel_close(r.ch), EINVAL, "already closed");
	r.ch = NULL;
	/* the QPs' closes destroy the CQs, then the channel */
	rig_down(&r);
}

struct sleeper {
	struct vs_cq *cq;
	int entering; /* atomic */
	int ret;
	char msg[400];
};

static void *wait_for_ever(void *arg)
{
	struct sleeper *s = arg;
	struct vs_wc wc[4];

	__atomic_store_n(&s->entering, 1, __ATOMIC_RELEASE);
	s->ret = vs_cq_wait(s->cq, -1, wc, 4);
	if (s->ret < 0)
		snprintf(s->msg, sizeof(s->msg), "%s", vs_last_error()->message);
	return NULL;
}

/*
 * vs_cq_wait(-1) on the blocking fd (its path without the channel's
 * lock): its own events counted and acked in batches, the rest acked by
 * the close (the fake's destroy aborts when one is missing); a close of
 * the CQ a wait sleeps on returns at once and the CQ lives until the wait
 * leaves (the wait holds it); another CQ's event wakes that wait, which
 * says the CQ was closed and keeps the event for its CQ.
 */
static void test_wait_forever(void)
{
	struct rig r;
	struct vs_wc wc[4];
	struct sleeper s = { 0 };
	pthread_t t;
	bool held;
	int cqs;

	rig_up(&r);
	for (int k = 0; k < 150; k++) {
		send_n(&r, 0, 1, (uint64_t)k);
		VS_ASSERT_EQ(vs_cq_wait(r.cq[0], -1, wc, 4), 1);
		VS_ASSERT_EQ(wc[0].wr_id, (uint64_t)k);
	}
	VS_OK(vs_rc_qp_close(r.qp[1])); /* nothing else keeps cq 1 */
	r.qp[1] = NULL;
	s.cq = r.cq[1];
	VS_ASSERT_EQ(pthread_create(&t, NULL, wait_for_ever, &s), 0);
	while (!__atomic_load_n(&s.entering, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(200000); /* asleep in its read by now */
	cqs = live[3];
	VS_OK(vs_cq_close(r.cq[1]));
	r.cq[1] = NULL;
	held = live[3] == cqs; /* held by the wait: destroyed when it leaves */
	send_n(&r, 2, 1, 7);
	VS_ASSERT_EQ(pthread_join(t, NULL), 0);
	VS_ASSERT_EQ(s.ret, -EINVAL);
	VS_ASSERT_EQ(live[3], cqs - 1);
	if (held) {
		VS_ASSERT(strstr(s.msg, "cq was closed while this wait was on it"));
	} else {
		/* the thread was starved until after the close */
		VS_ASSERT(strstr(s.msg, "already closed"));
		printf("(the waiting thread came after the close)\n");
	}
	/* the event of cq 2 is kept for cq 2, whoever read it */
	VS_ASSERT_EQ(vs_cq_wait(r.cq[2], 0, wc, 4), 1);
	VS_ASSERT_EQ(wc[0].wr_id, 7);
	rig_down(&r);
}

int main(void)
{
	void *fail;

	vs_t_use_fake(&fail, &live);
	fail_next = fail;
	for (int pass = 0; pass < 2; pass++) {
		bool extended = pass == 0;

		vs_set_force_legacy(!extended);
		test_attribution();
		test_timeouts_and_buffering(extended);
		test_bad_input();
		test_close_order();
		test_wait_forever();
		printf("events on the fake provider: %s verbs passed\n",
		       extended ? "extended" : "legacy");
	}
	return 0;
}
