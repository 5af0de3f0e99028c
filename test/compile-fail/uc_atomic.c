/* SPDX-License-Identifier: MIT */
/* Atomics exist on RC only. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_rc_faa(b, 1, 0, sge, r, 1);
}
