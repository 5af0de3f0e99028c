// SPDX-License-Identifier: MIT
/*
 * One binary, run against whatever rdma-core it finds: reports what was
 * loaded and checks it against expectations read from the libraries
 * themselves (test/shell/cross_version.sh writes them from objdump), then
 * makes calls that need no device and must behave on every release.
 *
 *   VS_EXPECT_FILE  lines "lib NAME HIGHEST_NODE PROVIDER_ABI",
 *                   "nolib NAME" (the release does not ship it) and
 *                   "sym NAME NODE" (every exported name@node); optional
 *   VS_EXPECT_ROOT  the loaded libraries must live under this directory
 *
 * Without VS_EXPECT_FILE (the unit stage, the VM's release roots): each
 * symbol resolves exactly when its node is not newer than the library's
 * highest node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad_types.h>

#include "loader/vs_shim.h"
#include "trace/vs_trace.h"
#include "vs_rows.h"
#include "vs_test.h"

struct expect {
	int absent[VS_LIB_COUNT];
	char node[VS_LIB_COUNT][64];
	int abi[VS_LIB_COUNT];
	char (*syms)[160];	/* "name node" */
	size_t nsyms;
};

#define LIB_NAME(lib, ...) "lib" #lib,
static const char *const lib_names[VS_LIB_COUNT] = { VS_LIBRARIES(LIB_NAME) };

static void read_expect(const char *path, struct expect *e)
{
	char line[256], kind[8], a[64], b[64], abi[16];
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	int lib;

	if (!f)
		VS_FAIL("VS_EXPECT_FILE=%s: cannot open", path);
	memset(e, 0, sizeof(*e));
	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		e->abi[lib] = -1;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%7s %63s %63s %15s", kind, a, b, abi);

		if (n >= 3 && !strcmp(kind, "sym")) {
			if (e->nsyms == cap) {
				cap = cap ? cap * 2 : 256;
				e->syms = realloc(e->syms, cap * sizeof(*e->syms));
				VS_ASSERT(e->syms != NULL);
			}
			snprintf(e->syms[e->nsyms++], sizeof(*e->syms), "%s %s",
				 a, b);
		} else if (n == 2 && !strcmp(kind, "nolib")) {
			for (lib = 0; lib < VS_LIB_COUNT; lib++)
				e->absent[lib] |= !strcmp(a, lib_names[lib]);
		} else if (n == 4 && !strcmp(kind, "lib")) {
			for (lib = 0; lib < VS_LIB_COUNT; lib++)
				if (!strcmp(a, lib_names[lib])) {
					snprintf(e->node[lib],
						 sizeof(e->node[lib]), "%s", b);
					e->abi[lib] = atoi(abi);
				}
		}
	}
	fclose(f);
}

static int exported(const struct expect *e, const char *name,
		    const char *node)
{
	char key[160];
	size_t i;

	snprintf(key, sizeof(key), "%s %s", name, node);
	for (i = 0; i < e->nsyms; i++)
		if (!strcmp(e->syms[i], key))
			return 1;
	return 0;
}

static int min_release[VS_LIB_COUNT];

#define DESC(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const descs[VS_LIB_COUNT] = {
	VS_LIBRARIES(DESC)
};

/* Every release since 33 (the oldest supported) ships the libraries it
 * had; the newer ones (libmana 41, libhns 51, libionic 59) may be absent. */
static int newer_than_33(int lib)
{
	return vs__nodes[descs[lib]->first_node].release > 33;
}

/* Newer than the loaded libibverbs's release (libefa, 24, beside 17.1's
 * or 22.4's: absent there); libibverbs is checked first. */
static int newer_than_here(int lib)
{
	return lib != VS_LIB_IBVERBS && min_release[VS_LIB_IBVERBS] > 0 &&
	       vs__nodes[descs[lib]->first_node].release > min_release[VS_LIB_IBVERBS];
}

static void check_libraries(const struct expect *e, const char *root)
{
	int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		struct vs_library_info info;

		VS_ASSERT_EQ(vs_library_query(lib, &info), 0);
		if (!info.loaded && info.load_errno == ENOENT &&
		    (e ? e->absent[lib] : newer_than_33(lib) || newer_than_here(lib))) {
			/* Not supported here: every row answers its
			 * convention (check_symbols, vs_rows_check_...). */
			printf("%-10s not supported: not found in this release\n",
			       info.name);
			VS_ASSERT_EQ(info.symbols_resolved, 0);
			continue;
		}
		if (!info.loaded)
			VS_FAIL("%s did not load: %s", info.name, info.error);
		if (e && e->absent[lib])
			VS_FAIL("%s loaded from %s, but the release has none",
				info.name, info.path);
		printf("%-10s %-14s rdma-core >= v%-3d provider ABI %-3d "
		       "%u/%u symbols  %s\n", info.name, info.highest_node,
		       info.min_release, info.provider_abi,
		       info.symbols_resolved, info.symbols_known, info.path);
		if (root && strncmp(info.path, root, strlen(root)))
			VS_FAIL("%s loaded from %s, not under %s", info.name,
				info.path, root);
		min_release[lib] = info.min_release;
		if (!e)
			continue;
		VS_ASSERT_STREQ(info.highest_node, e->node[lib]);
		VS_ASSERT_EQ(info.provider_abi, e->abi[lib]);
	}
}

