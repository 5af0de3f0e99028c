/* SPDX-License-Identifier: MIT */
/* An owner is move-only: a copy would close the handle twice. */
/* expect-g++: use of deleted function 'vs::owner<H>::owner(const vs::owner<H>&) */
/* expect-clang++: call to deleted constructor of 'vs::rc_qp' */
#include <verbshim.hpp>

vs::rc_qp keep(const vs::rc_qp &qp);

vs::rc_qp keep(const vs::rc_qp &qp)
{
	vs::rc_qp copy = qp;
	return copy;
}
