// SPDX-License-Identifier: MIT
/*
 * First-use cost of each rdma-core library: a raw dlopen() of it, against
 * verbshim's whole first-use path (vs_library_load(): join-or-dlopen, the
 * version-node walk, and resolving every slot of the table from the
 * library's own GNU hash table), each in fresh processes, since both are
 * once-per-process costs that a warm process would not show.
 *
 *   first_use [RUNS]          for each library and mode, RUNS fresh
 *                             processes (default 20), and print
 *                             "first LIB MODE BEST_NS MEDIAN_NS SLOTS"
 *   first_use --child MODE LIB
 *                             one measurement in this process: print
 *                             "NS SLOTS"
 *
 * MODE is one of
 *   raw   dlopen(soname, RTLD_NOW | RTLD_LOCAL)
 *   shim  vs_library_load(LIB)
 *   dlvsym the resolve step as dlvsym() would do it, on the handle of a
 *         library the shim loaded (untimed): one dlvsym() per row of the
 *         library's symbol list whose node the library defines, pinned to
 *         that node: what the loader's fill cost before it read the GNU
 *         hash table itself (shim/loader/elf_image.c), kept to compare.
 *         The loader's own fill is counted by callgrind inside
 *         vs__LIB_fill (bench/first_use_roots.sh); the shim column
 *         measures the real thing as a whole
 *   probe the loader's "join an already-loaded copy" step as it runs
 *         when there is none: dlopen(RTLD_NOLOAD) of the soname, then of
 *         the dev name, both failing.  Not free: for a name that matches
 *         no loaded object glibc searches the library path and opens the
 *         file to compare its identity, before it can say "not loaded"
 *
 * librdmacm and libefa depend on libibverbs, and the shim loads
 * libibverbs first: in every mode libibverbs is loaded, untimed, before
 * either of them, so that their rows show their own cost only.
 *
 * The timed step is vs_bench_timed_step(), so that callgrind can count it
 * alone with --toggle-collect=vs_bench_timed_step.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbshim/loader.h"
#include "loader/vs_shim.h"

#define VS_BENCH_DEFAULT_RUNS 20
#define VS_BENCH_MAX_RUNS 1000

enum vs_bench_mode {
	VS_BENCH_RAW,
	VS_BENCH_SHIM,
	VS_BENCH_DLVSYM,
	VS_BENCH_PROBE,
	VS_BENCH_NMODES
};

static const char *const vs_bench_modes[VS_BENCH_NMODES] = { "raw", "shim",
							     "dlvsym", "probe" };
/* every library of the loader, from its row: none can lack a name */
#define VS_BENCH_NAME(lib, ...) #lib,
static const char *const vs_bench_libs[VS_LIB_COUNT] = {
	VS_LIBRARIES(VS_BENCH_NAME)
};
#define VS_BENCH_DESC(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const vs_bench_descs[VS_LIB_COUNT] = {
	VS_LIBRARIES(VS_BENCH_DESC)
};

static double vs_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *vs_bench_raw_open(enum vs_library lib)
{
	void *h = dlopen(vs_bench_descs[lib]->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fprintf(stderr, "first_use: %s\n", dlerror());
	return h;
}

static void *vs_bench_slots[256];

static int vs_bench_dlvsym(const struct vs_lib_desc *desc, void *handle)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < desc->nsyms; i++) {
		const struct vs_sym *sym = &desc->syms[i];
		void *p = NULL;

		/* (an unversioned library: every row, by dlvsym all the same) */
		if (!desc->state->highest_node[0] ||
		    vs__node_defined(desc->state, sym->node - desc->first_node))
			p = dlvsym(handle, vs__sym_name(desc, sym),
				   vs__nodes[sym->node].name);

		/* Stored, as the loader stores each slot (release store). */
		__atomic_store_n(&vs_bench_slots[i % 256], p, __ATOMIC_RELEASE);
		n += p != NULL;
	}
	return n;
}

/* Returns the slots resolved (fill, shim), 1 (raw), 0 (probe: nothing
 * may be found), or -1 on error. */
__attribute__((noinline)) int vs_bench_timed_step(enum vs_bench_mode mode,
						  enum vs_library lib,
						  void *handle);
__attribute__((noinline)) int vs_bench_timed_step(enum vs_bench_mode mode,
						  enum vs_library lib,
						  void *handle)
{
	struct vs_library_info info;

	switch (mode) {
	case VS_BENCH_RAW:
		return vs_bench_raw_open(lib) ? 1 : -1;
	case VS_BENCH_SHIM:
		if (vs_library_load(lib) ||
		    vs_library_query(lib, &info))
			return -1;
		return (int)info.symbols_resolved;
	case VS_BENCH_DLVSYM:
		return vs_bench_dlvsym(vs_bench_descs[lib], handle);
	case VS_BENCH_PROBE:
		if (dlopen(vs_bench_descs[lib]->soname,
			   RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) ||
		    dlopen(vs_bench_descs[lib]->devname,
			   RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))
			return -1;
		return 0;
	case VS_BENCH_NMODES:
		break;
	}
	return -1;
}

/* The machine has no such library (rdma-core 33.2 has no libmana): the
 * child exits with this, and the driver reports the library absent. */
#define VS_BENCH_ABSENT 77

