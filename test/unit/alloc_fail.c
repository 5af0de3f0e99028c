/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure injection over the typed API (issue 27, item 3).
 *
 * Each scenario is one public call (or a short sequence of them) on the
 * fake provider.  It is run with the library's 1st allocation failing
 * (test/common/vs_alloc_wrap.h: malloc, calloc, realloc, posix_memalign
 * of the archive's objects), then the 2nd, ... until a run makes fewer
 * allocations than the one armed to fail and succeeds.  After each failed
 * run:
 *  - the call that failed returned -ENOMEM, and vs_last_error() names it
 *    with ENOMEM (a call that can do without the block may succeed
 *    instead: then what it made is closed as usual);
 *  - a create's *out is NULL;
 *  - nothing leaked: the library's live heap blocks are back where they
 *    were (the handle arena's new chunks aside), and so are the fake's
 *    live objects;
 *  - what it was called on still works: the rig's RC QP posts a write
 *    and its completion comes (the fake moves no bytes).
 * The ASan and valgrind stages run this too, so a block lost or used
 * after its free on a failure path fails there as well.
 * CM ids and CM channels need librdmacm: test/device/cm_churn.c.
 */
#include "../common/vs_fake.h"
#include "../common/vs_alloc_wrap.h"

/* lib/base/handle.c (private, for the tests) */
size_t vs__handle_arena_bytes(void);
void vs__handle_arena_seal(void);
#define ARENA_CHUNK_BLOCK (64 * 1024 + 64) /* lib/base/handle.c: one chunk */

static int *live; /* the fake's: ctx pd mr cq qp srq ah */

struct rig {
	struct vs_context *ctx, *rxe; /* rxe: the fake dressed as rxe (bounce ring) */
	struct vs_pd *pd, *rxe_pd;
	struct vs_cq *cq, *rxe_cq;
	struct vs_channel *ch;
	struct vs_srq *srq;
	struct vs_mr *mr;
	struct vs_rc_qp *rc;      /* connected to itself */
	struct vs_ud_qp *ud;
	struct vs_endpoint ud_ep;
	uint8_t buf[256];
};

/* What a scenario made, for its undo; and the call that failed. */
struct made {
	void *obj[4];
	struct vs_ud_dest dest;
	struct vs_scope scope;
	const char *failed_call;
};

#define STEP(m, call, expr)                                                   \
	do {                                                                  \
		int r_ = (expr);                                              \
		if (r_) {                                                     \
			(m)->failed_call = (call);                            \
			return r_;                                            \
		}                                                             \
	} while (0)

/* ---- scenarios: run (may fail anywhere) and undo (closes what run made) ---- */

static int run_device(struct rig *r, struct made *m)
{
	(void)r;
	STEP(m, "vs_device_open", vs_device_open("fake0", (struct vs_context **)&m->obj[0]));
	return 0;
}

static int run_pd(struct rig *r, struct made *m)
{
	STEP(m, "vs_pd_alloc", vs_pd_alloc(r->ctx, (struct vs_pd **)&m->obj[0]));
	return 0;
}

static int run_mr_alloc(struct rig *r, struct made *m)
{
	STEP(m, "vs_mr_alloc", vs_mr_alloc(r->pd, 8192, 0, (struct vs_mr **)&m->obj[0]));
	return 0;
}

static int run_mr_register(struct rig *r, struct made *m)
{
	STEP(m, "vs_mr_register", vs_mr_register(r->pd, r->buf, sizeof(r->buf), 0,
						 (struct vs_mr **)&m->obj[0]));
	return 0;
}

static int run_cq(struct rig *r, struct made *m)
{
	STEP(m, "vs_cq_create", vs_cq_create(r->ctx, NULL, (struct vs_cq **)&m->obj[0]));
	return 0;
}

static int run_cq_legacy(struct rig *r, struct made *m)
{
	STEP(m, "vs_cq_create", vs_cq_create(r->ctx, &(struct vs_cq_config){
		.legacy = true }, (struct vs_cq **)&m->obj[0]));
	return 0;
}

static int run_cq_channel(struct rig *r, struct made *m)
{
	STEP(m, "vs_cq_create", vs_cq_create(r->ctx, &(struct vs_cq_config){
		.channel = r->ch }, (struct vs_cq **)&m->obj[0]));
	return 0;
}

static int run_channel(struct rig *r, struct made *m)
{
	STEP(m, "vs_channel_create", vs_channel_create(r->ctx,
						       (struct vs_channel **)&m->obj[0]));
	return 0;
}

static int run_srq(struct rig *r, struct made *m)
{
	STEP(m, "vs_srq_create", vs_srq_create(r->pd, NULL, (struct vs_srq **)&m->obj[0]));
	return 0;
}

static int run_rc(struct rig *r, struct made *m)
{
	STEP(m, "vs_rc_qp_create", vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq }, (struct vs_rc_qp **)&m->obj[0]));
	return 0;
}

