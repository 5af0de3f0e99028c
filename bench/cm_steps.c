/* SPDX-License-Identifier: MIT */
/*
 * cm_steps: what the typed connection manager costs per step against the
 * same librdmacm calls made raw, in one process, the two taking turns
 * (bench/cm_setup.sh compares whole tools, cm_time against cmtime, which
 * differ in threads and order too; this isolates the library).
 *
 *   resolve  N ids on one event channel: raw rdma_create_id +
 *            rdma_resolve_addr, the route asked at ADDR_RESOLVED, until N
 *            ROUTE_RESOLVED (rdma_get_cm_event, blocking); typed
 *            vs_cm_resolve_addr (no_wait, one shared vs_cm_channel) until N
 *            ROUTE_RESOLVED from vs_cm_channel_next
 *   qp       on N resolved ids, one PD and one CQ: raw rdma_create_qp (1 WR
 *            and 1 SGE each way, INIT); typed vs_cm_rc_qp_create (the same
 *            caps, INIT)
 *
 *   cm_steps [-n ids] [-r rounds (10)] ADDRESS  (an address of this host's
 *                                            RDMA device: nothing listens)
 *
 * Each round runs raw then typed, or typed then raw (alternating: with
 * the default, even, number of rounds each side goes first equally often;
 * under TCG whichever goes first in a round is often the slower); each
 * side destroys what it made and waits 0.3 s for the kernel's teardown.
 * Prints each round's microseconds per id, the medians, and each phase's
 * minor page faults per id (fresh memory: kernel work that the user-space
 * instruction counts below do not show); figures, never judged.  Needs a device (the SoftRoCE VM).
 *
 * Instructions per id of each phase (user space: the library and
 * librdmacm, not the kernel's work), which TCG's noise does not move:
 *   valgrind --tool=callgrind --toggle-collect=raw_resolve \
 *     --toggle-collect=raw_qp --toggle-collect=typed_resolve \
 *     --toggle-collect=typed_qp cm_steps -r 2 ADDRESS
 * then callgrind_annotate --inclusive=yes: each phase's figure / (2 n).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <verbshim.h>

#define MAX_IDS 512
#define MAX_ROUNDS 64

static struct rdma_addrinfo *dst;
static struct vs_pd *pd;
static struct vs_cq *cq;
static int n = 50;

/* minor page faults so far: the kernel's share of a phase that no user
 * instruction count shows (fresh memory costs a fault per page) */
static long faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* faults per phase, summed over the rounds: resolve raw/typed, qp raw/typed */
static long fault_sum[4];

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "cm_steps: %s: %s\n", what,
		vs_last_error()->err ? vs_last_error()->message : strerror(errno));
	exit(1);
}

/* The verbs objects both sides share, made once on the device of id. */
static void verbs_once(struct vs_cm_id *id)
{
	if (pd)
		return;
	if (vs_pd_alloc(vs_cm_context(id), &pd) ||
	    vs_cq_create(vs_cm_context(id), &(struct vs_cq_config){ .depth = 2 }, &cq))
		die("PD and CQ");
}

/*
 * The kernel tears destroyed ids and QPs down in its own time (rxe's
 * cleanup work, the CM's): let it finish outside the clock, or it lands
 * in the other side's next measurement.
 */
static void settle(void)
{
	usleep(300 * 1000);
}

#define NOINLINE __attribute__((noinline))

/* The four timed phases, each a function of its own for callgrind (below). */
static NOINLINE void raw_resolve(struct rdma_event_channel *ch,
				 struct rdma_cm_id **id)
{
	for (int i = 0; i < n; i++)
		if (rdma_create_id(ch, &id[i], NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(id[i], NULL, dst->ai_dst_addr, 2000))
			die("rdma_create_id / rdma_resolve_addr");
	for (int left = n; left;) {
		struct rdma_cm_event *e;

		if (rdma_get_cm_event(ch, &e))
			die("rdma_get_cm_event");
		if (e->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
			if (rdma_resolve_route(e->id, 2000))
				die("rdma_resolve_route");
		} else if (e->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
			left--;
		} else {
			fprintf(stderr, "cm_steps: raw: %s\n", rdma_event_str(e->event));
			exit(1);
		}
		rdma_ack_cm_event(e);
	}
}

static NOINLINE void raw_qp(struct rdma_cm_id **id)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = vs_cq_raw(cq),
		.recv_cq = vs_cq_raw(cq),
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	for (int i = 0; i < n; i++)
		if (rdma_create_qp(id[i], vs_pd_raw(pd), &qa))
			die("rdma_create_qp");
}

static NOINLINE void typed_resolve(struct vs_cm_channel *ch, struct vs_cm_id **id)
{
	for (int i = 0; i < n; i++)
		if (vs_cm_resolve_addr(dst->ai_dst_addr, &(struct vs_cm_config){
			.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = ch,
			.no_wait = true }, &id[i]))
			die("vs_cm_resolve_addr");
	for (int left = n; left;) {
		struct vs_cm_event ev;

		if (vs_cm_channel_next(ch, 10000, &ev) || ev.err)
			die("vs_cm_channel_next");
		if (ev.type == RDMA_CM_EVENT_ROUTE_RESOLVED)
			left--;
	}
}

