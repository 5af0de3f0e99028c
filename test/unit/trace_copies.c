/* SPDX-License-Identifier: MIT */
/*
 * Several copies of the shim in one process (docs/trace.md, "Several
 * copies of the shim"): two plugins that each link libverbshim.a
 * statically (build/.../stubs/plugins/libplugin_{a,b}.so, from
 * test/stubs/shim_plugin.c) loaded RTLD_LOCAL into this program, which
 * holds no copy itself, with VERBSHIM_TRACE=all, VERBSHIM_STATS=1 and
 * VERBSHIM_TRACE_FILE.  In a child (the knobs and the counters are per
 * process):
 *
 *   A opens the fake device, allocates a PD; B does the same; B frees A's
 *   PD and A frees B's; A is unloaded (its counters at dlclose), and B
 *   goes on alone (a second open).
 *
 * The trace: one file (no PREFIX.<pid>.2), nothing on stderr; the two
 * contexts and PDs have two ids, an object the same id in both copies'
 * lines (B's free of A's PD names pd#1); the counters: one table per
 * copy, each naming its module and its own calls, and together as many
 * calls as the file has lines.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "vs_config.h"
#include "../common/vs_fake.h"

static char dir[] = "/tmp/vs_trace_copies.XXXXXX";

struct plugin {
	void *h;
	struct ibv_context *(*open)(void);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*close)(struct ibv_context *ctx);
};

static void plugin_path(char *buf, size_t len, char which)
{
	char fake[PATH_MAX];

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
	/* build/.../stubs/fake/libibverbs.so.1 -> build/.../stubs/plugins/ */
	*strrchr(fake, '/') = '\0';
	snprintf(buf, len, "%s/../plugins/libplugin_%c.so", fake, which);
}

static void plugin_load(struct plugin *p, char which)
{
	char path[PATH_MAX + 64];

	plugin_path(path, sizeof(path), which);
	p->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->h)
		VS_FAIL("dlopen %s: %s (make tests builds it)", path, dlerror());
	*(void **)&p->open = dlsym(p->h, "plugin_open");
	*(void **)&p->alloc_pd = dlsym(p->h, "plugin_alloc_pd");
	*(void **)&p->dealloc_pd = dlsym(p->h, "plugin_dealloc_pd");
	*(void **)&p->close = dlsym(p->h, "plugin_close");
	VS_ASSERT(p->open && p->alloc_pd && p->dealloc_pd && p->close);
}

static void two_copies(void)
{
	struct ibv_context *ca, *cb;
	struct ibv_pd *pa, *pb;
	struct plugin a, b;

	plugin_load(&a, 'a');
	plugin_load(&b, 'b');
	VS_ASSERT(!dlsym(RTLD_DEFAULT, "ibv_alloc_pd"));	/* no copy here */
	ca = a.open();
	VS_ASSERT(ca);
	pa = a.alloc_pd(ca);
	VS_ASSERT(pa);
	cb = b.open();
	VS_ASSERT(cb);
	pb = b.alloc_pd(cb);
	VS_ASSERT(pb);
	VS_ASSERT_EQ(b.dealloc_pd(pa), 0);
	VS_ASSERT_EQ(a.dealloc_pd(pb), 0);
	VS_ASSERT_EQ(a.close(ca), 0);
	VS_ASSERT_EQ(dlclose(a.h), 0);	/* the hub's maker goes */
	VS_ASSERT_EQ(b.close(cb), 0);
	cb = b.open();
	VS_ASSERT(cb);
	VS_ASSERT_EQ(b.close(cb), 0);
	exit(0);	/* B's counters */
}

static char *slurp(const char *name, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s.%ld", dir, name, (long)pid);
	return vs_t_slurp(path);
}

static unsigned int count(const char *text, const char *want)
{
	unsigned int n = 0;

	for (; text && (text = strstr(text, want)); text++)
		n++;
	return n;
}

/* The calls column of function in the table that starts at table. */
static unsigned long calls_of(const char *table, const char *function)
{
	char key[64];
	const char *p, *end = strstr(table, "by its copy in ");

	snprintf(key, sizeof(key), "verbshim: %-28s ", function);
	p = strstr(table, key);
	if (!p || (end && p > end))
		return 0;
	return strtoul(p + strlen(key), NULL, 10);
}

