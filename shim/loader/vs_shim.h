/* SPDX-License-Identifier: MIT */
/*
 * Shim internals: one function table per library, generated from the
 * symbol lists (shim/loader/syms_*.h), the loader that fills it, and the macros
 * that generate the exported drop-in definitions.
 */
#ifndef VS_SHIM_H
#define VS_SHIM_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "vs_config.h"
#include "vs_rdma_headers.h"
#include "syms_ibverbs.h"
#include "syms_rdmacm.h"
#include "syms_efa.h"
#include "syms_mlx5.h"
#include "syms_mlx4.h"
#include "syms_umad.h"
#include "syms_hns.h"
#include "syms_mana.h"
#include "syms_ionic.h"
#include "verbshim/loader.h"
#include "vs_knobs.h"
#include "vs_elf.h"

/*
 * Every library the shim loads, one row each:
 *
 *   L(lib, LIB, soname, probe symbol, symbol family, needs libibverbs,
 *     Debian package, dlopen note priority)
 *
 * lib names the table (vs__<lib>), the symbol list (VS_<LIB>_SYMBOLS), the
 * node list (VS_<LIB>_NODES), "lib<lib>" and VERBSHIM_LIB<LIB>; the row's
 * order is enum vs_library's.  Adding a library is a row here, a symbol
 * list and a drop-in file.  The priority is that of the library's
 * .note.dlopen entry (shim/tables/vs_notes.h; docs/shipping.md says why):
 * "recommended" when the library's own calls can do nothing without it,
 * "suggested" for a provider's direct verbs (useful with its hardware only).
 */
#define VS_LIBRARIES(L)                                                        \
	L(ibverbs, IBVERBS, "libibverbs.so.1", "ibv_get_device_list", "ibv_*", \
	  0, "libibverbs1", "recommended")                                     \
	L(rdmacm, RDMACM, "librdmacm.so.1", "rdma_create_id", "rdma_*", 1,     \
	  "librdmacm1", "recommended")                                         \
	L(efa, EFA, "libefa.so.1", "efadv_query_device", "efadv_*", 1,         \
	  "ibverbs-providers", "suggested")                                    \
	L(mlx5, MLX5, "libmlx5.so.1", "mlx5dv_query_device", "mlx5dv_*", 1,    \
	  "ibverbs-providers", "suggested")                                    \
	L(mlx4, MLX4, "libmlx4.so.1", "mlx4dv_query_device", "mlx4dv_*", 1,    \
	  "ibverbs-providers", "suggested")                                    \
	L(ibumad, IBUMAD, "libibumad.so.3", "umad_init", "umad_*", 0,          \
	  "libibumad3", "recommended")                                         \
	L(hns, HNS, "libhns.so.1", "hnsdv_is_supported", "hnsdv_*", 1,         \
	  "ibverbs-providers", "suggested")                                    \
	L(mana, MANA, "libmana.so.1", "manadv_init_obj", "manadv_*", 1,        \
	  "ibverbs-providers", "suggested")                                    \
	L(ionic, IONIC, "libionic.so.1", "ionic_dv_ctx_get_udma_count",        \
	  "ionic_dv_*", 1, "ibverbs-providers", "suggested")

/* Every version node of the libraries, in list order. */
#define VS_NODE_ENUM(id, str, release) VS_NODE_##id,
/* Each library's nodes, then VS_NODE_END_<LIB> (one past its last) and a
 * reset so that the next library's first node takes that same value. */
#define VS_LIB_NODE_ENUM(lib, LIB, ...)                                        \
	VS_##LIB##_NODES(VS_NODE_ENUM) VS_NODE_END_##LIB,                      \
	VS_NODE_RESET_##LIB = VS_NODE_END_##LIB - 1,
enum vs_node_id {
	VS_LIBRARIES(VS_LIB_NODE_ENUM)
	VS_NODE_COUNT
};

struct vs_node {
	const char *name;	/* "IBVERBS_1.8" */
	int release;		/* first rdma-core release that has it: 28 */
};
extern const struct vs_node vs__nodes[VS_NODE_COUNT];

/* A row of a library's table (no pointer: nothing to relocate at load) */
struct vs_sym {
	unsigned short name;	/* of its name in vs_lib_desc.names */
	unsigned short node;	/* enum vs_node_id */
	unsigned short offset;	/* of the slot in the library's fn table */
};

struct vs_lib_state;

