/* SPDX-License-Identifier: MIT */
/* A CM call takes a CM id, not another handle. */
/* expect-gcc: '_Generic' selector of type 'struct vs_pd *' */
/* expect-clang: controlling expression type 'struct vs_pd *' not compatible */
/* expect-g++: cannot convert 'vs_pd*' to 'vs_cm_id*' */
/* expect-clang++: no matching function for call to 'vs_cm_connect' */
#include <verbshim.h>

int f(struct vs_pd *pd);
int f(struct vs_pd *pd)
{
	return vs_cm_connect(pd, NULL);
}
