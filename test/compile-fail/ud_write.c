/* SPDX-License-Identifier: MIT */
/* RDMA write exists on RC and UC, never on UD. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_batch *' */
/* expect-clang: controlling expression type 'struct vs_ud_batch *' not compatible */
/* expect-g++: cannot convert 'vs_ud_batch*' to 'vs_uc_batch*' */
/* expect-clang++: no matching function for call to 'vs_uc_write' */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_ud_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_uc_write(b, 1, 0, sge, 1, r);
}