struct vs_lib_desc {
	const char *name;	/* "libibverbs" */
	const char *soname;	/* "libibverbs.so.1" */
	const char *devname;	/* "libibverbs.so" */
	unsigned char knob;	/* enum vs_knob: VS_KNOB_LIBIBVERBS */
	const char *node_prefix;	/* "IBVERBS_" */
	const char *probe;	/* a symbol every copy exports */
	const char *package;	/* the Debian package that ships it */
	const char *family;	/* "ibv_*": what its drop-ins are called */
	/* "libX called back into <family> while loading": libX this library
	 * itself, or libibverbs (depends) */
	const char *reentry_self, *reentry_dep;
	unsigned int first_node, nnodes;	/* range in vs__nodes */
	const char *names;	/* the symbols' names, each after the last's NUL */
	const struct vs_sym *syms;
	unsigned int nsyms;
	struct vs_lib_state *state;
	const void *fn_base;	/* the library's fn table */
	pthread_once_t *once;
	void (*load)(void);	/* the once routine */
	/* libibverbs, when this library needs it loaded first */
	const struct vs_lib_desc *depends;
	/* resolve every slot; elf: the library's tables, NULL for a library
	 * that defines no version node */
	unsigned int (*fill)(void *handle, const struct vs_elf *elf);
};

/* What loading found; filled once, under the library's once-flag, then
 * only read.  While the once routine runs, loading is 1 and loader is the
 * thread running it: a call back into the shim from that thread (a
 * constructor of the library being loaded) must not wait for itself. */
struct vs_lib_state {
	void *handle;
	int load_errno;
	int provider_abi;
	int min_release;
	unsigned int resolved;
	int loading;		/* atomic */
	pthread_t loader;	/* valid while loading */
	unsigned int reentries;	/* calls refused with EDEADLK */
	const char *reentry;	/* the first refusal, in words */
	char highest_node[32];
	/* bit i: the library defines vs__nodes[first_node + i] */
	uint64_t nodes_found;
	char path[PATH_MAX];
	char error[2 * PATH_MAX];
};

#define VS_SLOT(node, name, ret, params, args, conv, facts) ret (*name) params;

struct vs_ibverbs_table {
	struct vs_lib_state state;
	int fork_init_ok;	/* ibv_fork_init() succeeded through us */
	struct {
		VS_IBVERBS_SYMBOLS(VS_SLOT)
	} fn;
};
struct vs_rdmacm_table {
	struct vs_lib_state state;
	struct {
		VS_RDMACM_SYMBOLS(VS_SLOT)
	} fn;
};
#define VS_PLAIN_TABLE(lib, LIB)                                               \
	struct vs_##lib##_table {                                              \
		struct vs_lib_state state;                                     \
		struct {                                                       \
			VS_##LIB##_SYMBOLS(VS_SLOT)                            \
		} fn;                                                          \
	};
VS_PLAIN_TABLE(efa, EFA)
VS_PLAIN_TABLE(mlx5, MLX5)
VS_PLAIN_TABLE(mlx4, MLX4)
VS_PLAIN_TABLE(ibumad, IBUMAD)
VS_PLAIN_TABLE(hns, HNS)
VS_PLAIN_TABLE(mana, MANA)
VS_PLAIN_TABLE(ionic, IONIC)

/*
 * The function tables (zero until loaded: a missing symbol is a NULL
 * slot) and their once-flags: the shim's only global state.  Internal
 * names all start with vs__, a prefix the public API never uses.
 */
#define VS_HIDDEN __attribute__((visibility("hidden")))
#define VS_LIB_DECLARE(lib, ...)                                               \
	extern VS_HIDDEN struct vs_##lib##_table vs__##lib;                   \
	extern VS_HIDDEN pthread_once_t vs__##lib##_once;                     \
	extern const struct vs_lib_desc vs__##lib##_desc;                     \
	int vs__ensure_##lib(void);
VS_LIBRARIES(VS_LIB_DECLARE)

/*
 * Load the library if that has not happened yet (pthread_once); other
 * threads wait for a load in progress.  0, or EDEADLK when the calling
 * thread is the one loading it (or libibverbs, which it needs): a
 * constructor called back into the shim, and waiting would hang forever.
 * vs__ensure_<lib>() is this for one library.
 */
int vs__ensure(const struct vs_lib_desc *desc);

/* The loader itself, run by each library's once function. */
void vs__lib_load(const struct vs_lib_desc *desc);
/* 1, with st's error set, in a statically linked program (static_guard.c) */
int vs__static_refused(const struct vs_lib_desc *desc, struct vs_lib_state *st);

