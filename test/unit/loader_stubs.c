// SPDX-License-Identifier: MIT
/*
 * The loader against stub libraries that emulate the version nodes of
 * rdma-core 17, 28, 34, 44 and 65 (each lacking the libraries that release
 * did not have yet), one without symbol versions, one whose
 * load bias wraps, an override that points nowhere, one that is not
 * rdma-core at all, and a libibverbs whose constructor calls back into
 * ibv_*: which nodes and provider ABI are reported, which symbols resolve,
 * that present symbols reach the library, that missing ones keep their
 * upstream error convention or fall back, and that a call back during the
 * load is refused (EDEADLK) while other threads wait for it.
 *
 * Each scenario runs in a child process, since a process loads once.
 *   loader_stubs            every scenario
 *   loader_stubs none       only "no rdma-core at all", default search
 *                           (run in an empty root by no_rdma_core.sh)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define VS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VS_TEST_ASAN 1
#endif
#endif
#ifdef VS_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "loader/vs_shim.h"
#include "trace/vs_trace.h"
#include "vs_rows.h"
#include "vs_test.h"

struct scenario {
	const char *name;
	const char *dir;	/* under build/stubs; NULL: none, by env */
	int release;		/* nodes of releases <= this exist */
	const char *node[VS_LIB_COUNT];
	int min_release[VS_LIB_COUNT];
	int abi;
	uintptr_t linked_at;	/* the stubs' link address, when it matters */
};

#define VS_HIGHBASE 0xffffffff80000000ull	/* the Makefile's STUB_LDFLAGS_highbase */

/* libibverbs, librdmacm, libefa, libmlx5, libmlx4, libibumad, libhns,
 * libmana, libionic; NULL: the release did not have the library yet. */
static const struct scenario scenarios[] = {
	{ "v17", "v17", 17,
	  { "IBVERBS_1.1", "RDMACM_1.1", NULL, "MLX5_1.4", "MLX4_1.0",
	    "IBUMAD_1.0" },
	  { 17, 16, 0, 17, 15, 15 }, 17, 0 },	/* IBVERBS_PRIVATE_17: 17, not 1.1's 13 */
	{ "v28", "v28", 28,
	  { "IBVERBS_1.8", "RDMACM_1.2", "EFA_1.1", "MLX5_1.12", "MLX4_1.0",
	    "IBUMAD_1.1" },
	  { 28, 23, 26, 28, 15, 26 }, 28, 0 },
	{ "v34", "v34", 34,
	  { "IBVERBS_1.12", "RDMACM_1.3", "EFA_1.1", "MLX5_1.18", "MLX4_1.0",
	    "IBUMAD_1.2" },
	  { 34, 31, 26, 34, 15, 30 }, 34, 0 },
	{ "v44", "v44", 44,
	  { "IBVERBS_1.14", "RDMACM_1.3", "EFA_1.2", "MLX5_1.24", "MLX4_1.0",
	    "IBUMAD_1.2", NULL, "MANA_1.0" },
	  { 36, 31, 43, 42, 15, 30, 0, 41 }, 34, 0 },
	{ "v65", "v65", 65,
	  { "IBVERBS_1.18", "RDMACM_1.5", "EFA_1.7", "MLX5_1.27", "MLX4_1.0",
	    "IBUMAD_1.4", "HNS_1.0", "MANA_1.1", "IONIC_1.0" },
	  { 65, 65, 65, 63, 15, 56, 51, 65, 59 }, 65, 0 },
	/* rdma-core 44 linked above the user address space: the dynamic
	 * loader maps it lower, its load bias wraps modulo 2^64. */
	{ "wrapped load bias", "highbase", 44,
	  { "IBVERBS_1.14", "RDMACM_1.3", "EFA_1.2", "MLX5_1.24", "MLX4_1.0",
	    "IBUMAD_1.2", NULL, "MANA_1.0" },
	  { 36, 31, 43, 42, 15, 30, 0, 41 }, 34, VS_HIGHBASE },
	/* rdma-core 44 without a GNU hash table (--hash-style=sysv): the
	 * loader's own lookup cannot answer, every slot asks dlvsym(). */
	{ "no GNU hash", "sysvhash", 44,
	  { "IBVERBS_1.14", "RDMACM_1.3", "EFA_1.2", "MLX5_1.24", "MLX4_1.0",
	    "IBUMAD_1.2", NULL, "MANA_1.0" },
	  { 36, 31, 43, 42, 15, 30, 0, 41 }, 34, 0 },
	/* No version node to pin to: resolved by name, reported as "". */
	{ "unversioned", "unversioned", 1000,
	  { "", "", "", "", "", "", "", "", "" },
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, -1, 0 },
};

#define DESC(lib, ...) &vs__##lib##_desc,
static const struct vs_lib_desc *const descs[VS_LIB_COUNT] = {
	VS_LIBRARIES(DESC)
};

/* The emulated release has the library: its first node is not newer. */
static int has_lib(const struct scenario *sc, unsigned int lib)
{
	return vs__nodes[descs[lib]->first_node].release <= sc->release;
}

static char stubs_root[1024];
static char stub_path[VS_LIB_COUNT][PATH_MAX];
#define SONAME(lib, LIB, soname, ...) soname,
static const char *const sonames[VS_LIB_COUNT] = { VS_LIBRARIES(SONAME) };
#define ENV(lib, LIB, ...) "VERBSHIM_LIB" #LIB,
static const char *const envs[VS_LIB_COUNT] = { VS_LIBRARIES(ENV) };

/* build/.../test/unit/loader_stubs -> build/.../stubs */
static void find_stubs_root(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	VS_ASSERT(n > 0);
	exe[n] = '\0';
	snprintf(stubs_root, sizeof(stubs_root), "%s/../../stubs",
		 dirname(exe));
}

