// SPDX-License-Identifier: MIT
/*
 * A program built the way a shared object standing in for libibverbs is
 * (the shim compiled VISIBILITY=default, the program linked -rdynamic):
 * its exported ibv_* capture libibverbs' own calls, so a libibverbs whose
 * constructor calls ibv_* reaches the shim while the shim is loading it.
 * That call must be refused with EDEADLK, not wait for itself forever, and
 * the load must complete.  (The Makefile links this test against the
 * default-visibility shim objects and with -rdynamic.)
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/vs_shim.h"
#include "vs_test.h"

struct ctor_seen {
	int ran;
	const char *status_str;
	int status_errno;
	struct ibv_device **list;
	int n;
	int list_errno;
};

int main(void)
{
	char exe[PATH_MAX], path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct vs_library_info info;
	struct ibv_device **list;
	const struct ctor_seen *seen;
	void *h;
	int n = -1;

	VS_ASSERT(len > 0);
	exe[len] = '\0';
	/* The drop-ins must be in the dynamic symbol table, or this test
	 * tests nothing. */
	VS_ASSERT(dlsym(RTLD_DEFAULT, "ibv_wc_status_str") ==
		  (void *)ibv_wc_status_str);
	snprintf(path, sizeof(path), "%s/../../stubs/reenter/libibverbs.so.1",
		 dirname(exe));
	setenv("VERBSHIM_LIBIBVERBS", path, 1);
	setenv("VS_STUB_CTOR", "direct", 1);
	/* A hang is a failure; 300 s, as under ASan in the emulated arm64
	 * guest (TCG) a run takes ~10x its 6 s under qemu-user. */
	alarm(300);

	list = ibv_get_device_list(&n);
	VS_ASSERT(list != NULL);
	VS_ASSERT_EQ(n, 1);

	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	seen = dlsym(h, "vs_stub_ctor");
	VS_ASSERT(seen != NULL);
	VS_ASSERT_EQ(seen->ran, 1);
	/* The constructor's calls reached the shim (the stub's own
	 * ibv_wc_status_str says "stub") and were refused. */
	VS_ASSERT_STREQ(seen->status_str, "unknown");
	VS_ASSERT_EQ(seen->status_errno, EDEADLK);
	VS_ASSERT(seen->list == NULL);
	VS_ASSERT_EQ(seen->n, 0);
	VS_ASSERT_EQ(seen->list_errno, EDEADLK);
	dlclose(h);

	VS_ASSERT_EQ(vs_library_query(VS_LIB_IBVERBS, &info), 0);
	VS_ASSERT_EQ(info.loaded, 1);
	if (!info.error || strcmp(info.error, "libibverbs called back into "
				  "ibv_* while loading (2 calls refused with "
				  "EDEADLK)"))
		VS_FAIL("info.error: %s", info.error ? info.error : "(null)");
	VS_ASSERT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "stub");
	printf("a constructor's call back into the exported ibv_* was refused "
	       "with EDEADLK; the load completed\n");
	return 0;
}
