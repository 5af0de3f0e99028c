/* SPDX-License-Identifier: MIT */
/* A transport's config only creates that transport's QP. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_config *' is not compatible */
/* expect-clang: controlling expression type 'struct vs_ud_config *' not compatible */
/* expect-g++: cannot convert 'vs_ud_config*' to 'const vs_rc_config*' */
/* expect-clang++: no matching function for call to 'vs_rc_qp_create' */
#include <verbshim.h>

int make(struct vs_pd *pd, struct vs_rc_qp **out);

int make(struct vs_pd *pd, struct vs_rc_qp **out)
{
	struct vs_ud_config cfg = { .qkey = 0x11111111 };

	return vs_rc_qp_create(pd, &cfg, out);
}
