/* SPDX-License-Identifier: MIT */
/*
 * loopback: one RC QP connected to itself through the typed API.  Sends
 * (with immediate), writes, reads, compare-and-swap and fetch-and-add,
 * checks every byte that arrived, and prints what it did and how long
 * each took.
 *
 *   loopback [-d device] [-l]      -l: legacy verbs (ibv_post_send/ibv_poll_cq)
 */
#include <getopt.h>
#include <string.h>

#include "common/ex_common.h"

enum {
	OFF_SRC = 0,
	OFF_DST = 1024,
	OFF_RECV = 2048,
	OFF_READ = 3072,
	OFF_ATOMIC = 4096,
	OFF_RESULT = 4104,
	LEN = 256,
};

static struct vs_cq *cq;

static void expect_wc(const struct vs_wc *wc, uint64_t wr_id,
		      enum ibv_wc_opcode opcode, const char *what)
{
	if (wc->status != IBV_WC_SUCCESS)
		ex_fail("%s: completion %s (vendor error 0x%x)", what,
			ibv_wc_status_str(wc->status), wc->vendor_err);
	if (wc->wr_id != wr_id || wc->opcode != opcode)
		ex_fail("%s: completion wr_id %llu opcode %d, expected %llu / %d",
			what, (unsigned long long)wc->wr_id, wc->opcode,
			(unsigned long long)wr_id, opcode);
}

/* Waits for exactly one completion. */
static void wait_one(struct vs_wc *wc, const char *what)
{
	if (ex_wait(cq, wc, 1, 5000) != 1)
		ex_fail("%s: no completion within 5 s", what);
}

static void report(const char *what, uint64_t t0, size_t bytes)
{
	printf("  %-34s %6zu bytes  %8.1f us  ok\n", what, bytes,
	       (double)(ex_now_ns() - t0) / 1000.0);
}

