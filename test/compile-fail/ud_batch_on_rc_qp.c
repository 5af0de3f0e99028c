/* SPDX-License-Identifier: MIT */
/* A batch is typed by its QP's transport. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_rc_qp *qp, struct vs_ud_batch *b);
int f(struct vs_rc_qp *qp, struct vs_ud_batch *b)
{
	return vs_ud_batch_start(qp, b);
}
