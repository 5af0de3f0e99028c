// SPDX-License-Identifier: MIT
/* Stub libibverbs: generic bodies, and the few that must behave. */
#include <stdlib.h>

#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

VS_STUB_EXPORT char vs_stub_last[64];
VS_STUB_EXPORT int vs_stub_calls;
VS_STUB_EXPORT char vs_stub_marker;
VS_STUB_EXPORT int vs_stub_private_marker;

VS_IBVERBS_SYMBOLS(VS_STUB_DEFINE)
