// SPDX-License-Identifier: MIT
/*
 * The exported rdma_* definitions, generated from shim/loader/syms_rdmacm.h.
 * Rows marked CUSTOM live in shim/dropin/custom_rdmacm.c; rsockets in
 * shim/dropin/dropin_rsocket.c, an archive member of its own.
 */
#include "dropin.h"

VS_RDMACM_CM_SYMBOLS(VS_DEFINE_RDMACM)
