// SPDX-License-Identifier: MIT
/* Stub libionic: generic bodies only. */
#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

VS_STUB_EXPORT char vs_stub_last[64];
VS_STUB_EXPORT int vs_stub_calls;
VS_STUB_EXPORT char vs_stub_marker;

VS_IONIC_SYMBOLS(VS_STUB_DEFINE)
