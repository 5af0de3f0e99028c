/* SPDX-License-Identifier: MIT */
/* Bring-up is typed too. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_qp *' */
/* expect-clang: controlling expression type 'struct vs_ud_qp *' not compatible */
/* expect-g++: cannot convert 'vs_ud_qp*' to 'vs_uc_qp*' */
/* expect-clang++: no matching function for call to 'vs_uc_handshake' */
#include <verbshim.h>

int f(struct vs_ud_qp *qp, const struct vs_endpoint *ep);
int f(struct vs_ud_qp *qp, const struct vs_endpoint *ep)
{
	return vs_uc_handshake(qp, ep);
}
