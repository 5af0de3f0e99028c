/* SPDX-License-Identifier: MIT */
/*
 * Handle memory is bounded by what is live (docs/API.md, Lifetimes, rule
 * 7), and a stale handle is still refused for the quarantine's window.
 *
 * Against the fake provider (it frees its objects at their destroy):
 *  1. once every size class's quarantine is full, every kind the fake can
 *     make (device context, PD, MR allocated and registered, CQ extended,
 *     legacy and on a channel, channel, SRQ, AH, RC with and without an
 *     SRQ, legacy RC, UC, UD, SRD, and a tree closed parents first) is
 *     created and closed, interleaved, 1024 rounds: the handle arena, the
 *     library's live heap blocks and their bytes
 *     (test/common/vs_alloc_wrap.h) must not have moved by one byte.
 *  2. a closed PD: for the next VS__QUARANTINE (4096) creates and closes of
 *     its size class (PDs, MRs, AHs, channels) no create returns its
 *     address, and its close, a create on it and its raw accessor are
 *     refused as "already closed"; the next create reuses it (an MR:
 *     the stale PD handle is then "a handle of another kind", and the
 *     MR is untouched by the refused calls).  A closed RC QP likewise
 *     against UD QPs (its batch start refused for the whole window), and
 *     a closed PD whose slot a PD takes (the documented limit: the stale
 *     pointer then is the new PD).
 * CM ids and CM channels need librdmacm: test/device/cm_churn.c.
 */
#include "../common/vs_fake.h"
#include "../common/vs_alloc_wrap.h"

/* lib/base/handle.c (private): the arena's chunks, in bytes */
size_t vs__handle_arena_bytes(void);

/* VS__QUARANTINE of lib/base/base.h: the window this test pins */
#define QUARANTINE 4096
/* rounds of every kind once the quarantines are full */
#define ROUNDS 1024

static int *live; /* the fake's: ctx pd mr cq qp srq ah */

struct rig {
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_srq *srq;
	struct vs_channel *ch;
	struct vs_ud_qp *ud; /* in RTS: the AHs' QP */
	struct vs_endpoint ud_ep;
	uint8_t buf[256];
};

static void cyc_ctx(struct rig *r)
{
	struct vs_context *c;

	(void)r;
	VS_OK(vs_device_open("fake0", &c));
	VS_OK(vs_device_close(c));
}

static void cyc_pd(struct rig *r)
{
	struct vs_pd *pd;

	VS_OK(vs_pd_alloc(r->ctx, &pd));
	VS_OK(vs_pd_close(pd));
}

static void cyc_mr(struct rig *r)
{
	struct vs_mr *a, *b;

	VS_OK(vs_mr_alloc(r->pd, 4096, 0, &a));
	VS_OK(vs_mr_register(r->pd, r->buf, sizeof(r->buf), 0, &b));
	VS_OK(vs_mr_close(a));
	VS_OK(vs_mr_close(b));
}

static void cyc_cq(struct rig *r)
{
	struct vs_cq *a, *b, *c;

	VS_OK(vs_cq_create(r->ctx, NULL, &a));
	VS_OK(vs_cq_create(r->ctx, &(struct vs_cq_config){ .legacy = true }, &b));
	VS_OK(vs_cq_create(r->ctx, &(struct vs_cq_config){ .channel = r->ch }, &c));
	VS_OK(vs_cq_close(a));
	VS_OK(vs_cq_close(b));
	VS_OK(vs_cq_close(c));
}

static void cyc_channel(struct rig *r)
{
	struct vs_channel *ch;
	struct vs_cq *cq;

	VS_OK(vs_channel_create(r->ctx, &ch));
	VS_OK(vs_cq_create(r->ctx, &(struct vs_cq_config){ .channel = ch }, &cq));
	/* closed before its CQ: the CQ's destroy frees it */
	VS_FAILS(vs_channel_close(ch), EBUSY, "still on this channel");
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_channel_close(ch));
}

static void cyc_srq(struct rig *r)
{
	struct vs_srq *srq;

	VS_OK(vs_srq_create(r->pd, NULL, &srq));
	VS_OK(vs_srq_close(srq));
}

static void cyc_ah(struct rig *r)
{
	struct vs_ud_dest d;

	VS_OK(vs_ud_handshake(r->ud, &r->ud_ep, &d));
	VS_OK(vs_ud_dest_release(&d));
}

static void cyc_rc(struct rig *r)
{
	struct vs_rc_qp *a, *b, *c;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &a));
	VS_OK(vs_rc_endpoint(a, &ep));
	VS_OK(vs_rc_handshake(a, &ep));
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .srq = r->srq }, &b));
	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){
		.send_cq = r->cq, .legacy = true }, &c));
	/* parents first: the QPs keep them, their last close frees them */
	VS_OK(vs_rc_qp_close(a));
	VS_OK(vs_rc_qp_close(b));
	VS_OK(vs_rc_qp_close(c));
}

