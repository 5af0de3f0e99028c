/* SPDX-License-Identifier: MIT */
/* Each transport closes its own QPs. */
/* expect-gcc: '_Generic' selector of type 'struct vs_uc_qp *' */
/* expect-clang: controlling expression type 'struct vs_uc_qp *' not compatible */
/* expect-g++: cannot convert 'vs_uc_qp*' to 'vs_rc_qp*' */
/* expect-clang++: no matching function for call to 'vs_rc_qp_close' */
#include <verbshim.h>

int f(struct vs_uc_qp *qp);
int f(struct vs_uc_qp *qp)
{
	return vs_rc_qp_close(qp);
}
