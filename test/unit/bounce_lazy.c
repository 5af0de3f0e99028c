/* SPDX-License-Identifier: MIT */
/*
 * The bounce ring of a provider with broken ibv_wr_set_* SGE setters
 * (rxe: lib/core/quirks.c) is made at the QP's first batch start, not at QP
 * create.  Against the fake provider dressed as rxe (VS_FAKE_VENDOR): no
 * MR at create nor after the handshake; the first start registers the
 * QP's ring once, and inline sends and gathers post a copy of the bytes
 * from it while a plain send posts the caller's SGE; a failed
 * registration refuses that start, clearly, and the next start tries
 * again; close frees the ring; a legacy QP never makes one.
 */
#include "../common/vs_fake.h"

static struct {
	char verb[48];
	int err;
} *fail_next;
static int *live; /* ctx pd mr cq qp srq ah */
static struct ibv_sge *posted; /* the fake's last ibv_wr_set_sge */

enum { LIVE_MR = 2 };

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
};

static struct vs_rc_qp *rc_up(struct rig *r)
{
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq,
		.caps = { .max_send_wr = 4, .max_recv_wr = 4,
			  .max_send_sge = 2, .max_recv_sge = 1 } }, &qp));
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	return qp;
}

/* The one completion of a submitted signaled WR, its length checked. */
static void expect_wc(struct rig *r, uint64_t wr_id, uint32_t len)
{
	struct vs_wc wc;

	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(wc.wr_id, wr_id);
	VS_ASSERT_EQ(wc.byte_len, len);
}

/* What the last posted SGE points at is a copy of want, not want itself. */
static void expect_copy(const void *want, size_t len)
{
	VS_ASSERT_EQ(posted->length, len);
	VS_ASSERT((uintptr_t)posted->addr != (uintptr_t)want);
	if (memcmp((const void *)(uintptr_t)posted->addr, want, len))
		VS_FAIL("the bounce slot does not hold the %zu bytes posted", len);
}

static void quirky(struct rig *r)
{
	uint8_t *buf = vs_mr_ptr(r->mr, 0);
	int mrs = live[LIVE_MR];
	struct ibv_sge one = vs_mr_sge(r->mr, 0, 48);
	struct ibv_sge two[2] = { vs_mr_sge(r->mr, 100, 20), vs_mr_sge(r->mr, 300, 30) };
	struct vs_rc_batch b;
	struct vs_rc_qp *qp = rc_up(r);
	uint8_t gathered[50];

	for (int i = 0; i < 512; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	/* nothing registered at create, nor by the handshake */
	VS_ASSERT_EQ(live[LIVE_MR], mrs);

	/* the first start makes the ring; a plain send goes from the caller's MR */
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	VS_OK(vs_rc_send(&b, 1, VS_WR_SIGNALED, &one, 1));
	VS_OK(vs_rc_batch_submit(&b));
	expect_wc(r, 1, 48);
	VS_ASSERT_EQ(posted->addr, one.addr);

	/* inline sends are copies from the ring; the next start makes none */
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, 2, VS_WR_SIGNALED | VS_WR_INLINE, &one, 1));
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	expect_copy(buf, 48);
	VS_OK(vs_rc_send(&b, 3, VS_WR_SIGNALED | VS_WR_INLINE, &two[1], 1));
	expect_copy(buf + 300, 30);
	VS_OK(vs_rc_batch_submit(&b));
	expect_wc(r, 2, 48);
	expect_wc(r, 3, 30);
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	VS_OK(vs_rc_qp_close(qp));
	VS_ASSERT_EQ(live[LIVE_MR], mrs); /* the ring went with its QP */

	/* a gather on a fresh QP posts the bytes joined, from its own ring */
	memcpy(gathered, buf + 100, 20);
	memcpy(gathered + 20, buf + 300, 30);
	qp = rc_up(r);
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, 4, VS_WR_SIGNALED, two, 2));
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	expect_copy(gathered, 50);
	VS_OK(vs_rc_batch_submit(&b));
	expect_wc(r, 4, 50);
	VS_OK(vs_rc_qp_close(qp));
	VS_ASSERT_EQ(live[LIVE_MR], mrs);

	/* a registration that fails refuses that start, and says why */
	qp = rc_up(r);
	snprintf(fail_next->verb, sizeof(fail_next->verb), "ibv_reg_mr");
	fail_next->err = ENOMEM;
	VS_FAILS(vs_rc_batch_start(qp, &b), ENOMEM,
		 "cannot register the 16384-byte bounce ring");
	VS_ASSERT(strstr(vs_last_error()->message, "the batch was not started"));
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_rc_batch_start");
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
	/* nothing open: an add is refused as on any batch not started */
	VS_FAILS(vs_rc_send(&b, 5, VS_WR_SIGNALED, &one, 1), EINVAL, "");
	/* the next start tries again, and gets it */
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);
	VS_OK(vs_rc_send(&b, 7, VS_WR_SIGNALED | VS_WR_INLINE, &one, 1));
	expect_copy(buf, 48);
	VS_OK(vs_rc_batch_submit(&b));
	expect_wc(r, 7, 48);
	VS_ASSERT_EQ(live[LIVE_MR], mrs + 1);

	/* what the ring cannot carry is still refused, as before */
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_FAILS(vs_rc_read(&b, 8, 0, two, 2, vs_mr_remote(r->mr, 2048)),
		 EOPNOTSUPP, "an RDMA read into 2 SGEs");
	vs_rc_batch_abort(&b);
	VS_OK(vs_rc_qp_close(qp));
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
}

/* A legacy QP posts inline through ibv_post_send: no ring, ever. */
static void legacy(struct rig *r)
{
	int mrs = live[LIVE_MR];
	struct ibv_sge one = vs_mr_sge(r->mr, 0, 48);
	struct vs_rc_batch b;
	struct vs_rc_qp *qp;

	vs_set_force_legacy(true);
	qp = rc_up(r);
	VS_ASSERT(!vs_rc_qp_is_extended(qp));
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_send(&b, 9, VS_WR_SIGNALED | VS_WR_INLINE, &one, 1));
	VS_OK(vs_rc_batch_submit(&b));
	expect_wc(r, 9, 48);
	VS_ASSERT_EQ(live[LIVE_MR], mrs);
	VS_OK(vs_rc_qp_close(qp));
	vs_set_force_legacy(false);
}

int main(void)
{
	struct rig r = { 0 };
	void *fail;

	setenv("VS_FAKE_VENDOR", "0xffffff", 1); /* read at device open */
	unsetenv("VERBSHIM_TRUST_WR_SGE");
	vs_t_use_fake(&fail, &live);
	fail_next = fail;
	posted = vs_t_fake_sym("vs_stub_last_sge");

	VS_OK(vs_device_open("fake0", &r.ctx));
	VS_OK(vs_pd_alloc(r.ctx, &r.pd));
	VS_OK(vs_cq_create(r.ctx, NULL, &r.cq));
	VS_OK(vs_mr_alloc(r.pd, 4096, IBV_ACCESS_REMOTE_READ, &r.mr));
	quirky(&r);
	legacy(&r);
	VS_OK(vs_mr_close(r.mr));
	VS_OK(vs_cq_close(r.cq));
	VS_OK(vs_pd_close(r.pd));
	VS_OK(vs_device_close(r.ctx));
	for (int i = 0; i < 7; i++)
		VS_ASSERT_EQ(live[i], 0);
	printf("the bounce ring comes with the QP's first batch start, once; "
	       "a failed registration refuses that start, the next retries\n");
	return 0;
}
