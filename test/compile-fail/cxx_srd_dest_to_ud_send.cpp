/* SPDX-License-Identifier: MIT */
/* A UD send goes to a UD destination, not an SRD one. */
/* expect-g++: cannot convert 'const vs::srd_dest' {aka 'const vs::dest_owner<vs_srd_dest>'} to 'const vs::ud_dest&' */
/* expect-clang++: no viable conversion from 'const dest_owner<vs_srd_dest>' to 'const dest_owner<vs_ud_dest>' */
#include <verbshim.hpp>

vs::status go(vs::ud_batch &b, const vs::srd_dest &d, const ibv_sge &s);

vs::status go(vs::ud_batch &b, const vs::srd_dest &d, const ibv_sge &s)
{
	return b.send(1, 0, d, s);
}
