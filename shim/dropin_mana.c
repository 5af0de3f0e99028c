// SPDX-License-Identifier: MIT
/* The exported manadv_* definitions of libmana, generated from
 * shim/syms_mana.h (none when the headers built with lack manadv.h). */
#include "vs_shim.h"

VS_MANA_SYMBOLS(VS_DEFINE_MANA)
