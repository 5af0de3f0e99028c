/* SPDX-License-Identifier: MIT */
/*
 * typed_vs_raw: what the typed API costs on the data path.
 *
 * 1. Instructions per post+poll of one signaled RDMA write, typed
 *    (vs_rc_batch_start/vs_rc_write/vs_rc_batch_submit + vs_cq_iter) vs raw
 *    (ibv_wr_start/ibv_wr_rdma_write/ibv_wr_set_sge/ibv_wr_complete +
 *    ibv_start_poll/ibv_end_poll) on the same QP and CQ, counted by
 *    callgrind with collection on only inside the post and the successful
 *    poll (the program re-runs itself under valgrind; needs valgrind);
 *    and the same per write for doorbell batches of 8.
 * 2. Messages per second for doorbell batches of 1, 8 and 32 writes (only
 *    the last signaled), typed and raw.
 *
 *   typed_vs_raw [-d dev] [-n writes]        prints both tables
 *   typed_vs_raw --count typed|raw|typed-batch-poll|typed8|raw8 N
 *                                              (used under callgrind)
 *
 * Needs a device (runs in the SoftRoCE VM).  Figures under TCG/rxe show
 * relative costs, not hardware performance.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <verbshim.h>

#define NOINLINE __attribute__((noinline))

static struct vs_context *ctx;
static struct vs_pd *pd;
static struct vs_cq *cq;
static struct vs_mr *mr;
static struct vs_rc_qp *qp;
static struct ibv_qp_ex *raw_qpx;
static struct ibv_cq_ex *raw_cqx;
static uint8_t *mem;
/* what the one-write pieces post: the same prepared SGE and target */
static struct ibv_sge src_sge;
static struct vs_remote dst;

static void die(const char *what)
{
	char buf[600];

	fprintf(stderr, "%s: %s\n", what,
		vs_format_error(vs_last_error(), buf, sizeof(buf)));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void setup(const char *dev)
{
	struct vs_endpoint ep;

	if (vs_device_open(dev, &ctx) || vs_pd_alloc(ctx, &pd) ||
	    vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 256 }, &cq) ||
	    vs_mr_alloc(pd, 1 << 20, 0, &mr) ||
	    vs_rc_qp_create(pd, &(struct vs_rc_config){
		    .send_cq = cq, .caps = { .max_send_wr = 128 } }, &qp) ||
	    vs_rc_endpoint(qp, &ep) || vs_rc_handshake(qp, &ep))
		die("setup");
	raw_qpx = qp->base.qpx;
	raw_cqx = cq->cqx;
	if (!raw_qpx || !raw_cqx) {
		fprintf(stderr, "the provider has no extended QP/CQ: nothing to "
			"compare against raw ibv_wr_*\n");
		exit(77);
	}
	mem = vs_mr_ptr(mr, 0);
	src_sge = vs_mr_sge(mr, 0, 64);
	dst = vs_mr_remote(mr, 4096);
}

/* ---- the four measured pieces (callgrind collects inside these) ---- */

NOINLINE int bench_typed_post(uint64_t id, unsigned int batch)
{
	struct vs_rc_batch b;
	int ret = vs_rc_batch_start(qp, &b);

	if (ret)
		return ret;
	for (unsigned int i = 0; i < batch; i++) {
		ret = vs_rc_write(&b, id + i, i == batch - 1 ? VS_WR_SIGNALED : 0,
				  &src_sge, 1, (struct vs_remote){
					  .addr = dst.addr + (size_t)i * 64,
					  .rkey = dst.rkey });
		if (ret) {
			vs_rc_batch_abort(&b);
			return ret;
		}
	}
	return vs_rc_batch_submit(&b);
}

NOINLINE int bench_raw_post(uint64_t id, unsigned int batch)
{
	ibv_wr_start(raw_qpx);
	for (unsigned int i = 0; i < batch; i++) {
		raw_qpx->wr_id = id + i;
		raw_qpx->wr_flags = i == batch - 1 ? IBV_SEND_SIGNALED : 0;
		ibv_wr_rdma_write(raw_qpx, dst.rkey, dst.addr + (size_t)i * 64);
		ibv_wr_set_sge(raw_qpx, src_sge.lkey, src_sge.addr,
			       src_sge.length);
	}
	return ibv_wr_complete(raw_qpx);
}

/*
 * The single signaled write the instruction counts are about: both sides
 * post the same prepared SGE to the same target, in the same steps.
 */
NOINLINE int bench_typed_post1(uint64_t id)
{
	struct vs_rc_batch b;
	int ret = vs_rc_batch_start(qp, &b);

	if (ret)
		return ret;
	ret = vs_rc_write(&b, id, VS_WR_SIGNALED, &src_sge, 1, dst);
	return ret ? ret : vs_rc_batch_submit(&b);
}

