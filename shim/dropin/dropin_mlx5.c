// SPDX-License-Identifier: MIT
/* The exported mlx5dv_* definitions of libmlx5, generated from shim/loader/syms_mlx5.h. */
#include "dropin.h"

VS_MLX5_SYMBOLS(VS_DEFINE_MLX5)
