/* SPDX-License-Identifier: MIT */
/*
 * qp_create: what a typed RC QP's create costs against the raw verbs a
 * textbook program makes for the same QP, in one process, taking turns.
 *
 *   raw     ibv_create_qp_ex (1 WR and 1 SGE each way, the send ops the
 *           typed QP asks for) + ibv_modify_qp to INIT
 *   typed   vs_rc_qp_create (the same caps): the QP, INIT, and the pick of
 *           the port's GID and a random PSN for its endpoint
 *   given   vs_rc_qp_create with VS_QP_CFG_GID_INDEX and VS_QP_CFG_PSN:
 *           the caller names the GID and the PSN, nothing is picked
 *
 *   qp_create [-n qps (50)] [-r rounds (10)] [DEVICE]
 *
 * One PD and one CQ for all, made outside every clock.  Each round runs
 * the three sides in a rotating order (each goes first as often); each
 * side destroys what it made and waits 0.3 s for the kernel's teardown
 * outside its clock.  Prints each round's microseconds per QP, the
 * medians, and each side's minor page faults per QP; figures, never
 * judged.  Needs a device: in the SoftRoCE VM, with the deterministic clock,
 *   scripts/vm-run.sh --icount 0 -- build/bench/qp_create
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <verbshim.h>

#define MAX_QPS 512
#define MAX_ROUNDS 64
#define SIDES 3

static const char *const side_name[SIDES] = { "raw", "typed", "given" };
static struct vs_context *ctx;
static struct vs_pd *pd;
static struct vs_cq *cq;
static int n = 50;
static uint32_t gid_index;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "qp_create: %s failed (%d): %s\n", what, err,
		vs_last_error()->message);
	exit(1);
}

#define NOINLINE __attribute__((noinline))

/* Each timed phase a function of its own, for callgrind's --toggle-collect. */
static NOINLINE void raw_create(struct ibv_qp **qp)
{
	for (int i = 0; i < n; i++) {
		struct ibv_qp_init_attr_ex a = {
			.qp_type = IBV_QPT_RC,
			.send_cq = vs_cq_raw(cq),
			.recv_cq = vs_cq_raw(cq),
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = vs_pd_raw(pd),
			.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_RDMA_WRITE,
		};
		struct ibv_qp_attr init = {
			.qp_state = IBV_QPS_INIT,
			.port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		};

		qp[i] = ibv_create_qp_ex(ctx->ctx, &a);
		if (!qp[i])
			die("ibv_create_qp_ex", -1);
		if (ibv_modify_qp(qp[i], &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			die("ibv_modify_qp INIT", -1);
	}
}

static NOINLINE void typed_create(struct vs_rc_qp **qp, bool given)
{
	for (int i = 0; i < n; i++) {
		struct vs_rc_config cfg = {
			.send_cq = cq,
			.caps = { .max_send_wr = 1, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 },
		};
		int ret;

		if (given) {
			cfg.comp_mask = VS_QP_CFG_GID_INDEX | VS_QP_CFG_PSN;
			cfg.gid_index = gid_index;
			cfg.psn = 0x1234 + i;
		}
		ret = vs_rc_qp_create(pd, &cfg, &qp[i]);
		if (ret)
			die("vs_rc_qp_create", ret);
	}
}

/* side's microseconds per QP, and its faults added to *f */
static double round_of(int side, long *f)
{
	struct ibv_qp *raw[MAX_QPS];
	struct vs_rc_qp *typed[MAX_QPS];
	double t0, t1;
	long f0;

	f0 = faults();
	t0 = now_us();
	if (side == 0)
		raw_create(raw);
	else
		typed_create(typed, side == 2);
	t1 = now_us();
	*f += faults() - f0;
	for (int i = 0; i < n; i++) {
		int ret = side ? vs_rc_qp_close(typed[i]) : ibv_destroy_qp(raw[i]);

		if (ret)
			die("close", ret);
	}
	usleep(300 * 1000);
	return (t1 - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int c)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, c * sizeof(*s));
	qsort(s, c, sizeof(*s), cmp_double);
	return c % 2 ? s[c / 2] : (s[c / 2 - 1] + s[c / 2]) / 2;
}

int main(int argc, char **argv)
{
	double us[SIDES][MAX_ROUNDS];
	long fault_sum[SIDES] = { 0 };
	int rounds = 10, opt, ret;
	struct vs_endpoint ep;
	struct vs_rc_qp *probe;
	struct ibv_port_attr port;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (n < 1 || n > MAX_QPS || rounds < 1 || rounds > MAX_ROUNDS ||
	    argc - optind > 1)
		goto usage;
	ret = vs_device_open(argc > optind ? argv[optind] : NULL, &ctx);
	if (ret)
		die("vs_device_open", ret);
	ret = vs_pd_alloc(ctx, &pd);
	if (!ret)
		ret = vs_cq_create(ctx, &(struct vs_cq_config){ .depth = 2 }, &cq);
	if (ret)
		die("PD and CQ", ret);
	/* the GID the typed pick chooses, for the "given" side */
	ret = vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &probe);
	if (!ret)
		ret = vs_rc_endpoint(probe, &ep);
	if (ret)
		die("the probe QP", ret);
	vs_rc_qp_close(probe);
	if (ibv_query_port(ctx->ctx, ep.port, &port))
		die("ibv_query_port", -1);
	for (gid_index = 0;; gid_index++) {
		union ibv_gid g;

		if (gid_index >= (uint32_t)port.gid_tbl_len)
			die("finding the picked GID in the table", -1);
		if (!ibv_query_gid(ctx->ctx, ep.port, gid_index, &g) &&
		    !memcmp(&g, &ep.gid, sizeof(g)))
			break;
	}

	printf("qp_create: %d RC QPs per round on %s, %d rounds, the sides in "
	       "turn (us per QP)\n", n, ctx->name, rounds);
	printf("%-6s %10s %10s %10s\n", "round", "raw", "typed", "given");
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < SIDES; k++) {
			int side = (r + k) % SIDES;

			us[side][r] = round_of(side, &fault_sum[side]);
		}
		printf("%-6d %10.1f %10.1f %10.1f\n", r + 1, us[0][r], us[1][r],
		       us[2][r]);
	}
	printf("%-6s %10.1f %10.1f %10.1f\n", "median", median(us[0], rounds),
	       median(us[1], rounds), median(us[2], rounds));
	printf("%-6s", "faults");
	for (int s = 0; s < SIDES; s++)
		printf(" %10.2f", fault_sum[s] / (double)(n * rounds));
	printf("\n");
	for (int s = 1; s < SIDES; s++)
		printf("%s / raw: %.2fx\n", side_name[s],
		       median(us[s], rounds) / median(us[0], rounds));
	if (vs_cq_close(cq) || vs_pd_close(pd) || vs_device_close(ctx))
		die("close", -1);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n qps] [-r rounds] [DEVICE]\n", argv[0]);
	return 2;
}
