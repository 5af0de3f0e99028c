// SPDX-License-Identifier: MIT
/*
 * verbs_loopback: the plain-verbs drop-in check.  Only <infiniband/verbs.h>,
 * nothing of verbshim's own: linked with libverbshim.a it must behave as
 * linked with -libverbs.
 *
 * Opens the first device (or $VS_RXE_DEV), picks GID $VS_RXE_GID_INDEX (or
 * the first RoCE v2 IPv4 one), connects one RC QP to itself and does SEND/
 * RECV, RDMA WRITE, RDMA READ, FETCH_AND_ADD and CMP_AND_SWP (match and
 * mismatch), checking every byte that arrived, then a short burst of
 * writes for a throughput figure.  Prints a report with timings.
 *
 *   verbs_loopback [-d DEV] [-g GID_INDEX] [-n BURST]
 *
 * Exit: 0 when every byte matched, 1 otherwise (a call that failed is
 * named with its errno, and every object made is destroyed first, each
 * destroy checked), 77 when there is no device (none listed, or the
 * kernel has no RDMA support) or it is iWARP (its QPs connect only
 * through rdma_cm, never to themselves).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

enum {
	PORT = 1,
	LEN = 256,
	OFF_SRC = 0,
	OFF_DST = 4096,
	OFF_RECV = 8192,
	OFF_READ = 12288,
	OFF_ATOMIC = 16384,
	OFF_RESULT = 16392,
	OFF_BURST = 20480,
	BURST_LEN = 65536,
	BUF_LEN = OFF_BURST + 2 * BURST_LEN,
};

/* What the program made, destroyed by teardown() on every way out. */
static struct ibv_device **list;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *buf;
static int failures;
static volatile int access_flags = IBV_ACCESS_LOCAL_WRITE |
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_REMOTE_ATOMIC;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ibv_close_device's failure as the others': an errno. */
static int close_device(struct ibv_context *c)
{
	errno = 0;
	return ibv_close_device(c) ? (errno ? errno : EIO) : 0;
}

/*
 * One destroy, checked: its failure is one more (the teardown is part of
 * what is checked), said with the call and errno, and the destroy is
 * made once more, as a program that retries would.  err: 0 when the
 * object is gone.
 */
#define DESTROY(err, fn, obj)                                                  \
	do {                                                                   \
		(err) = fn(obj);                                               \
		if (err) {                                                     \
			fprintf(stderr, "verbs_loopback: %s: %s\n", #fn,        \
				strerror(err));                                \
			failures++;                                            \
			(err) = fn(obj);                                       \
			if (err)                                               \
				fprintf(stderr, "verbs_loopback: %s again: "    \
					"%s\n", #fn, strerror(err));           \
		}                                                              \
	} while (0)

/*
 * Everything made, in reverse.  What a destroy that failed twice keeps
 * alive is left alone, with what depends on it: the memory under an MR
 * still registered (the device may reach it), the CQ and PD of a QP
 * still there, the device of a PD or CQ still there.
 */
static void teardown(void)
{
	int err;

	if (qp) {
		DESTROY(err, ibv_destroy_qp, qp);
		if (!err)
			qp = NULL;
	}
	if (cq && !qp) {
		DESTROY(err, ibv_destroy_cq, cq);
		if (!err)
			cq = NULL;
	}
	if (mr) {
		DESTROY(err, ibv_dereg_mr, mr);
		if (!err)
			mr = NULL;
	}
	if (!mr) {
		free(buf);
		buf = NULL;
	}
	if (pd && !qp && !mr) {
		DESTROY(err, ibv_dealloc_pd, pd);
		if (!err)
			pd = NULL;
	}
	if (ctx && !pd && !cq) {
		DESTROY(err, close_device, ctx);
		if (!err)
			ctx = NULL;
	}
	if (list)
		ibv_free_device_list(list);
	list = NULL;
}

/* A call failed: say which and why, destroy what was made, exit 1. */
static void die(const char *what, int err)
{
	fprintf(stderr, "verbs_loopback: %s: %s\n", what, strerror(err));
	teardown();
	exit(1);
}

/* Polls until n completions arrived (5 s at most); checks their status. */
static void wait_wc(int n, struct ibv_wc *wcs, const char *what)
{
	double deadline = now_us() + 5e6;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wcs + got);

		if (r < 0) {
			fprintf(stderr, "%s: ", what);
			die("ibv_poll_cq", EIO);
		}
		got += r;
		if (!r && now_us() > deadline) {
			fprintf(stderr, "%s: %d of %d completions in 5 s\n", what,
				got, n);
			teardown();
			exit(1);
		}
	}
	for (int i = 0; i < n; i++) {
		if (wcs[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: completion %s (wr_id %" PRIu64 ")\n",
				what, ibv_wc_status_str(wcs[i].status),
				wcs[i].wr_id);
			teardown();
			exit(1);
		}
	}
}

