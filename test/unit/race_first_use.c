// SPDX-License-Identifier: MIT
/*
 * First use from many threads at once: in each of many fresh processes,
 * threads released together by a barrier make their first call into
 * libibverbs, librdmacm, libefa, libmlx5, libmlx4, libibumad, libhns,
 * libmana and libionic.  Every thread must get the library's own answer,
 * and every table must end up as complete as a load by one thread makes it
 * (the reference, in a fresh process of its own: the headers in use may
 * know nodes this machine's libraries lack, and the machine may lack the
 * newer libraries: then not found, ENOENT, in every process alike).  Built with TSan too
 * (check.sh runs build/tsan/test/unit/race*).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/umad.h>
#include <rdma/rdma_cma.h>

#include "verbshim/loader.h"
#include "vs_test.h"

#define THREADS 16

static pthread_barrier_t start;
/* symbols resolved per library by a load in one thread; its load errno */
static unsigned int reference[2][VS_LIB_COUNT];

struct result {
	int index;
	const char *status_str;
	const char *event_str;
	int efa_ret;
	int mlx_ret;
	int nic_ret;
	size_t umad_size;
	int rate;
};

/* The three rows case 5 asks for, resolved in the reference (each its
 * library's first node: resolved exactly when the library loaded). */
static int nic_reference(void)
{
	return (reference[1][VS_LIB_HNS] == 0 && reference[0][VS_LIB_HNS]) +
	       (reference[1][VS_LIB_MANA] == 0 && reference[0][VS_LIB_MANA]) +
	       (reference[1][VS_LIB_IONIC] == 0 && reference[0][VS_LIB_IONIC]);
}

static void *racer(void *arg)
{
	struct result *r = arg;

	pthread_barrier_wait(&start);
	/* Each thread enters through a different library first. */
	switch (r->index % 7) {
	case 3:
		/* mlx5dv_* / mlx4dv_* calls need a device of theirs: these
		 * load libmlx5 and libmlx4 the same way. */
		r->mlx_ret = vs_symbol_resolved("mlx5dv_query_device") +
			     vs_symbol_resolved("mlx4dv_query_device");
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		break;
	case 4:
		r->umad_size = umad_size();
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		break;
	default:
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		break;
	case 1:
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		break;
	case 5:
		/* Likewise libhns, libmana and libionic (the machine may
		 * have none of them: not found, the same in every thread). */
		r->nic_ret = (vs_symbol_resolved("hnsdv_query_device") == 1) +
			     (vs_symbol_resolved("manadv_init_obj") == 1) +
			     (vs_symbol_resolved("ionic_dv_pd_set_udma_mask") == 1);
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		break;
	case 2:
		/* Every efadv_* call needs an EFA device; this loads libefa
		 * the same way. */
		r->efa_ret = vs_symbol_resolved("efadv_query_device");
		r->status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		r->event_str = rdma_event_str(RDMA_CM_EVENT_ESTABLISHED);
		break;
	}
	r->rate = ibv_rate_to_mult(IBV_RATE_10_GBPS);
	return NULL;
}

static int one_process(void)
{
	struct result results[THREADS];
	pthread_t threads[THREADS];
	struct vs_library_info info;
	int i, lib;

	memset(results, 0, sizeof(results));
	VS_ASSERT_EQ(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (i = 0; i < THREADS; i++) {
		results[i].index = i;
		VS_ASSERT_EQ(pthread_create(&threads[i], NULL, racer,
					    &results[i]), 0);
	}
	for (i = 0; i < THREADS; i++)
		VS_ASSERT_EQ(pthread_join(threads[i], NULL), 0);
	pthread_barrier_destroy(&start);

	for (i = 0; i < THREADS; i++) {
		VS_ASSERT_STREQ(results[i].status_str, "success");
		VS_ASSERT_STREQ(results[i].event_str,
				"RDMA_CM_EVENT_ESTABLISHED");
		VS_ASSERT_EQ(results[i].rate, 4);
		VS_ASSERT_EQ(results[i].efa_ret, i % 7 == 2);
		VS_ASSERT_EQ(results[i].mlx_ret, i % 7 == 3 ? 2 : 0);
		VS_ASSERT_EQ(results[i].umad_size > 0, i % 7 == 4);
		if (i % 7 == 5)	/* as many as the reference found */
			VS_ASSERT_EQ(results[i].nic_ret, nic_reference());
	}
	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		VS_ASSERT_EQ(vs_library_query(lib, &info), 0);
		VS_ASSERT_EQ(info.load_errno, (int)reference[1][lib]);
		if (!info.loaded && !reference[1][lib])
			VS_FAIL("%s: %s", info.name, info.error);
		VS_ASSERT_EQ(info.symbols_resolved, reference[0][lib]);
	}
	return 0;
}

/* The reference: each library loaded by one thread, in a fresh process. */
static void load_reference(void)
{
	struct vs_library_info info;
	int fds[2], status, lib;
	pid_t pid;

	VS_ASSERT_EQ(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (pid == 0) {
		for (lib = 0; lib < VS_LIB_COUNT; lib++) {
			VS_ASSERT_EQ(vs_library_query(lib, &info), 0);
			/* only the newer libraries may be absent */
			if (!info.loaded && (lib < VS_LIB_HNS ||
					     info.load_errno != ENOENT))
				VS_FAIL("%s: %s", info.name, info.error);
			reference[0][lib] = info.symbols_resolved;
			reference[1][lib] = (unsigned int)info.load_errno;
		}
		VS_ASSERT(write(fds[1], reference, sizeof(reference)) ==
			  (ssize_t)sizeof(reference));
		_exit(0);
	}
	close(fds[1]);
	VS_ASSERT(read(fds[0], reference, sizeof(reference)) ==
		  (ssize_t)sizeof(reference));
	close(fds[0]);
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	/*
	 * The full read above is the child's success (it writes only after
	 * all its checks).  Its exit code is not: under valgrind a forked
	 * child's own leak check sees libnl's constructor allocations (of
	 * the providers rdma-core dlopens) as possibly lost and exits 99;
	 * the threads that race the same loads run in this process, checked.
	 */
	VS_ASSERT(WIFEXITED(status));
	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		VS_ASSERT(reference[0][lib] > 0 || reference[1][lib] == ENOENT);
}

int main(void)
{
	const char *env = getenv("VS_RACE_PROCESSES");
	int processes = env ? atoi(env) : 40, i, failed = 0;

	load_reference();
	for (i = 0; i < processes; i++) {
		pid_t pid;
		int status;

		fflush(NULL);
		pid = fork();
		VS_ASSERT(pid >= 0);
		if (pid == 0)
			exit(one_process());
		VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "process %d of %d failed\n", i + 1,
				processes);
			failed = 1;
			break;
		}
	}
	if (!failed)
		printf("%d processes x %d threads: every first call agreed\n",
		       processes, THREADS);
	return failed;
}
