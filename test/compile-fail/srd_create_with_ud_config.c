/* SPDX-License-Identifier: MIT */
/* An SRD QP is created from an SRD config, not a UD one. */
/* expect-gcc: '_Generic' selector of type 'const struct vs_ud_config *' is not compatible */
/* expect-clang: controlling expression type 'const struct vs_ud_config *' not compatible */
/* expect-g++: cannot convert 'const vs_ud_config*' to 'const vs_srd_config*' */
/* expect-clang++: no matching function for call to 'vs_srd_qp_create' */
#include <verbshim.h>

int f(struct vs_pd *pd, const struct vs_ud_config *cfg, struct vs_srd_qp **qp);
int f(struct vs_pd *pd, const struct vs_ud_config *cfg, struct vs_srd_qp **qp)
{
	return vs_srd_qp_create(pd, cfg, qp);
}