static void *stub_sym(enum vs_library lib, const char *name)
{
	void *h = dlopen(stub_path[lib], RTLD_NOW | RTLD_NOLOAD);
	void *sym;

	VS_ASSERT(h != NULL);
	sym = dlsym(h, name);
	dlclose(h);	/* drops only the reference NOLOAD added */
	VS_ASSERT(sym != NULL);
	return sym;
}

static char *stub_last(enum vs_library lib)
{
	return stub_sym(lib, "vs_stub_last");
}

/* The definition index of node in the object e read, or 0. */
static ElfW(Half) elf_node_ndx(const struct vs_elf *e, const char *node)
{
	uintptr_t vd = e->verdef;
	size_t i;

	for (i = 0; vd && i < e->verdefnum; i++) {
		const ElfW(Verdef) *d = vs__elf_ptr(e, vd, sizeof(*d));
		const ElfW(Verdaux) *aux;
		const char *name;

		VS_ASSERT(d != NULL);
		aux = vs__elf_ptr(e, vd + d->vd_aux, sizeof(*aux));
		VS_ASSERT(aux != NULL);
		name = vs__elf_str(e, e->strtab + aux->vda_name);
		VS_ASSERT(name != NULL);
		if (!strcmp(name, node))
			return d->vd_ndx;
		vd += d->vd_next;
	}
	return 0;
}

/*
 * The loader's own lookup (shim/loader/elf_image.c) answers from the GNU
 * hash table, not by falling back to dlvsym() (which the address check
 * could not tell apart), and asks dlvsym() exactly where there is none.
 */
static void check_elf_lookup(const struct scenario *sc)
{
	void *h = dlopen(stub_path[VS_LIB_IBVERBS], RTLD_NOW | RTLD_NOLOAD);
	int sysv = !strcmp(sc->dir, "sysvhash");
	struct link_map *lm = NULL;
	ElfW(Half) v11, v18;
	struct vs_elf e;
	void *p;

	VS_ASSERT(h != NULL);
	VS_ASSERT_EQ(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	VS_ASSERT_EQ(vs__elf_open(&e, lm), 0);
	v11 = elf_node_ndx(&e, "IBVERBS_1.1");
	v18 = elf_node_ndx(&e, "IBVERBS_1.8");
	VS_ASSERT(v11 != 0);
	VS_ASSERT_EQ(e.gnu_hash == NULL, sysv);
	p = vs__elf_symbol(&e, "ibv_get_device_list", v11);
	if (sysv) {
		VS_ASSERT(p == VS_ELF_ASK);
	} else {
		VS_ASSERT(p == dlvsym(h, "ibv_get_device_list", "IBVERBS_1.1"));
		VS_ASSERT(p != NULL);
		/* a name it does not define; a name at another node */
		VS_ASSERT(vs__elf_symbol(&e, "ibv_no_such_call", v11) == NULL);
		if (v18)
			VS_ASSERT(vs__elf_symbol(&e, "ibv_get_device_list",
						 v18) == NULL);
		/* index 0: no node to pin to, dlvsym() decides */
		VS_ASSERT(vs__elf_symbol(&e, "ibv_get_device_list", 0) ==
			  VS_ELF_ASK);
	}
	dlclose(h);	/* drops only the reference NOLOAD added */
}

/* Every row of the lists: resolved exactly when its node exists. */
static void check_resolution(const struct scenario *sc)
{
	int limit[VS_LIB_COUNT], lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++)
		limit[lib] = has_lib(sc, (unsigned int)lib) ? sc->release : 0;

	VS_ASSERT_EQ(vs_rows_check_by_release(limit, sc->name), 0);
}

static void check_info(const struct scenario *sc)
{
	unsigned int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		struct vs_library_info info;
		char want[PATH_MAX], got[PATH_MAX];

		VS_ASSERT_EQ(vs_library_query(lib, &info), 0);
		if (!has_lib(sc, lib)) {
			VS_ASSERT_EQ(info.loaded, 0);
			VS_ASSERT_EQ(info.load_errno, ENOENT);
			VS_ASSERT(strstr(info.error, vs__knob_name(descs[lib]->knob)));
			VS_ASSERT_EQ(vs_library_load(lib), -ENOENT);
			VS_ASSERT_EQ(info.symbols_resolved, 0);
			continue;
		}
		if (!info.loaded)
			VS_FAIL("%s: %s not loaded: %s", sc->name, info.name,
				info.error);
		VS_ASSERT(realpath(stub_path[lib], want));
		VS_ASSERT(realpath(info.path, got));
		VS_ASSERT_STREQ(got, want);
		VS_ASSERT_STREQ(info.highest_node, sc->node[lib]);
		VS_ASSERT_EQ(info.min_release, sc->min_release[lib]);
		VS_ASSERT_EQ(info.provider_abi,
			     lib == VS_LIB_IBVERBS ? sc->abi : -1);
		VS_ASSERT(info.error == NULL);
		VS_ASSERT(info.symbols_resolved <= info.symbols_known);
		VS_ASSERT_EQ(vs_library_load(lib), 0);
	}
}

/* What the ibv_reg_mr() macro of verbs.h expands to when the compiler
 * cannot see the access flags (this file sees the shim's headers, which
 * remove the macro in order to define the symbol). */
static struct ibv_mr *reg_mr_like_header(struct ibv_pd *pd, void *addr,
					 size_t length, unsigned int access)
{
	return __ibv_reg_mr(pd, addr, length, access, 0);
}

/* libhns, libmana, libionic: their calls reach the stub where the release
 * has the library (and the node), else answer their convention.  Built
 * with headers older than theirs, none of these is defined. */
