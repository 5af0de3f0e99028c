/* SPDX-License-Identifier: MIT */
/* An owner is move-only: assigning a copy would close the handle twice. */
/* expect-g++: use of deleted function 'vs::owner<H>& vs::owner<H>::operator=(const vs::owner<H>&) */
/* expect-clang++: overload resolution selected deleted operator '=' */
#include <verbshim.hpp>

void share(vs::pd &a, const vs::pd &b);

void share(vs::pd &a, const vs::pd &b)
{
	a = b;
}
