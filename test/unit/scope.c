/* SPDX-License-Identifier: MIT */
/*
 * Waiting for one's own work against the fake provider (host; plain,
 * ASan+UBSan, valgrind), on extended and legacy verbs, busy-polling and
 * sleeping: vs_cq_wait_wr and scopes.  The fake holds send completions
 * back on demand (vs_stub_hold_sends) and fails a WR to come with the
 * rest of its post flushed (vs_stub_wc_error).  Checked: completion order
 * across several outstanding WRs, other work's completions kept (in
 * order, with their own wr_ids) for vs_cq_poll, the iterator and
 * vs_cq_wait, the first error of a scope and the flushes after it,
 * -EAGAIN and -ETIMEDOUT with the scope still open, a QP closed inside a
 * scope, bad input.  test/device/scope.c proves the same on rxe.
 */
#include <time.h>

#include "../common/vs_fake.h"

static int *live; /* ctx pd mr cq qp srq ah */
static struct {
	int armed;
	int skip;
	int status;
} *wc_error;
static int *hold;
static void (*release)(void);

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_channel *ch;
	struct vs_cq *shared; /* qp[0] and qp[1] send here; on the channel */
	struct vs_cq *plain;  /* qp[2]'s: no channel */
	struct vs_rc_qp *qp[3];
};

static void rig_up(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	VS_OK(vs_device_open("fake0", &r->ctx));
	VS_OK(vs_pd_alloc(r->ctx, &r->pd));
	VS_OK(vs_mr_alloc(r->pd, 4096, 0, &r->mr));
	VS_OK(vs_channel_create(r->ctx, &r->ch));
	VS_OK(vs_cq_create(r->ctx, &(struct vs_cq_config){ .channel = r->ch },
			   &r->shared));
	VS_OK(vs_cq_create(r->ctx, NULL, &r->plain));
	for (int i = 0; i < 3; i++) {
		struct vs_endpoint ep;

		VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
			.send_cq = i < 2 ? r->shared : r->plain }, &r->qp[i]));
		VS_OK(vs_rc_endpoint(r->qp[i], &ep));
		VS_OK(vs_rc_handshake(r->qp[i], &ep));
	}
}

static void rig_down(struct rig *r)
{
	struct vs_wc wc[4];

	/* nothing of anybody's is left behind */
	VS_ASSERT_EQ(vs_cq_poll(r->shared, wc, 4), 0);
	VS_ASSERT_EQ(vs_cq_poll(r->plain, wc, 4), 0);
	for (int i = 0; i < 3; i++)
		if (r->qp[i])
			VS_OK(vs_rc_qp_close(r->qp[i]));
	VS_OK(vs_cq_close(r->shared));
	VS_OK(vs_cq_close(r->plain));
	VS_OK(vs_channel_close(r->ch));
	VS_OK(vs_mr_close(r->mr));
	VS_OK(vs_pd_close(r->pd));
	VS_OK(vs_device_close(r->ctx));
	for (int k = 0; k < 7; k++)
		if (live[k])
			VS_FAIL("%d objects of kind %d left", live[k], k);
}

/* n sends on qp, wr_ids first.., through b started by the caller */
static void add_n(struct vs_rc_batch *b, struct vs_mr *mr, int n,
		  uint64_t first, unsigned int flags)
{
	struct ibv_sge s = vs_mr_sge(mr, 0, 8);

	for (int k = 0; k < n; k++)
		VS_OK(vs_rc_send(b, first + (uint64_t)k, flags, &s, 1));
	VS_OK(vs_rc_batch_submit(b));
}

/* n signaled sends outside any scope */
static void other_work(struct rig *r, int qp, int n, uint64_t first)
{
	struct vs_rc_batch b;

	VS_OK(vs_rc_batch_start(r->qp[qp], &b));
	add_n(&b, r->mr, n, first, VS_WR_SIGNALED);
}

static void scope_post(struct rig *r, struct vs_scope *s, int qp, int n,
		       uint64_t first)
{
	struct vs_rc_batch b;

	VS_OK(vs_scope_rc_batch_start(s, r->qp[qp], &b));
	add_n(&b, r->mr, n, first, 0); /* unsignaled: the scope signals them */
}

