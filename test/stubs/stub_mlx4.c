// SPDX-License-Identifier: MIT
/* Stub libmlx4: generic bodies only. */
#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

VS_STUB_EXPORT char vs_stub_last[64];
VS_STUB_EXPORT int vs_stub_calls;
VS_STUB_EXPORT char vs_stub_marker;

VS_MLX4_SYMBOLS(VS_STUB_DEFINE)