static void check_forwarding_nics(const struct scenario *sc)
{
#ifdef VS_HAVE_HNS_1_0
	if (has_lib(sc, VS_LIB_HNS)) {
		VS_ASSERT(!hnsdv_is_supported(NULL));
		VS_ASSERT_STREQ(stub_last(VS_LIB_HNS), "hnsdv_is_supported");
		VS_ASSERT_PTR_EQ(hnsdv_create_qp(NULL, NULL, NULL),
				 stub_sym(VS_LIB_HNS, "vs_stub_marker"));
		VS_ASSERT_STREQ(stub_last(VS_LIB_HNS), "hnsdv_create_qp");
	} else {
		VS_ASSERT(!hnsdv_is_supported(NULL));
		VS_ASSERT_EQ(hnsdv_query_device(NULL, NULL), EOPNOTSUPP);
		errno = 0;
		VS_ASSERT(hnsdv_create_qp(NULL, NULL, NULL) == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
#endif
#ifdef VS_HAVE_MANA_1_0
	if (has_lib(sc, VS_LIB_MANA)) {
		VS_ASSERT_EQ(manadv_init_obj(NULL, 0), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_MANA), "manadv_init_obj");
	} else {
		VS_ASSERT_EQ(manadv_init_obj(NULL, 0), EOPNOTSUPP);
		VS_ASSERT_EQ(manadv_set_context_attr(NULL, 0, NULL),
			     EOPNOTSUPP);
	}
#endif
#ifdef VS_HAVE_MANA_1_1
	/* MANA_1.1 is rdma-core 65's: a v44 libmana lacks that node, and
	 * its slot is answered from the node list, without a lookup. */
	if (sc->release >= 65) {
		VS_ASSERT_PTR_EQ(manadv_alloc_pd(NULL, 0),
				 stub_sym(VS_LIB_MANA, "vs_stub_marker"));
		VS_ASSERT_STREQ(stub_last(VS_LIB_MANA), "manadv_alloc_pd");
	} else {
		if (has_lib(sc, VS_LIB_MANA))
			strcpy(stub_last(VS_LIB_MANA), "-");
		errno = 0;
		VS_ASSERT(manadv_alloc_pd(NULL, 0) == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
		if (has_lib(sc, VS_LIB_MANA))
			VS_ASSERT_STREQ(stub_last(VS_LIB_MANA), "-");
	}
#endif
#ifdef VS_HAVE_IONIC_1_0
	if (has_lib(sc, VS_LIB_IONIC)) {
		VS_ASSERT_EQ(ionic_dv_pd_set_udma_mask(NULL, 1), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_IONIC),
				"ionic_dv_pd_set_udma_mask");
		VS_ASSERT_EQ(ionic_dv_ctx_get_udma_count(NULL), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_IONIC),
				"ionic_dv_ctx_get_udma_count");
	} else {
		VS_ASSERT_EQ(ionic_dv_ctx_get_udma_count(NULL), 0);
		VS_ASSERT_EQ(ionic_dv_pd_set_sqcmb(NULL, true, false, false),
			     EOPNOTSUPP);
	}
#endif
	(void)sc;
}

/* Present symbols reach the library, arguments and result intact. */
static void check_forwarding(const struct scenario *sc)
{
	struct ibv_pd *pd = (struct ibv_pd *)0x1000;
	char *marker = stub_sym(VS_LIB_IBVERBS, "vs_stub_marker");

	VS_ASSERT_PTR_EQ(ibv_alloc_pd(NULL), marker);
	VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "ibv_alloc_pd");
	VS_ASSERT_EQ(ibv_dereg_mr(NULL), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "ibv_dereg_mr");
	VS_ASSERT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "stub");
	ibv_ack_cq_events(NULL, 1);
	VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "ibv_ack_cq_events");
	VS_ASSERT_EQ(rdma_destroy_id(NULL), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_RDMACM), "rdma_destroy_id");
	VS_ASSERT_EQ(rfcntl(3, F_SETFL, O_NONBLOCK), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_RDMACM), "rfcntl");
	VS_ASSERT_EQ(mlx5dv_query_device(NULL, NULL), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_MLX5), "mlx5dv_query_device");
	VS_ASSERT_PTR_EQ(mlx5dv_create_qp(NULL, NULL, NULL),
			 stub_sym(VS_LIB_MLX5, "vs_stub_marker"));
	VS_ASSERT_STREQ(stub_last(VS_LIB_MLX5), "mlx5dv_create_qp");
	VS_ASSERT_EQ(mlx4dv_query_device(NULL, NULL), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_MLX4), "mlx4dv_query_device");
	VS_ASSERT_EQ(umad_init(), 0);
	VS_ASSERT_STREQ(stub_last(VS_LIB_IBUMAD), "umad_init");
	VS_ASSERT_STREQ(umad_class_str(1), "stub");
	if (has_lib(sc, VS_LIB_EFA)) {
		VS_ASSERT_EQ(efadv_query_device(NULL, NULL, 0), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_EFA), "efadv_query_device");
	} else {
		errno = 0;
		VS_ASSERT_EQ(efadv_query_device(NULL, NULL, 0), EOPNOTSUPP);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
		VS_ASSERT(efadv_create_qp_ex(NULL, NULL, NULL, 0) == NULL);
	}
	check_forwarding_nics(sc);

	/* ibv_reg_mr() with an access the compiler cannot see goes through
	 * ibv_reg_mr_iova2 (IBVERBS_1.8) or, before it, falls back. */
	{
		volatile int access = IBV_ACCESS_LOCAL_WRITE;
		struct {
			struct ibv_pd *pd;
			void *addr;
			size_t length;
			int access;
		} *seen = stub_sym(VS_LIB_IBVERBS, "vs_stub_reg_mr");
		char buf[64];

		memset(seen, 0, sizeof(*seen));
		VS_ASSERT_PTR_EQ(reg_mr_like_header(pd, buf, sizeof(buf),
						    access), marker);
		if (sc->release >= 28) {
			VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS),
					"ibv_reg_mr_iova2");
		} else {
			VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS),
					"ibv_reg_mr");
			VS_ASSERT_PTR_EQ(seen->pd, pd);
			VS_ASSERT_PTR_EQ(seen->addr, buf);
			VS_ASSERT_EQ(seen->length, sizeof(buf));
			VS_ASSERT_EQ(seen->access, IBV_ACCESS_LOCAL_WRITE);
			/* Not expressible without iova2: refused, unsent. */
			strcpy(stub_last(VS_LIB_IBVERBS), "-");
			errno = 0;
			VS_ASSERT(ibv_reg_mr_iova2(pd, buf, sizeof(buf),
						   0x10000, access) == NULL);
			VS_ASSERT_EQ(errno, EOPNOTSUPP);
			errno = 0;
			VS_ASSERT(reg_mr_like_header(pd, buf, sizeof(buf),
					access | IBV_ACCESS_RELAXED_ORDERING) ==
				  NULL);
			VS_ASSERT_EQ(errno, EOPNOTSUPP);
			VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "-");
			/* ibv_reg_mr_iova (1.7) falls back the same way. */
			VS_ASSERT_PTR_EQ(ibv_reg_mr_iova(pd, buf, sizeof(buf),
							 (uintptr_t)buf, access),
					 marker);
			VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS),
					"ibv_reg_mr");
		}
	}
}