/* The counters' table after from, headed by plugin which's module and
 * its number (" (1 of 2)\n"); fails without one. */
static const char *table_of(const char *from, char which, const char *number)
{
	const char *t = strstr(from, "by its copy in ");
	char path[PATH_MAX];

	plugin_path(path, sizeof(path), which);
	if (!t || strncmp(t + 15, path, strlen(path)) ||
	    strncmp(t + 15 + strlen(path), number, strlen(number)))
		VS_FAIL("no counters of %s%s", path, number);
	return t + 15;
}

int main(void)
{
	char path[PATH_MAX], fake[PATH_MAX], *err, *text;
	const char *ta, *tb;
	unsigned long lines;
	int status;
	pid_t pid;

	VS_ASSERT(mkdtemp(dir));
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		int fd;

		snprintf(path, sizeof(path), "%s/err.%ld", dir, (long)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(120);
		close(fd);
		vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
		setenv("VERBSHIM_LIBIBVERBS", fake, 1);
		snprintf(path, sizeof(path), "%s/t", dir);
		setenv("VERBSHIM_TRACE_FILE", path, 1);
		setenv("VERBSHIM_TRACE", "all", 1);
		setenv("VERBSHIM_STATS", "1", 1);
		two_copies();
	}
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	err = slurp("err", pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !err || *err) {
		fprintf(stderr, "%s", err ? err : "(no stderr)\n");
		VS_FAIL("the two copies' run: status 0x%x, stderr above (it must "
			"be empty)", status);
	}
	snprintf(path, sizeof(path), "%s/t.%ld.2", dir, (long)pid);
	VS_ASSERT(access(path, F_OK));	/* one file */
	text = slurp("t", pid);
	VS_ASSERT(text);

	/* ids: two of each object, the same object the same id */
	VS_ASSERT_EQ(count(text, "] ibv_alloc_pd(context=context#1) = pd#1 <"), 1);
	VS_ASSERT_EQ(count(text, "] ibv_alloc_pd(context=context#2) = pd#2 <"), 1);
	VS_ASSERT_EQ(count(text, "] ibv_dealloc_pd(pd=pd#1) = 0 <"), 1);
	VS_ASSERT_EQ(count(text, "] ibv_dealloc_pd(pd=pd#2) = 0 <"), 1);
	VS_ASSERT_EQ(count(text, "] ibv_open_device("), 3);
	VS_ASSERT_EQ(count(text, "] ibv_close_device(context=context#1) = 0"), 1);
	VS_ASSERT_EQ(count(text, "] ibv_close_device(context=context#2) = 0"), 1);
	/* B's second context: a new id (the first was closed) */
	VS_ASSERT_EQ(count(text, "] ibv_close_device(context=context#3) = 0"), 1);

	/* the counters: A's at its dlclose, B's at exit, each its module */
	ta = table_of(text, 'a', " (1 of 2)\n");
	tb = table_of(ta, 'b', " (2 of 2)\n");
	VS_ASSERT(!strstr(tb, "by its copy in "));
	VS_ASSERT_EQ(calls_of(ta, "ibv_open_device"), 1);
	VS_ASSERT_EQ(calls_of(tb, "ibv_open_device"), 2);
	VS_ASSERT_EQ(calls_of(ta, "ibv_alloc_pd"), 1);
	VS_ASSERT_EQ(calls_of(tb, "ibv_alloc_pd"), 1);
	VS_ASSERT_EQ(calls_of(ta, "ibv_dealloc_pd"), 1);
	VS_ASSERT_EQ(calls_of(tb, "ibv_dealloc_pd"), 1);
	VS_ASSERT_EQ(calls_of(ta, "ibv_close_device"), 1);
	VS_ASSERT_EQ(calls_of(tb, "ibv_close_device"), 2);
	lines = count(text, "verbshim: [");
	VS_ASSERT_EQ(calls_of(ta, "total") + calls_of(tb, "total"), lines);
	free(err);
	free(text);
	{
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		VS_ASSERT_EQ(system(cmd), 0);
	}
	return 0;
}
