/* SPDX-License-Identifier: MIT */
/* Polling takes a CQ, not a PD. */
/* expect-gcc: '_Generic' selector of type 'struct vs_pd *' */
/* expect-clang: controlling expression type 'struct vs_pd *' not compatible */
/* expect-g++: cannot convert 'vs_pd*' to 'vs_cq*' */
/* expect-clang++: no matching function for call to 'vs_cq_poll' */
#include <verbshim.h>

int f(struct vs_pd *pd, struct vs_wc *wc);
int f(struct vs_pd *pd, struct vs_wc *wc)
{
	return vs_cq_poll(pd, wc, 1);
}
