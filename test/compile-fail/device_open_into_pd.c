/* SPDX-License-Identifier: MIT */
/* A device context is not stored where a PD goes. */
/* expect-gcc: '_Generic' selector of type 'struct vs_pd **' is not compatible */
/* expect-clang: controlling expression type 'struct vs_pd **' not compatible */
/* expect-g++: cannot convert 'vs_pd**' to 'vs_context**' */
/* expect-clang++: no matching function for call to 'vs_device_open' */
#include <verbshim.h>

int open_it(struct vs_pd **out);

int open_it(struct vs_pd **out)
{
	return vs_device_open("rxe0", out);
}