static int run_rc_legacy(struct rig *r, struct made *m)
{
	STEP(m, "vs_rc_qp_create", vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .legacy = true }, (struct vs_rc_qp **)&m->obj[0]));
	return 0;
}

static int run_rc_srq(struct rig *r, struct made *m)
{
	STEP(m, "vs_rc_qp_create", vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .srq = r->srq }, (struct vs_rc_qp **)&m->obj[0]));
	return 0;
}

static int run_uc(struct rig *r, struct made *m)
{
	STEP(m, "vs_uc_qp_create", vs_uc_qp_create(r->pd, &(struct vs_uc_config){
		.send_cq = r->cq }, (struct vs_uc_qp **)&m->obj[0]));
	return 0;
}

static int run_ud(struct rig *r, struct made *m)
{
	STEP(m, "vs_ud_qp_create", vs_ud_qp_create(r->pd, &(struct vs_ud_config){
		.send_cq = r->cq }, (struct vs_ud_qp **)&m->obj[0]));
	return 0;
}

static int run_srd(struct rig *r, struct made *m)
{
	STEP(m, "vs_srd_qp_create", vs_srd_qp_create(r->pd, &(struct vs_srd_config){
		.send_cq = r->cq }, (struct vs_srd_qp **)&m->obj[0]));
	return 0;
}

static int run_ah(struct rig *r, struct made *m)
{
	STEP(m, "vs_ud_handshake", vs_ud_handshake(r->ud, &r->ud_ep, &m->dest));
	return 0;
}

/* an RC QP on the rxe-dressed context: its first batch start makes the ring */
static int run_bounce(struct rig *r, struct made *m)
{
	struct vs_rc_qp *qp;
	struct vs_rc_batch b;
	struct vs_endpoint ep;

	STEP(m, "vs_rc_qp_create", vs_rc_qp_create(r->rxe_pd, &(struct vs_rc_config){
		.send_cq = r->rxe_cq }, &qp));
	m->obj[0] = qp;
	STEP(m, "vs_rc_endpoint", vs_rc_endpoint(qp, &ep));
	STEP(m, "vs_rc_handshake", vs_rc_handshake(qp, &ep));
	STEP(m, "vs_rc_batch_start", vs_rc_batch_start(qp, &b));
	vs_rc_batch_abort(&b);
	return 0;
}

static int run_gid_table(struct rig *r, struct made *m)
{
	struct vs_gid_info g[4];
	size_t n;

	STEP(m, "vs_gid_table", vs_gid_table(r->ctx, 1, g, 4, &n));
	VS_ASSERT(n > 0);
	return 0;
}

/* a scope's first batch on a QP: its state, its QP entry, its records */
static int run_scope(struct rig *r, struct made *m)
{
	struct vs_rc_batch b;
	struct ibv_sge sge = vs_mr_sge(r->mr, 0, 8);

	STEP(m, "vs_scope_begin", vs_scope_begin(&m->scope, VS_WAIT_POLL));
	m->obj[0] = &m->scope;
	STEP(m, "vs_scope_rc_batch_start", vs_scope_rc_batch_start(&m->scope, r->rc, &b));
	VS_OK(vs_rc_write(&b, 7, 0, &sge, 1, vs_mr_remote(r->mr, 64)));
	STEP(m, "vs_rc_batch_submit", vs_rc_batch_submit(&b));
	return 0;
}

/*
 * A wait for the second of two writes on a CQ of its own: the first goes
 * to the CQ's stash (made at its first use, freed with the CQ).
 */
