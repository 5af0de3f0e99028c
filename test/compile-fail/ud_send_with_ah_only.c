/* SPDX-License-Identifier: MIT */
/* The destination is a vs_ud_dest (AH + QPN + qkey), not a bare AH. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ah *' */
/* expect-clang: controlling expression type 'struct vs_ah *' not compatible */
/* expect-g++: cannot convert 'vs_ah*' to 'const vs_ud_dest*' */
/* expect-clang++: no matching function for call to 'vs_ud_send' */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct vs_ah *ah, struct ibv_sge *sge);
int f(struct vs_ud_batch *b, struct vs_ah *ah, struct ibv_sge *sge)
{
	return vs_ud_send(b, 1, 0, ah, sge, 1);
}
