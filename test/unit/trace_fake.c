/* SPDX-License-Identifier: MIT */
/*
 * VERBSHIM_TRACE / VERBSHIM_STATS / VERBSHIM_FAULT end to end, over the
 * fake provider (build/.../stubs/fake): the knobs are read once per
 * process, so each case is this program run again with its environment.
 *
 * - off: every table slot is the library's own function (no wrapper);
 *   a trace of one library leaves the others' slots untouched;
 * - on: the drop-ins' and the typed API's calls are traced with decoded
 *   arguments to a per-process file, the counters' total equals the
 *   trace's line count, the Nth-call fault returns each convention's
 *   failure (NULL + errno, positive errno, -1 + errno) and the typed
 *   API's error record names the injection;
 * - failed-only, bad values (one sentence, the program runs on), and a
 *   trace file that exists or is a link (never followed nor clobbered:
 *   the next free name, PREFIX.<pid>.2, never the program's stderr).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vs_config.h"
#include "../common/vs_fake.h"
#include "trace/vs_trace.h"

static char dir[] = "/tmp/vs_trace_fake.XXXXXX";
/* this program, by its path: under valgrind /proc/self/exe is valgrind */
static char self[PATH_MAX];

/* Runs this program with "case NAME" and the given environment (NULL-
 * terminated name=value list, then VERBSHIM_TRACE_FILE=dir/t); returns
 * its pid after it exited 0, its stderr in dir/err.<pid>. */