/* The completions left for ordinary polls: exactly want[], in order. */
static void expect_left(struct vs_cq *cq, const uint64_t *want, int n,
			uint32_t qp_num, int how)
{
	struct vs_wc wc[16];
	int got = 0;

	if (how == 0) {
		got = vs_cq_poll(cq, wc, 16);
	} else if (how == 1) {
		struct vs_cq_iter it;

		if (vs_cq_iter_start(cq, &it) == 0) {
			do
				vs_cq_iter_read(&it, &wc[got++]);
			while (got < 16 && vs_cq_iter_next(&it) == 0);
			vs_cq_iter_end(&it);
		}
	} else {
		got = vs_cq_wait(cq, 0, wc, 16);
		if (got == -EAGAIN)
			got = 0;
	}
	VS_ASSERT_EQ(got, n);
	for (int i = 0; i < n; i++) {
		VS_ASSERT_EQ(wc[i].wr_id, want[i]);
		VS_ASSERT_EQ(wc[i].qp_num, qp_num);
		VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
		VS_ASSERT_EQ(wc[i].byte_len, 8);
	}
	VS_ASSERT_EQ(vs_cq_poll(cq, wc, 16), 0);
	/* empty again: the inlines poll the real ops, not the stash's */
	VS_ASSERT(cq->stash != NULL);
	VS_ASSERT(cq->poll_ops != (struct ibv_cq_ex *)(void *)cq->stash);
	if (vs_cq_is_extended(cq))
		VS_ASSERT_PTR_EQ(cq->poll_ops, cq->cqx);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Order across outstanding WRs; other work kept, whichever way it is read. */
static void test_order(enum vs_wait_mode mode, int how)
{
	static const uint64_t others[] = { 100, 101, 102 };
	uint32_t q1 = 0;
	struct vs_scope s;
	struct vs_wc wc;
	struct rig r;

	rig_up(&r);
	q1 = vs_rc_qp_num(r.qp[1]);
	*hold = 1;
	other_work(&r, 1, 2, 100); /* before the scope, same CQ */
	VS_OK(vs_scope_begin(&s, mode));
	scope_post(&r, &s, 0, 3, 1);  /* 1 2 3 */
	other_work(&r, 1, 1, 102);    /* between, other QP, same CQ */
	scope_post(&r, &s, 0, 2, 4);  /* 4 5 */
	/* nothing has completed */
	vs_clear_error();
	VS_ASSERT_EQ(vs_scope_wait(&s, 3, 0, &wc), -EAGAIN);
	VS_ASSERT_EQ(vs_scope_end(&s, 0, NULL), -EAGAIN);
	VS_ASSERT_EQ(vs_last_error()->err, 0); /* a poll's answer: no record */
	/* a timeout is recorded: what, how long, the scope still open */
	VS_FAILS(vs_scope_wait(&s, 3, 20, &wc), ETIMEDOUT,
		 "WR 3 of the scope did not complete within 20 ms (timed out; "
		 "the scope is still open");
	VS_FAILS(vs_scope_end(&s, 20, NULL), ETIMEDOUT,
		 "5 WRs of the scope had not completed within 20 ms");
	*hold = 0;
	release();
	/* the last one first: the ones before it are taken on the way */
	VS_OK(vs_scope_wait(&s, 3, 2000, &wc));
	VS_ASSERT_EQ(wc.wr_id, 3);
	VS_ASSERT_EQ(wc.qp_num, vs_rc_qp_num(r.qp[0]));
	VS_ASSERT_EQ(wc.opcode, IBV_WC_SEND);
	VS_OK(vs_scope_wait(&s, 1, 0, &wc)); /* done already */
	VS_ASSERT_EQ(wc.wr_id, 1);
	VS_FAILS(vs_scope_wait(&s, 1, 0, &wc), ENOENT, "wr_id 1");
	VS_OK(vs_scope_end(&s, 1000, NULL));
	VS_ASSERT_PTR_EQ(s.p, NULL);
	VS_FAILS(vs_scope_end(&s, 0, NULL), EINVAL, "not open");
	/* the other QP's three are all there, in order, with their wr_ids */
	expect_left(r.shared, others, 3, q1, how);
	rig_down(&r);
}

static void test_wait_wr(enum vs_wait_mode mode)
{
	static const uint64_t rest[] = { 5, 7 };
	uint32_t q0;
	struct vs_wc wc;
	struct rig r;
	struct timespec t0;

	rig_up(&r);
	q0 = vs_rc_qp_num(r.qp[0]);
	*hold = 1;
	other_work(&r, 0, 3, 5); /* 5 6 7 */
	VS_ASSERT_EQ(vs_cq_wait_wr(r.shared, q0, 6, mode, 0, &wc), -EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	VS_ASSERT_EQ(vs_cq_wait_wr(r.shared, q0, 6, mode, 30, &wc), -ETIMEDOUT);
	VS_ASSERT(ms_since(&t0) >= 29 && ms_since(&t0) < 5000);
	*hold = 0;
	release();
	/* the wrong QP number is not it */
	VS_ASSERT_EQ(vs_cq_wait_wr(r.shared, q0 + 1, 6, mode, 0, &wc), -EAGAIN);
	VS_OK(vs_cq_wait_wr(r.shared, q0, 6, mode, 1000, &wc));
	VS_ASSERT_EQ(wc.wr_id, 6);
	VS_ASSERT_EQ(wc.qp_num, q0);
	expect_left(r.shared, rest, 2, q0, 0);
	/* an error completion is its status */
	*wc_error = (__typeof__(*wc_error)){ .armed = 1, .skip = 0,
					     .status = IBV_WC_REM_ACCESS_ERR };
	other_work(&r, 0, 1, 9);
	VS_FAILS(vs_cq_wait_wr(r.shared, q0, 9, mode, 1000, &wc), EIO,
		 "WR 9 on QP");
	VS_ASSERT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
	VS_ASSERT(strstr(vs_last_error()->message, "vendor error 0x42"));
	rig_down(&r);
}

/* The first error of a scope, the flushes after it; both transports' QPs. */
static void test_error(enum vs_wait_mode mode)
{
	struct vs_scope s;
	struct vs_wc wc, first;
	struct rig r;

	rig_up(&r);
	VS_OK(vs_scope_begin(&s, mode));
	/* 10 11 12 13: 11 fails, 12 and 13 are flushed */
	*wc_error = (__typeof__(*wc_error)){ .armed = 1, .skip = 1,
					     .status = IBV_WC_REM_ACCESS_ERR };
	scope_post(&r, &s, 0, 4, 10);
	VS_OK(vs_scope_wait(&s, 10, 1000, &wc));
	VS_FAILS(vs_scope_wait(&s, 12, 1000, &wc), EIO, "WR 12");
	VS_ASSERT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
	memset(&first, 0, sizeof(first));
	VS_FAILS(vs_scope_end(&s, 1000, &first), EIO, "WR 11 on QP");
	VS_ASSERT(strstr(vs_last_error()->message, "remote access error") ||
		  strstr(vs_last_error()->message, "status 10"));
	VS_ASSERT_EQ(first.wr_id, 11);
	VS_ASSERT_EQ(first.status, IBV_WC_REM_ACCESS_ERR);
	VS_ASSERT_EQ(first.qp_num, vs_rc_qp_num(r.qp[0]));
	VS_ASSERT_PTR_EQ(s.p, NULL);
	rig_down(&r);
}

/* -ETIMEDOUT leaves the scope open; it ends when the work completes. */
static void test_timeout(enum vs_wait_mode mode)
{
	struct vs_scope s;
	struct timespec t0;
	struct vs_wc wc;
	struct rig r;

	rig_up(&r);
	VS_OK(vs_scope_begin(&s, mode));
	*hold = 1;
	scope_post(&r, &s, 1, 2, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	VS_ASSERT_EQ(vs_scope_end(&s, 40, NULL), -ETIMEDOUT);
	VS_ASSERT(ms_since(&t0) >= 39 && ms_since(&t0) < 5000);
	VS_ASSERT(s.p != NULL); /* still open */
	VS_ASSERT_EQ(vs_scope_wait(&s, 1, 10, &wc), -ETIMEDOUT);
	/* the QP's close is deferred while the scope holds it */
	VS_OK(vs_rc_qp_close(r.qp[1]));
	r.qp[1] = NULL;
	VS_ASSERT_EQ(live[4], 3);
	*hold = 0;
	release();
	VS_OK(vs_scope_end(&s, 2000, NULL));
	VS_ASSERT_EQ(live[4], 2); /* let go with the scope */
	rig_down(&r);
}

static void test_bad_input(void)
{
	struct vs_scope s = { 0 }, s2;
	struct vs_rc_batch b, b2;
	struct vs_wc wc;
	struct rig r;

	rig_up(&r);
	VS_FAILS(vs_scope_begin(NULL, VS_WAIT_POLL), EINVAL, "s is NULL");
	VS_FAILS(vs_scope_begin(&s, (enum vs_wait_mode)7), EINVAL, "mode is 7");
	VS_ASSERT_PTR_EQ(s.p, NULL);
	VS_FAILS(vs_scope_end(&s, 0, NULL), EINVAL, "not open");
	VS_FAILS(vs_scope_end(NULL, 0, NULL), EINVAL, "s is NULL");
	VS_FAILS(vs_scope_wait(&s, 1, 0, &wc), EINVAL, "not open");
	VS_FAILS(vs_scope_rc_batch_start(&s, r.qp[0], &b), EINVAL, "not open");
	VS_ASSERT_PTR_EQ(b.b.qp, NULL);

	VS_OK(vs_scope_begin(&s, VS_WAIT_SLEEP));
	VS_FAILS(vs_scope_rc_batch_start(&s, r.qp[2], &b), EINVAL,
		 "has none (create it with .channel");
	VS_FAILS(vs_scope_rc_batch_start(&s, NULL, &b), EINVAL, "qp is NULL");
	VS_FAILS(vs_scope_rc_batch_start(&s, (struct vs_rc_qp *)(void *)r.pd, &b),
		 EINVAL, "another kind");
	VS_FAILS(vs_scope_rc_batch_start(&s, r.qp[0], NULL), EINVAL, "b is NULL");
	VS_FAILS(vs_scope_wait(&s, 1, 0, NULL), EINVAL, "wc is NULL");
	VS_FAILS(vs_scope_wait(&s, 1, 0, &wc), ENOENT, "no WR with wr_id 1");
	VS_OK(vs_scope_rc_batch_start(&s, r.qp[0], &b));
	VS_FAILS(vs_scope_rc_batch_start(&s, r.qp[1], &b2), EBUSY,
		 "a batch of the scope is open");
	VS_FAILS(vs_scope_end(&s, 0, NULL), EBUSY, "submit or abort it first");
	/* an ordinary batch may not start on the QP either */
	VS_FAILS(vs_rc_batch_start(r.qp[0], &b2), EBUSY, "already open");
	/* the open batch's WRs are not waited for until submitted */
	{
		struct ibv_sge sg = vs_mr_sge(r.mr, 0, 8);

		VS_OK(vs_rc_send(&b, 77, 0, &sg, 1));
		VS_FAILS(vs_scope_wait(&s, 77, 0, &wc), ENOENT, "wr_id 77");
		vs_rc_batch_abort(&b);
	}
	VS_FAILS(vs_scope_wait(&s, 77, 0, &wc), ENOENT, "wr_id 77");
	VS_OK(vs_scope_end(&s, 0, NULL)); /* nothing posted: done at once */

	/* a second scope's tags are not the first's */
	VS_OK(vs_scope_begin(&s, VS_WAIT_POLL));
	VS_OK(vs_scope_begin(&s2, VS_WAIT_POLL));
	*hold = 1;
	scope_post(&r, &s, 0, 1, 1);
	scope_post(&r, &s2, 0, 1, 1);
	*hold = 0;
	release();
	VS_OK(vs_scope_end(&s2, 1000, NULL));
	VS_OK(vs_scope_end(&s, 1000, NULL));

	VS_FAILS(vs_cq_wait_wr(NULL, 1, 1, VS_WAIT_POLL, 0, &wc), EINVAL,
		 "cq is NULL");
	VS_FAILS(vs_cq_wait_wr(r.plain, 1, 1, VS_WAIT_POLL, 0, NULL), EINVAL,
		 "wc is NULL");
	VS_FAILS(vs_cq_wait_wr(r.plain, 1, 1, VS_WAIT_SLEEP, 0, &wc), EINVAL,
		 "has none");
	VS_FAILS(vs_cq_wait_wr(r.plain, 1, 1, (enum vs_wait_mode)3, 0, &wc),
		 EINVAL, "mode is 3");
	VS_FAILS(vs_cq_wait_wr((struct vs_cq *)(void *)r.pd, 1, 1, VS_WAIT_POLL,
			       0, &wc), EINVAL, "another kind");
	rig_down(&r);
}

int main(void)
{
	void *fail, *h;

	vs_t_use_fake(&fail, &live);
	h = dlopen(getenv("VERBSHIM_LIBIBVERBS"), RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	wc_error = dlsym(h, "vs_stub_wc_error");
	hold = dlsym(h, "vs_stub_hold_sends");
	*(void **)&release = dlsym(h, "vs_stub_release_sends");
	VS_ASSERT(wc_error && hold && release);
	dlclose(h);
	for (int pass = 0; pass < 2; pass++) {
		bool extended = pass == 0;

		vs_set_force_legacy(!extended);
		for (int m = 0; m < 2; m++) {
			enum vs_wait_mode mode = m ? VS_WAIT_SLEEP : VS_WAIT_POLL;

			for (int how = 0; how < 3; how++)
				test_order(mode, how);
			test_wait_wr(mode);
			test_error(mode);
			test_timeout(mode);
		}
		test_bad_input();
		printf("scopes on the fake provider: %s verbs passed\n",
		       extended ? "extended" : "legacy");
	}
	return 0;
}
