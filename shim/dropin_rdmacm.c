// SPDX-License-Identifier: MIT
/*
 * The exported rdma_* and rsockets definitions, generated from
 * shim/syms_rdmacm.h.  Rows marked CUSTOM live in shim/custom_rdmacm.c.
 */
#include "vs_shim.h"

VS_RDMACM_SYMBOLS(VS_DEFINE_RDMACM)
