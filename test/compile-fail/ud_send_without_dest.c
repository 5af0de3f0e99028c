/* SPDX-License-Identifier: MIT */
/* A UD send always carries its destination (AH, remote QPN, qkey). */
/* expect: too few arguments */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct ibv_sge *sge);
int f(struct vs_ud_batch *b, struct ibv_sge *sge)
{
	return vs_ud_send(b, 1, 0, sge, 1);
}
