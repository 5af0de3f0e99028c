/* SPDX-License-Identifier: MIT */
/*
 * Shim internals: one function table per library, generated from the
 * symbol lists (shim/syms_*.h), the loader that fills it, and the macros
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
#include "verbshim/loader.h"

/* Every version node of the three libraries, in list order. */
#define VS_NODE_ENUM(id, str, release) VS_NODE_##id,
enum vs_node_id {
	VS_IBVERBS_NODES(VS_NODE_ENUM)
	VS_RDMACM_NODES(VS_NODE_ENUM)
	VS_EFA_NODES(VS_NODE_ENUM)
	VS_NODE_COUNT
};

struct vs_node {
	const char *name;	/* "IBVERBS_1.8" */
	int release;		/* first rdma-core release that has it: 28 */
};
extern const struct vs_node vs_nodes[VS_NODE_COUNT];

struct vs_sym {
	const char *name;
	unsigned short node;	/* enum vs_node_id */
	unsigned short offset;	/* of the slot in the library's fn table */
};

struct vs_lib_state;

struct vs_lib_desc {
	const char *name;	/* "libibverbs" */
	const char *soname;	/* "libibverbs.so.1" */
	const char *devname;	/* "libibverbs.so" */
	const char *env;	/* "VERBSHIM_LIBIBVERBS" */
	const char *node_prefix;	/* "IBVERBS_" */
	const char *probe;	/* a symbol every copy exports */
	unsigned int first_node, nnodes;	/* range in vs_nodes */
	const struct vs_sym *syms;
	unsigned int nsyms;
	struct vs_lib_state *state;
	const void *fn_base;	/* the library's fn table */
	void (*ensure)(void);	/* load once */
	/* resolve every slot */
	unsigned int (*fill)(void *handle, int versioned);
};

/* What loading found; filled once, under the library's once-flag, then
 * only read. */
struct vs_lib_state {
	void *handle;
	int load_errno;
	int provider_abi;
	int min_release;
	unsigned int resolved;
	char highest_node[32];
	char path[PATH_MAX];
	char error[2 * PATH_MAX];
};

#define VS_SLOT(node, name, ret, params, args, conv) ret (*name) params;

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
struct vs_efa_table {
	struct vs_lib_state state;
	struct {
		VS_EFA_SYMBOLS(VS_SLOT)
	} fn;
};

/* The function tables (zero until loaded: a missing symbol is a NULL
 * slot) and their once-flags: the shim's only global state. */
#define VS_HIDDEN __attribute__((visibility("hidden")))
extern VS_HIDDEN struct vs_ibverbs_table vs_ibverbs;
extern VS_HIDDEN struct vs_rdmacm_table vs_rdmacm;
extern VS_HIDDEN struct vs_efa_table vs_efa;
extern VS_HIDDEN pthread_once_t vs_ibverbs_once, vs_rdmacm_once, vs_efa_once;

extern const struct vs_lib_desc vs_ibverbs_desc, vs_rdmacm_desc, vs_efa_desc;

/* Load the library if that has not happened yet (pthread_once). */
void vs_ensure_ibverbs(void);
void vs_ensure_rdmacm(void);
void vs_ensure_efa(void);

/* The loader itself, run by each library's once function. */
void vs_lib_load(const struct vs_lib_desc *desc);
/* 1, with st's error set, in a statically linked program (static_guard.c) */
int vs_static_refused(const struct vs_lib_desc *desc, struct vs_lib_state *st);

/* dlvsym() pinned to a node of vs_nodes; dlsym() for a library that
 * defines no version node at all (there is nothing to pin to). */
void *vs_lookup(void *handle, int versioned, const char *name,
		enum vs_node_id node);

