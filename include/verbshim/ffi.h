/* SPDX-License-Identifier: MIT */
/*
 * The FFI twin: every static inline function of the public headers also
 * compiled out of line (lib/core/ffi.c) as vs_ffi_NAME for vs_NAME, so that
 * bindings (Rust, Python ctypes/cffi, Go cgo) that cannot expand a C
 * inline can call it.  Same arguments, results and errors (the error
 * record names vs_NAME); one call more per use.  C and C++ callers use
 * the inlines.
 *
 * No list is kept: lib/core/ffi.c defines VS_INLINE empty and includes the
 * headers (liburing's src/ffi.c over IOURINGINLINE), and the prototypes
 * below, verbshim/ffi_twins.h, are written from the same headers by
 * scripts/build/ffi-gen.sh at each build (build/gen/verbshim/, installed beside
 * this header by make install).  Compiled against the bare source tree,
 * without build/gen on the include path, the twins are not declared.
 */
#ifndef VERBSHIM_FFI_H
#define VERBSHIM_FFI_H

#include "verbshim/cq_iter.h"
#include "verbshim/endpoint.h"
#include "verbshim/post.h"
#include "verbshim/recv.h"
#include "verbshim/post_srd.h"

#if defined(__has_include)
#if __has_include("verbshim/ffi_twins.h")
VS_BEGIN_DECLS
#include "verbshim/ffi_twins.h"
VS_END_DECLS
#endif
#endif

#endif /* VERBSHIM_FFI_H */
