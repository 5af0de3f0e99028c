/* SPDX-License-Identifier: MIT */
/* RC's retry knobs do not exist on SRD (only rnr_retry). */
/* expect-gcc: 'struct vs_srd_config' has no member named 'timeout' */
/* expect-clang: field designator 'timeout' does not refer to any field in type 'struct vs_srd_config' */
/* expect-g++: 'vs_srd_config' has no non-static data member named 'timeout' */
/* expect-clang++: field designator 'timeout' does not refer to any field in type 'struct vs_srd_config' */
#include <verbshim.h>

int f(struct vs_pd *pd, struct vs_cq *cq, struct vs_srd_qp **qp);
int f(struct vs_pd *pd, struct vs_cq *cq, struct vs_srd_qp **qp)
{
	struct vs_srd_config cfg = { .send_cq = cq, .timeout = 14 };

	return vs_srd_qp_create(pd, &cfg, qp);
}
