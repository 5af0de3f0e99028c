/* SPDX-License-Identifier: MIT */
/* A UD send goes to a UD destination, not an SRD one. */
/* expect-gcc: '_Generic' selector of type 'const struct vs_srd_dest *' */
/* expect-clang: controlling expression type 'const struct vs_srd_dest *' not compatible */
/* expect-g++: cannot convert 'const vs_srd_dest*' to 'const vs_ud_dest*' */
/* expect-clang++: no matching function for call to 'vs_ud_send' */
#include <verbshim.h>

int f(struct vs_ud_batch *b, const struct vs_srd_dest *d, struct ibv_sge *sge);
int f(struct vs_ud_batch *b, const struct vs_srd_dest *d, struct ibv_sge *sge)
{
	return vs_ud_send(b, 1, 0, d, sge, 1);
}