static pid_t run(const char *name, const char *const *env)
{
	char errpath[PATH_MAX];
	int status, fd;
	pid_t pid = fork();

	VS_ASSERT(pid >= 0);
	if (!pid) {
		snprintf(errpath, sizeof(errpath), "%s/err.%ld", dir,
			 (long)getpid());
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(120);
		unsetenv("VERBSHIM_TRACE");
		unsetenv("VERBSHIM_STATS");
		unsetenv("VERBSHIM_FAULT");
		unsetenv("VERBSHIM_TRACE_FILE");
		for (; *env; env++)
			putenv((char *)*env);
		execl(self, "trace_fake", "case", name, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 121);
	}
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	/* An arm64 build under qemu-user (make check-arm64) cannot exec
	 * itself unless binfmt_misc knows qemu-aarch64: every case is a run
	 * of its own, so nothing here can be tested there. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
		char rm[sizeof(dir) + 16];

		snprintf(rm, sizeof(rm), "rm -rf %s", dir);
		if (system(rm)) {
		}
		VS_SKIP("every case re-executes %s, which this kernel cannot run "
			"(ENOEXEC: another architecture, qemu-user without binfmt_misc)",
			self);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "cat %s/err.%ld >&2", dir, (long)pid);
		if (system(cmd)) {
		}
		VS_FAIL("case %s: status 0x%x", name, status);
	}
	return pid;
}

/* The whole of dir/PREFIX.<pid>, or NULL when it does not exist; freed at
 * the end. */
static char *kept[32];
static unsigned int nkept;

static char *slurp_path(const char *path)
{
	char *text = vs_t_slurp(path);

	if (!text)
		return NULL;
	VS_ASSERT(nkept < sizeof(kept) / sizeof(kept[0]));
	return kept[nkept++] = text;
}

static char *slurp(const char *prefix, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.%ld", dir, prefix, (long)pid);
	return slurp_path(path);
}

static unsigned int count_lines(const char *text, const char *prefix)
{
	unsigned int n = 0;
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void has(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		VS_FAIL("\"%s\" not in:\n%s", want, text ? text : "(none)");
}

/* ---- the cases, each in its own process ---- */

static void *fake_fn(const char *name)
{
	return vs_t_fake_sym(name);
}

static void case_off(void)
{
	void *fail;
	int *live;

	vs_t_use_fake(&fail, &live);
	/* the slot is the library's function itself: no wrapper, no cost */
	VS_ASSERT_PTR_EQ((void *)vs__ibverbs.fn.ibv_alloc_pd,
			 fake_fn("ibv_alloc_pd"));
	VS_ASSERT_PTR_EQ((void *)vs__ibverbs.fn.ibv_reg_mr, fake_fn("ibv_reg_mr"));
	VS_ASSERT_EQ(vs_call_stats_print(2), -ENODATA);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_call_stats_print");
}

static void case_other_lib(void)
{
	void *fail;
	int *live;

	vs_t_use_fake(&fail, &live);
	VS_ASSERT_PTR_EQ((void *)vs__ibverbs.fn.ibv_alloc_pd,
			 fake_fn("ibv_alloc_pd"));
}

static void case_on(void)
{
	static char buf[4096];
	struct vs_call_stat st[64];
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct vs_context *vctx;
	struct vs_pd *vpd;
	struct vs_mr *vmr;
	size_t count, i;
	uint64_t calls = 0;
	void *fail;
	int *live, n;

	vs_t_use_fake(&fail, &live);
	VS_ASSERT(vs__ibverbs.fn.ibv_alloc_pd != (void *)fake_fn("ibv_alloc_pd"));
	list = ibv_get_device_list(&n);
	VS_ASSERT(list && n == 1);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx);
	pd = ibv_alloc_pd(ctx);
	VS_ASSERT(pd);
	/* ibv_reg_mr:ENOMEM:2: the second registration fails, NULL + ENOMEM */
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	VS_ASSERT(mr);
	errno = 0;
	VS_ASSERT(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) == NULL);
	VS_ASSERT_EQ(errno, ENOMEM);
	/* ibv_dereg_mr:EBUSY:1: the int verb returns the errno itself */
	VS_ASSERT_EQ(ibv_dereg_mr(mr), EBUSY);
	VS_ASSERT_EQ(ibv_dereg_mr(mr), 0);
	/* the typed API: through the same tables (its ibv_reg_mr with access
	 * not constant is verbs.h's ibv_reg_mr_iova2), its record says so */
	VS_OK(vs_device_open("fake0", &vctx));
	VS_OK(vs_pd_alloc(vctx, &vpd));
	VS_ASSERT_EQ(vs_mr_alloc(vpd, 4096, IBV_ACCESS_LOCAL_WRITE, &vmr),
		     -ENOMEM);
	has(vs_last_error()->message,
	    "[injected: VERBSHIM_FAULT made ibv_reg_mr_iova2 fail]");
	VS_ASSERT_STREQ(vs_last_error()->verb, "ibv_reg_mr");
	VS_ASSERT_EQ(vs_last_error()->err, ENOMEM);
	VS_OK(vs_mr_alloc(vpd, 4096, IBV_ACCESS_LOCAL_WRITE, &vmr));
	vs_mr_close(vmr);
	vs_pd_close(vpd);
	vs_device_close(vctx);
	VS_ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
	/* the counters: printed to the trace file at exit; the total here */
	VS_OK(vs_call_stats(st, 64, &count));
	VS_ASSERT(count > 5 && count < 64);
	for (i = 0; i < count; i++) {
		calls += st[i].calls;
		if (!strcmp(st[i].name, "ibv_dereg_mr")) {
			VS_ASSERT_EQ(st[i].failures, 1);
			VS_ASSERT_EQ(st[i].errors[0].err, EBUSY);
			VS_ASSERT_EQ(st[i].errors[0].count, 1);
		}
	}
	VS_ASSERT_EQ(vs_call_stats(NULL, 1, &count), -EINVAL);
	/* what the parent counts: every call so far, none after */
	{
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "%s/calls.%ld", dir, (long)getpid());
		f = fopen(path, "w");
		VS_ASSERT(f);
		fprintf(f, "%llu\n", (unsigned long long)calls);
		fclose(f);
	}
}

