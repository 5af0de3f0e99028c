/* SPDX-License-Identifier: MIT */
/* SGEs come from an MR. */
/* expect-gcc: '_Generic' selector of type 'const struct vs_pd *' */
/* expect-clang: controlling expression type 'const struct vs_pd *' not compatible */
/* expect-g++: cannot convert 'const vs_pd*' to 'const vs_mr*' */
/* expect-clang++: no matching function for call to 'vs_mr_sge' */
#include <verbshim.h>

struct ibv_sge f(const struct vs_pd *pd);
struct ibv_sge f(const struct vs_pd *pd)
{
	return vs_mr_sge(pd, 0, 8);
}
