/* SPDX-License-Identifier: MIT */
/* A CQ is created from a CQ config. */
/* expect-gcc: '_Generic' selector of type 'struct vs_srq_config *' is not compatible */
/* expect-clang: controlling expression type 'struct vs_srq_config *' not compatible */
/* expect-g++: cannot convert 'vs_srq_config*' to 'const vs_cq_config*' */
/* expect-clang++: no matching function for call to 'vs_cq_create' */
#include <verbshim.h>

int make(struct vs_context *ctx, struct vs_srq_config *cfg, struct vs_cq **out);

int make(struct vs_context *ctx, struct vs_srq_config *cfg, struct vs_cq **out)
{
	return vs_cq_create(ctx, cfg, out);
}