/* Missing nodes: each convention, on rows this release lacks. */
static void check_missing(const struct scenario *sc)
{
	if (sc->release < 20) {	/* IBVERBS_1.5: -1 + errno */
		errno = 0;
		VS_ASSERT_EQ(ibv_get_pkey_index(NULL, 1, 0), -1);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	if (sc->release < 24) {	/* IBVERBS_1.6: NULL + errno */
		errno = 0;
		VS_ASSERT(ibv_qp_to_qp_ex(NULL) == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
		errno = 0;	/* RDMACM_1.2: -1 + errno */
		VS_ASSERT_EQ(rdma_establish(NULL), -1);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	if (sc->release < 31) {	/* IBVERBS_1.10: positive errno, void */
		VS_ASSERT_EQ(ibv_query_ece(NULL, NULL), EOPNOTSUPP);
		ibv_unimport_pd(NULL);
		errno = 0;
		VS_ASSERT_EQ(rdma_set_local_ece(NULL, NULL), -1);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	/* Built against older headers (make oldest), these are not declared. */
#ifdef VS_HAVE_IBVERBS_1_12
	if (sc->release < 34) {	/* IBVERBS_1.12 */
		errno = 0;
		VS_ASSERT(ibv_reg_dmabuf_mr(NULL, 0, 0, 0, -1, 0) == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
#endif
	if (sc->release < 21) {	/* MLX5_1.7: positive errno, NULL + errno */
		VS_ASSERT_EQ(mlx5dv_devx_general_cmd(NULL, NULL, 0, NULL, 0),
			     EOPNOTSUPP);
		errno = 0;
		VS_ASSERT(mlx5dv_open_device(NULL, NULL) == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	if (sc->release < 22)	/* MLX5_1.8: false */
		VS_ASSERT(!mlx5dv_is_supported(NULL));
	if (sc->release < 25) {	/* MLX5_1.11: -1 + errno */
		errno = 0;
		VS_ASSERT_EQ(mlx5dv_devx_get_event(NULL, NULL, 0), -1);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	if (sc->release < 28)	/* MLX5_1.12: -errno */
		VS_ASSERT_EQ(mlx5dv_dump_dr_domain(NULL, NULL), -EOPNOTSUPP);
	if (sc->release < 26) {	/* IBUMAD_1.1: NULL + errno */
		errno = 0;
		VS_ASSERT(umad_get_ca_device_list() == NULL);
		VS_ASSERT_EQ(errno, EOPNOTSUPP);
	}
	if (sc->release < 30)	/* IBUMAD_1.2: positive errno */
		VS_ASSERT_EQ(umad_sort_ca_device_list(NULL, 0), EOPNOTSUPP);
#ifdef VS_HAVE_IBVERBS_1_14
	if (sc->release < 36)	/* IBVERBS_1.14: 0, "not in order" */
		VS_ASSERT_EQ(ibv_query_qp_data_in_order(NULL, IBV_WR_SEND, 0),
			     0);
#endif
#ifdef VS_HAVE_IBVERBS_1_13
	if (sc->release < 35) {	/* IBVERBS_1.13: fork status fallback */
		VS_ASSERT_EQ(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
		VS_ASSERT_EQ(ibv_fork_init(), 0);
		VS_ASSERT_EQ(ibv_is_fork_initialized(), IBV_FORK_ENABLED);
	} else {
		ibv_is_fork_initialized();
		VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS),
				"ibv_is_fork_initialized");
	}
#endif
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	VS_ASSERT(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* A sysfs tree for stub0 port 1: GID 0 RoCE v1, GID 1 RoCE v2, on lo. */
static void make_sysfs(char *root, size_t size, char *attrs, size_t asize)
{
	static const char *const dirs[] = { "", "/stub0", "/stub0/ports",
		"/stub0/ports/1", "/stub0/ports/1/gid_attrs",
		"/stub0/ports/1/gid_attrs/types",
		"/stub0/ports/1/gid_attrs/ndevs" };
	char path[PATH_MAX];
	unsigned int i;

	snprintf(root, size, "/tmp/vs-sysfs-XXXXXX");
	VS_ASSERT(mkdtemp(root) != NULL);
	for (i = 1; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		VS_ASSERT_EQ(mkdir(path, 0700), 0);
	}
	snprintf(attrs, asize, "%s/stub0/ports/1/gid_attrs", root);
	snprintf(path, sizeof(path), "%s/types", attrs);
	write_file(path, "0", "IB/RoCE v1\n");
	write_file(path, "1", "RoCE v2\n");
	snprintf(path, sizeof(path), "%s/ndevs", attrs);
	write_file(path, "0", "lo\n");
	write_file(path, "1", "lo\n");
}

static void remove_sysfs(const char *root, const char *attrs)
{
	static const char *const files[] = { "types/0", "types/1", "ndevs/0",
					      "ndevs/1", "types", "ndevs" };
	static const char *const dirs[] = { "/stub0/ports/1/gid_attrs",
		"/stub0/ports/1", "/stub0/ports", "/stub0", "" };
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", attrs, files[i]);
		(i < 4 ? unlink : rmdir)(path);
	}
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
}

/* ibv_query_gid_type, the compatibility entry for rdma-core's private
 * one (pyverbs, ibv_devinfo): through the library's _ibv_query_gid_ex
 * when it has one; before IBVERBS_1.11 on the sysfs fallback: RoCE v2 or
 * IB/RoCE v1, an empty GID v1 and success as upstream, a bad port -1 and
 * errno. */
static void check_gid_type(const struct scenario *sc,
			   struct ibv_context *ctx)
{
	enum vs_gid_type_sysfs type = -1;

	if (sc->release >= 32) {	/* the types: gid_type_compat.c */
		VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 1, &type), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "_ibv_query_gid_ex");
		return;
	}
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 1, &type), 0);
	VS_ASSERT_EQ(type, VS_GID_TYPE_SYSFS_ROCE_V2);
	type = -1;
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 0, &type), 0);
	VS_ASSERT_EQ(type, VS_GID_TYPE_SYSFS_IB_ROCE_V1);
	type = -1;
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 2, &type), 0);	/* empty */
	VS_ASSERT_EQ(type, VS_GID_TYPE_SYSFS_IB_ROCE_V1);
	errno = 0;
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 2, 0, &type), -1);
	VS_ASSERT_EQ(errno, EINVAL);
}