/* Generators of a library's symbol array and fill function. */
#define VS_SYM_ROW(lib, node, name)                                            \
	{ #name, VS_NODE_##node, offsetof(struct vs_##lib##_table, fn.name) - \
					 offsetof(struct vs_##lib##_table, fn) },
#define VS_FILL_SLOT(lib, handle, node, name)                                  \
	do {                                                                   \
		void *p = vs_lookup(handle, versioned, #name, VS_NODE_##node); \
		__atomic_store_n(&vs_##lib.fn.name,                            \
				 (__typeof__(vs_##lib.fn.name))p,              \
				 __ATOMIC_RELEASE);                            \
		n += p != NULL;                                                \
	} while (0);

/*
 * Resolving a slot on the fast path: one acquire load (a plain load on
 * x86), a test, and a tail call; the slow path loads the library under its
 * once-flag and looks again.
 */
#define VS_LOAD_SLOT(slot) __atomic_load_n(&(slot), __ATOMIC_ACQUIRE)

#define VS_RESOLVE(lib, name, on_missing)                                      \
	__typeof__(vs_##lib.fn.name) fn = VS_LOAD_SLOT(vs_##lib.fn.name);      \
	if (__builtin_expect(fn == NULL, 0)) {                                 \
		vs_ensure_##lib();                                             \
		fn = VS_LOAD_SLOT(vs_##lib.fn.name);                           \
		if (fn == NULL) {                                              \
			on_missing;                                            \
		}                                                              \
	}

/*
 * Drop-in definitions, one per error convention (see shim/syms_ibverbs.h).
 * The exported function is the fast path alone, so that it needs no stack
 * frame: load, test, tail call.  Loading and the missing-symbol convention
 * live in a cold helper of its own, reached by a tail call as well.
 */
#define VS_DROPIN(lib, name, ret, params, args, on_missing)                    \
	static __attribute__((noinline, cold)) ret vs_slow_##name params       \
	{                                                                      \
		VS_RESOLVE(lib, name, on_missing)                              \
		return fn args;                                                \
	}                                                                      \
	ret name params                                                        \
	{                                                                      \
		__typeof__(vs_##lib.fn.name) fn =                              \
			VS_LOAD_SLOT(vs_##lib.fn.name);                        \
		if (__builtin_expect(fn == NULL, 0))                           \
			return vs_slow_##name args;                            \
		return fn args;                                                \
	}

#define VS_DEFINE_PTR(lib, name, ret, params, args)                            \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return NULL)
#define VS_DEFINE_ERRNO(lib, name, ret, params, args)                          \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return EOPNOTSUPP)
#define VS_DEFINE_NEG1(lib, name, ret, params, args)                           \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return (ret)-1)
#define VS_DEFINE_NEGERR(lib, name, ret, params, args)                         \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return -EOPNOTSUPP)
#define VS_DEFINE_ZERO(lib, name, ret, params, args)                           \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return (ret)0)
#define VS_DEFINE_STR(lib, name, ret, params, args)                            \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = EOPNOTSUPP; return "unknown")
/* void: ISO C has no "return void-expression", so spelt out. */
#define VS_DEFINE_VOID(lib, name, ret, params, args)                           \
	static __attribute__((noinline, cold)) void vs_slow_##name params      \
	{                                                                      \
		VS_RESOLVE(lib, name, return)                                  \
		fn args;                                                       \
	}                                                                      \
	void name params                                                       \
	{                                                                      \
		__typeof__(vs_##lib.fn.name) fn =                              \
			VS_LOAD_SLOT(vs_##lib.fn.name);                        \
		if (__builtin_expect(fn == NULL, 0))                           \
			vs_slow_##name args;                                   \
		else                                                           \
			fn args;                                               \
	}
#define VS_DEFINE_CUSTOM(lib, name, ret, params, args) /* hand-written */

#define VS_DEFINE_IBVERBS(node, name, ret, params, args, conv)                 \
	VS_DEFINE_##conv(ibverbs, name, ret, params, args)
#define VS_DEFINE_RDMACM(node, name, ret, params, args, conv)                  \
	VS_DEFINE_##conv(rdmacm, name, ret, params, args)
#define VS_DEFINE_EFA(node, name, ret, params, args, conv)                     \
	VS_DEFINE_##conv(efa, name, ret, params, args)

/* The GID fallbacks for libraries older than IBVERBS_1.11. */
int vs_gid_entry_fallback(struct ibv_context *context, uint32_t port_num,
			  uint32_t gid_index, struct ibv_gid_entry *entry);
ssize_t vs_gid_table_fallback(struct ibv_context *context,
			      struct ibv_gid_entry *entries, size_t max_entries,
			      size_t entry_size);

#endif /* VS_SHIM_H */
