/* SPDX-License-Identifier: MIT */
/* An RC batch starts on an RC QP only. */
/* expect-g++: cannot convert 'const vs::ud_qp' {aka 'const vs::owner<vs_ud_qp>'} to 'vs::ref<vs_rc_qp>' */
/* expect-clang++: no viable conversion from 'const vs::ud_qp' (aka 'const owner<vs_ud_qp>') to 'ref<typename rc_ops::qp>' */
#include <verbshim.hpp>

vs::status go(const vs::ud_qp &qp);

vs::status go(const vs::ud_qp &qp)
{
	vs::rc_batch b;

	return b.start(qp);
}
