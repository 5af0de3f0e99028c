/* SPDX-License-Identifier: MIT */
/* RDMA write exists on RC and UC, never on UD. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_ud_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_ud_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_uc_write(b, 1, 0, sge, 1, r);
}
