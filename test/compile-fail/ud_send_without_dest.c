/* SPDX-License-Identifier: MIT */
/* A UD send always carries its destination (AH, remote QPN, qkey). */
/* expect-gcc: '_Generic' selector of type 'struct ibv_sge *' */
/* expect-clang: controlling expression type 'struct ibv_sge *' not compatible */
/* expect-g++: cannot convert 'ibv_sge*' to 'const vs_ud_dest*' */
/* expect-clang++: no matching function for call to 'vs_ud_send' */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct ibv_sge *sge);
int f(struct vs_ud_batch *b, struct ibv_sge *sge)
{
	return vs_ud_send(b, 1, 0, sge, 1);
}
