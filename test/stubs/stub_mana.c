// SPDX-License-Identifier: MIT
/* Stub libmana: generic bodies only. */
#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

VS_STUB_EXPORT char vs_stub_last[64];
VS_STUB_EXPORT int vs_stub_calls;
VS_STUB_EXPORT char vs_stub_marker;

VS_MANA_SYMBOLS(VS_STUB_DEFINE)
