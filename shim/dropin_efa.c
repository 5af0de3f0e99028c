// SPDX-License-Identifier: MIT
/* The exported efadv_* definitions, generated from shim/syms_efa.h. */
#include "vs_shim.h"

VS_EFA_SYMBOLS(VS_DEFINE_EFA)