static void post(struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(qp, wr, &bad);

	if (err) {
		fprintf(stderr, "%s: ", what);
		die("ibv_post_send", err);
	}
}

static void check(bool ok, const char *what, double us, const char *detail)
{
	printf("  %-22s %-4s %8.1f us  %s\n", what, ok ? "ok" : "FAIL", us,
	       detail);
	if (!ok)
		failures++;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static int find_gid(void)
{
	const char *env = getenv("VS_RXE_GID_INDEX");

	if (env && *env)
		return atoi(env);
	for (int i = 0; i < 16; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(ctx, PORT, i, &e, 0))
			continue;
		/* ::ffff:a.b.c.d */
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !e.gid.global.subnet_prefix &&
		    e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff)
			return i;
	}
	return 0;
}

static void connect_self(int gid_index)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	int err;

	err = ibv_query_port(ctx, PORT, &port);
	if (err)
		die("ibv_query_port", err);
	errno = 0;
	err = ibv_query_gid(ctx, PORT, gid_index, &gid);
	if (err)
		die("ibv_query_gid", errno ? errno : EINVAL);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		die("ibv_modify_qp to INIT", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port.active_mtu;
	a.dest_qp_num = qp->qp_num; /* ourselves */
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.dlid = port.lid;
	a.ah_attr.port_num = PORT;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		die("ibv_modify_qp to RTR", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		die("ibv_modify_qp to RTS", err);
}

static void op_send(void)
{
	struct ibv_sge s = { (uintptr_t)buf + OFF_SRC, LEN, mr->lkey };
	struct ibv_sge r = { (uintptr_t)buf + OFF_RECV, LEN, mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &r, .num_sge = 1 };
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *bad;
	struct ibv_wc wc[2];
	char d[64];
	double t;
	int err;

	fill(buf + OFF_SRC, LEN, 1);
	memset(buf + OFF_RECV, 0, LEN);
	err = ibv_post_recv(qp, &rwr, &bad);
	if (err)
		die("ibv_post_recv", err);
	t = now_us();
	post(&wr, "SEND");
	wait_wc(2, wc, "SEND/RECV");
	t = now_us() - t;
	const struct ibv_wc *rc = wc[0].wr_id == 1 ? &wc[0] : &wc[1];

	snprintf(d, sizeof(d), "%u bytes received", rc->byte_len);
	check(rc->opcode == IBV_WC_RECV && rc->byte_len == LEN &&
	      !memcmp(buf + OFF_SRC, buf + OFF_RECV, LEN), "SEND/RECV", t, d);
}

static void op_rdma(enum ibv_wr_opcode op, const char *name, size_t from,
		    size_t to, unsigned int seed)
{
	/* WRITE: local from -> remote to; READ: remote from -> local to. */
	size_t local = op == IBV_WR_RDMA_WRITE ? from : to;
	size_t remote = op == IBV_WR_RDMA_WRITE ? to : from;
	struct ibv_sge s = { (uintptr_t)buf + local, LEN, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 3, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)buf + remote, mr->rkey },
	};
	struct ibv_wc wc;
	double t;

	fill(buf + from, LEN, seed);
	memset(buf + to, 0, LEN);
	t = now_us();
	post(&wr, name);
	wait_wc(1, &wc, name);
	t = now_us() - t;
	check(!memcmp(buf + from, buf + to, LEN), name, t, "256 bytes checked");
}

static void op_atomic(enum ibv_wr_opcode op, const char *name, uint64_t init,
		      uint64_t a, uint64_t b, uint64_t want_mem)
{
	struct ibv_sge s = { (uintptr_t)buf + OFF_RESULT, 8, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 4, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { (uintptr_t)buf + OFF_ATOMIC, a, b, mr->rkey },
	};
	uint64_t *mem = (uint64_t *)(buf + OFF_ATOMIC);
	uint64_t *res = (uint64_t *)(buf + OFF_RESULT);
	struct ibv_wc wc;
	char d[96];
	double t;

	*mem = init;
	*res = 0;
	t = now_us();
	post(&wr, name);
	wait_wc(1, &wc, name);
	t = now_us() - t;
	snprintf(d, sizeof(d), "old %#" PRIx64 ", now %#" PRIx64, *res, *mem);
	check(*res == init && *mem == want_mem, name, t, d);
}

