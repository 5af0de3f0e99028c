/* SPDX-License-Identifier: MIT */
/* An MR is not stored where a PD goes. */
/* expect-gcc: '_Generic' selector of type 'struct vs_pd **' is not compatible */
/* expect-clang: controlling expression type 'struct vs_pd **' not compatible */
/* expect-g++: cannot convert 'vs_pd**' to 'vs_mr**' */
/* expect-clang++: no matching function for call to 'vs_mr_alloc' */
#include <verbshim.h>

int make(struct vs_pd *pd, struct vs_pd **out);

int make(struct vs_pd *pd, struct vs_pd **out)
{
	return vs_mr_alloc(pd, 4096, 0, out);
}
