/* SPDX-License-Identifier: MIT */
/* Bring-up is typed too. */
/* expect: incompatible pointer type */
#include <verbshim.h>

int f(struct vs_ud_qp *qp, const struct vs_endpoint *ep);
int f(struct vs_ud_qp *qp, const struct vs_endpoint *ep)
{
	return vs_uc_handshake(qp, ep);
}
