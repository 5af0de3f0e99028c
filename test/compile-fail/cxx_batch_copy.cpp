/* SPDX-License-Identifier: MIT */
/* A batch belongs to the scope that started it: no copy. */
/* expect-g++: use of deleted function 'vs::rc_batch::rc_batch(const vs::rc_batch&)' */
/* expect-clang++: call to implicitly-deleted copy constructor of 'vs::rc_batch' */
#include <verbshim.hpp>

void twice(vs::rc_batch &b);

void twice(vs::rc_batch &b)
{
	vs::rc_batch c(b);
	(void)c;
}
