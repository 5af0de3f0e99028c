/* SPDX-License-Identifier: MIT */
/* A UD send goes to a UD destination, not an SRD one. */
/* expect-g++: cannot convert 'const vs::srd_dest' {aka 'const vs::owner<vs_srd_dest>'} to 'const vs::ud_dest&' */
/* expect-clang++: no viable conversion from 'const owner<vs_srd_dest>' to 'const owner<vs_ud_dest>' */
#include <verbshim.hpp>

vs::status go(vs::ud_batch &b, const vs::srd_dest &d, const ibv_sge &s);

vs::status go(vs::ud_batch &b, const vs::srd_dest &d, const ibv_sge &s)
{
	return b.send(1, 0, d, s);
}