/* Each row resolves exactly when the library exports name@pinned-node. */
static void check_symbols(const struct expect *e)
{
	unsigned int bad = 0;

#define CHECK_SYM(node, sym, ret, params, args, conv, facts)                          \
	do {                                                                   \
		const char *pin = vs__nodes[VS_NODE_##node].name;               \
		int want = exported(e, #sym, pin);                             \
		int got = vs_symbol_resolved(#sym);                            \
		if (got != want) {                                             \
			fprintf(stderr, "%s@%s: resolved %d, exported %d\n",   \
				#sym, pin, got, want);                         \
			bad++;                                                 \
		}                                                              \
	} while (0);
#define CHECK_LIB(lib, LIB, ...) VS_##LIB##_SYMBOLS(CHECK_SYM)
	VS_LIBRARIES(CHECK_LIB)
	VS_ASSERT_EQ(bad, 0);
}


/*
 * umad_init() is a no-op answering 0 from rdma-core 22 on (22.4's, the
 * oldest here after 17.1); 17.1's libibumad reads the kernel's
 * /sys/class/infiniband_mad/abi_version and answers -1 without ib_umad
 * loaded (its own "is ib_umad module loaded?" warning).  The release is
 * libibverbs' private ABI (17 for 17.1) when the expectations say it, else
 * (a run without them: test/vm/plain_verbs.sh) the loader's reading of it.
 */
static int umad_init_may_fail(const struct expect *e)
{
	struct vs_library_info li;
	int lib;

	if (access("/sys/class/infiniband_mad/abi_version", R_OK) == 0)
		return 0;
	if (!e)
		return !vs_library_query(VS_LIB_IBVERBS, &li) &&
		       li.min_release > 0 && li.min_release < 22;
	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		if (!strcmp(lib_names[lib], "libibverbs"))
			return e->abi[lib] >= 0 && e->abi[lib] < 22;
	return 0;
}

/* Calls that need no device: the library's own answers, no crash. */
static void check_calls(const struct expect *e)
{
	int umad;
	struct rdma_event_channel *channel;
	struct ibv_device **list;
	int n = -1, fd;

	list = ibv_get_device_list(&n);
	if (getenv("VERBSHIM_IN_VM")) {
		VS_ASSERT(list != NULL);
		VS_ASSERT(n >= 1);
	} else {
		VS_ASSERT_EQ(n, 0);
	}
	printf("devices: %d%s\n", n, list ? "" : " (no list: no RDMA in this kernel)");
	/* rxe is not mlx5: libmlx5 itself says so. */
	if (list && n >= 1)
		VS_ASSERT(!mlx5dv_is_supported(list[0]));
#ifdef VS_HAVE_HNS_1_0
	if (list && n >= 1)	/* nor hns: libhns (or its absence) says so */
		VS_ASSERT(!hnsdv_is_supported(list[0]));
#endif
	if (list)
		ibv_free_device_list(list);
	VS_ASSERT(umad_size() > 0);
	umad = umad_init();
	if (umad != 0 && umad_init_may_fail(e))
		printf("umad_init: %d, as libibumad of rdma-core < 22 answers without ib_umad\n", umad);
	else
		VS_ASSERT_EQ(umad, 0);
	VS_ASSERT_STREQ(umad_method_str(UMAD_CLASS_SUBN_LID_ROUTED,
					UMAD_METHOD_GET), "Get");
	VS_ASSERT_EQ(umad_done(), 0);
	VS_ASSERT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	VS_ASSERT_STREQ(ibv_node_type_str(IBV_NODE_CA), "InfiniBand channel adapter");
	VS_ASSERT_STREQ(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
	VS_ASSERT_EQ(ibv_rate_to_mult(IBV_RATE_10_GBPS), 4);
	VS_ASSERT_EQ(mult_to_ibv_rate(4), IBV_RATE_10_GBPS);
	VS_ASSERT_EQ(ibv_rate_to_mbps(IBV_RATE_10_GBPS), 10000);
	VS_ASSERT_STREQ(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED),
			"RDMA_CM_EVENT_ESTABLISHED");
#ifdef VS_HAVE_MANA_1_0
	/* libmana's own EINVAL (an unknown object type, nothing read), or
	 * EOPNOTSUPP where the release has no libmana. */
	{
		int rc = manadv_init_obj(NULL, 1ull << 63);

		VS_ASSERT_EQ(rc, vs_symbol_resolved("manadv_init_obj") == 1 ?
				     EINVAL : EOPNOTSUPP);
	}
#endif

#ifdef VS_HAVE_IBVERBS_1_13	/* not declared by older headers (make oldest) */
	{
		enum ibv_fork_status fork_status = ibv_is_fork_initialized();

		VS_ASSERT(fork_status == IBV_FORK_DISABLED ||
			  fork_status == IBV_FORK_ENABLED ||
			  fork_status == IBV_FORK_UNNEEDED);
	}
#endif

	channel = rdma_create_event_channel();
	if (channel)
		rdma_destroy_event_channel(channel);
	else
		VS_ASSERT(errno != 0);
	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0)
		rclose(fd);
	else
		VS_ASSERT(errno != 0);
}

int main(void)
{
	const char *file = getenv("VS_EXPECT_FILE");
	const char *root = getenv("VS_EXPECT_ROOT");
	struct expect e;

	if (file)
		read_expect(file, &e);
	check_libraries(file ? &e : NULL, root);
	VS_ASSERT(vs_rows_check_addresses("release") <= 0);
	if (file) {
		check_symbols(&e);
		free(e.syms);
	} else {
		VS_ASSERT_EQ(vs_rows_check_by_release(min_release, "by node age"), 0);
	}
	check_calls(file ? &e : NULL);
	return 0;
}
