/* SPDX-License-Identifier: MIT */
/* An SRD send goes to an SRD destination (vs_srd_handshake), not a UD one. */
/* expect-gcc: '_Generic' selector of type 'const struct vs_ud_dest *' */
/* expect-clang: controlling expression type 'const struct vs_ud_dest *' not compatible */
/* expect-g++: cannot convert 'const vs_ud_dest*' to 'const vs_srd_dest*' */
/* expect-clang++: no matching function for call to 'vs_srd_send' */
#include <verbshim.h>

int f(struct vs_srd_batch *b, const struct vs_ud_dest *d, struct ibv_sge *sge);
int f(struct vs_srd_batch *b, const struct vs_ud_dest *d, struct ibv_sge *sge)
{
	return vs_srd_send(b, 1, 0, d, sge, 1);
}
