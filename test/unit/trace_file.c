/* SPDX-License-Identifier: MIT */
/*
 * The trace file stays the trace file, and errno stays the caller's
 * (docs/trace.md, "Where it goes"): each case a child process of its own
 * (the knobs are read once per process), its stderr in a file.
 *
 * - reuse: a daemon that closes every descriptor >= 3 and then opens its
 *   data file, and puts it on the trace's old number too (dup2): the data
 *   file holds only the program's own bytes (no trace line, no counters
 *   at exit), stderr one line saying the trace stopped, and the trace
 *   file the lines from before;
 * - errno: a traced call that succeeds leaves errno as the caller had it
 *   when the trace file could not be made at the first call (the open
 *   failed), and when the descriptor was lost (the check before a write
 *   failed); the file is never the program's stderr;
 * - stderr (no trace file) is checked the same way: a program started
 *   with descriptor 2 closed, or that closes it after the trace started,
 *   and then opens its data file (it lands on 2) finds only its own
 *   bytes there (no trace line, no counters at exit).
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vs_config.h"
#include "../common/vs_fake.h"

static char dir[] = "/tmp/vs_trace_file.XXXXXX";

static unsigned int count(const char *text, const char *want)
{
	unsigned int n = 0;

	for (; text && (text = strstr(text, want)); text++)
		n++;
	return n;
}

/* The descriptor whose file is path, or -1. */
static int fd_of(const char *path)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	VS_ASSERT(d);
	while ((e = readdir(d))) {
		char link[300], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, path))
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

static struct ibv_context *open_fake(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	void *fail;
	int *live;

	vs_t_use_fake(&fail, &live);
	list = ibv_get_device_list(NULL);
	VS_ASSERT(list);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx);
	ibv_free_device_list(list);
	return ctx;
}

static void case_reuse(void)
{
	char trace[PATH_MAX], data[PATH_MAX];
	struct ibv_context *ctx = open_fake();
	struct ibv_pd *pd;
	struct rlimit rl;
	int tfd, dfd, fd;

	snprintf(trace, sizeof(trace), "%s/t.%ld", dir, (long)getpid());
	snprintf(data, sizeof(data), "%s/data", dir);
	tfd = fd_of(trace);
	VS_ASSERT(tfd > 2);
	/* the daemon: every descriptor >= 3 closed, then its own file */
	VS_ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	for (fd = 3; fd < (int)rl.rlim_cur && fd < 1 << 20; fd++)
		close(fd);
	dfd = open(data, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0600);
	VS_ASSERT_EQ(dfd, 3);
	/* and on the trace's old number, as a dup2() of its own would */
	VS_ASSERT_EQ(dup2(dfd, tfd), tfd);
	VS_ASSERT_EQ(write(dfd, "data\n", 5), 5);
	pd = ibv_alloc_pd(ctx);
	VS_ASSERT(pd);
	VS_ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	VS_ASSERT_EQ(write(dfd, "more\n", 5), 5);
	exit(0);	/* the counters' time */
}

static void case_errno(void)
{
	struct ibv_device **list;
	void *fail;
	int *live;

	/* the first call reads the knobs and makes the file: here a file in
	 * a directory that does not exist */
	vs_t_use_fake(&fail, &live);
	errno = EDOM;
	list = ibv_get_device_list(NULL);
	VS_ASSERT(list);
	VS_ASSERT_EQ(errno, EDOM);
	ibv_free_device_list(list);
	exit(0);
}

/* The second half: a file made, then lost. */
static void case_errno_lost(void)
{
	char trace[PATH_MAX];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int tfd;

	ctx = open_fake();
	snprintf(trace, sizeof(trace), "%s/t.%ld", dir, (long)getpid());
	tfd = fd_of(trace);
	VS_ASSERT(tfd > 2);
	VS_ASSERT_EQ(close(tfd), 0);
	errno = ERANGE;
	pd = ibv_alloc_pd(ctx);	/* its line finds the descriptor gone */
	VS_ASSERT(pd);
	VS_ASSERT_EQ(errno, ERANGE);
	errno = EDOM;
	VS_ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	VS_ASSERT_EQ(errno, EDOM);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	exit(0);
}

/* Close 2, then open the data file NAME, which lands on 2, write to it
 * and make calls on ctx (opened before or after the close), exiting
 * through the counters' time; a step that fails exits 122-124. */