static void case_failed(void)
{
	static char buf[64];
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	void *fail;
	int *live, n;

	vs_t_use_fake(&fail, &live);
	list = ibv_get_device_list(&n);
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	for (n = 0; n < 6; n++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);

		if (mr)
			ibv_dereg_mr(mr);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}

/* rdma_* is -1 + errno upstream; the fake librdmacm is the stub's */
static void case_cm(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	errno = 0;
	VS_ASSERT_EQ(rdma_resolve_addr(NULL, NULL, (struct sockaddr *)&sin,
				       2000), -1);
	VS_ASSERT_EQ(errno, ETIMEDOUT);
	VS_ASSERT_EQ(rdma_resolve_addr(NULL, NULL, (struct sockaddr *)&sin,
				       2000), 0);	/* the stub's */
}

/* the trace file's name exists as a link: not followed, not clobbered */
static void case_link(void)
{
	char path[PATH_MAX], target[PATH_MAX];
	void *fail;
	int *live;

	snprintf(path, sizeof(path), "%s/t.%ld", dir, (long)getpid());
	snprintf(target, sizeof(target), "%s/target", dir);
	VS_ASSERT_EQ(symlink(target, path), 0);
	vs_t_use_fake(&fail, &live);
	VS_ASSERT(access(target, F_OK) && errno == ENOENT);
}

