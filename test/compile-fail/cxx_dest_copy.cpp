/* SPDX-License-Identifier: MIT */
/* A destination owns its AH: no copy. */
/* expect-g++: use of deleted function 'vs::owner<H>::owner(const vs::owner<H>&) [with H = vs_ud_dest]' */
/* expect-clang++: call to deleted constructor of 'vs::ud_dest' */
#include <verbshim.hpp>

vs::ud_dest dup(const vs::ud_dest &d);

vs::ud_dest dup(const vs::ud_dest &d)
{
	vs::ud_dest c = d;
	return c;
}
