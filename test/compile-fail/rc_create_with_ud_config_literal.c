/* SPDX-License-Identifier: MIT */
/* A compound-literal config (commas and all) is checked whole. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_config *' is not compatible */
/* expect-clang: controlling expression type 'struct vs_ud_config *' not compatible */
/* expect-g++: cannot convert 'vs_ud_config*' to 'const vs_rc_config*' */
/* expect-clang++: taking the address of a temporary object */
#include <verbshim.h>

int make(struct vs_pd *pd, struct vs_cq *cq, struct vs_rc_qp **out);

int make(struct vs_pd *pd, struct vs_cq *cq, struct vs_rc_qp **out)
{
	return vs_rc_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq,
			       .recv_cq = cq, .qkey = 7 }, out);
}