/* name pinned to a node of desc's, from the library's own symbol table
 * (vs_elf.h), else dlvsym(); dlsym() for a library that defines no version
 * node at all (elf NULL: there is nothing to pin to). */
void *vs__lookup(void *handle, const struct vs_elf *elf,
		 const struct vs_lib_desc *desc, const char *name,
		 enum vs_node_id node);

/* Whether the loaded library defines its node i (vs_lib_state.nodes_found);
 * a library with more than 64 nodes is asked for the rest. */
static inline int vs__node_defined(const struct vs_lib_state *st, unsigned int i)
{
	return i >= 64 || (st->nodes_found >> i & 1);
}

/* Each library's first node, VS_FIRST_NODE_<lib>. */
#define VS_COUNT_NODE(id, str, release) +1
#define VS_LIB_FIRST_NODE(lib, LIB, ...)                                       \
	VS_FIRST_NODE_##lib = VS_NODE_END_##LIB - (0 VS_##LIB##_NODES(VS_COUNT_NODE)),
enum { VS_LIBRARIES(VS_LIB_FIRST_NODE) };

/* A library's symbol array (name, node, slot offset), which its fill
 * walks (shim/tables/tables.c); the names are the fields of a struct of
 * char arrays, struct vs_<lib>_names, whose one object holds them all. */
#define VS_SYM_ROW(lib, node, name)                                            \
	{ offsetof(struct vs_##lib##_names, name), VS_NODE_##node,            \
	  offsetof(struct vs_##lib##_table, fn.name) -                         \
		  offsetof(struct vs_##lib##_table, fn) },
#define VS_SYM_NAME_FIELD(node, name, ...) char name[sizeof(#name)];
#define VS_SYM_NAME_TEXT(node, name, ...) #name,
static inline const char *vs__sym_name(const struct vs_lib_desc *desc,
				       const struct vs_sym *sym)
{
	return desc->names + sym->name;
}

/*
 * The sources compiled once per library (the Makefile's tables_<lib>.o,
 * trace_rows_<lib>.o, trace_wrap_<lib>.o, with -DVS_TABLE_OF_<lib>=1):
 * VS_IF_THIS(lib, tokens) is the tokens when lib is the object's library,
 * else nothing (Linux's IS_ENABLED: an undefined name leaves junk in the
 * first argument).
 */
#define VS_ARG_PLACEHOLDER_1 0,
#define VS_TAKE_SECOND(ignored, val, ...) val
#define VS_IS_ON(x) VS_IS_ON_(x)
#define VS_IS_ON_(val) VS_IS_ON__(VS_ARG_PLACEHOLDER_##val)
#define VS_IS_ON__(arg1_or_junk) VS_TAKE_SECOND(arg1_or_junk 1, 0)
#define VS_WHEN(c) VS_WHEN_(c)
#define VS_WHEN_(c) VS_WHEN_##c
#define VS_WHEN_1(...) __VA_ARGS__
#define VS_WHEN_0(...)
#define VS_IF_THIS(lib, ...) VS_WHEN(VS_IS_ON(VS_TABLE_OF_##lib))(__VA_ARGS__)

/* The known nodes a loaded library defines, as ranges ("IBVERBS_1.0-1.11");
 * "" when it is not loaded or unversioned.  Returns the length. */
size_t vs__nodes_found_text(const struct vs_lib_desc *desc, char *buf,
			    size_t len);
/* What the machine has of a library, for a sentence: "IBVERBS_1.11
 * (rdma-core 33)", or why it has none ("no libibverbs: ..."). */
void vs__found_text(const struct vs_lib_desc *desc, char *buf, size_t len);

/* vs_library_query()'s answer for one library (loading it first); -EINVAL
 * for a NULL desc or info. */
int vs__library_describe(const struct vs_lib_desc *desc,
			 struct vs_library_info *info);
/* The same by number for lib/, without linking the other tables:
 * -ENOENT when the program does not link that library. */
int vs__library_query_linked(int lib, struct vs_library_info *info);
/* vs_feature_query() with the library descriptors of libs (by number;
 * NULL: not linked); and for lib/, with those this program links. */
int vs__feature_describe(enum vs_feature feature, struct vs_feature_info *info,
			 const struct vs_lib_desc *const *libs);
int vs__feature_query_linked(int feature, struct vs_feature_info *info);

#endif /* VS_SHIM_H */
