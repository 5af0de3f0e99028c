/* SPDX-License-Identifier: MIT */
/* The SRD handshake takes an SRD QP; an RC QP has its own. */
/* expect-gcc: '_Generic' selector of type 'struct vs_rc_qp *' */
/* expect-clang: controlling expression type 'struct vs_rc_qp *' not compatible */
/* expect-g++: cannot convert 'vs_rc_qp*' to 'vs_srd_qp*' */
/* expect-clang++: no matching function for call to 'vs_srd_handshake' */
#include <verbshim.h>

int f(struct vs_rc_qp *qp, const struct vs_endpoint *ep, struct vs_srd_dest *d);
int f(struct vs_rc_qp *qp, const struct vs_endpoint *ep, struct vs_srd_dest *d)
{
	return vs_srd_handshake(qp, ep, d);
}
