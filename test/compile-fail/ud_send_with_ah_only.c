/* SPDX-License-Identifier: MIT */
/* The destination is a vs_ud_dest (AH + QPN + qkey), not a bare AH. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct vs_ah *ah, struct ibv_sge *sge);
int f(struct vs_ud_batch *b, struct vs_ah *ah, struct ibv_sge *sge)
{
	return vs_ud_send(b, 1, 0, ah, sge, 1);
}
