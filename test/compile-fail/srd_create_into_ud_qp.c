/* SPDX-License-Identifier: MIT */
/* vs_srd_qp_create hands back an SRD QP: a UD QP pointer cannot take it. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_qp **' is not compatible */
/* expect-clang: controlling expression type 'struct vs_ud_qp **' not compatible */
/* expect-g++: cannot convert 'vs_ud_qp**' to 'vs_srd_qp**' */
/* expect-clang++: no matching function for call to 'vs_srd_qp_create' */
#include <verbshim.h>

int f(struct vs_pd *pd, const struct vs_srd_config *cfg, struct vs_ud_qp **qp);
int f(struct vs_pd *pd, const struct vs_srd_config *cfg, struct vs_ud_qp **qp)
{
	return vs_srd_qp_create(pd, cfg, qp);
}
