// SPDX-License-Identifier: MIT
/* The exported umad_* definitions of libibumad, generated from shim/syms_umad.h. */
#include "vs_shim.h"

VS_IBUMAD_SYMBOLS(VS_DEFINE_IBUMAD)
