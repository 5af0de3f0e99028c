// SPDX-License-Identifier: MIT
/* The exported hnsdv_* definitions of libhns, generated from
 * shim/loader/syms_hns.h (none when the headers built with lack hnsdv.h). */
#include "dropin.h"

VS_HNS_SYMBOLS(VS_DEFINE_HNS)