int main(int argc, char **argv)
{
	const char *dev = ex_default_device();
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr;
	struct vs_rc_qp *qp;
	struct vs_endpoint ep;
	struct vs_recv_batch rb;
	struct vs_rc_batch b;
	struct vs_wc wc[2];
	char text[200];
	uint8_t *mem;
	uint64_t t0;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:l")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'l':
			vs_set_force_legacy(true);
			break;
		default:
			fprintf(stderr, "usage: %s [-d device] [-l]\n", argv[0]);
			return 2;
		}
	}

	/* each handle owned as soon as made: every way out closes it */
	ex_check(vs_device_open(dev, &ctx), "vs_device_open");
	ex_own(ctx);
	ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
	ex_own(pd);
	ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 64 }, &cq),
		 "vs_cq_create");
	ex_own(cq);
	ex_check(vs_mr_alloc(pd, 8192, 0, &mr), "vs_mr_alloc");
	ex_own(mr);
	ex_check(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &qp),
		 "vs_rc_qp_create");
	ex_own(qp);
	ex_check(vs_rc_endpoint(qp, &ep), "vs_rc_endpoint");
	ex_check(vs_rc_handshake(qp, &ep), "vs_rc_handshake");

	printf("loopback on %s: RC QP %s, CQ %s\n", ctx->name,
	       vs_rc_qp_is_extended(qp) ? "extended (ibv_wr_*)" :
					  "legacy (ibv_post_send)",
	       vs_cq_is_extended(cq) ? "extended (ibv_start_poll)" :
				       "legacy (ibv_poll_cq)");
	printf("  endpoint: %s\n", vs_endpoint_to_str(&ep, text, sizeof(text)));

	mem = vs_mr_ptr(mr, 0);
	for (int i = 0; i < LEN; i++)
		mem[OFF_SRC + i] = (uint8_t)(i * 7 + 1);

	/* 1. send with immediate into a posted receive */
	struct ibv_sge rsge = vs_mr_sge(mr, OFF_RECV, LEN);
	struct ibv_sge ssge = vs_mr_sge(mr, OFF_SRC, 64);

	t0 = ex_now_ns();
	ex_check(vs_rc_recv_start(qp, &rb), "vs_rc_recv_start");
	ex_check(vs_recv_add(&rb, 100, &rsge, 1), "vs_recv_add");
	ex_check(vs_recv_submit(&rb), "vs_recv_submit");
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_send_imm(&b, 1, VS_WR_SIGNALED, 0xC0FFEE, &ssge, 1),
		 "vs_rc_send_imm");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	if (ex_wait(cq, wc, 2, 5000) != 2)
		ex_fail("send: completions missing");
	if (wc[0].opcode != IBV_WC_SEND) {
		struct vs_wc t = wc[0];

		wc[0] = wc[1];
		wc[1] = t;
	}
	expect_wc(&wc[0], 1, IBV_WC_SEND, "send");
	expect_wc(&wc[1], 100, IBV_WC_RECV, "receive");
	if (wc[1].byte_len != 64 || !(wc[1].wc_flags & IBV_WC_WITH_IMM) ||
	    wc[1].imm != 0xC0FFEE || memcmp(mem + OFF_RECV, mem + OFF_SRC, 64)) {
		ex_fail("send: received %u bytes imm 0x%x, bytes %s",
			wc[1].byte_len, wc[1].imm,
			memcmp(mem + OFF_RECV, mem + OFF_SRC, 64) ? "differ" : "match");
	}
	report("send with immediate 0xC0FFEE", t0, 64);

	/* 2. RDMA write */
	ssge = vs_mr_sge(mr, OFF_SRC, LEN);
	t0 = ex_now_ns();
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_write(&b, 2, VS_WR_SIGNALED, &ssge, 1,
			     vs_mr_remote(mr, OFF_DST)), "vs_rc_write");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	wait_one(wc, "write");
	expect_wc(wc, 2, IBV_WC_RDMA_WRITE, "write");
	if (memcmp(mem + OFF_DST, mem + OFF_SRC, LEN)) {
		ex_fail("write: destination bytes differ");
	}
	report("RDMA write", t0, LEN);

	/* 3. RDMA read back what was written */
	struct ibv_sge dsge = vs_mr_sge(mr, OFF_READ, LEN);

	t0 = ex_now_ns();
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_read(&b, 3, VS_WR_SIGNALED, &dsge, 1,
			    vs_mr_remote(mr, OFF_DST)), "vs_rc_read");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	wait_one(wc, "read");
	expect_wc(wc, 3, IBV_WC_RDMA_READ, "read");
	if (wc->byte_len != LEN || memcmp(mem + OFF_READ, mem + OFF_SRC, LEN)) {
		ex_fail("read: %u bytes, contents %s", wc->byte_len,
			memcmp(mem + OFF_READ, mem + OFF_SRC, LEN) ? "differ" : "match");
	}
	report("RDMA read", t0, LEN);

	/* 4. compare-and-swap 42 -> 99, then fetch-and-add 5 */
	uint64_t *atom = vs_mr_ptr(mr, OFF_ATOMIC), *result = vs_mr_ptr(mr, OFF_RESULT);
	struct ibv_sge asge = vs_mr_sge(mr, OFF_RESULT, 8);

	*atom = 42;
	t0 = ex_now_ns();
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_cas(&b, 4, VS_WR_SIGNALED, &asge,
			   vs_mr_remote(mr, OFF_ATOMIC), 42, 99), "vs_rc_cas");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	wait_one(wc, "compare-and-swap");
	expect_wc(wc, 4, IBV_WC_COMP_SWAP, "compare-and-swap");
	if (*result != 42 || *atom != 99) {
		ex_fail("compare-and-swap: old %llu (want 42), now %llu "
			"(want 99)", (unsigned long long)*result,
			(unsigned long long)*atom);
	}
	report("compare-and-swap 42 -> 99", t0, 8);

	t0 = ex_now_ns();
	ex_check(vs_rc_batch_start(qp, &b), "vs_rc_batch_start");
	ex_check(vs_rc_faa(&b, 5, VS_WR_SIGNALED, &asge,
			   vs_mr_remote(mr, OFF_ATOMIC), 5), "vs_rc_faa");
	ex_check(vs_rc_batch_submit(&b), "vs_rc_batch_submit");
	wait_one(wc, "fetch-and-add");
	expect_wc(wc, 5, IBV_WC_FETCH_ADD, "fetch-and-add");
	if (*result != 99 || *atom != 104) {
		ex_fail("fetch-and-add: old %llu (want 99), now %llu "
			"(want 104)", (unsigned long long)*result,
			(unsigned long long)*atom);
	}
	report("fetch-and-add +5", t0, 8);

	/* Close in "wrong" order on purpose: the references keep it right.
	 * Each close is checked (ex_close exits 1 naming the one that fails). */
	ex_close(ctx);
	ex_close(pd);
	ex_close(cq);
	ex_close(mr);
	ex_close(qp);
	printf("loopback: all operations checked, everything closed\n");
	return 0;
}
