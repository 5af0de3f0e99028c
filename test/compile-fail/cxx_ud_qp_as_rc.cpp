/* SPDX-License-Identifier: MIT */
/* A UD QP's owner is not an RC QP: an RC handshake does not take it. */
/* expect-g++: could not convert 'qp' from 'const vs::ud_qp' */
/* expect-clang++: no viable conversion from 'const vs::ud_qp' (aka 'const owner<vs_ud_qp>') to 'ref<vs_rc_qp>' */
#include <verbshim.hpp>

vs::status up(const vs::ud_qp &qp, const vs_endpoint &ep);

vs::status up(const vs::ud_qp &qp, const vs_endpoint &ep)
{
	return vs::rc_handshake(qp, ep);
}
