// SPDX-License-Identifier: MIT
/* The exported efadv_* definitions, generated from shim/loader/syms_efa.h. */
#include "dropin.h"

VS_EFA_SYMBOLS(VS_DEFINE_EFA)