static void cyc_uc_ud(struct rig *r)
{
	struct vs_uc_qp *uc;
	struct vs_ud_qp *ud;

	VS_OK(vs_uc_qp_create(r->pd, &(struct vs_uc_config){ .send_cq = r->cq }, &uc));
	VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &ud));
	VS_OK(vs_uc_qp_close(uc));
	VS_OK(vs_ud_qp_close(ud));
}

static void cyc_srd(struct rig *r)
{
	struct vs_srd_qp *qp;

	VS_OK(vs_srd_qp_create(r->pd, &(struct vs_srd_config){ .send_cq = r->cq }, &qp));
	VS_OK(vs_srd_qp_close(qp));
}

/* parents closed before their children, the children's close frees them */
static void cyc_tree(struct rig *r)
{
	struct vs_context *c;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr;
	struct vs_rc_qp *qp;

	(void)r;
	VS_OK(vs_device_open("fake0", &c));
	VS_OK(vs_pd_alloc(c, &pd));
	VS_OK(vs_cq_create(c, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 64, 0, &mr));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_device_close(c));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_rc_qp_close(qp));
}

static void (*const cycles[])(struct rig *) = {
	cyc_ctx, cyc_pd, cyc_mr, cyc_cq, cyc_channel, cyc_srq, cyc_ah,
	cyc_rc, cyc_uc_ud, cyc_srd, cyc_tree,
};

static void round_all(struct rig *r, int rounds)
{
	for (int i = 0; i < rounds; i++)
		for (size_t k = 0; k < sizeof(cycles) / sizeof(cycles[0]); k++)
			cycles[k](r);
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

	/*
	 * Every class's quarantine full: QUARANTINE + 16 closes of each
	 * (device context 576, SRQ 128, CQ 192, QP 256, PD 64 bytes), then
	 * every kind a few rounds, so that what they keep open at once has
	 * its slots too.
	 */
	for (int i = 0; i < QUARANTINE + 16; i++) {
		cyc_ctx(r);
		cyc_srq(r);
		cyc_cq(r);
		cyc_uc_ud(r);
		cyc_pd(r);
	}
	round_all(r, 32);
	a = usage();
	round_all(r, ROUNDS);
	b = usage();
	printf("quarantines full: arena %zu bytes, %ld live blocks (%ld bytes); "
	       "after %d rounds of every kind: %zu, %ld (%ld)\n", a.arena,
	       a.blocks, a.bytes, ROUNDS, b.arena, b.blocks, b.bytes);
	VS_ASSERT_EQ(b.arena, a.arena);
	VS_ASSERT_EQ(b.blocks, a.blocks);
	VS_ASSERT_EQ(b.bytes, a.bytes);
}

/* One create and close in the 64-byte class, never at stale; i picks the kind. */
static void churn64(struct rig *r, int i, const void *stale)
{
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_channel *ch;
	struct vs_ud_dest d;

	switch (i % 4) {
	case 0:
		VS_OK(vs_pd_alloc(r->ctx, &pd));
		VS_ASSERT((void *)pd != stale);
		VS_OK(vs_pd_close(pd));
		break;
	case 1:
		VS_OK(vs_mr_register(r->pd, r->buf, 64, 0, &mr));
		VS_ASSERT((void *)mr != stale);
		VS_OK(vs_mr_close(mr));
		break;
	case 2:
		VS_OK(vs_channel_create(r->ctx, &ch));
		VS_ASSERT((void *)ch != stale);
		VS_OK(vs_channel_close(ch));
		break;
	default:
		VS_OK(vs_ud_handshake(r->ud, &r->ud_ep, &d));
		VS_ASSERT((void *)d.ah != stale);
		VS_OK(vs_ud_dest_release(&d));
		break;
	}
}

static void pd_refused(struct vs_pd *stale)
{
	struct vs_mr *mr;

	VS_FAILS(vs_pd_close(stale), EINVAL, "pd is a PD the caller already closed");
	VS_FAILS(vs_mr_alloc(stale, 64, 0, &mr), EINVAL,
		 "pd is a PD the caller already closed");
	VS_ASSERT_PTR_EQ(vs_pd_raw(stale), NULL);
}

/*
 * MRs (PDs) made and kept until one lands in stale's slot, which must be
 * within the next few; the others are closed.  Returns the one in it.
 */
#define TAKE_MAX 64
static struct vs_mr *take64_mr(struct rig *r, const void *stale)
{
	struct vs_mr *kept[TAKE_MAX], *hit = NULL;
	int n = 0;

	while (!hit) {
		VS_ASSERT(n < TAKE_MAX);
		VS_OK(vs_mr_register(r->pd, r->buf, 64, 0, &kept[n]));
		if ((void *)kept[n] == stale)
			hit = kept[n];
		else
			n++;
	}
	printf("the stale slot reused by MR number %d made after %d closes\n",
	       n + 1, QUARANTINE);
	while (n--)
		VS_OK(vs_mr_close(kept[n]));
	return hit;
}

