/* SPDX-License-Identifier: MIT */
/*
 * The CM's old_cm rows (lib/cm/cm_kinds.c, VS__CM_KINDS): against the
 * stub librdmacm of rdma-core 17 (RDMACM_1.0-1.1: no rdma_init_qp_attr,
 * no rdma_establish, as 17.1 and 22.4 ship it) an id takes the rows on
 * which librdmacm brings its QP up itself, saying why; against 28's
 * (RDMACM_1.2) it does not, unless the legacy verbs are forced.  Each
 * release runs in a child process, since a process loads once.  The
 * bring-up itself on a device: test/device/cm_rc.c and cm_ud.c in the
 * 17.1 and 22.4 roots, and under VERBSHIM_FORCE_LEGACY=1 anywhere.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbshim.h"
#include "vs_test.h"

/* lib/cm/cm_kinds.c (the archive's, internal to lib/) */
bool vs__cm_old_here(void);
const char *vs__cm_old_why(void);

static void use_stubs(int n)
{
	static const char *const libs[][2] = {
		{ "VERBSHIM_LIBIBVERBS", "libibverbs.so.1" },
		{ "VERBSHIM_LIBRDMACM", "librdmacm.so.1" },
	};
	char exe[PATH_MAX], path[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		VS_ASSERT(len > 0);
		exe[len] = '\0';
		snprintf(path, sizeof(path), "%s/../../stubs/v%d/%s",
			 dirname(exe), n, libs[i][1]);
		setenv(libs[i][0], path, 1);
	}
}

static void one_release(int n)
{
	int has = n >= 23;

	use_stubs(n);
	vs_set_force_legacy(false);
	/* links librdmacm's table, as every program of the CM does */
	VS_ASSERT_EQ(vs_library_load(VS_LIB_RDMACM), 0);
	VS_ASSERT_EQ(vs_symbol_resolved("rdma_init_qp_attr"), has);
	VS_ASSERT_EQ(vs_symbol_resolved("rdma_establish"), has);
	VS_ASSERT_EQ(vs__cm_old_here(), !has);
	if (!has)
		VS_ASSERT(strstr(vs__cm_old_why(), "no rdma_init_qp_attr "
				 "(RDMACM_1.2, rdma-core 23 or later)"));
	/* forced: the old rows on any librdmacm, read at each id's create */
	vs_set_force_legacy(true);
	VS_ASSERT_EQ(vs__cm_old_here(), true);
	if (has)
		VS_ASSERT(strstr(vs__cm_old_why(), "forced"));
	vs_set_force_legacy(false);
	VS_ASSERT_EQ(vs__cm_old_here(), !has);
	printf("ok: rdma-core %d stubs: %s\n", n,
	       has ? "the library brings CM QPs up (rdma_init_qp_attr)" :
		     vs__cm_old_why());
}

int main(void)
{
	static const int releases[] = { 17, 28, 65 };
	int status, bad = 0;

	for (size_t i = 0; i < sizeof(releases) / sizeof(releases[0]); i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		VS_ASSERT(pid >= 0);
		if (!pid) {
			one_release(releases[i]);
			exit(0);
		}
		VS_ASSERT(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
