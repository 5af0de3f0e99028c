/* SPDX-License-Identifier: MIT */
/* The out pointer of a create is of the transport created. */
/* expect-gcc: '_Generic' selector of type 'struct vs_rc_qp **' is not compatible */
/* expect-clang: controlling expression type 'struct vs_rc_qp **' not compatible */
/* expect-g++: cannot convert 'vs_rc_qp**' to 'vs_ud_qp**' */
/* expect-clang++: no matching function for call to 'vs_ud_qp_create' */
#include <verbshim.h>

struct vs_rc_qp *make(struct vs_pd *pd, struct vs_cq *cq);

struct vs_rc_qp *make(struct vs_pd *pd, struct vs_cq *cq)
{
	struct vs_rc_qp *qp = NULL;

	if (vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq, .recv_cq = cq }, &qp))
		return NULL;
	return qp;
}
