/* SPDX-License-Identifier: MIT */
/* The batch's type follows the QP's: an RC QP starts an RC batch. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_batch *' */
/* expect-clang: controlling expression type 'struct vs_ud_batch *' not compatible */
/* expect-g++: cannot convert 'vs_ud_batch*' to 'vs_rc_batch*' */
/* expect-clang++: no matching function for call to 'vs_rc_batch_start' */
#include <verbshim.h>

int f(struct vs_rc_qp *qp, struct vs_ud_batch *b);
int f(struct vs_rc_qp *qp, struct vs_ud_batch *b)
{
	return vs_rc_batch_start(qp, b);
}
