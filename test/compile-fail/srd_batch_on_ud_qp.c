/* SPDX-License-Identifier: MIT */
/* An SRD batch starts on an SRD QP only. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_qp *' */
/* expect-clang: controlling expression type 'struct vs_ud_qp *' not compatible */
/* expect-g++: cannot convert 'vs_ud_qp*' to 'vs_srd_qp*' */
/* expect-clang++: no matching function for call to 'vs_srd_batch_start' */
#include <verbshim.h>

int f(struct vs_ud_qp *qp, struct vs_srd_batch *b);
int f(struct vs_ud_qp *qp, struct vs_srd_batch *b)
{
	return vs_srd_batch_start(qp, b);
}
