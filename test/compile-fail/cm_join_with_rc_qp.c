/* SPDX-License-Identifier: MIT */
/* Multicast joins take the CM id, not its QP. */
/* expect-gcc: '_Generic' selector of type 'struct vs_rc_qp *' */
/* expect-clang: controlling expression type 'struct vs_rc_qp *' not compatible */
/* expect-g++: cannot convert 'vs_rc_qp*' to 'vs_cm_id*' */
/* expect-clang++: no matching function for call to 'vs_cm_join' */
#include <verbshim.h>

int f(struct vs_rc_qp *qp);
int f(struct vs_rc_qp *qp)
{
	return vs_cm_join(qp, "239.1.1.1", 0);
}
