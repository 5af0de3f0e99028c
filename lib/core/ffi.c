/* SPDX-License-Identifier: MIT */
/*
 * The FFI twin (include/verbshim/ffi.h): each public inline, out of line.
 * VS_INLINE defined empty makes every public inline of the headers an
 * external definition here, and build/gen/ffi_names.h (scripts/build/ffi-gen.sh,
 * from the same headers) renames each vs_NAME to vs_ffi_NAME, calls between
 * them included; the private vs__ helpers stay static inline.  The
 * prototypes of verbshim/ffi_twins.h, included through core.h, are
 * checked by the compiler against these definitions.  The error record
 * still names vs_NAME: the bodies spell their names as strings.
 */
#define VS__NO_TYPE_GUARDS
#define VS_INLINE
#include "ffi_names.h"
#include "core.h"
