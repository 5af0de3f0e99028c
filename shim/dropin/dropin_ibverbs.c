// SPDX-License-Identifier: MIT
/*
 * The exported ibv_* definitions, generated from shim/loader/syms_ibverbs.h.  The
 * compiler checks each against the prototype of the rdma-core headers in
 * use.  Rows marked CUSTOM live in shim/dropin/fallback_ibverbs.c.
 */
#include "dropin.h"

VS_IBVERBS_SYMBOLS(VS_DEFINE_IBVERBS)
