/* SPDX-License-Identifier: MIT */
/* A batch is typed by its QP's transport. */
/* expect-gcc: '_Generic' selector of type 'struct vs_rc_qp *' */
/* expect-clang: controlling expression type 'struct vs_rc_qp *' not compatible */
/* expect-g++: cannot convert 'vs_rc_qp*' to 'vs_ud_qp*' */
/* expect-clang++: no matching function for call to 'vs_ud_batch_start' */
#include <verbshim.h>

int f(struct vs_rc_qp *qp, struct vs_ud_batch *b);
int f(struct vs_rc_qp *qp, struct vs_ud_batch *b)
{
	return vs_ud_batch_start(qp, b);
}
