/* SPDX-License-Identifier: MIT */
/* An endpoint goes into a struct vs_endpoint, nothing else. */
/* expect-gcc: '_Generic' selector of type 'struct vs_ud_dest *' is not compatible */
/* expect-clang: controlling expression type 'struct vs_ud_dest *' not compatible */
/* expect-g++: cannot convert 'vs_ud_dest*' to 'vs_endpoint*' */
/* expect-clang++: no matching function for call to 'vs_rc_endpoint' */
#include <verbshim.h>

int get(const struct vs_rc_qp *qp, struct vs_ud_dest *dest);

int get(const struct vs_rc_qp *qp, struct vs_ud_dest *dest)
{
	return vs_rc_endpoint(qp, dest);
}
