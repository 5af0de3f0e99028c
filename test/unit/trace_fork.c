/* SPDX-License-Identifier: MIT */
/*
 * fork() while other threads trace (docs/trace.md, "fork"): eight threads
 * register and deregister memory on the fake provider with
 * VERBSHIM_TRACE=all, VERBSHIM_STATS=1 and a fault rule on, to a trace
 * file, while the main thread forks child after child.  Each child makes
 * two traced calls (ibv_alloc_pd, ibv_dealloc_pd: each takes the handle
 * ids' lock) and exits.  A child that has not exited within its limit
 * hung on a lock the fork copied in its held state: it is killed and the
 * test fails.  Every line of the file must be whole, and each child's two
 * lines must be there, under its own thread id.  A fork handler of the
 * program, run while the trace holds its lock across the fork, makes a
 * traced call too (it must not wait for that lock).
 *
 *   trace_fork [FORKS]   (default 300; the issue's measurement was 2700)
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "vs_config.h"
#include "../common/vs_fake.h"

#define THREADS 8
/* a child's limit: it makes two calls; a loaded 2-core host, valgrind */
#ifndef CHILD_LIMIT_MS
#define CHILD_LIMIT_MS 20000
#endif

struct kid {
	pid_t pid;
	unsigned int alloc, dealloc, other;
};

static struct ibv_device *dev;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static int stop;

static void *worker(void *arg)
{
	static char buf[THREADS][256];
	char *mem = buf[(uintptr_t)arg];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct ibv_mr *mr = ibv_reg_mr(pd, mem, 256,
					       IBV_ACCESS_LOCAL_WRITE);

		if (!mr)
			return (void *)1;
		while (ibv_dereg_mr(mr) == EBUSY)	/* the fault rule */
			;
		/* the forking thread gets the CPU often: forks, not lines */
		sched_yield();
	}
	return NULL;
}

/* The parent's own limit on one fork(): stuck in it (in the fork
 * handlers), the test fails saying so, not the runner's timeout. */
#define FORK_LIMIT_S 60
static void stuck(int sig)
{
	static const char why[] = "fork() did not return within its limit: "
				  "the forking parent hung in its handlers\n";

	(void)sig;
	if (write(2, why, sizeof(why) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* Registered before the trace's own handlers, so run after its prepare. */
static void traced_in_fork(void)
{
	if (dev && !ibv_get_device_name(dev))
		abort();
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* 0 when the child exited 0 in time; 1 when it hung (killed); 2 else */
static int reap(pid_t pid)
{
	uint64_t end = now_ms() + CHILD_LIMIT_MS;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 2;
		VS_ASSERT_EQ(r, 0);
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
			return 1;
		}
		usleep(200);
	}
}

static int by_pid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* One line, [p, end): fails unless whole; counts a child's two lines. */
static void check_line(const char *p, const char *end, struct kid *kids,
		       unsigned int n)
{
	size_t len = (size_t)(end - p);
	struct kid key, *k;
	char *rest;

	if (len < 12 || strncmp(p, "verbshim: [", 11) || end[-1] != '>') {
		fprintf(stderr, "not a whole line: %.*s\n", (int)len, p);
		VS_FAIL("a torn trace line");
	}
	key.pid = (pid_t)strtol(p + 11, &rest, 10);
	k = bsearch(&key, kids, n, sizeof(*kids), by_pid);
	if (!k)
		return;
	if (!strncmp(rest, "] ibv_alloc_pd(context=context#", 31) &&
	    memmem(p, len, ") = pd#", 7))
		k->alloc++;
	else if (!strncmp(rest, "] ibv_dealloc_pd(pd=pd#", 23) &&
		 memmem(p, len, ") = 0 <", 7))
		k->dealloc++;
	else
		k->other++;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/vs_trace_fork.XXXXXX", path[64];
	unsigned int forks = argc > 1 ? (unsigned int)atoi(argv[1]) : 300;
	unsigned int i, hung = 0, failed = 0, bad_lines = 0;
	struct kid *child = calloc(forks, sizeof(*child));
	struct stat sb;
	char *text;
	pthread_t t[THREADS];
	struct ibv_device **list;
	const char *line;
	void *fail;
	int *live, fd;

	VS_ASSERT(child && forks);
	VS_ASSERT_EQ(pthread_atfork(traced_in_fork, NULL, NULL), 0);
	signal(SIGALRM, stuck);
	VS_ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t", dir);
	setenv("VERBSHIM_TRACE_FILE", path, 1);
	setenv("VERBSHIM_TRACE", "all", 1);
	setenv("VERBSHIM_STATS", "1", 1);
	setenv("VERBSHIM_FAULT", "ibv_dereg_mr:EBUSY:%5", 1);
	vs_t_use_fake(&fail, &live);
	list = ibv_get_device_list(NULL);
	VS_ASSERT(list);
	dev = list[0];
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx);
	pd = ibv_alloc_pd(ctx);
	VS_ASSERT(pd);
	for (i = 0; i < THREADS; i++)
		VS_ASSERT_EQ(pthread_create(&t[i], NULL, worker,
					    (void *)(uintptr_t)i), 0);
	for (i = 0; i < forks; i++) {
		alarm(FORK_LIMIT_S);
		child[i].pid = fork();
		VS_ASSERT(child[i].pid >= 0);
		if (!child[i].pid) {
			struct ibv_pd *own = ibv_alloc_pd(ctx);

			_exit(own && !ibv_dealloc_pd(own) ? 0 : 3);
		}
		alarm(0);
		switch (reap(child[i].pid)) {
		case 1:
			hung++;
			break;
		case 2:
			failed++;
			break;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	printf("%u forks beside %d tracing threads: %u hung (killed after %d "
	       "ms), %u failed\n", forks, THREADS, hung, CHILD_LIMIT_MS,
	       failed);
	fflush(stdout);
	for (i = 0; i < THREADS; i++) {
		void *r;

		VS_ASSERT_EQ(pthread_join(t[i], &r), 0);
		VS_ASSERT(!r);
	}

	snprintf(path, sizeof(path), "%s/t.%ld", dir, (long)getpid());
	fd = open(path, O_RDONLY);
	VS_ASSERT(fd >= 0);
	VS_ASSERT_EQ(fstat(fd, &sb), 0);
	VS_ASSERT(sb.st_size > 0);
	text = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	VS_ASSERT(text != MAP_FAILED);
	close(fd);
	qsort(child, forks, sizeof(*child), by_pid);
	for (line = text; line < text + sb.st_size;) {
		const char *end = memchr(line, '\n',
					 (size_t)(text + sb.st_size - line));

		VS_ASSERT(end);
		check_line(line, end, child, forks);
		line = end + 1;
	}
	munmap(text, (size_t)sb.st_size);
	for (i = 0; i < forks; i++)
		if (child[i].alloc != 1 || child[i].dealloc != 1 ||
		    child[i].other)
			bad_lines++;
	printf("%u children without their two whole lines\n", bad_lines);
	VS_ASSERT_EQ(hung, 0);
	VS_ASSERT_EQ(failed, 0);
	VS_ASSERT_EQ(bad_lines, 0);
	VS_ASSERT_EQ(unlink(path), 0);
	VS_ASSERT_EQ(rmdir(dir), 0);
	VS_ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	dev = NULL;
	ibv_free_device_list(list);
	free(child);
	return 0;
}