/* ibv_query_gid_ex / ibv_query_gid_table: the library's own before
 * IBVERBS_1.11 is a fallback built from ibv_query_gid() and sysfs. */
static void check_gid(const struct scenario *sc)
{
	char root[256], attrs[512], sysfs[512];
	struct ibv_gid_entry entry, table[4];
	enum vs_gid_type_sysfs type;
	struct ibv_context *ctx;
	struct ibv_device **list;
	int n = -1;

	make_sysfs(root, sizeof(root), attrs, sizeof(attrs));
	snprintf(sysfs, sizeof(sysfs), "%s/stub0", root);
	setenv("VS_STUB_SYSFS", sysfs, 1);
	list = ibv_get_device_list(&n);
	VS_ASSERT(list != NULL);
	VS_ASSERT_EQ(n, 1);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx != NULL);

	check_gid_type(sc, ctx);
	if (sc->release >= 32) {	/* the library's own */
		VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 1, &entry, 0), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS), "_ibv_query_gid_ex");
		VS_ASSERT_EQ(ibv_query_gid_table(ctx, table, 4, 0), 0);
		VS_ASSERT_STREQ(stub_last(VS_LIB_IBVERBS),
				"_ibv_query_gid_table");
		goto out;
	}
	memset(&entry, 0xa5, sizeof(entry));
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 1, &entry, 0), 0);
	VS_ASSERT_EQ(entry.gid_index, 1);
	VS_ASSERT_EQ(entry.port_num, 1);
	VS_ASSERT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V2);
	VS_ASSERT_EQ(entry.ndev_ifindex, if_nametoindex("lo"));
	VS_ASSERT_EQ(entry.gid.raw[10], 0xff);
	VS_ASSERT_EQ(entry.gid.raw[12], 10);
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 0, &entry, 0), 0);
	VS_ASSERT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V1);
	VS_ASSERT_EQ(entry.gid.raw[0], 0xfe);
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 2, &entry, 0), ENODATA);
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 0, &entry, 1), EINVAL);
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 2, 0, &entry, 0), EINVAL);

	VS_ASSERT_EQ(ibv_query_gid_table(ctx, table, 4, 0), 2);
	VS_ASSERT_EQ(table[0].gid_index, 0);
	VS_ASSERT_EQ(table[0].gid_type, IBV_GID_TYPE_ROCE_V1);
	VS_ASSERT_EQ(table[1].gid_index, 1);
	VS_ASSERT_EQ(table[1].gid_type, IBV_GID_TYPE_ROCE_V2);
	VS_ASSERT_EQ(ibv_query_gid_table(ctx, table, 1, 0), -EINVAL);

	/* No gid_attrs (old kernels): Ethernet means RoCE v1. */
	remove_sysfs(root, attrs);
	VS_ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 1, &entry, 0), 0);
	VS_ASSERT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V1);
	VS_ASSERT_EQ(entry.ndev_ifindex, 0);
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 1, &type), 0);
	VS_ASSERT_EQ(type, VS_GID_TYPE_SYSFS_IB_ROCE_V1);
out:
	remove_sysfs(root, attrs);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}

/*
 * ASan checks the shadow of every address the loader reads, and sizes its
 * shadow from where the stack is (aarch64: a 39-, 42- or 48-bit layout).
 * A kernel maps an object whose link address it cannot honour in its mmap
 * area, inside that layout.  qemu-user does not: the guest's stack and
 * libraries sit low (0x55........), so ASan takes the 39-bit layout, and
 * the hint is passed to the host's kernel, which answers from the host's
 * mmap area (0x7f..........), where ASan has no shadow: the loader's first
 * read of the stub's program headers faults in ASan's check.  Found by
 * placing a mapping the way the dynamic loader does (its link address as
 * a hint) and asking whether its shadow exists.  NULL when it does.
 */