static int vs_bench_absent(enum vs_library lib)
{
	return vs_library_load(lib) == -ENOENT ? VS_BENCH_ABSENT : 1;
}

static int vs_bench_child(enum vs_bench_mode mode, enum vs_library lib)
{
	void *handle = NULL;
	double t0, t;
	int n;

	/* The prerequisites, untimed, done the way the mode itself does
	 * them: the shim loads libibverbs through itself. */
	if (lib != VS_LIB_IBVERBS) {
		if (mode == VS_BENCH_SHIM ? vs_library_load(VS_LIB_IBVERBS) != 0 :
					    !vs_bench_raw_open(VS_LIB_IBVERBS))
			return 1;
	}
	if (mode == VS_BENCH_DLVSYM) {
		if (vs_library_load(lib))
			return vs_bench_absent(lib);
		handle = vs_bench_descs[lib]->state->handle;
	}

	t0 = vs_bench_now_ns();
	n = vs_bench_timed_step(mode, lib, handle);
	t = vs_bench_now_ns() - t0;
	if (n < 0 && vs_bench_absent(lib) == VS_BENCH_ABSENT)
		return VS_BENCH_ABSENT;
	if (n < 0) {
		fprintf(stderr, "first_use: %s %s failed\n",
			vs_bench_modes[mode], vs_bench_libs[lib]);
		return 1;
	}
	printf("%.0f %d\n", t, n);
	return 0;
}

/* Run "--child MODE LIB" in a fresh process; its "NS SLOTS" line. */
static int vs_bench_spawn(const char *self, enum vs_bench_mode mode,
			  enum vs_library lib, double *ns, int *slots)
{
	char line[128] = "";
	int fds[2], status, ok;
	ssize_t len;
	FILE *f;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(self, self, "--child", vs_bench_modes[mode],
		      vs_bench_libs[lib], (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	len = f && fgets(line, sizeof(line), f) ? (ssize_t)strlen(line) : 0;
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == VS_BENCH_ABSENT)
		return VS_BENCH_ABSENT;
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && len > 0 &&
	     sscanf(line, "%lf %d", ns, slots) == 2;
	return ok ? 0 : -1;
}

static int vs_bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int vs_bench_driver(const char *self, unsigned int runs)
{
	static double ns[VS_LIB_COUNT][VS_BENCH_NMODES][VS_BENCH_MAX_RUNS];
	int slots[VS_LIB_COUNT][VS_BENCH_NMODES];
	int absent[VS_LIB_COUNT] = { 0 };
	unsigned int lib, mode, r;

	/*
	 * Modes and libraries interleaved run by run, so that drift of the
	 * machine (page cache, CPU clock, other load) is shared by all of
	 * them rather than falling on whichever ran last.
	 */
	for (r = 0; r < runs; r++)
		for (lib = 0; lib < VS_LIB_COUNT; lib++)
			for (mode = 0; mode < VS_BENCH_NMODES && !absent[lib];
			     mode++) {
				int rc = vs_bench_spawn(self, mode, lib,
							&ns[lib][mode][r],
							&slots[lib][mode]);

				if (rc == VS_BENCH_ABSENT)
					absent[lib] = 1;
				else if (rc) {
					fprintf(stderr,
						"first_use: --child %s %s failed\n",
						vs_bench_modes[mode],
						vs_bench_libs[lib]);
					return 1;
				}
			}
	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		if (absent[lib])
			printf("absent %s\n", vs_bench_libs[lib]);
	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		for (mode = 0; mode < VS_BENCH_NMODES && !absent[lib]; mode++) {
			double *v = ns[lib][mode];

			qsort(v, runs, sizeof(*v), vs_bench_cmp);
			printf("first %s %s %.0f %.0f %d\n", vs_bench_libs[lib],
			       vs_bench_modes[mode], v[0],
			       runs % 2 ? v[runs / 2] :
					  (v[runs / 2 - 1] + v[runs / 2]) / 2,
			       slots[lib][mode]);
		}
	return 0;
}

static int vs_bench_lookup(const char *arg, const char *const *names,
			   unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long runs = VS_BENCH_DEFAULT_RUNS;

	if (argc == 4 && !strcmp(argv[1], "--child")) {
		int mode = vs_bench_lookup(argv[2], vs_bench_modes,
					   VS_BENCH_NMODES);
		int lib = vs_bench_lookup(argv[3], vs_bench_libs, VS_LIB_COUNT);

		if (mode < 0 || lib < 0) {
			fprintf(stderr, "first_use: bad --child %s %s\n",
				argv[2], argv[3]);
			return 2;
		}
		return vs_bench_child(mode, lib);
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		runs = strtoul(argv[1], &end, 0);
		if (errno || *end || !*argv[1])
			runs = 0;
	}
	if (argc > 2 || runs == 0 || runs > VS_BENCH_MAX_RUNS) {
		fprintf(stderr, "usage: first_use [RUNS <= %d] | --child "
				"raw|shim|fill|probe LIB (ibverbs, rdmacm, ...)\n",
			VS_BENCH_MAX_RUNS);
		return 2;
	}
	/* /proc/self/exe: the very binary, wherever it was started from. */
	return vs_bench_driver("/proc/self/exe", (unsigned int)runs);
}
