/* SPDX-License-Identifier: MIT */
/* Receives go into a receive batch, not a send batch. */
/* expect-gcc: '_Generic' selector of type 'struct vs_rc_batch *' */
/* expect-clang: controlling expression type 'struct vs_rc_batch *' not compatible */
/* expect-g++: cannot convert 'vs_rc_batch*' to 'vs_recv_batch*' */
/* expect-clang++: no matching function for call to 'vs_recv_add' */
#include <verbshim.h>

int f(struct vs_rc_batch *b, struct ibv_sge *sge);
int f(struct vs_rc_batch *b, struct ibv_sge *sge)
{
	return vs_recv_add(b, 1, sge, 1);
}