static const char *unshadowed_placement(uintptr_t linked_at)
{
#ifdef VS_TEST_ASAN
	static char why[256];
	long page = sysconf(_SC_PAGESIZE);
	size_t scale, offset;
	unsigned char in_core;
	uintptr_t shadow;
	void *p;
	int mapped;

	p = mmap((void *)linked_at, (size_t)page, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VS_ASSERT(p != MAP_FAILED);
	__asan_get_shadow_mapping(&scale, &offset);
	shadow = ((uintptr_t)p >> scale) + offset;
	mapped = mincore((void *)(shadow & ~((uintptr_t)page - 1)), 1,
			 &in_core) == 0;
	VS_ASSERT_EQ(munmap(p, (size_t)page), 0);
	if (mapped)
		return NULL;
	snprintf(why, sizeof(why),
		 "an object linked at %#" PRIxPTR " is mapped at %p here, where "
		 "ASan has no shadow (%#" PRIxPTR " unmapped): qemu-user places "
		 "it in the host's mmap area, outside the layout ASan sized from "
		 "the guest's stack; the arm64 guest runs this case",
		 linked_at, p, shadow);
	return why;
#else
	(void)linked_at;
	return NULL;
#endif
}

static void run_stub_scenario(const struct scenario *sc)
{
	unsigned int lib;

	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		snprintf(stub_path[lib], sizeof(stub_path[lib]), "%s/%s/%s",
			 stubs_root, sc->dir, sonames[lib]);
		if (!has_lib(sc, lib))
			snprintf(stub_path[lib], sizeof(stub_path[lib]),
				 "%s/%s/no-%s-in-this-release.so.1",
				 stubs_root, sc->dir, descs[lib]->name);
		VS_ASSERT(!has_lib(sc, lib) ||
			  access(stub_path[lib], R_OK) == 0);
		setenv(envs[lib], stub_path[lib], 1);
	}
	check_info(sc);
	check_resolution(sc);
	VS_ASSERT(vs_rows_check_addresses(sc->name) <= 0);
	if (sc->abi >= 0)
		check_elf_lookup(sc);
	check_forwarding(sc);
	check_missing(sc);
	check_gid(sc);
}

/* No library: every convention, and nothing crashes. */
static void check_all_missing(int want_errno, const char *want_text)
{
	struct vs_library_info info;
	unsigned int lib;
	int n = 7;

	for (lib = 0; lib < VS_LIB_COUNT; lib++) {
		VS_ASSERT_EQ(vs_library_query(lib, &info), 0);
		VS_ASSERT_EQ(info.loaded, 0);
		VS_ASSERT_EQ(info.symbols_resolved, 0);
		VS_ASSERT(info.highest_node == NULL);
		VS_ASSERT_EQ(vs_library_load(lib), -want_errno);
	}
	VS_ASSERT_EQ(vs_library_query(VS_LIB_IBVERBS, &info), 0);
	VS_ASSERT_EQ(info.load_errno, want_errno);
	if (!strstr(info.error, want_text))
		VS_FAIL("error \"%s\" does not say \"%s\"", info.error,
			want_text);
	VS_ASSERT_EQ(vs_symbol_resolved("ibv_open_device"), 0);
	VS_ASSERT_EQ(vs_symbol_resolved("ibv_no_such_verb"), -ENOENT);
	VS_ASSERT_EQ(vs_symbol_resolved(NULL), -EINVAL);
	VS_ASSERT_STREQ(vs_symbol_node("ibv_create_comp_channel"),
			"IBVERBS_1.0");
	VS_ASSERT_STREQ(vs_symbol_node("ibv_reg_mr_iova2"), "IBVERBS_1.8");
	VS_ASSERT_EQ(vs_library_query(VS_LIB_COUNT, &info), -EINVAL);
	VS_ASSERT_EQ(vs_library_query(VS_LIB_IBVERBS, NULL), -EINVAL);

	errno = 0;
	VS_ASSERT(ibv_get_device_list(&n) == NULL);
	VS_ASSERT_EQ(n, 0);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT(ibv_open_device(NULL) == NULL);
	VS_ASSERT_EQ(ibv_query_device(NULL, NULL), EOPNOTSUPP);
	errno = 0;
	VS_ASSERT_EQ(ibv_close_device(NULL), -1);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT_EQ(ibv_get_cq_event(NULL, NULL, NULL), -1);
	VS_ASSERT_EQ(ibv_get_device_guid(NULL), 0);
	VS_ASSERT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "unknown");
	VS_ASSERT_EQ(mult_to_ibv_rate(4), IBV_RATE_MAX);
	ibv_ack_cq_events(NULL, 1);
	ibv_free_device_list(NULL);
	VS_ASSERT(ibv_reg_mr(NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE) == NULL);
	VS_ASSERT(ibv_reg_mr_iova2(NULL, &n, 4, (uintptr_t)&n, 0) == NULL);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT_EQ(_ibv_query_gid_ex(NULL, 1, 0, NULL, 0, 32), EOPNOTSUPP);
	VS_ASSERT_EQ(_ibv_query_gid_table(NULL, NULL, 0, 0, 32), -EOPNOTSUPP);
#ifdef VS_HAVE_IBVERBS_1_13
	VS_ASSERT_EQ(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
#endif
	VS_ASSERT_EQ(ibv_fork_init(), EOPNOTSUPP);

	n = 7;
	VS_ASSERT(rdma_get_devices(&n) == NULL);
	VS_ASSERT_EQ(n, 0);
	VS_ASSERT(rdma_create_event_channel() == NULL);
	errno = 0;
	VS_ASSERT_EQ(rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP), -1);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT_EQ(rsocket(AF_INET, SOCK_STREAM, 0), -1);
	VS_ASSERT_EQ(rsend(3, "x", 1, 0), -1);
	VS_ASSERT_EQ(riomap(3, NULL, 0, 0, 0, 0), -1);
	VS_ASSERT_EQ(rfcntl(3, F_GETFL), -1);
	VS_ASSERT_EQ(rdma_get_src_port(NULL), 0);
	VS_ASSERT_STREQ(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "unknown");
	rdma_destroy_event_channel(NULL);

	VS_ASSERT_EQ(efadv_query_device(NULL, NULL, 0), EOPNOTSUPP);
	VS_ASSERT(efadv_create_driver_qp(NULL, NULL, 0) == NULL);

	/* libmlx5 and libmlx4: as they answer for a device not theirs. */
	VS_ASSERT(!mlx5dv_is_supported(NULL));
	VS_ASSERT_EQ(mlx5dv_query_device(NULL, NULL), EOPNOTSUPP);
	errno = 0;
	VS_ASSERT(mlx5dv_create_qp(NULL, NULL, NULL) == NULL);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT(mlx5dv_qp_ex_from_ibv_qp_ex(NULL) == NULL);
