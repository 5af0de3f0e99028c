/* SPDX-License-Identifier: MIT */
/* Handles of different kinds do not mix. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_mr *mr);
int f(struct vs_mr *mr)
{
	return vs_pd_close(mr);
}
