// SPDX-License-Identifier: MIT
/* The exported ionic_dv_* definitions of libionic, generated from
 * shim/syms_ionic.h (none when the headers built with lack ionic_dv.h). */
#include "vs_shim.h"

VS_IONIC_SYMBOLS(VS_DEFINE_IONIC)
