// SPDX-License-Identifier: MIT
/* The exported mlx4dv_* definitions of libmlx4, generated from shim/loader/syms_mlx4.h. */
#include "dropin.h"

VS_MLX4_SYMBOLS(VS_DEFINE_MLX4)
