// SPDX-License-Identifier: MIT
/*
 * The one reader of the VERBSHIM_ knobs (shim/loader/vs_knobs.h): secure_getenv(),
 * so that whoever runs a setuid or setgid program cannot change what it
 * loads, traces, fails or posts.
 */
#include <errno.h>
#include <stdlib.h>

#include "vs_knobs.h"

#define VS_KNOB_NAME(name) [VS_KNOB_##name] = "VERBSHIM_" #name,
static const char *const vs_knob_names[VS_KNOB_COUNT] = { VS_KNOBS(VS_KNOB_NAME) };

const char *vs__knob_name(enum vs_knob knob)
{
	return (unsigned int)knob < VS_KNOB_COUNT ? vs_knob_names[knob] : "VERBSHIM_?";
}

const char *vs__knob(enum vs_knob knob)
{
	int caller_errno = errno;
	const char *v;

	if ((unsigned int)knob >= VS_KNOB_COUNT)
		return NULL;
	v = secure_getenv(vs_knob_names[knob]);
	errno = caller_errno;	/* read on the caller's behalf */
	return v;
}