static int run_stash(struct rig *r, struct made *m)
{
	struct vs_rc_batch b;
	struct ibv_sge sge = vs_mr_sge(r->mr, 0, 8);
	struct vs_endpoint ep;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_wc wc;

	STEP(m, "vs_cq_create", vs_cq_create(r->ctx, NULL, &cq));
	m->obj[0] = cq;
	STEP(m, "vs_rc_qp_create", vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = cq }, &qp));
	m->obj[1] = qp;
	VS_OK(vs_rc_endpoint(qp, &ep));
	VS_OK(vs_rc_handshake(qp, &ep));
	VS_OK(vs_rc_batch_start(qp, &b));
	VS_OK(vs_rc_write(&b, 1, VS_WR_SIGNALED, &sge, 1, vs_mr_remote(r->mr, 64)));
	VS_OK(vs_rc_write(&b, 2, VS_WR_SIGNALED, &sge, 1, vs_mr_remote(r->mr, 72)));
	VS_OK(vs_rc_batch_submit(&b));
	m->obj[2] = qp; /* two completions to account for in undo */
	STEP(m, "vs_cq_wait_wr", vs_cq_wait_wr(cq, vs_rc_qp_raw(qp)->qp_num, 2,
					       VS_WAIT_POLL, 1000, &wc));
	VS_ASSERT_EQ(wc.wr_id, 2);
	m->obj[3] = qp; /* wr 2 taken */
	return 0;
}

static void undo_close(struct rig *r, struct made *m, int (*close)(void *))
{
	(void)r;
	if (m->obj[0])
		VS_OK(close(m->obj[0]));
}

#define CLOSER(name, type, fn) \
	static int name(void *p) { return (fn)((type *)p); }
CLOSER(close_ctx, struct vs_context, vs_device_close)
CLOSER(close_pd, struct vs_pd, vs_pd_close)
CLOSER(close_mr, struct vs_mr, vs_mr_close)
CLOSER(close_cq, struct vs_cq, vs_cq_close)
CLOSER(close_ch, struct vs_channel, vs_channel_close)
CLOSER(close_srq, struct vs_srq, vs_srq_close)
CLOSER(close_rc, struct vs_rc_qp, vs_rc_qp_close)
CLOSER(close_uc, struct vs_uc_qp, vs_uc_qp_close)
CLOSER(close_ud, struct vs_ud_qp, vs_ud_qp_close)
CLOSER(close_srd, struct vs_srd_qp, vs_srd_qp_close)

static void undo_dest(struct rig *r, struct made *m)
{
	(void)r;
	VS_OK(vs_ud_dest_release(&m->dest));
}

static void undo_none(struct rig *r, struct made *m)
{
	(void)r;
	(void)m;
}

static void undo_scope(struct rig *r, struct made *m)
{
	struct vs_wc wc;

	(void)r;
	if (m->obj[0])
		VS_OK(vs_scope_end(&m->scope, -1, &wc));
}

/*
 * Both writes' completions, whoever holds them (the stash, the CQ), none
 * lost and none twice; then the QP and the CQ closed.
 */
static void undo_stash(struct rig *r, struct made *m)
{
	struct vs_cq *cq = m->obj[0];
	struct vs_wc wc[4];
	int want = m->obj[3] ? 1 : 2, got = 0, n;

	(void)r;
	if (m->obj[2]) {
		while (got < want) {
			n = vs_cq_poll(cq, wc, 4);
			VS_ASSERT(n >= 0);
			for (int i = 0; i < n; i++) {
				VS_ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
				VS_ASSERT_EQ(wc[i].wr_id, (uint64_t)(got + i + 1));
			}
			got += n;
		}
		VS_ASSERT_EQ(got, want);
		VS_ASSERT_EQ(vs_cq_poll(cq, wc, 4), 0);
	}
	if (m->obj[1])
		VS_OK(vs_rc_qp_close(m->obj[1]));
	if (cq)
		VS_OK(vs_cq_close(cq));
}

#define UNDO(name, closer) \
	static void name(struct rig *r, struct made *m) { undo_close(r, m, closer); }
