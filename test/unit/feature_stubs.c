// SPDX-License-Identifier: MIT
/*
 * vs_feature_query() and vs_library_nodes() on the stub libraries of
 * rdma-core 17, 28, 34, 44 and 65 (build/stubs/vN: every node whose first
 * release is <= N): each feature is available exactly when its node's
 * release is, the machine is described by its newest node and the
 * releases that have it, the nodes found are the release's, and the
 * feature table agrees with the symbol tables (node of each verb).  A
 * libefa found but failed to load is told from one not found.  A
 * missing verb's drop-in gives its not-supported result.  Each release
 * runs in a child process, since a process loads once.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbshim.h"
#include "vs_config.h"
#include "vs_test.h"

struct release {
	int n;
	const char *ibverbs_found, *ibverbs_nodes, *rdmacm_nodes;
};

static const struct release releases[] = {
	{ 17, "IBVERBS_1.1 (rdma-core 17-19)", "IBVERBS_1.0-1.1", "RDMACM_1.0-1.1" },
	{ 28, "IBVERBS_1.8 (rdma-core 28/29)", "IBVERBS_1.0-1.8", "RDMACM_1.0-1.2" },
	{ 34, "IBVERBS_1.12 (rdma-core 34)", "IBVERBS_1.0-1.12", "RDMACM_1.0-1.3" },
	{ 44, "IBVERBS_1.14 (rdma-core 36-58)", "IBVERBS_1.0-1.14", "RDMACM_1.0-1.3" },
	{ 65, "IBVERBS_1.18 (rdma-core 65 or later)", "IBVERBS_1.0-1.18", "RDMACM_1.0-1.5" },
};

static void use_stubs(int n)
{
	static const char *const libs[][2] = {
		{ "VERBSHIM_LIBIBVERBS", "libibverbs.so.1" },
		{ "VERBSHIM_LIBRDMACM", "librdmacm.so.1" },
		{ "VERBSHIM_LIBEFA", "libefa.so.1" },
		{ "VERBSHIM_LIBMLX5", "libmlx5.so.1" },
		{ "VERBSHIM_LIBMLX4", "libmlx4.so.1" },
		{ "VERBSHIM_LIBIBUMAD", "libibumad.so.3" },
	};
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	VS_ASSERT(len > 0);
	exe[len] = '\0';
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		snprintf(path, sizeof(path), "%s/../../stubs/v%d/%s", dirname(exe), n,
			 libs[i][1]);
		setenv(libs[i][0], path, 1);
		/* dirname() may have cut exe: read it again */
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[len] = '\0';
	}
}

static void one_release(const struct release *r)
{
	struct vs_feature_info fi;
	char nodes[96];
	int avail = 0;

	use_stubs(r->n);
	for (int f = 0; f < VS_FEATURE_COUNT; f++) {
		VS_ASSERT_EQ(vs_feature_query((enum vs_feature)f, &fi), 0);
		VS_ASSERT(fi.verb && fi.node && fi.name);
		VS_ASSERT(fi.release >= 31);	/* newer than some supported release */
		if (fi.compiled_in)	/* the table agrees with the symbols' */
			VS_ASSERT_STREQ(vs_symbol_node(fi.verb), fi.node);
		else
			VS_ASSERT(vs_symbol_node(fi.verb) == NULL);
		if (!strncmp(fi.node, "EFA_", 4) && r->n < 24) {
			/* v17 has no libefa at all */
			VS_ASSERT_EQ(fi.available, 0);
			VS_ASSERT(!strncmp(fi.found, "no libefa: ", 11));
			/* absent, not broken: older than the library */
			VS_ASSERT(strstr(fi.found, "absent, not broken: libefa "
					 "came with rdma-core 24 and this "
					 "libibverbs is of rdma-core 17-19"));
			continue;
		}
		VS_ASSERT_EQ(fi.available, fi.compiled_in && fi.release <= r->n);
		avail += fi.available;
		if (!strncmp(fi.node, "IBVERBS_", 8))
			VS_ASSERT_STREQ(fi.found, r->ibverbs_found);
	}
	VS_ASSERT(vs_library_nodes(VS_LIB_IBVERBS, nodes, sizeof(nodes)) > 0);
	VS_ASSERT_STREQ(nodes, r->ibverbs_nodes);
	VS_ASSERT(vs_library_nodes(VS_LIB_RDMACM, nodes, sizeof(nodes)) > 0);
	VS_ASSERT_STREQ(nodes, r->rdmacm_nodes);
	/* a cut answer stays a string */
	VS_ASSERT(vs_library_nodes(VS_LIB_IBVERBS, nodes, 8) == 7);
	VS_ASSERT_EQ(strlen(nodes), 7);
	VS_ASSERT_EQ(vs_library_nodes(VS_LIB_IBVERBS, NULL, 8), -EINVAL);
	VS_ASSERT_EQ(vs_library_nodes(VS_LIB_COUNT, nodes, 8), -EINVAL);
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_COUNT, &fi), -EINVAL);
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_ECE, NULL), -EINVAL);
#ifdef VS_HAVE_IBVERBS_1_16
	if (r->n < 62) {	/* the drop-in's not-supported result */
		uint64_t speed = 7;

		VS_ASSERT_EQ(ibv_query_port_speed(NULL, 1, &speed), EOPNOTSUPP);
		VS_ASSERT_EQ(speed, 7);
	}
