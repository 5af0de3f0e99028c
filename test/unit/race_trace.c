/* SPDX-License-Identifier: MIT */
/*
 * The trace, the counters and the fault counters from many threads at
 * once (built with TSan too: check.sh runs build/tsan/test/unit/race*):
 * threads released together register and deregister memory on the fake
 * provider with VERBSHIM_STATS=1, every 7th ibv_dereg_mr failing with
 * EBUSY on purpose, both functions traced to a file.  The counts must be
 * exact: calls = threads x rounds, failures = calls / 7 (every one
 * EBUSY), one trace line per call, one id per live MR.
 */
#include <fcntl.h>
#include <pthread.h>

#include "vs_config.h"
#include "../common/vs_fake.h"

#define THREADS 8
#define ROUNDS 200	/* 1600 registrations: under valgrind too, a few seconds */

static pthread_barrier_t start;
static struct ibv_pd *pd;

static void *worker(void *arg)
{
	static char buf[THREADS][256];
	char *mem = buf[(uintptr_t)arg];
	unsigned int i, busy = 0;

	pthread_barrier_wait(&start);
	for (i = 0; i < ROUNDS; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, mem, 256,
					       IBV_ACCESS_LOCAL_WRITE);
		int ret;

		if (!mr)
			return (void *)(uintptr_t)1;
		/* injected (the 7th, 14th... call, whichever thread makes
		 * it): it is still registered, try again */
		while ((ret = ibv_dereg_mr(mr)) == EBUSY)
			busy++;
		if (ret)
			return (void *)(uintptr_t)2;
	}
	return (void *)(uintptr_t)(busy << 8);
}

int main(void)
{
	char dir[] = "/tmp/vs_race_trace.XXXXXX", path[64], *text;
	struct vs_call_stat st[16];
	uint64_t reg = 0, dereg = 0, dereg_failed = 0, ebusy = 0;
	pthread_t t[THREADS];
	unsigned int i, busy = 0, lines = 0;
	struct ibv_device **list;
	struct ibv_context *ctx;
	size_t count, n;
	void *fail;
	int *live, fd;

	VS_ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	setenv("VERBSHIM_TRACE_FILE", path, 1);
	setenv("VERBSHIM_TRACE", "ibv_reg_mr,ibv_dereg_mr", 1);
	setenv("VERBSHIM_STATS", "1", 1);
	setenv("VERBSHIM_FAULT", "ibv_dereg_mr:EBUSY:%7", 1);
	vs_t_use_fake(&fail, &live);
	list = ibv_get_device_list(NULL);
	VS_ASSERT(list);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx);
	pd = ibv_alloc_pd(ctx);
	VS_ASSERT(pd);
	VS_ASSERT_EQ(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (i = 0; i < THREADS; i++)
		VS_ASSERT_EQ(pthread_create(&t[i], NULL, worker,
					    (void *)(uintptr_t)i), 0);
	for (i = 0; i < THREADS; i++) {
		void *r;

		VS_ASSERT_EQ(pthread_join(t[i], &r), 0);
		VS_ASSERT_EQ((uintptr_t)r & 0xff, 0);
		busy += (unsigned int)((uintptr_t)r >> 8);
	}
	VS_OK(vs_call_stats(st, 16, &count));
	for (n = 0; n < count; n++) {
		if (!strcmp(st[n].name, "ibv_reg_mr"))
			reg = st[n].calls;
		if (!strcmp(st[n].name, "ibv_dereg_mr")) {
			dereg = st[n].calls;
			dereg_failed = st[n].failures;
			ebusy = st[n].errors[0].err == EBUSY ?
					st[n].errors[0].count : 0;
		}
	}
	VS_ASSERT_EQ(reg, THREADS * ROUNDS);
	VS_ASSERT_EQ(dereg, THREADS * ROUNDS + busy);
	VS_ASSERT_EQ(dereg_failed, busy);
	VS_ASSERT_EQ(dereg_failed, dereg / 7);
	VS_ASSERT_EQ(ebusy, busy);

	snprintf(path, sizeof(path), "%s/t.%ld", dir, (long)getpid());
	fd = open(path, O_RDONLY);
	VS_ASSERT(fd >= 0);
	{
		static char buf[4 << 20];
		ssize_t got = read(fd, buf, sizeof(buf) - 1);

		VS_ASSERT(got > 0);
		buf[got] = '\0';
		for (text = buf; (text = strstr(text, "verbshim: [")); text++)
			lines++;
	}
	close(fd);
	VS_ASSERT_EQ(lines, reg + dereg);
	VS_ASSERT_EQ(unlink(path), 0);
	VS_ASSERT_EQ(rmdir(dir), 0);
	VS_ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
	return 0;
}
