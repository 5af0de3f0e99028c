// SPDX-License-Identifier: MIT
/*
 * Cost of one call into libibverbs: through verbshim's exported drop-in
 * definition, or directly through the PLT.
 *
 * This one file is built twice, so that both loops are the same code:
 *   build/bench/call_cost         by the Makefile, linked with
 *                                 libverbshim.a (no -libverbs): calls land
 *                                 on the drop-in, which tail-calls the slot
 *   build/bench/call_cost-direct  by bench/run.sh, linked with -libverbs:
 *                                 calls go through the PLT
 *
 *   call_cost [N [REPS]]   time each loop over N calls (default 10^6),
 *                          best of REPS (default 20), and print
 *                          "time FN NS_PER_CALL N"
 *   call_cost --only FN N  run one loop once, untimed, for callgrind
 *                          (--toggle-collect=vs_bench_loop_FN)
 *
 * The functions called need no device and have no side effects: they are
 * table lookups in libibverbs, so the loop measures the call path.
 */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Many short slices rather than a few long ones: on a small shared
 * machine a 3 ms slice often runs undisturbed where a 30 ms one is
 * almost always cut by another task, and the best slice is the figure.
 */
#define VS_BENCH_DEFAULT_REPS 20UL
#define VS_BENCH_DEFAULT_N 1000000UL

/*
 * The loops are external and noinline so that callgrind can find them by
 * name (a static one may be cloned into a renamed .constprop copy).  The
 * argument is read through a volatile, and then passed through an empty
 * asm each iteration: ibv_rate_to_mult() is declared __attribute_const,
 * and without that the compiler calls it once and hoists it out of the
 * loop (the memory clobber alone does not stop that, a const function
 * reads no memory).  The clobber keeps each call in place otherwise.
 * Both cost no instruction.
 */
static volatile int vs_bench_arg_status = IBV_WC_SUCCESS;
static volatile int vs_bench_arg_rate = IBV_RATE_10_GBPS;

uintptr_t vs_bench_loop_wc_status_str(unsigned long n);
uintptr_t vs_bench_loop_rate_to_mult(unsigned long n);

__attribute__((noinline)) uintptr_t
vs_bench_loop_wc_status_str(unsigned long n)
{
	enum ibv_wc_status status = (enum ibv_wc_status)vs_bench_arg_status;
	uintptr_t sink = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		__asm__ volatile("" : "+r"(status) : : "memory");
		sink += (uintptr_t)ibv_wc_status_str(status);
	}
	return sink;
}

__attribute__((noinline)) uintptr_t
vs_bench_loop_rate_to_mult(unsigned long n)
{
	enum ibv_rate rate = (enum ibv_rate)vs_bench_arg_rate;
	uintptr_t sink = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		__asm__ volatile("" : "+r"(rate) : : "memory");
		sink += (uintptr_t)ibv_rate_to_mult(rate);
	}
	return sink;
}

static const struct vs_bench_loop {
	const char *name;
	uintptr_t (*run)(unsigned long n);
} vs_bench_loops[] = {
	{ "wc_status_str", vs_bench_loop_wc_status_str },
	{ "rate_to_mult", vs_bench_loop_rate_to_mult },
};

#define VS_BENCH_NLOOPS (sizeof(vs_bench_loops) / sizeof(vs_bench_loops[0]))

/* Keeps the loops' results alive, so that they are not optimised out. */
static volatile uintptr_t vs_bench_sink;

static double vs_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * One call outside any loop first: on the shim side it loads libibverbs
 * and fills the table, on the direct side it binds the PLT slot (lazy
 * binding), so that neither one-off cost lands in a measured loop.
 */
static int vs_bench_warm_up(void)
{
	const char *s = ibv_wc_status_str(IBV_WC_SUCCESS);

	vs_bench_sink += (uintptr_t)ibv_rate_to_mult(IBV_RATE_10_GBPS);
	/* The shim's answer when libibverbs could not be loaded. */
	if (!s || !strcmp(s, "unknown") ||
	    ibv_rate_to_mult(IBV_RATE_10_GBPS) != 4) {
		fprintf(stderr, "call_cost: libibverbs calls do not work\n");
		return -1;
	}
	return 0;
}

static unsigned long vs_bench_parse_n(const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 0);

	return *arg && !*end ? n : 0;
}

int main(int argc, char **argv)
{
	double best[VS_BENCH_NLOOPS];
	unsigned long n = VS_BENCH_DEFAULT_N, reps = VS_BENCH_DEFAULT_REPS;
	unsigned long rep;
	unsigned int i;

	if (vs_bench_warm_up())
		return 1;

	if (argc == 4 && !strcmp(argv[1], "--only")) {
		n = vs_bench_parse_n(argv[3]);
		for (i = 0; i < VS_BENCH_NLOOPS; i++)
			if (!strcmp(argv[2], vs_bench_loops[i].name))
				break;
		if (i == VS_BENCH_NLOOPS || !n) {
			fprintf(stderr, "call_cost: bad --only %s %s\n",
				argv[2], argv[3]);
			return 2;
		}
		vs_bench_sink += vs_bench_loops[i].run(n);
		return 0;
	}
	if (argc >= 2)
		n = vs_bench_parse_n(argv[1]);
	if (argc >= 3)
		reps = vs_bench_parse_n(argv[2]);
	if (argc > 3 || !n || !reps) {
		fprintf(stderr, "usage: call_cost [N [REPS]] | --only FN N\n");
		return 2;
	}

	/* Untimed pass: caches, branch predictors and CPU clock settle. */
	for (i = 0; i < VS_BENCH_NLOOPS; i++) {
		vs_bench_sink += vs_bench_loops[i].run(n / 10 + 1);
		best[i] = 0;
	}
	/* Loops interleaved within each repetition, so that a slow spell
	 * of the machine does not fall on one loop only. */
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < VS_BENCH_NLOOPS; i++) {
			double t0 = vs_bench_now_ns(), t;

			vs_bench_sink += vs_bench_loops[i].run(n);
			t = vs_bench_now_ns() - t0;
			if (rep == 0 || t < best[i])
				best[i] = t;
		}
	}
	for (i = 0; i < VS_BENCH_NLOOPS; i++)
		printf("time %s %.3f %lu\n", vs_bench_loops[i].name,
		       best[i] / (double)n, n);
	return 0;
}