UNDO(undo_ctx, close_ctx)
UNDO(undo_pd, close_pd)
UNDO(undo_mr, close_mr)
UNDO(undo_cq, close_cq)
UNDO(undo_ch, close_ch)
UNDO(undo_srq, close_srq)
UNDO(undo_rc, close_rc)
UNDO(undo_uc, close_uc)
UNDO(undo_ud, close_ud)
UNDO(undo_srd, close_srd)

static const struct scenario {
	const char *name;
	int (*run)(struct rig *, struct made *);
	void (*undo)(struct rig *, struct made *);
	bool is_create; /* obj[0] is the call's *out: NULL on failure */
} scenarios[] = {
	{ "device open", run_device, undo_ctx, true },
	{ "pd", run_pd, undo_pd, true },
	{ "mr alloc", run_mr_alloc, undo_mr, true },
	{ "mr register", run_mr_register, undo_mr, true },
	{ "cq", run_cq, undo_cq, true },
	{ "cq legacy", run_cq_legacy, undo_cq, true },
	{ "cq on a channel", run_cq_channel, undo_cq, true },
	{ "channel", run_channel, undo_ch, true },
	{ "srq", run_srq, undo_srq, true },
	{ "rc qp", run_rc, undo_rc, true },
	{ "rc qp legacy", run_rc_legacy, undo_rc, true },
	{ "rc qp on an srq", run_rc_srq, undo_rc, true },
	{ "uc qp", run_uc, undo_uc, true },
	{ "ud qp", run_ud, undo_ud, true },
	{ "srd qp", run_srd, undo_srd, true },
	{ "ah (ud handshake)", run_ah, undo_dest, false },
	{ "bounce ring (first batch start)", run_bounce, undo_rc, false },
	{ "gid table", run_gid_table, undo_none, false },
	{ "scope", run_scope, undo_scope, false },
	{ "cq stash (a wait for a later WR)", run_stash, undo_stash, false },
};

/*
 * The rig's RC QP still posts and completes (the fake moves no bytes: the
 * write's completion, with its wr_id, is what it can show).
 */
static void rig_works(struct rig *r)
{
	struct ibv_sge sge = vs_mr_sge(r->mr, 0, 16);
	struct vs_rc_batch b;
	struct vs_wc wc;

	VS_OK(vs_rc_batch_start(r->rc, &b));
	VS_OK(vs_rc_write(&b, 99, VS_WR_SIGNALED, &sge, 1, vs_mr_remote(r->mr, 128)));
	VS_OK(vs_rc_batch_submit(&b));
	VS_ASSERT_EQ(vs_cq_poll(r->cq, &wc, 1), 1);
	VS_ASSERT_EQ(wc.wr_id, 99);
	VS_ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
}

static void walk(struct rig *r, const struct scenario *s)
{
	int failures = 0, tolerated = 0;

	for (long n = 1;; n++) {
		struct made m;
		long blocks = vs_alloc_live(), bytes = vs_alloc_live_bytes();
		size_t arena = vs__handle_arena_bytes();
		int objs[7], ret;
		bool hit;

		memcpy(objs, live, sizeof(objs));
		memset(&m, 0, sizeof(m));
		vs_clear_error();
		/* a new handle's slot then comes with a malloc, failed in turn */
		vs__handle_arena_seal();
		arena = vs__handle_arena_bytes();
		vs_alloc_fail_nth(n);
		ret = s->run(r, &m);
		hit = vs_alloc_failed();
		vs_alloc_fail_nth(0);
		if (!hit) {
			if (ret)
				VS_FAIL("%s: no allocation failed, yet %s returned %d",
					s->name, m.failed_call, ret);
			s->undo(r, &m);
			printf("  %-34s %2ld allocations, each failed once: "
			       "%d -ENOMEM, %d done without\n", s->name, n - 1,
			       failures, tolerated);
			return;
		}
		if (ret) {
			const struct vs_error *e = vs_last_error();

			if (ret != -ENOMEM || e->err != ENOMEM ||
			    strcmp(e->call, m.failed_call))
				VS_FAIL("%s, allocation %ld failing: %s returned %d, "
					"recorded %s: %s (err %d)", s->name, n,
					m.failed_call, ret, e->call, e->message, e->err);
			if (getenv("VS_ALLOC_FAIL_VERBOSE"))
				printf("    %ld: %s: %s\n", n, e->call, e->message);
			if (s->is_create && m.obj[0])
				VS_FAIL("%s, allocation %ld failing: *out not NULL",
					s->name, n);
			failures++;
		} else {
			tolerated++;
		}
		s->undo(r, &m);
		/* nothing leaked; a chunk the arena took stays (it is the arena) */
		{
			long chunks = (long)((vs__handle_arena_bytes() - arena) /
					     ARENA_CHUNK_BLOCK);

			if (vs_alloc_live() != blocks + chunks)
				VS_FAIL("%s, allocation %ld failing: %ld heap blocks "
					"live before, %ld after (%ld new arena chunks)",
					s->name, n, blocks, vs_alloc_live(), chunks);
			if (!chunks && vs_alloc_live_bytes() != bytes)
				VS_FAIL("%s, allocation %ld failing: %ld heap bytes "
					"live before, %ld after", s->name, n, bytes,
					vs_alloc_live_bytes());
		}
		for (int k = 0; k < 7; k++)
			if (live[k] != objs[k])
				VS_FAIL("%s, allocation %ld failing: %d fake objects "
					"of kind %d before, %d after", s->name, n,
					objs[k], k, live[k]);
		rig_works(r);
	}
}

