// SPDX-License-Identifier: MIT
/*
 * The exported rdma_* definitions, generated from shim/syms_rdmacm.h.
 * Rows marked CUSTOM live in shim/custom_rdmacm.c; rsockets in
 * shim/dropin_rsocket.c, an archive member of its own.
 */
#include "vs_shim.h"

VS_RDMACM_CM_SYMBOLS(VS_DEFINE_RDMACM)
