/* SPDX-License-Identifier: MIT */
/* RDMA read exists on RC only: a UC batch is not an RC batch. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r);
int f(struct vs_uc_batch *b, struct ibv_sge *sge, struct vs_remote r)
{
	return vs_rc_read(b, 1, 0, sge, 1, r);
}
