/* SPDX-License-Identifier: MIT */
/* vs_srd_handshake fills an SRD destination, not a UD one. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_dest *' is not compatible */
/* expect-clang: controlling expression type 'struct vs_ud_dest *' not compatible */
/* expect-g++: cannot convert 'vs_ud_dest*' to 'vs_srd_dest*' */
/* expect-clang++: no matching function for call to 'vs_srd_handshake' */
#include <verbshim.h>

int f(struct vs_srd_qp *qp, const struct vs_endpoint *ep, struct vs_ud_dest *d);
int f(struct vs_srd_qp *qp, const struct vs_endpoint *ep, struct vs_ud_dest *d)
{
	return vs_srd_handshake(qp, ep, d);
}
