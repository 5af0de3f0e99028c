/* SPDX-License-Identifier: MIT */
/* Retry/timeout knobs exist only where they apply (RC). */
/* expect-gcc: has no member named 'timeout' */
/* expect-clang: field designator 'timeout' does not refer to any field */
/* expect-g++: has no non-static data member named 'timeout' */
/* expect-clang++: field designator 'timeout' does not refer to any field */
#include <verbshim.h>

struct vs_ud_config cfg = { .timeout = 14 };