static struct vs_pd *take64_pd(struct rig *r, const void *stale)
{
	struct vs_pd *kept[TAKE_MAX], *hit = NULL;
	int n = 0;

	while (!hit) {
		VS_ASSERT(n < TAKE_MAX);
		VS_OK(vs_pd_alloc(r->ctx, &kept[n]));
		if ((void *)kept[n] == stale)
			hit = kept[n];
		else
			n++;
	}
	while (n--)
		VS_OK(vs_pd_close(kept[n]));
	return hit;
}

static void window_pd(struct rig *r)
{
	struct vs_pd *stale, *pd;
	struct vs_mr *mr;

	VS_OK(vs_pd_alloc(r->ctx, &stale));
	VS_OK(vs_pd_close(stale));
	for (int i = 0; i < QUARANTINE; i++) {
		churn64(r, i, stale);
		if (i % 256 == 0 || i == QUARANTINE - 1)
			pd_refused(stale);
	}
	/*
	 * Its turn: creates that close nothing take the oldest slots, so
	 * one of the next few is it (how many are ahead of it depends on
	 * how many of the class were open at once before).
	 */
	mr = take64_mr(r, stale);
	VS_FAILS(vs_pd_close(stale), EINVAL,
		 "pd is a handle of another kind (MR, expected PD)");
	VS_ASSERT_PTR_EQ(vs_pd_raw(stale), NULL);
	VS_ASSERT(vs_mr_raw(mr) != NULL); /* untouched */
	VS_OK(vs_mr_close(mr));

	/* the limit, as documented: a PD in the slot is what the pointer names */
	VS_OK(vs_pd_alloc(r->ctx, &stale));
	VS_OK(vs_pd_close(stale));
	for (int i = 0; i < QUARANTINE; i++)
		churn64(r, i, stale);
	pd = take64_pd(r, stale);
	VS_OK(vs_pd_close(pd));
}

static void window_qp(struct rig *r)
{
	struct vs_rc_qp *stale;
	struct vs_ud_qp *ud;
	struct vs_rc_batch b;
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(r->pd, &(struct vs_rc_config){ .send_cq = r->cq }, &stale));
	VS_OK(vs_rc_endpoint(stale, &ep));
	VS_OK(vs_rc_handshake(stale, &ep));
	VS_OK(vs_rc_batch_start(stale, &b));
	vs_rc_batch_abort(&b);
	VS_OK(vs_rc_qp_close(stale));
	for (int i = 0; i < QUARANTINE; i++) {
		VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){ .send_cq = r->cq }, &ud));
		VS_ASSERT((void *)ud != (void *)stale);
		VS_OK(vs_ud_qp_close(ud));
		if (i % 512 == 0 || i == QUARANTINE - 1) {
			VS_FAILS(vs_rc_batch_start(stale, &b), EINVAL,
				 "already closed");
			VS_FAILS(vs_rc_qp_close(stale), EINVAL,
				 "qp is an RC QP the caller already closed");
		}
	}
	{
		struct vs_ud_qp *kept[TAKE_MAX];
		int n = 0;

		for (ud = NULL; !ud; ) {
			VS_ASSERT(n < TAKE_MAX);
			VS_OK(vs_ud_qp_create(r->pd, &(struct vs_ud_config){
				.send_cq = r->cq }, &kept[n]));
			if ((void *)kept[n] == (void *)stale)
				ud = kept[n];
			else
				n++;
		}
		while (n--)
			VS_OK(vs_ud_qp_close(kept[n]));
	}
	VS_FAILS(vs_rc_qp_close(stale), EINVAL,
		 "qp is a handle of another kind (UD QP, expected RC QP)");
	VS_FAILS(vs_rc_batch_start(stale, &b), EINVAL, "");
	VS_OK(vs_ud_qp_close(ud));
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
	VS_OK(vs_srq_create(r.pd, NULL, &r.srq));
	VS_OK(vs_channel_create(r.ctx, &r.ch));
	VS_OK(vs_ud_qp_create(r.pd, &(struct vs_ud_config){ .send_cq = r.cq }, &r.ud));
	VS_OK(vs_ud_endpoint(r.ud, &r.ud_ep));

	bounded(&r);
	window_pd(&r);
	window_qp(&r);

	VS_OK(vs_ud_qp_close(r.ud));
	VS_OK(vs_channel_close(r.ch));
	VS_OK(vs_srq_close(r.srq));
	VS_OK(vs_cq_close(r.cq));
	VS_OK(vs_pd_close(r.pd));
	VS_OK(vs_device_close(r.ctx));
	vs_t_fake_all_gone(live);
	printf("handle memory bounded under churn; stale handles refused for %d "
	       "closes of their class\n", QUARANTINE);
	return 0;
}