#endif
	printf("ok: rdma-core %d stubs: libibverbs %s, %d of %d features\n",
	       r->n, r->ibverbs_found, avail, VS_FEATURE_COUNT);
}

/*
 * A libefa that is there but does not load says so, and why (dlerror),
 * never "not found": build/stubs/broken/libefa.so.1 needs a library that
 * is nowhere (whose own "No such file" must not be read as libefa's), a
 * file of garbage is not ELF; a path to nothing is "not found".
 */
enum efa_case { EFA_MISSING_DEP, EFA_BAD_ELF, EFA_NOWHERE };

static void broken_efa(enum efa_case c)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], junk[] = "/tmp/vs_feature_XXXXXX";
	struct vs_feature_info fi;
	struct vs_library_info li;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *want;
	int fd = -1;

	use_stubs(44);
	VS_ASSERT(len > 0);
	exe[len] = '\0';
	if (c == EFA_MISSING_DEP) {
		snprintf(path, sizeof(path), "%s/../../stubs/broken/libefa.so.1",
			 dirname(exe));
		VS_ASSERT(access(path, R_OK) == 0);
		want = "libvs_gone.so.0";	/* the rest may be cut (160 bytes) */
	} else if (c == EFA_BAD_ELF) {
		char bytes[256];

		fd = mkstemp(junk);
		VS_ASSERT(fd >= 0);
		memset(bytes, 'x', sizeof(bytes));	/* longer than an ELF header */
		VS_ASSERT(write(fd, bytes, sizeof(bytes)) == (ssize_t)sizeof(bytes));
		close(fd);
		snprintf(path, sizeof(path), "%s", junk);
		want = "invalid ELF header";
	} else {
		snprintf(path, sizeof(path), "/nonexistent/libefa.so.1");
		want = "/nonexistent/libefa.so.1: cannot open shared object file";
	}
	setenv("VERBSHIM_LIBEFA", path, 1);
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_SRD_WQS, &fi), 0);
	if (fd >= 0)
		unlink(junk);
	VS_ASSERT_EQ(fi.available, 0);
	if (!strstr(fi.found, c == EFA_NOWHERE ? ": not found: " :
			      ": found but failed to load: ") ||
	    !strstr(fi.found, want))
		VS_FAIL("case %d: found = \"%s\"", (int)c, fi.found);
	VS_ASSERT_EQ(vs_library_query(VS_LIB_EFA, &li), 0);
	VS_ASSERT_EQ(li.load_errno, c == EFA_NOWHERE ? ENOENT : ELIBBAD);
	printf("ok: %s\n", fi.found);
}

int main(void)
{
	int status, bad = 0;

	for (int c = EFA_MISSING_DEP; c <= EFA_NOWHERE; c++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		VS_ASSERT(pid >= 0);
		if (!pid) {
			broken_efa((enum efa_case)c);
			exit(0);
		}
		VS_ASSERT(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}

	for (size_t i = 0; i < sizeof(releases) / sizeof(releases[0]); i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		VS_ASSERT(pid >= 0);
		if (!pid) {
			one_release(&releases[i]);
			exit(0);
		}
		VS_ASSERT(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