NOINLINE int bench_raw_post1(uint64_t id)
{
	ibv_wr_start(raw_qpx);
	raw_qpx->wr_id = id;
	raw_qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(raw_qpx, dst.rkey, dst.addr);
	ibv_wr_set_sge(raw_qpx, src_sge.lkey, src_sge.addr, src_sge.length);
	return ibv_wr_complete(raw_qpx);
}

/* 1 = one successful completion consumed, 0 = none yet, <0 error */
NOINLINE int bench_typed_poll(uint64_t *wr_id)
{
	struct vs_cq_iter it;
	int ret = vs_cq_iter_start(cq, &it);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	ret = vs_cq_iter_status(&it) == IBV_WC_SUCCESS ? 1 : -EIO;
	*wr_id = vs_cq_iter_wr_id(&it);
	vs_cq_iter_end(&it);
	return ret;
}

NOINLINE int bench_typed_batch_poll(uint64_t *wr_id)
{
	struct vs_wc wc;
	int n = vs_cq_poll(cq, &wc, 1);

	if (n <= 0)
		return n;
	*wr_id = wc.wr_id;
	return wc.status == IBV_WC_SUCCESS ? 1 : -EIO;
}

NOINLINE int bench_raw_poll(uint64_t *wr_id)
{
	struct ibv_poll_cq_attr attr = { 0 };
	int ret = ibv_start_poll(raw_cqx, &attr);

	if (ret)
		return ret == ENOENT ? 0 : -ret;
	ret = raw_cqx->status == IBV_WC_SUCCESS ? 1 : -EIO;
	*wr_id = raw_cqx->wr_id;
	/* one CQE per start/end pair: rxe's ibv_next_poll ends the batch itself */
	ibv_end_poll(raw_cqx);
	return ret;
}

typedef int (*post_fn)(uint64_t, unsigned int);
typedef int (*poll_fn)(uint64_t *);

/* Waits (outside the measured functions) until a completion is surely there. */
static void settle(volatile uint8_t *dst, uint8_t want)
{
	uint64_t until = now_ns() + 2000000000ull;

	while (*dst != want && now_ns() < until)
		sched_yield();
	usleep(300); /* the ACK and the CQE follow the data on rxe */
}

/* modes: typed, raw, typed-batch-poll (one write); typed8, raw8 (batches of 8) */
static int count_mode(const char *mode, int n)
{
	bool raw = !strncmp(mode, "raw", 3);
	unsigned int batch = mode[strlen(mode) - 1] == '8' ? 8 : 1;
	post_fn post = raw ? bench_raw_post : bench_typed_post;
	int (*post1)(uint64_t) = raw ? bench_raw_post1 : bench_typed_post1;
	poll_fn poll = raw ? bench_raw_poll :
		       !strcmp(mode, "typed-batch-poll") ? bench_typed_batch_poll :
							   bench_typed_poll;
	int empty = 0;

	/*
	 * One batch started and aborted outside the counted functions: a
	 * QP's one-time setup (on rxe the bounce ring, made by the first
	 * start) is not a cost per write.
	 */
	if (raw) {
		ibv_wr_start(raw_qpx);
		ibv_wr_abort(raw_qpx);
	} else {
		struct vs_rc_batch b;

		if (vs_rc_batch_start(qp, &b))
			die("batch start");
		vs_rc_batch_abort(&b);
	}
	for (int i = 0; i < n; i++) {
		uint64_t id = 0, last = (uint64_t)i * batch + batch - 1;
		int r;

		mem[0] = (uint8_t)(i + 1);
		if (batch == 1 ? post1(last) : post((uint64_t)i * batch, batch))
			die("post");
		settle(mem + 4096 + (batch - 1) * 64, (uint8_t)(i + 1));
		while ((r = poll(&id)) == 0)
			empty++, usleep(100);
		if (r < 0 || id != last) {
			fprintf(stderr, "completion %d: r=%d wr_id %llu\n", i, r,
				(unsigned long long)id);
			return 1;
		}
	}
	printf("empty polls: %d\n", empty);
	return 0;
}

static double msgs_per_sec(post_fn post, poll_fn poll, unsigned int batch, int total)
{
	uint64_t t0 = now_ns();
	int done = 0;

	while (done < total) {
		uint64_t id;
		int r;

		if (post((uint64_t)done, batch))
			die("post");
		done += (int)batch;
		while ((r = poll(&id)) == 0)
			;
		if (r < 0)
			die("poll");
	}
	return total / ((double)(now_ns() - t0) / 1e9);
}

