/* SPDX-License-Identifier: MIT */
/* Handles of different kinds do not mix. */
/* expect-gcc: '_Generic' selector of type 'struct vs_mr *' */
/* expect-clang: controlling expression type 'struct vs_mr *' not compatible */
/* expect-g++: cannot convert 'vs_mr*' to 'vs_pd*' */
/* expect-clang++: no matching function for call to 'vs_pd_close' */
#include <verbshim.h>

int f(struct vs_mr *mr);
int f(struct vs_mr *mr)
{
	return vs_pd_close(mr);
}