int main(int argc, char **argv)
{
	static const char *const env_off[] = { NULL };
	static const char *const env_lib[] = { "VERBSHIM_TRACE=rdmacm", NULL };
	char file[sizeof(dir) + 32];
	const char *env_on[] = {
		"VERBSHIM_TRACE=all", "VERBSHIM_STATS=1",
		"VERBSHIM_FAULT=ibv_reg_mr:ENOMEM:2,ibv_reg_mr_iova2:ENOMEM:1,"
		"ibv_dereg_mr:EBUSY:1", file,
		NULL
	};
	const char *env_failed[] = { "VERBSHIM_TRACE=failed",
				     "VERBSHIM_FAULT=ibv_reg_mr*:EFAULT:%3",
				     file, NULL };
	const char *env_bad[] = { "VERBSHIM_TRACE=ibv_reg_mr;all",
				  "VERBSHIM_FAULT=ibv_reg_mr:ENOMEN:1",
				  "VERBSHIM_STATS=maybe", file, NULL };
	const char *env_cm[] = {
		"VERBSHIM_TRACE=rdma_resolve_addr",
		"VERBSHIM_FAULT=rdma_resolve_addr:ETIMEDOUT:1", NULL, NULL
	};
	const char *env_link[] = { "VERBSHIM_TRACE=all", file, NULL };
	char rdmacm[PATH_MAX + 32], *text, *err, *end;
	pid_t pid;
	unsigned long long calls;

	if (argc == 3 && !strcmp(argv[1], "case")) {
		char *d = getenv("VS_T_DIR");

		VS_ASSERT(d);
		memcpy(dir, d, sizeof(dir) - 1);
		if (!strcmp(argv[2], "off"))
			case_off();
		else if (!strcmp(argv[2], "other_lib"))
			case_other_lib();
		else if (!strcmp(argv[2], "on") || !strcmp(argv[2], "bad"))
			case_on();
		else if (!strcmp(argv[2], "failed"))
			case_failed();
		else if (!strcmp(argv[2], "cm"))
			case_cm();
		else if (!strcmp(argv[2], "link"))
			case_link();
		else
			VS_FAIL("no case %s", argv[2]);
		return 0;
	}
	{
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		VS_ASSERT(len > 0);
		self[len] = '\0';
	}
	VS_ASSERT(mkdtemp(dir));
	setenv("VS_T_DIR", dir, 1);
	snprintf(file, sizeof(file), "VERBSHIM_TRACE_FILE=%s/t", dir);

	run("off", env_off);
	run("other_lib", env_lib);

	pid = run("on", env_on);
	text = slurp("t", pid);
	VS_ASSERT(text);
	has(text, "] ibv_alloc_pd(context=context#1) = pd#1 <");
	has(text, "] ibv_reg_mr(pd=pd#1, addr=0x");
	has(text, "length=4096, access=IBV_ACCESS_LOCAL_WRITE) = mr#1 <");
	has(text, "= NULL ENOMEM (Cannot allocate memory) [injected by "
		  "VERBSHIM_FAULT] <");
	has(text, "] ibv_dereg_mr(mr=mr#1) = EBUSY EBUSY (Device or resource "
		  "busy) [injected by VERBSHIM_FAULT]");
	has(text, "] ibv_dereg_mr(mr=mr#1) = 0 <");
	/* the typed API's own calls: vs_device_open, vs_pd_alloc... */
	has(text, "] ibv_open_device(device=device#1) = context#2");
	has(text, "verbshim: calls through the shim (VERBSHIM_STATS)");
	calls = strtoull(slurp("calls", pid), &end, 10);
	VS_ASSERT(calls > 0);
	/* every call counted is one trace line (the calls made after the
	 * count, the device closes of the typed API's teardown at exit, are
	 * not in calls: none is made) */
	VS_ASSERT_EQ(count_lines(text, "verbshim: ["), calls);
	err = slurp("err", pid);
	VS_ASSERT(err && !*err);

	pid = run("failed", env_failed);
	text = slurp("t", pid);
	VS_ASSERT(text);
	VS_ASSERT_EQ(count_lines(text, "verbshim: ["), 2);
	has(text, "= NULL EFAULT (Bad address) [injected by VERBSHIM_FAULT]");

	/* bad values: one sentence each, the knob off, the program runs */
	pid = run("off", env_bad);
	err = slurp("err", pid);
	has(err, "verbshim: VERBSHIM_TRACE=ibv_reg_mr;all has \"ibv_reg_mr;all\"");
	has(err, "tracing is off\n");
	has(err, "verbshim: VERBSHIM_FAULT=ibv_reg_mr:ENOMEN:1 has "
		 "ibv_reg_mr:ENOMEN: ENOMEN is not an errno name");
	has(err, "no fault is injected\n");
	has(err, "verbshim: VERBSHIM_STATS=maybe is not 1 or 0; it is off\n");
	has(err, "VERBSHIM_TRACE_FILE is set but neither");
	VS_ASSERT_EQ(count_lines(err, "verbshim: "), 4);
	VS_ASSERT(!slurp("t", pid));

	vs_t_fake_path("libibverbs.so.1", rdmacm, sizeof(rdmacm));
	strcpy(strrchr(rdmacm, '/'), "/../v44/librdmacm.so.1");
	{
		char var[PATH_MAX + 64];

		snprintf(var, sizeof(var), "VERBSHIM_LIBRDMACM=%s", rdmacm);
		env_cm[2] = var;
		pid = run("cm", env_cm);
	}
	err = slurp("err", pid);
	has(err, "] rdma_resolve_addr(id=NULL, src_addr=NULL, dst_addr={AF_INET "
		 "0.0.0.0:0}, timeout_ms=2000) = -1 ETIMEDOUT (Connection timed "
		 "out) [injected by VERBSHIM_FAULT] <");
	VS_ASSERT_EQ(count_lines(err, "verbshim: ["), 2);

	pid = run("link", env_link);
	err = slurp("err", pid);
	/* the next name, said in one line; never the program's stderr */
	{
		char second[PATH_MAX], want[PATH_MAX + 64];

		snprintf(second, sizeof(second), "%s/t.%ld.2", dir, (long)pid);
		snprintf(want, sizeof(want), "exists (an existing file is "
			 "never written over); tracing to %s\n", second);
		has(err, want);
		VS_ASSERT_EQ(count_lines(err, "verbshim: "), 1);
		has(slurp_path(second), "] ibv_get_device_list(");
	}

	{
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		VS_ASSERT_EQ(system(cmd), 0);
	}
	while (nkept)
		free(kept[--nkept]);
	return 0;
}
