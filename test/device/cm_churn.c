/* SPDX-License-Identifier: MIT */
/*
 * Handle memory of the connection manager bounded by what is live
 * (docs/API.md, Lifetimes, rule 7), on rxe: rounds of a shared CM event
 * channel made and closed, and a connection made and torn down (a client
 * id resolved, its QP, a request with private data, the accepted id and
 * its QP, the accept's private data, one message checked byte for byte,
 * both ids closed).  The quarantine is shortened to 16 closes per size
 * class (vs__handle_quarantine_set, for the tests) so that it fills in a
 * few rounds; after the warm-up, as many rounds again must leave the
 * handle arena, the library's live heap blocks and their bytes
 * (test/common/vs_alloc_wrap.h) exactly where they were.  A closed CM id
 * is still refused as closed after the rounds that follow its close, as
 * long as it is in the quarantine.
 * Then allocation failures: vs_cm_channel_create, vs_cm_listen and
 * vs_cm_resolve with their 1st, 2nd, ... allocation failing return
 * -ENOMEM recorded, leave *out NULL and leak nothing (or do without: a
 * listener that cannot borrow its device's context now takes it with its
 * first request); vs_cm_get_request (the room for the request's private
 * data, the new id) likewise, the client then rejected; and the client's
 * vs_cm_next reading the accept's private data: -ENOMEM recorded, both
 * ids close cleanly.
 */
#include "../common/vs_cm_rig.h"
#include "../common/vs_alloc_wrap.h"

/* lib/base/handle.c (private, for the tests) */
size_t vs__handle_arena_bytes(void);
void vs__handle_arena_seal(void);
void vs__handle_quarantine_set(size_t closes);

#define Q 16
#define ROUNDS (3 * Q)
enum { MSG = 64 };

struct rig {
	const char *host;
	char port[16];
	struct vs_cm_id *l;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
};