static NOINLINE void typed_qp(struct vs_cm_id **id, struct vs_rc_qp **q)
{
	for (int i = 0; i < n; i++)
		if (vs_cm_rc_qp_create(id[i], pd, &(struct vs_rc_config){
			.send_cq = cq,
			.caps = { .max_send_wr = 1, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 } }, &q[i]))
			die("vs_cm_rc_qp_create");
}

static void raw_round(double *resolve, double *qp)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id[MAX_IDS];
	double t0, t1, t2;
	long f0, f1, f2;

	if (!ch)
		die("rdma_create_event_channel");
	f0 = faults();
	t0 = now_us();
	raw_resolve(ch, id);
	t1 = now_us();
	f1 = faults();
	raw_qp(id);
	t2 = now_us();
	f2 = faults();
	fault_sum[0] += f1 - f0;
	fault_sum[1] += f2 - f1;
	*resolve = (t1 - t0) / n;
	*qp = (t2 - t1) / n;
	for (int i = 0; i < n; i++) {
		rdma_destroy_qp(id[i]);
		rdma_destroy_id(id[i]);
	}
	rdma_destroy_event_channel(ch);
	settle();
}

static void typed_round(double *resolve, double *qp)
{
	struct vs_cm_id *id[MAX_IDS];
	struct vs_rc_qp *q[MAX_IDS];
	struct vs_cm_channel *ch;
	double t0, t1, t2;
	long f0, f1, f2;

	if (vs_cm_channel_create(&ch))
		die("vs_cm_channel_create");
	f0 = faults();
	t0 = now_us();
	typed_resolve(ch, id);
	t1 = now_us();
	f1 = faults();
	typed_qp(id, q);
	t2 = now_us();
	f2 = faults();
	fault_sum[2] += f1 - f0;
	fault_sum[3] += f2 - f1;
	*resolve = (t1 - t0) / n;
	*qp = (t2 - t1) / n;
	for (int i = 0; i < n; i++)
		if (vs_rc_qp_close(q[i]) || vs_cm_close(id[i]))
			die("close");
	if (vs_cm_channel_close(ch))
		die("vs_cm_channel_close");
	settle();
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int k)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, (size_t)k * sizeof(*v));
	qsort(s, (size_t)k, sizeof(*s), cmp);
	return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

int main(int argc, char **argv)
{
	double rr[MAX_ROUNDS], rq[MAX_ROUNDS], tr[MAX_ROUNDS], tq[MAX_ROUNDS];
	int rounds = 10, c;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 'r')
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (optind != argc - 1 || n < 1 || n > MAX_IDS || rounds < 1 ||
	    rounds > MAX_ROUNDS)
		goto usage;
	if (rdma_getaddrinfo(argv[optind], "7999", &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_TCP }, &dst))
		die("rdma_getaddrinfo");
	{
		/* the device's PD and CQ, made once outside every clock */
		struct vs_cm_id *id;

		if (vs_cm_resolve_addr(dst->ai_dst_addr, NULL, &id))
			die("vs_cm_resolve_addr");
		verbs_once(id);
		if (vs_cm_close(id))
			die("vs_cm_close");
	}
	printf("cm_steps: %d ids per round, %d rounds, raw and typed in turn "
	       "(us per id)\n", n, rounds);
	printf("%-6s %12s %12s %12s %12s\n", "round", "resolve raw", "typed",
	       "qp raw", "typed");
	for (int r = 0; r < rounds; r++) {
		if (r % 2) {
			typed_round(&tr[r], &tq[r]);
			raw_round(&rr[r], &rq[r]);
		} else {
			raw_round(&rr[r], &rq[r]);
			typed_round(&tr[r], &tq[r]);
		}
		printf("%-6d %12.1f %12.1f %12.1f %12.1f\n", r + 1, rr[r], tr[r],
		       rq[r], tq[r]);
	}
	printf("%-6s %12.1f %12.1f %12.1f %12.1f\n", "median", median(rr, rounds),
	       median(tr, rounds), median(rq, rounds), median(tq, rounds));
	printf("%-6s %12.2f %12.2f %12.2f %12.2f\n", "faults",
	       fault_sum[0] / (double)(n * rounds),
	       fault_sum[2] / (double)(n * rounds),
	       fault_sum[1] / (double)(n * rounds),
	       fault_sum[3] / (double)(n * rounds));
	printf("typed / raw: resolve %.2fx, qp %.2fx\n",
	       median(tr, rounds) / median(rr, rounds),
	       median(tq, rounds) / median(rq, rounds));
	if (vs_cq_close(cq) || vs_pd_close(pd))
		die("close");
	rdma_freeaddrinfo(dst);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n ids] [-r rounds] ADDRESS\n", argv[0]);
	return 2;
}