int main(void)
{
	struct rig r;
	void *fail;
	struct vs_stub_efa *efa;

	vs_t_use_fake(&fail, &live);
	efa = vs_t_use_fake_efa(0);
	efa->efa_device = 1;
	memset(&r, 0, sizeof(r));
	VS_OK(vs_device_open("fake0", &r.ctx));
	VS_OK(vs_pd_alloc(r.ctx, &r.pd));
	VS_OK(vs_cq_create(r.ctx, NULL, &r.cq));
	VS_OK(vs_channel_create(r.ctx, &r.ch));
	VS_OK(vs_srq_create(r.pd, NULL, &r.srq));
	VS_OK(vs_mr_alloc(r.pd, 4096, 0, &r.mr));
	vs_t_fake_rc_loop(r.pd, r.cq, &r.rc);
	VS_OK(vs_ud_qp_create(r.pd, &(struct vs_ud_config){ .send_cq = r.cq }, &r.ud));
	VS_OK(vs_ud_endpoint(r.ud, &r.ud_ep));
	/* the fake dressed as rxe: its QPs need the bounce ring */
	setenv("VS_FAKE_VENDOR", "0xffffff", 1); /* read at device open */
	unsetenv("VERBSHIM_TRUST_WR_SGE");
	VS_OK(vs_device_open("fake0", &r.rxe));
	unsetenv("VS_FAKE_VENDOR");
	VS_OK(vs_pd_alloc(r.rxe, &r.rxe_pd));
	VS_OK(vs_cq_create(r.rxe, NULL, &r.rxe_cq));
	/* the rig CQ's stash, made once: kept by the CQ, not a scenario's */
	{
		struct vs_wc wc;

		rig_works(&r);
		VS_ASSERT_EQ(vs_cq_wait_wr(r.cq, 1, 1, VS_WAIT_POLL, 0, &wc), -EAGAIN);
	}
	rig_works(&r);

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		walk(&r, &scenarios[i]);

	VS_OK(vs_rc_qp_close(r.rc));
	VS_OK(vs_ud_qp_close(r.ud));
	VS_OK(vs_mr_close(r.mr));
	VS_OK(vs_srq_close(r.srq));
	VS_OK(vs_channel_close(r.ch));
	VS_OK(vs_cq_close(r.cq));
	VS_OK(vs_pd_close(r.pd));
	VS_OK(vs_device_close(r.ctx));
	VS_OK(vs_cq_close(r.rxe_cq));
	VS_OK(vs_pd_close(r.rxe_pd));
	VS_OK(vs_device_close(r.rxe));
	vs_t_fake_all_gone(live);
	printf("every allocation of %zu scenarios failed once: -ENOMEM recorded "
	       "or done without, nothing leaked, the rig still posts and completes\n",
	       sizeof(scenarios) / sizeof(scenarios[0]));
	return 0;
}
