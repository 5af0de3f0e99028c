/* SPDX-License-Identifier: MIT */
/*
 * Stub rdma-core libraries for the loader tests: every symbol of the
 * shim's lists, defined weak with a generic body that records the call;
 * stub_*_special.c override the few that must behave.  Version scripts
 * from gen_map.c decide which of them a given stub exports, and at which
 * node.
 */
#ifndef VS_STUB_H
#define VS_STUB_H

#include <stdint.h>
#include <string.h>

#include "loader/vs_shim.h"

#define VS_STUB_EXPORT __attribute__((visibility("default")))

extern VS_STUB_EXPORT char vs_stub_last[64];
extern VS_STUB_EXPORT int vs_stub_calls;
extern VS_STUB_EXPORT char vs_stub_marker;

/* Threads call the fake at once (race_trace): relaxed atomics, which TSan
 * does not call a race.  The name may then mix two calls'; a test reads
 * it only from one thread. */
static inline void vs_stub_record(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(vs_stub_last) - 1; i++) {
		__atomic_store_n(&vs_stub_last[i], *name, __ATOMIC_RELAXED);
		if (*name)
			name++;
	}
	__atomic_add_fetch(&vs_stub_calls, 1, __ATOMIC_RELAXED);
}

#define VS_STUB_RET_PTR(ret) return (ret)(uintptr_t)&vs_stub_marker;
#define VS_STUB_RET_STR(ret) return "stub";
#define VS_STUB_RET_VOID(ret)
#define VS_STUB_RET_ERRNO(ret) return (ret)0;
#define VS_STUB_RET_NEG1(ret) return (ret)0;
#define VS_STUB_RET_NEGERR(ret) return (ret)0;
#define VS_STUB_RET_ZERO(ret) return (ret)0;
#define VS_STUB_RET_CUSTOM(ret) return (ret)0;

#define VS_STUB_DEFINE(node, name, ret, params, args, conv, facts)                    \
	__attribute__((weak)) VS_STUB_EXPORT ret name params                   \
	{                                                                      \
		vs_stub_record(#name);                                         \
		VS_STUB_RET_##conv(ret)                                        \
	}

#endif /* VS_STUB_H */
