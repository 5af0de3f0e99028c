/* SPDX-License-Identifier: MIT */
/* The qkey exists only on UD. */
/* expect-gcc: has no member named 'qkey' */
/* expect-clang: field designator 'qkey' does not refer to any field */
/* expect-g++: has no non-static data member named 'qkey' */
/* expect-clang++: field designator 'qkey' does not refer to any field */
#include <verbshim.h>

struct vs_rc_config cfg = { .qkey = 7 };