/* Runs this program under callgrind; returns instructions per iteration. */
static double callgrind_count(const char *mode, const char *fns, int n)
{
	char self[PATH_MAX], cmd[2 * PATH_MAX], out[64], line[256];
	unsigned long long total = 0;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;

	if (len <= 0)
		return -1;
	self[len] = 0;
	snprintf(out, sizeof(out), "/tmp/vs_bench_cg.%d.%s", (int)getpid(), mode);
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=callgrind --callgrind-out-file=%s %s "
		 "%s --count %s %d >/dev/null 2>&1", out, fns, self, mode, n);
	if (system(cmd)) {
		fprintf(stderr, "callgrind run failed: %s\n", cmd);
		return -1;
	}
	f = fopen(out, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))
			total = strtoull(strchr(line, ':') + 1, NULL, 10);
	fclose(f);
	unlink(out);
	return (double)total / n;
}

int main(int argc, char **argv)
{
	const char *dev = getenv("VS_RXE_DEV");
	static const unsigned int batches[] = { 1, 8, 32 };
	int total = 8192, opt;

	if (argc == 4 && !strcmp(argv[1], "--count")) {
		setup(dev);
		return count_mode(argv[2], atoi(argv[3]));
	}
	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'n')
			total = atoi(optarg);
		else {
			fprintf(stderr, "usage: %s [-d dev] [-n writes]\n", argv[0]);
			return 2;
		}
	}
	setup(dev);
	printf("typed API vs raw ibv_wr_* on %s (%s CQ polling)\n", ctx->name,
	       cq->one_per_start ? "one CQE per start/end" : "start/next/end");
	printf("\nmessages/s, %d RDMA writes of 64 bytes, one doorbell per batch, "
	       "last WR signaled\n", total);
	printf("  %-6s %14s %14s %8s\n", "batch", "typed", "raw", "typed/raw");
	for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
		/* alternate and keep the best of 3: the VM is noisy */
		double t = 0, r = 0;

		for (int rep = 0; rep < 3; rep++) {
			double a = msgs_per_sec(bench_typed_post, bench_typed_poll,
						batches[k], total);
			double b = msgs_per_sec(bench_raw_post, bench_raw_poll,
						batches[k], total);

			t = a > t ? a : t;
			r = b > r ? b : r;
		}
		printf("  %-6u %14.0f %14.0f %8.3f\n", batches[k], t, r, t / r);
	}

	{
		const int n = 200;
		double typed = callgrind_count("typed",
			"--toggle-collect=bench_typed_post1 --toggle-collect=bench_typed_poll", n);
		double batch = callgrind_count("typed-batch-poll",
			"--toggle-collect=bench_typed_post1 --toggle-collect=bench_typed_batch_poll", n);
		double raw = callgrind_count("raw",
			"--toggle-collect=bench_raw_post1 --toggle-collect=bench_raw_poll", n);
		double typed8 = callgrind_count("typed8",
			"--toggle-collect=bench_typed_post --toggle-collect=bench_typed_poll", n) / 8;
		double raw8 = callgrind_count("raw8",
			"--toggle-collect=bench_raw_post --toggle-collect=bench_raw_poll", n) / 8;

		printf("\ninstructions per post+poll of one signaled write "
		       "(callgrind, %d iterations, user space only)\n", n);
		if (typed < 0 || raw < 0 || batch < 0 || typed8 < 0 || raw8 < 0) {
			printf("  (valgrind not available: skipped)\n");
		} else {
			printf("  %-44s %10.1f\n", "raw ibv_wr_* + ibv_start_poll", raw);
			printf("  %-44s %10.1f  %+6.1f%%\n",
			       "typed batch + vs_cq_iter (lazy fields)", typed,
			       100.0 * (typed - raw) / raw);
			printf("  %-44s %10.1f  %+6.1f%%\n",
			       "typed batch + vs_cq_poll (every field)", batch,
			       100.0 * (batch - raw) / raw);
			printf("\nper write in doorbell batches of 8 (one signaled, one poll)\n");
			printf("  %-44s %10.1f\n", "raw ibv_wr_* + ibv_start_poll", raw8);
			printf("  %-44s %10.1f  %+6.1f%%\n",
			       "typed batch + vs_cq_iter (lazy fields)", typed8,
			       100.0 * (typed8 - raw8) / raw8);
		}
	}
	if (vs_rc_qp_close(qp) || vs_mr_close(mr) || vs_cq_close(cq) ||
	    vs_pd_close(pd) || vs_context_close(ctx))
		die("teardown");
	return 0;
}