static void burst(int n)
{
	struct ibv_sge s = { (uintptr_t)buf + OFF_BURST, BURST_LEN, mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)buf + OFF_BURST + BURST_LEN, mr->rkey },
	};
	struct ibv_wc wc;
	double t;
	char d[96];

	fill(buf + OFF_BURST, BURST_LEN, 5);
	memset(buf + OFF_BURST + BURST_LEN, 0, BURST_LEN);
	t = now_us();
	for (int i = 0; i < n; i++) {
		wr.wr_id = 100 + i;
		post(&wr, "burst");
		wait_wc(1, &wc, "burst");
	}
	t = now_us() - t;
	snprintf(d, sizeof(d), "%d x 64 KiB: %.1f MB/s", n,
		 (double)n * BURST_LEN / t);
	check(!memcmp(buf + OFF_BURST, buf + OFF_BURST + BURST_LEN, BURST_LEN),
	      "RDMA_WRITE burst", t / n, d);
}

int main(int argc, char **argv)
{
	const char *want = getenv("VS_RXE_DEV");
	int gid_index = -1, n = 32, opt, num = 0, access;
	double t0 = now_us();

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((opt = getopt(argc, argv, "d:g:n:")) != -1) {
		switch (opt) {
		case 'd':
			want = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-g GID_INDEX] [-n BURST]\n",
				argv[0]);
			return 1;
		}
	}

	errno = 0;
	list = ibv_get_device_list(&num);
	/* "no device" only from what was listed, or the kernel saying it has
	 * no RDMA support at all (ENOSYS): any other failure is a failure */
	if (!list && errno != ENOSYS)
		die("ibv_get_device_list", errno ? errno : EIO);
	if (!list || !num) {
		printf("no RDMA device: %s\n", list ? "the list is empty" :
		       "the kernel has no RDMA support loaded (ibv_get_device_list: ENOSYS)");
		teardown();
		return 77;
	}
	for (int i = 0; i < num && !ctx; i++) {
		const char *name;

		errno = 0;
		name = ibv_get_device_name(list[i]);
		if (!name)	/* never from rdma-core: no NULL into strcmp */
			die("ibv_get_device_name", errno ? errno : ENODEV);
		if (want && *want && strcmp(name, want))
			continue;
		errno = 0;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			die("ibv_open_device", errno ? errno : ENODEV);
	}
	if (!ctx) {
		fprintf(stderr, "verbs_loopback: no RDMA device named %s (%d other%s "
			"listed)\n", want, num, num == 1 ? "" : "s");
		teardown();
		return 1;
	}
	if (ctx->device->transport_type == IBV_TRANSPORT_IWARP) {
		printf("%s is an iWARP device: its QPs connect only through "
		       "rdma_cm, so one cannot connect to itself here\n",
		       ctx->device->name);
		teardown();
		return failures ? 1 : 77;
	}
	if (gid_index < 0)
		gid_index = find_gid();
	printf("verbs_loopback: %s, port %d, GID index %d\n",
	       ctx->device->name, PORT, gid_index);

	errno = 0;
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno ? errno : ENOMEM);
	if (posix_memalign((void **)&buf, 4096, BUF_LEN)) {
		buf = NULL;
		die("posix_memalign", ENOMEM);
	}
	memset(buf, 0, BUF_LEN);
	/* Not a constant: ibv_reg_mr's macro takes the ibv_reg_mr_iova2 path. */
	access = access_flags;
	errno = 0;
	mr = ibv_reg_mr(pd, buf, BUF_LEN, access);
	if (!mr)
		die("ibv_reg_mr", errno ? errno : ENOMEM);
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq", errno ? errno : ENOMEM);
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	errno = 0;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die("ibv_create_qp", errno ? errno : ENOMEM);
	connect_self(gid_index);
	printf("  RC QP %#x connected to itself (setup %.1f ms)\n", qp->qp_num,
	       (now_us() - t0) / 1e3);

	op_send();
	op_rdma(IBV_WR_RDMA_WRITE, "RDMA_WRITE", OFF_SRC, OFF_DST, 2);
	op_rdma(IBV_WR_RDMA_READ, "RDMA_READ", OFF_DST, OFF_READ, 3);
	op_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, "FETCH_AND_ADD", 0x1000, 0x234,
		  0, 0x1234);
	op_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, "CMP_AND_SWP (match)", 0x1234,
		  0x1234, 0xabcd, 0xabcd);
	op_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, "CMP_AND_SWP (mismatch)", 0x5555,
		  0x1234, 0xabcd, 0x5555);
	if (n > 0)
		burst(n);

	teardown();	/* each destroy checked: a failure is one more */
	printf("verbs_loopback: %s (%.1f ms in all)\n",
	       failures ? "FAILED" : "every byte matched", (now_us() - t0) / 1e3);
	return failures ? 1 : 0;
}
