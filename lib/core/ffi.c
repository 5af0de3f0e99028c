/* SPDX-License-Identifier: MIT */
/*
 * The FFI twin (include/verbshim/ffi.h): each public inline, out of line.
 */
#include "core.h"
#include "verbshim/ffi.h"

#define DEFINE(ret, name, params, args)                                       \
	ret vs_ffi_##name params { return vs_##name args; }
#define DEFINE_VOID(name, params, args)                                       \
	void vs_ffi_##name params { vs_##name args; }
VS__FFI_FUNCTIONS(DEFINE, DEFINE_VOID)