#ifdef VS_HAVE_MLX5_1_20
	VS_ASSERT_EQ(mlx5dv_qp_cancel_posted_send_wrs(NULL, 0), -EOPNOTSUPP);
#endif
	mlx5dv_devx_free_uar(NULL);
	VS_ASSERT_EQ(mlx4dv_query_device(NULL, NULL), EOPNOTSUPP);
	VS_ASSERT(mlx4dv_create_qp(NULL, NULL, NULL) == NULL);
	/* libhns, libmana, libionic: as for an object not theirs. */
#ifdef VS_HAVE_HNS_1_0
	VS_ASSERT(!hnsdv_is_supported(NULL));
	VS_ASSERT_EQ(hnsdv_query_device(NULL, NULL), EOPNOTSUPP);
#endif
#ifdef VS_HAVE_MANA_1_1
	errno = 0;
	VS_ASSERT(manadv_alloc_pd(NULL, 0) == NULL);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
#endif
#ifdef VS_HAVE_IONIC_1_0
	VS_ASSERT_EQ(ionic_dv_pd_get_udma_mask(NULL), 0);
	VS_ASSERT_EQ(ionic_dv_pd_set_rqcmb(NULL, true, true, true), EOPNOTSUPP);
#endif
	/* libibumad: negative errno, with its exceptions. */
	VS_ASSERT_EQ(umad_init(), -EOPNOTSUPP);
	VS_ASSERT_EQ(umad_open_port("mlx5_0", 1), -EOPNOTSUPP);
	VS_ASSERT_EQ(umad_register2(3, NULL, NULL), EOPNOTSUPP);
	VS_ASSERT_EQ(umad_size(), 0);
	VS_ASSERT(umad_get_ca_device_list() == NULL);
	VS_ASSERT_STREQ(umad_class_str(1), "unknown");
	umad_dump(NULL);
}

static void run_nowhere(void)
{
	/* libibumad needs no libibverbs: told apart, to nowhere as well. */
	setenv("VERBSHIM_LIBIBUMAD", "/nonexistent/libibumad.so.3", 1);
	setenv("VERBSHIM_LIBIBVERBS", "/nonexistent/libibverbs.so.1", 1);
	check_all_missing(ENOENT,
			  "VERBSHIM_LIBIBVERBS=/nonexistent/libibverbs.so.1");
}

/* A real library, just not rdma-core: refused, and named. */
static void run_not_rdma_core(void)
{
	struct vs_library_info info;
	Dl_info where;

	VS_ASSERT(dladdr((void *)printf, &where) && where.dli_fname);
	setenv("VERBSHIM_LIBIBVERBS", where.dli_fname, 1);
	setenv("VERBSHIM_LIBIBUMAD", where.dli_fname, 1);
	check_all_missing(ELIBBAD, "is not libibverbs");
	VS_ASSERT_EQ(vs_library_query(VS_LIB_IBUMAD, &info), 0);
	VS_ASSERT(strstr(info.error, "is not libibumad"));
	VS_ASSERT_EQ(vs_library_query(VS_LIB_RDMACM, &info), 0);
	VS_ASSERT(strstr(info.error, "needs libibverbs"));
}

static void run_none(void)
{
	unsetenv("VERBSHIM_LIBIBVERBS");
	check_all_missing(ENOENT, "libibverbs not found");
}

/*
 * A libibverbs whose constructor calls back into the program, which calls
 * ibv_* (and rdma_*, which needs libibverbs) from the thread that is
 * loading it.  Waiting for the load there would hang forever: every such
 * call is refused with EDEADLK, in its own convention.  Meanwhile another
 * thread's first call waits for the load and gets the library's answer.
 */
static struct {
	sem_t go;
	const char *other_status;	/* what the other thread got */
	const char *status_str;
	int status_errno;
	struct ibv_device **list;
	int n, list_errno;
	int query_device, close_errno;
	int create_id, create_id_errno;
	int load, resolved, rdmacm_load;
	struct vs_library_info info, rdmacm_info;
	char error[128], rdmacm_error[128];
} reentry;

static void *other_thread(void *arg)
{
	(void)arg;
	sem_wait(&reentry.go);
	reentry.other_status = ibv_wc_status_str(IBV_WC_SUCCESS);
	return NULL;
}

/* Runs inside dlopen(), on the loading thread: records, asserts later. */
static void reentry_hook(void)
{
	sem_post(&reentry.go);
	usleep(100 * 1000);	/* the other thread is waiting by now */
	errno = 0;
	reentry.status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
	reentry.status_errno = errno;
	errno = 0;
	reentry.n = 7;
	reentry.list = ibv_get_device_list(&reentry.n);
	reentry.list_errno = errno;
	reentry.query_device = ibv_query_device(NULL, NULL);
	errno = 0;
	reentry.create_id = rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP);
	reentry.create_id_errno = errno;
	reentry.load = vs_library_load(VS_LIB_IBVERBS);
	reentry.rdmacm_load = vs_library_load(VS_LIB_RDMACM);
	reentry.resolved = vs_symbol_resolved("ibv_open_device");
	vs_library_query(VS_LIB_IBVERBS, &reentry.info);
	snprintf(reentry.error, sizeof(reentry.error), "%s",
		 reentry.info.error ? reentry.info.error : "(null)");
	vs_library_query(VS_LIB_RDMACM, &reentry.rdmacm_info);
	snprintf(reentry.rdmacm_error, sizeof(reentry.rdmacm_error), "%s",
		 reentry.rdmacm_info.error ? reentry.rdmacm_info.error :
					     "(null)");
}

