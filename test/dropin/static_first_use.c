// SPDX-License-Identifier: MIT
/*
 * First use in a statically linked program (test/shell/static.sh links it
 * with -static against an archive built without the glibc pins, which is
 * the only way such a link succeeds): no library is loaded, the drop-ins
 * answer as for a missing library, and vs_library_query() says why.
 * Linked dynamically, the same program must not be refused.
 *
 *   static_first_use static|dynamic
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbshim.h"
#include "vs_test.h"

int main(int argc, char **argv)
{
	struct vs_library_info info = { 0 };
	struct ibv_device **list;
	int n = -1, ret, is_static;

	if (argc != 2 || (strcmp(argv[1], "static") && strcmp(argv[1], "dynamic"))) {
		fprintf(stderr, "usage: static_first_use static|dynamic\n");
		return 2;
	}
	is_static = !strcmp(argv[1], "static");
	list = ibv_get_device_list(&n);
	ret = vs_library_query(VS_LIB_IBVERBS, &info);
	printf("vs_library_query: %d, loaded %d, errno %d, error: %s\n", ret,
	       info.loaded, info.load_errno, info.error ? info.error : "(none)");
	if (is_static) {
		VS_ASSERT(list == NULL);
		VS_ASSERT_EQ(n, 0);
		VS_ASSERT_EQ(ret, 0);
		VS_ASSERT_EQ(info.loaded, 0);
		VS_ASSERT_EQ(info.load_errno, ELIBACC);
		VS_ASSERT(info.error && strstr(info.error, "statically linked") &&
			  strstr(info.error, "drop -static"));
		VS_ASSERT_EQ(vs_library_load(VS_LIB_IBVERBS), -ELIBACC);
	} else {
		VS_ASSERT(info.load_errno != ELIBACC);
		VS_ASSERT(!info.error || !strstr(info.error, "statically linked"));
		if (list)
			ibv_free_device_list(list);
	}
	printf("ok: %s\n", argv[1]);
	return 0;
}
