// SPDX-License-Identifier: MIT
/* The exported umad_* definitions of libibumad, generated from shim/loader/syms_umad.h. */
#include "dropin.h"

VS_IBUMAD_SYMBOLS(VS_DEFINE_IBUMAD)
