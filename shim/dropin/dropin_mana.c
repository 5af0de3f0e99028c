// SPDX-License-Identifier: MIT
/* The exported manadv_* definitions of libmana, generated from
 * shim/loader/syms_mana.h (none when the headers built with lack manadv.h). */
#include "dropin.h"

VS_MANA_SYMBOLS(VS_DEFINE_MANA)
