// SPDX-License-Identifier: MIT
/* The exported ionic_dv_* definitions of libionic, generated from
 * shim/loader/syms_ionic.h (none when the headers built with lack ionic_dv.h). */
#include "dropin.h"

VS_IONIC_SYMBOLS(VS_DEFINE_IONIC)
