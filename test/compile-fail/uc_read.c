/* SPDX-License-Identifier: MIT */
/* RDMA read exists on RC only: a UC batch is not an RC batch. */
/* expect-gcc: '_Generic' selector of type 'struct vs_uc_batch *' */
/* expect-clang: controlling expression type 'struct vs_uc_batch *' not compatible */
/* expect-g++: cannot convert 'vs_uc_batch*' to 'vs_rc_batch*' */
/* expect-clang++: no matching function for call to 'vs_rc_read' */
#include <verbshim.h>

int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_rc_read(b, 1, 0, sge, 1, r);
}