static void one_round(struct rig *r, unsigned int round)
{
	static const char hello[] = "hello from the client";
	static const char welcome[] = "welcome from the server";
	struct vs_cm_channel *ch;
	struct vs_cm_id *c, *s;
	struct vs_rc_qp *cqp, *sqp;
	struct vs_cm_event ev;
	struct vs_wc wc[2];
	const void *pd;
	uint8_t len;

	VS_OK(vs_cm_channel_create(&ch));
	VS_OK(vs_cm_channel_close(ch));

	VS_OK(vs_cm_resolve(r->host, r->port, NULL, &c));
	VS_OK(vs_cm_rc_qp_create(c, r->pd, &(struct vs_rc_config){ .send_cq = r->cq },
				 &cqp));
	VS_OK(vs_cm_connect(c, &(struct vs_cm_conn_config){ .no_wait = true,
		.private_data = hello, .private_data_len = sizeof(hello) }));
	VS_OK(vs_cm_get_request(r->l, 5000, &s));
	pd = vs_cm_private_data(s, &len);
	VS_ASSERT(pd && len >= sizeof(hello));
	VS_ASSERT_MEMEQ(pd, hello, sizeof(hello));
	VS_OK(vs_cm_rc_qp_create(s, r->pd, &(struct vs_rc_config){ .send_cq = r->cq },
				 &sqp));
	vs_t_rc_recv(sqp, 1, vs_mr_sge(r->mr, MSG, MSG));
	VS_OK(vs_cm_accept(s, &(struct vs_cm_conn_config){ .no_wait = true,
		.private_data = welcome, .private_data_len = sizeof(welcome) }));
	vs_t_cm_next_type(c, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	pd = vs_cm_private_data(c, &len);
	VS_ASSERT(pd && len >= sizeof(welcome));
	VS_ASSERT_MEMEQ(pd, welcome, sizeof(welcome));
	vs_t_cm_next_type(s, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	vs_t_fill(vs_mr_ptr(r->mr, 0), MSG, (int)round);
	vs_t_rc_send(cqp, 2, vs_mr_sge(r->mr, 0, MSG));
	vs_t_wait(r->cq, wc, 2);
	VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	VS_ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	vs_t_check(vs_mr_ptr(r->mr, MSG), MSG, (int)round);
	VS_OK(vs_cm_close(c));
	VS_OK(vs_cm_close(s));
	VS_OK(vs_rc_qp_close(cqp));
	VS_OK(vs_rc_qp_close(sqp));
}

struct usage {
	size_t arena;
	long blocks, bytes;
};

static struct usage usage(void)
{
	return (struct usage){ vs__handle_arena_bytes(), vs_alloc_live(),
			       vs_alloc_live_bytes() };
}

static void bounded(struct rig *r)
{
	struct usage a, b;
	struct vs_cm_id *stale;
	unsigned int round = 0;
	uint64_t t0 = vs_t_now_ms();

	while (round < ROUNDS)
		one_round(r, round++);
	a = usage();
	/* a closed id, still refused while later ids come and go */
	VS_OK(vs_cm_resolve(r->host, r->port, &(struct vs_cm_config){
		.no_wait = true }, &stale));
	VS_OK(vs_cm_close(stale));
	for (int i = 0; i < Q / 4; i++)
		one_round(r, round++);
	VS_FAILS(vs_cm_close(stale), EINVAL, "id is a CM id the caller already closed");
	while (round < 2 * ROUNDS)
		one_round(r, round++);
	b = usage();
	printf("%u connections in %.1f s; after %d: arena %zu bytes, %ld live "
	       "blocks (%ld bytes); after %d more: %zu, %ld (%ld)\n", round,
	       (double)(vs_t_now_ms() - t0) / 1000, ROUNDS, a.arena, a.blocks,
	       a.bytes, ROUNDS, b.arena, b.blocks, b.bytes);
	VS_ASSERT_EQ(b.arena, a.arena);
	VS_ASSERT_EQ(b.blocks, a.blocks);
	VS_ASSERT_EQ(b.bytes, a.bytes);
}

/* One create of the CM walked over its allocations (as test/unit/alloc_fail.c). */
static void walk(struct rig *r, const char *call)
{
	int failures = 0, tolerated = 0;

	for (long n = 1;; n++) {
		struct vs_cm_channel *ch = NULL;
		struct vs_cm_id *id = NULL;
		long blocks = vs_alloc_live(), bytes = vs_alloc_live_bytes();
		size_t arena;
		int ret;
		bool hit;

		vs__handle_arena_seal();
		arena = vs__handle_arena_bytes();
		vs_clear_error();
		vs_alloc_fail_nth(n);
		if (!strcmp(call, "vs_cm_channel_create"))
			ret = vs_cm_channel_create(&ch);
		else if (!strcmp(call, "vs_cm_listen"))
			ret = vs_cm_listen(r->host, "0", NULL, &id);
		else
			ret = vs_cm_resolve(r->host, r->port, NULL, &id);
		hit = vs_alloc_failed();
		vs_alloc_fail_nth(0);
		if (!hit) {
			VS_ASSERT_EQ(ret, 0);
			if (ch)
				VS_OK(vs_cm_channel_close(ch));
			if (id)
				VS_OK(vs_cm_close(id));
			printf("  %-22s %ld allocations, each failed once: %d "
			       "-ENOMEM, %d done without\n", call, n - 1, failures,
			       tolerated);
			return;
		}
		if (ret) {
			const struct vs_error *e = vs_last_error();

			if (ret != -ENOMEM || e->err != ENOMEM || strcmp(e->call, call))
				VS_FAIL("%s, allocation %ld failing: %d, recorded "
					"%s: %s (err %d)", call, n, ret, e->call,
					e->message, e->err);
			VS_ASSERT(!ch && !id);
			failures++;
		} else {
			tolerated++;
			if (ch)
				VS_OK(vs_cm_channel_close(ch));
			if (id)
				VS_OK(vs_cm_close(id));
		}
		{
			long chunks = (long)((vs__handle_arena_bytes() - arena) /
					     (64 * 1024 + 64));

			if (vs_alloc_live() != blocks + chunks ||
			    (!chunks && vs_alloc_live_bytes() != bytes))
				VS_FAIL("%s, allocation %ld failing: %ld heap blocks "
					"(%ld bytes) before, %ld (%ld) after", call, n,
					blocks, bytes, vs_alloc_live(),
					vs_alloc_live_bytes());
		}
	}
}

/* Leak check after a walk step: the heap as before, new arena chunks aside. */
static void same_heap(const char *what, long n, long blocks, long bytes,
		      size_t arena)
{
	long chunks = (long)((vs__handle_arena_bytes() - arena) / (64 * 1024 + 64));

	if (vs_alloc_live() != blocks + chunks ||
	    (!chunks && vs_alloc_live_bytes() != bytes))
		VS_FAIL("%s, allocation %ld failing: %ld heap blocks (%ld bytes) "
			"before, %ld (%ld) after", what, n, blocks, bytes,
			vs_alloc_live(), vs_alloc_live_bytes());
}

/* A client resolved to the listener, its QP, its request sent with data. */
static void client_up(struct rig *r, struct vs_cm_id **c, struct vs_rc_qp **qp)
{
	static const char hello[] = "hello from the client";

	VS_OK(vs_cm_resolve(r->host, r->port, NULL, c));
	VS_OK(vs_cm_rc_qp_create(*c, r->pd, &(struct vs_rc_config){ .send_cq = r->cq },
				 qp));
	VS_OK(vs_cm_connect(*c, &(struct vs_cm_conn_config){ .no_wait = true,
		.private_data = hello, .private_data_len = sizeof(hello) }));
}

/* s accepted (with data) and both sides established, one message checked. */
static void finish(struct rig *r, struct vs_cm_id *c, struct vs_rc_qp *cqp,
		   struct vs_cm_id *s, int seed)
{
	static const char welcome[] = "welcome from the server";
	struct vs_rc_qp *sqp;
	struct vs_cm_event ev;
	struct vs_wc wc[2];

	VS_OK(vs_cm_rc_qp_create(s, r->pd, &(struct vs_rc_config){ .send_cq = r->cq },
				 &sqp));
	vs_t_rc_recv(sqp, 1, vs_mr_sge(r->mr, MSG, MSG));
	VS_OK(vs_cm_accept(s, &(struct vs_cm_conn_config){ .no_wait = true,
		.private_data = welcome, .private_data_len = sizeof(welcome) }));
	vs_t_cm_next_type(c, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	vs_t_cm_next_type(s, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	vs_t_fill(vs_mr_ptr(r->mr, 0), MSG, seed);
	vs_t_rc_send(cqp, 2, vs_mr_sge(r->mr, 0, MSG));
	vs_t_wait(r->cq, wc, 2);
	VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	VS_ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	vs_t_check(vs_mr_ptr(r->mr, MSG), MSG, seed);
	VS_OK(vs_cm_close(s));
	VS_OK(vs_rc_qp_close(sqp));
}

/*
 * vs_cm_get_request with its allocations failing in turn (the room for
 * the request's private data, the new id's handle): -ENOMEM recorded, no
 * id, and the client is told: rejected.  Nothing leaked.
 */
static void walk_request(struct rig *r)
{
	int failures = 0;

	for (long n = 1;; n++) {
		struct vs_cm_id *c, *s = NULL;
		struct vs_rc_qp *cqp;
		struct vs_cm_event ev;
		long blocks = vs_alloc_live(), bytes = vs_alloc_live_bytes();
		size_t arena = vs__handle_arena_bytes();
		int ret;
		bool hit;

		client_up(r, &c, &cqp);
		vs__handle_arena_seal();
		vs_clear_error();
		vs_alloc_fail_nth(n);
		ret = vs_cm_get_request(r->l, 5000, &s);
		hit = vs_alloc_failed();
		vs_alloc_fail_nth(0);
		if (!hit) {
			VS_OK(ret);
			finish(r, c, cqp, s, (int)n);
		} else {
			const struct vs_error *e = vs_last_error();

			if (ret != -ENOMEM || e->err != ENOMEM ||
			    strcmp(e->call, "vs_cm_get_request"))
				VS_FAIL("vs_cm_get_request, allocation %ld failing: "
					"%d, recorded %s: %s (err %d)", n, ret,
					e->call, e->message, e->err);
			VS_ASSERT_PTR_EQ(s, NULL);
			failures++;
			/* the request was refused: the client hears it */
			VS_ASSERT_EQ(vs_cm_next(c, 5000, &ev), 0);
			VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_REJECTED);
		}
		VS_OK(vs_cm_close(c));
		VS_OK(vs_rc_qp_close(cqp));
		same_heap("vs_cm_get_request", n, blocks, bytes, arena);
		if (!hit) {
			printf("  %-22s %ld allocations, each failed once: %d -ENOMEM\n",
			       "vs_cm_get_request", n - 1, failures);
			return;
		}
	}
}

/*
 * The client's read of the accept, whose private data needs a block:
 * failed, vs_cm_next says -ENOMEM recorded; the connect response is
 * consumed without completing the connection, so both ids can only be
 * closed, and close cleanly.  Nothing leaked.
 */
static void walk_response(struct rig *r)
{
	static const char welcome[] = "welcome from the server";

	for (long n = 1;; n++) {
		struct vs_cm_id *c, *s;
		struct vs_rc_qp *cqp, *sqp;
		struct vs_cm_event ev;
		long blocks = vs_alloc_live(), bytes = vs_alloc_live_bytes();
		size_t arena = vs__handle_arena_bytes();
		int ret;
		bool hit;

		client_up(r, &c, &cqp);
		VS_OK(vs_cm_get_request(r->l, 5000, &s));
		VS_OK(vs_cm_rc_qp_create(s, r->pd, &(struct vs_rc_config){
			.send_cq = r->cq }, &sqp));
		VS_OK(vs_cm_accept(s, &(struct vs_cm_conn_config){ .no_wait = true,
			.private_data = welcome, .private_data_len = sizeof(welcome) }));
		vs_clear_error();
		vs_alloc_fail_nth(n);
		ret = vs_cm_next(c, 5000, &ev);
		hit = vs_alloc_failed();
		vs_alloc_fail_nth(0);
		if (!hit) {
			VS_OK(ret);
			VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ESTABLISHED);
			VS_ASSERT_EQ(ev.err, 0);
			VS_ASSERT_MEMEQ(ev.private_data, welcome, sizeof(welcome));
		} else {
			const struct vs_error *e = vs_last_error();

			if (ret != -ENOMEM || e->err != ENOMEM ||
			    strcmp(e->call, "vs_cm_next"))
				VS_FAIL("vs_cm_next, allocation %ld failing: %d, "
					"recorded %s: %s (err %d)", n, ret, e->call,
					e->message, e->err);
		}
		VS_OK(vs_cm_close(c));
		VS_OK(vs_cm_close(s));
		VS_OK(vs_rc_qp_close(cqp));
		VS_OK(vs_rc_qp_close(sqp));
		same_heap("vs_cm_next", n, blocks, bytes, arena);
		if (!hit) {
			printf("  %-22s %ld allocations, each failed once (the "
			       "accept's private data)\n", "vs_cm_next", n - 1);
			return;
		}
	}
}

int main(void)
{
	struct rig r = { .host = getenv("VS_RXE_IP") };
	struct vs_cm_id *c;

	if (!r.host)
		VS_SKIP("VS_RXE_IP is not set (run in the VM: scripts/vm-run.sh)");
	vs__handle_quarantine_set(Q);
	VS_OK(vs_cm_listen(r.host, "0", NULL, &r.l));
	snprintf(r.port, sizeof(r.port), "%u", vs_cm_port(r.l));
	/* the PD, CQ and MR of every connection: on the listener's device */
	VS_OK(vs_cm_resolve(r.host, r.port, NULL, &c));
	VS_OK(vs_pd_alloc(vs_cm_context(c), &r.pd));
	VS_OK(vs_cq_create(vs_cm_context(c), NULL, &r.cq));
	VS_OK(vs_mr_alloc(r.pd, 2 * MSG, 0, &r.mr));
	VS_OK(vs_cm_close(c));

	bounded(&r);
	/* the full window again: a create's slot then comes from the arena */
	vs__handle_quarantine_set(4096);
	walk(&r, "vs_cm_channel_create");
	walk(&r, "vs_cm_listen");
	walk(&r, "vs_cm_resolve");
	walk_request(&r);
	walk_response(&r);

	VS_OK(vs_mr_close(r.mr));
	VS_OK(vs_cq_close(r.cq));
	VS_OK(vs_pd_close(r.pd));
	VS_OK(vs_cm_close(r.l));
	printf("CM handle memory bounded under churn; CM creates fail cleanly "
	       "on every allocation\n");
	return 0;
}
