#!/usr/bin/env bash
# Every public header compiles on its own, first in a translation unit,
# as C11 (gcc, clang) and as C++17 (g++, clang++), with the project's
# warnings as errors (the C++ owners' headers as C++17); none is over 350
# lines; and a C++ program can call into the API through it.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checked=0

compile() { # compiler std ext header
	local cc=$1 std=$2 ext=$3 h=$4
	command -v "$cc" >/dev/null || return 0
	printf '#include "%s"\n#include "%s"\n' "$h" "$h" >"$tmp/t.$ext" # twice: include guards
	checked=$((checked + 1))
	if ! "$cc" -std="$std" -Wall -Wextra -Werror -pedantic-errors -Wno-variadic-macros \
		-Iinclude -fsyntax-only "$tmp/t.$ext" >"$tmp/log" 2>&1; then
		echo "FAIL $cc -std=$std: $h"
		sed 's/^/    /' "$tmp/log" | head -20
		fails=$((fails + 1))
	fi
}

# No public header over 350 lines: a longer one is split by concept
# (include/verbshim/*.h) or by object (include/verbshim/cxx/*.hpp).
for path in include/*.h include/*.hpp include/verbshim/*.h include/verbshim/cxx/*.hpp; do
	n=$(wc -l <"$path")
	checked=$((checked + 1))
	[ "$n" -le 350 ] || { echo "FAIL $path: $n lines (at most 350: split it)"; fails=$((fails + 1)); }
done

for path in include/verbshim.h include/verbshim/*.h; do
	h=${path#include/}
	# loader.h belongs to the shim; it is checked like the others when present
	compile gcc c11 c "$h"
	compile clang c11 c "$h"
	compile g++ c++17 cpp "$h"
	compile clang++ c++17 cpp "$h"
done

# The C++ owners: verbshim.hpp and each of its headers on its own.
for path in include/verbshim.hpp include/verbshim/cxx/*.hpp; do
	compile g++ c++17 cpp "${path#include/}"
	compile clang++ c++17 cpp "${path#include/}"
done

# C++ linkage: the declarations are extern "C" (no mangled references).
if command -v g++ >/dev/null; then
	cat >"$tmp/use.cpp" <<'CPP'
#include <verbshim.h>
int main()
{
	vs_clear_error();
	return vs_last_error()->err;
}
CPP
	checked=$((checked + 1))
	if g++ -std=c++17 -Wall -Wextra -Werror -Iinclude -c -o "$tmp/use.o" "$tmp/use.cpp" >"$tmp/log" 2>&1; then
		if nm "$tmp/use.o" | grep -q '_Z.*vs_'; then
			echo "FAIL: C++ references mangled vs_ symbols (missing extern \"C\")"
			nm "$tmp/use.o" | grep '_Z.*vs_' | head
			fails=$((fails + 1))
		fi
	else
		echo "FAIL: C++ program using verbshim.h does not compile"
		sed 's/^/    /' "$tmp/log" | head -20
		fails=$((fails + 1))
	fi
fi
echo "headers: $checked checks, $fails failed"
[ $fails -eq 0 ]