static void data_on_stderr(const char *name, struct ibv_context *ctx)
{
	char data[PATH_MAX];
	struct ibv_pd *pd;
	int dfd;

	snprintf(data, sizeof(data), "%s/%s", dir, name);
	dfd = open(data, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0600);
	if (dfd != 2)
		_exit(122);
	if (write(dfd, "data\n", 5) != 5)
		_exit(123);
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		_exit(124);
	exit(0);	/* the counters' time */
}

/* A program started with stderr closed: the trace starts (the first
 * call), then its data file lands on 2. */
static void case_stderr_closed(void)
{
	struct ibv_context *ctx;

	VS_ASSERT_EQ(close(2), 0);
	ctx = open_fake();
	data_on_stderr("data2", ctx);
}

/* Stderr open when the trace starts, then closed and a data file put
 * on 2: the lines before go to stderr, none after into the file. */
static void case_stderr_replaced(void)
{
	struct ibv_context *ctx = open_fake();

	VS_ASSERT_EQ(close(2), 0);
	data_on_stderr("data3", ctx);
}

/* Runs one case in a child with the knobs; its pid once it exited 0. */
static pid_t run(void (*fn)(void), const char *file)
{
	char err[PATH_MAX];
	pid_t pid = fork();
	int status, fd;

	VS_ASSERT(pid >= 0);
	if (!pid) {
		snprintf(err, sizeof(err), "%s/err.%ld", dir, (long)getpid());
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(120);
		close(fd);
		setenv("VERBSHIM_TRACE", "all", 1);
		setenv("VERBSHIM_STATS", "1", 1);
		if (file)
			setenv("VERBSHIM_TRACE_FILE", file, 1);
		else
			unsetenv("VERBSHIM_TRACE_FILE");
		fn();
		_exit(121);
	}
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, sizeof(err), "cat %s/err.%ld >&2", dir, (long)pid);
		if (system(err)) {
		}
		VS_FAIL("a case failed: status 0x%x", status);
	}
	return pid;
}

static char *child_file(const char *name, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.%ld", dir, name, (long)pid);
	return vs_t_slurp(path);
}

int main(void)
{
	char prefix[PATH_MAX], nowhere[PATH_MAX], path[PATH_MAX];
	char *data, *err, *trace;
	pid_t pid;

	VS_ASSERT(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/t", dir);
	snprintf(nowhere, sizeof(nowhere), "%s/no/such/dir/t", dir);

	pid = run(case_reuse, prefix);
	snprintf(path, sizeof(path), "%s/data", dir);
	data = vs_t_slurp(path);
	VS_ASSERT_STREQ(data, "data\nmore\n");
	err = child_file("err", pid);
	VS_ASSERT_EQ(count(err, "verbshim: "), 1);
	VS_ASSERT(strstr(err, "verbshim: the trace file "));
	VS_ASSERT(strstr(err, "is no longer descriptor "));
	VS_ASSERT(strstr(err, "the trace stops here, and the counters are "
			      "not written at exit\n"));
	trace = child_file("t", pid);
	VS_ASSERT(strstr(trace, "] ibv_open_device("));
	VS_ASSERT(!strstr(trace, "ibv_alloc_pd"));
	VS_ASSERT(!strstr(trace, "VERBSHIM_STATS"));
	free(data);
	free(err);
	free(trace);

	pid = run(case_errno, nowhere);
	err = child_file("err", pid);
	VS_ASSERT_EQ(count(err, "verbshim: "), 1);
	VS_ASSERT(strstr(err, "cannot create "));
	VS_ASSERT(strstr(err, "(No such file or directory); the trace and "
			      "the counters are off\n"));
	free(err);

	pid = run(case_errno_lost, prefix);
	err = child_file("err", pid);
	VS_ASSERT_EQ(count(err, "verbshim: "), 1);
	VS_ASSERT(strstr(err, "is no longer descriptor "));
	free(err);

	/* no trace file: stderr, checked as the file is */
	run(case_stderr_closed, NULL);
	snprintf(path, sizeof(path), "%s/data2", dir);
	data = vs_t_slurp(path);
	VS_ASSERT_STREQ(data, "data\n");
	free(data);
	pid = run(case_stderr_replaced, NULL);
	snprintf(path, sizeof(path), "%s/data3", dir);
	data = vs_t_slurp(path);
	VS_ASSERT_STREQ(data, "data\n");
	free(data);
	err = child_file("err", pid);
	VS_ASSERT(strstr(err, "] ibv_open_device("));
	VS_ASSERT(!strstr(err, "ibv_alloc_pd"));
	free(err);
	{
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		VS_ASSERT_EQ(system(cmd), 0);
	}
	return 0;
}