static void run_reentry(void)
{
	struct vs_library_info info;
	struct ibv_device **list;
	char hook[64], path[PATH_MAX];
	pthread_t other;
	int n = -1;

	/* a hang is a failure, not a stuck test run (300 s: ASan under
	 * TCG is ~10x slower than a host) */
	alarm(300);
	snprintf(path, sizeof(path), "%s/reenter/libibverbs.so.1", stubs_root);
	setenv("VERBSHIM_LIBIBVERBS", path, 1);
	snprintf(path, sizeof(path), "%s/v44/librdmacm.so.1", stubs_root);
	setenv("VERBSHIM_LIBRDMACM", path, 1);
	snprintf(hook, sizeof(hook), "hook=%#jx",
		 (uintmax_t)(uintptr_t)reentry_hook);
	setenv("VS_STUB_CTOR", hook, 1);
	VS_ASSERT_EQ(sem_init(&reentry.go, 0, 0), 0);
	VS_ASSERT_EQ(pthread_create(&other, NULL, other_thread, NULL), 0);

	list = ibv_get_device_list(&n);	/* loads: the hook runs */
	VS_ASSERT_EQ(pthread_join(other, NULL), 0);

	/* The calls made during the load, each in its own convention. */
	VS_ASSERT_STREQ(reentry.status_str, "unknown");
	VS_ASSERT_EQ(reentry.status_errno, EDEADLK);
	VS_ASSERT(reentry.list == NULL);
	VS_ASSERT_EQ(reentry.n, 0);
	VS_ASSERT_EQ(reentry.list_errno, EDEADLK);
	VS_ASSERT_EQ(reentry.query_device, EDEADLK);
	VS_ASSERT_EQ(reentry.create_id, -1);
	VS_ASSERT_EQ(reentry.create_id_errno, EDEADLK);
	VS_ASSERT_EQ(reentry.load, -EDEADLK);
	VS_ASSERT_EQ(reentry.rdmacm_load, -EDEADLK);
	VS_ASSERT_EQ(reentry.resolved, -EDEADLK);
	VS_ASSERT_EQ(reentry.info.loaded, 0);
	VS_ASSERT_EQ(reentry.info.load_errno, EDEADLK);
	VS_ASSERT_STREQ(reentry.error,
			"libibverbs called back into ibv_* while loading");
	VS_ASSERT_EQ(reentry.rdmacm_info.load_errno, EDEADLK);
	VS_ASSERT_STREQ(reentry.rdmacm_error,
			"libibverbs called back into rdma_* while loading");

	/* The load itself went on; the other thread waited for it. */
	VS_ASSERT(list != NULL);
	VS_ASSERT_EQ(n, 1);
	VS_ASSERT_STREQ(reentry.other_status, "stub");
	VS_ASSERT_EQ(vs_library_query(VS_LIB_IBVERBS, &info), 0);
	VS_ASSERT_EQ(info.loaded, 1);
	VS_ASSERT_STREQ(info.highest_node, "IBVERBS_1.14");
	if (!info.error || !strstr(info.error, "libibverbs called back into "
				   "ibv_* while loading (9 calls refused"))
		VS_FAIL("info.error: %s", info.error ? info.error : "(null)");
	VS_ASSERT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "stub");
	/* librdmacm's own load was not spent by the refused call. */
	VS_ASSERT_EQ(rdma_destroy_id(NULL), 0);
	VS_ASSERT_EQ(vs_library_load(VS_LIB_RDMACM), 0);
	VS_ASSERT_EQ(vs_library_query(VS_LIB_RDMACM, &info), 0);
	VS_ASSERT(info.error == NULL);
	sem_destroy(&reentry.go);
	alarm(0);
}

static void in_child(const char *name, void (*fn)(const void *),
		     const void *arg, int *failed)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (pid == 0) {
		fn(arg);
		exit(0);
	}
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("FAIL %s\n", name);
		*failed = 1;
	} else {
		printf("ok   %s\n", name);
	}
}

static void stub_entry(const void *arg)
{
	run_stub_scenario(arg);
}

static void fn_entry(const void *arg)
{
	void (*const *fn)(void) = arg;

	(*fn)();
}

int main(int argc, char **argv)
{
	static void (*const nowhere)(void) = run_nowhere;
	static void (*const not_rdma)(void) = run_not_rdma_core;
	static void (*const reenter)(void) = run_reentry;
	const char *skipped = NULL, *why = NULL;
	unsigned int i;
	int failed = 0;

	if (argc > 1 && !strcmp(argv[1], "none")) {
		run_none();
		printf("ok   none\n");
		return 0;
	}
	find_stubs_root();
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		const struct scenario *sc = &scenarios[i];

		if (sc->linked_at && (why = unshadowed_placement(sc->linked_at))) {
			printf("skip %s: %s\n", sc->name, why);
			skipped = sc->name;
			continue;
		}
		in_child(sc->name, stub_entry, sc, &failed);
	}
	in_child("env override pointing nowhere", fn_entry, &nowhere, &failed);
	in_child("a library that is not rdma-core", fn_entry, &not_rdma,
		 &failed);
	in_child("a constructor calling back while loading", fn_entry,
		 &reenter, &failed);
	if (!failed && skipped)
		VS_SKIP("every other case passed; \"%s\" not run: %s", skipped,
			why);
	return failed;
}
