/* SPDX-License-Identifier: MIT */
/*
 * The drop-in room's header: how an exported rdma-core function is
 * defined over the loader's tables (one macro per error convention), and
 * what the drop-ins share.  Only shim/dropin/ includes it; it includes
 * the loader below it.
 */
#ifndef VS_DROPIN_H
#define VS_DROPIN_H

#include "loader/vs_shim.h"

/*
 * Resolving a slot on the fast path: one acquire load (a plain load on
 * x86), a test, and a tail call; the slow path loads the library under its
 * once-flag and looks again.  When the slot stays empty, on_missing runs
 * with vs_err set to the errno to report: EOPNOTSUPP (no library, no
 * symbol), or EDEADLK (called back during the library's own load).
 */
#define VS_LOAD_SLOT(slot) __atomic_load_n(&(slot), __ATOMIC_ACQUIRE)

#define VS_RESOLVE(lib, name, on_missing)                                      \
	__typeof__(vs__##lib.fn.name) fn = VS_LOAD_SLOT(vs__##lib.fn.name);    \
	if (__builtin_expect(fn == NULL, 0)) {                                 \
		int vs_err = vs__ensure_##lib();                               \
		fn = VS_LOAD_SLOT(vs__##lib.fn.name);                          \
		if (fn == NULL) {                                              \
			vs_err = vs_err ? vs_err : EOPNOTSUPP;                 \
			on_missing;                                            \
		}                                                              \
	}

/*
 * Drop-in definitions, one per error convention (see shim/loader/syms_ibverbs.h).
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
		__typeof__(vs__##lib.fn.name) fn =                             \
			VS_LOAD_SLOT(vs__##lib.fn.name);                       \
		if (__builtin_expect(fn == NULL, 0))                           \
			return vs_slow_##name args;                            \
		return fn args;                                                \
	}

#define VS_DEFINE_PTR(lib, name, ret, params, args)                            \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return NULL)
#define VS_DEFINE_ERRNO(lib, name, ret, params, args)                          \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return vs_err)
#define VS_DEFINE_NEG1(lib, name, ret, params, args)                           \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return (ret)-1)
#define VS_DEFINE_NEGERR(lib, name, ret, params, args)                         \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return -vs_err)
#define VS_DEFINE_ZERO(lib, name, ret, params, args)                           \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return (ret)0)
#define VS_DEFINE_STR(lib, name, ret, params, args)                            \
	VS_DROPIN(lib, name, ret, params, args,                                \
		  errno = vs_err; return "unknown")
/* void: ISO C has no "return void-expression", so spelt out. */
#define VS_DEFINE_VOID(lib, name, ret, params, args)                           \
	static __attribute__((noinline, cold)) void vs_slow_##name params      \
	{                                                                      \
		VS_RESOLVE(lib, name, (void)vs_err; return)                                  \
		fn args;                                                       \
	}                                                                      \
	void name params                                                       \
	{                                                                      \
		__typeof__(vs__##lib.fn.name) fn =                             \
			VS_LOAD_SLOT(vs__##lib.fn.name);                       \
		if (__builtin_expect(fn == NULL, 0))                           \
			vs_slow_##name args;                                   \
		else                                                           \
			fn args;                                               \
	}
#define VS_DEFINE_CUSTOM(lib, name, ret, params, args) /* hand-written */

#define VS_DEFINE_IBVERBS(node, name, ret, params, args, conv, facts)                 \
	VS_DEFINE_##conv(ibverbs, name, ret, params, args)
#define VS_DEFINE_RDMACM(node, name, ret, params, args, conv, facts)                  \
	VS_DEFINE_##conv(rdmacm, name, ret, params, args)
#define VS_DEFINE_EFA(node, name, ret, params, args, conv, facts)                     \
	VS_DEFINE_##conv(efa, name, ret, params, args)
#define VS_DEFINE_MLX5(node, name, ret, params, args, conv, facts)                    \
	VS_DEFINE_##conv(mlx5, name, ret, params, args)
#define VS_DEFINE_MLX4(node, name, ret, params, args, conv, facts)                    \
	VS_DEFINE_##conv(mlx4, name, ret, params, args)
#define VS_DEFINE_IBUMAD(node, name, ret, params, args, conv, facts)                  \
	VS_DEFINE_##conv(ibumad, name, ret, params, args)
#define VS_DEFINE_HNS(node, name, ret, params, args, conv, facts)                     \
	VS_DEFINE_##conv(hns, name, ret, params, args)
#define VS_DEFINE_MANA(node, name, ret, params, args, conv, facts)                    \
	VS_DEFINE_##conv(mana, name, ret, params, args)
#define VS_DEFINE_IONIC(node, name, ret, params, args, conv, facts)                   \
	VS_DEFINE_##conv(ionic, name, ret, params, args)

/* The GID fallbacks for libraries older than IBVERBS_1.11. */
int vs__gid_entry_fallback(struct ibv_context *context, uint32_t port_num,
			   uint32_t gid_index, struct ibv_gid_entry *entry);
ssize_t vs__gid_table_fallback(struct ibv_context *context,
			       struct ibv_gid_entry *entries,
			       size_t max_entries, size_t entry_size);

#endif /* VS_DROPIN_H */
