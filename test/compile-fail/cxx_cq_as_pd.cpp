/* SPDX-License-Identifier: MIT */
/* A CQ's owner is not a PD: memory is registered on a PD. */
/* expect-g++: could not convert 'cq' from 'const vs::cq' {aka 'const vs::owner<vs_cq>'} to 'vs::ref<vs_pd>' */
/* expect-clang++: no viable conversion from 'const vs::cq' (aka 'const owner<vs_cq>') to 'ref<vs_pd>' */
#include <verbshim.hpp>

vs::result<vs::mr> reg(const vs::cq &cq);

vs::result<vs::mr> reg(const vs::cq &cq)
{
	return vs::mr_alloc(cq, 4096);
}
