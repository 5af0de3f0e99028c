/* SPDX-License-Identifier: MIT */
/* Atomics exist on RC only, never on EFA SRD. */
/* expect-gcc: '_Generic' selector of type 'struct vs_srd_batch *' */
/* expect-clang: controlling expression type 'struct vs_srd_batch *' not compatible */
/* expect-g++: cannot convert 'vs_srd_batch*' to 'vs_rc_batch*' */
/* expect-clang++: no matching function for call to 'vs_rc_cas' */
#include <verbshim.h>

int f(struct vs_srd_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_srd_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_rc_cas(b, 1, 0, sge, r, 0, 1);
}
