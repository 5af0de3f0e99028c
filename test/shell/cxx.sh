#!/usr/bin/env bash
# The C++ layer (include/verbshim.hpp) as C++17 and C++20, with g++ and
# clang++, warnings as errors:
#  - the header alone, first in a translation unit, twice (include guard),
#    -pedantic-errors; and with -fno-exceptions (value() aborts there);
#  - a dropped result (a create's, a submit's) fails -Werror=unused-result
#    ([[nodiscard]]), the same calls with their result used compile;
#  - the unit test (test/unit/cxx_owners.cpp) built and run against the
#    fake provider in each of the four modes (make builds the g++ C++17
#    one, which the unit, ASan and valgrind stages run), and each C++
#    example (examples/*.cpp) built.
# Misuse that must not compile: test/shell/compile_fail.sh (*.cpp cases).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
for f in lib/libverbshim.a build/stubs/fake/libibverbs.so.1; do
	[ -e "$f" ] || { echo "FAIL: no $f: run make all tests (make check does)"; exit 1; }
done
out=build/test/cxx   # the tests find build/stubs/fake from here
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checked=0 compilers=()
for cxx in g++ clang++; do
	if command -v "$cxx" >/dev/null; then compilers+=("$cxx"); else echo "note: $cxx not installed"; fi
done
[ ${#compilers[@]} -gt 0 ] || { echo "FAIL: no C++ compiler (scripts/deps.sh installs g++ and clang++)"; exit 1; }
flags="-Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude"

# (in a mode: its $tmp)
fail() { echo "FAIL $*"; sed 's/^/    /' "$tmp/log" | head -20; fails=$((fails + 1)); }

alone=$tmp/alone.cpp
printf '#include <verbshim.hpp>\n#include <verbshim.hpp>\n' >"$alone"
calls=(
	'vs::device_open("x")'
	'vs::pd_alloc(ctx)'
	'vs::mr_alloc(pd, 64)'
	'vs::rc_qp_create(pd, cfg)'
	'vs::cm_listen(nullptr, "1")'
	'b.submit()'
	'qp.close()'
)
# mode CXX STD: every check in one mode, in its own directory; prints its
# failures, and "CHECKED FAILS" as its last line.
mode() {
	local cxx=$1 std=$2 m="$1 -std=$2" tmp=$tmp/$1-$2 call stmt c src bin tag
	mkdir -p "$tmp"
	checked=0 fails=0
	checked=$((checked + 1))
	$cxx -std=$std $flags -pedantic-errors -Wno-variadic-macros -fsyntax-only "$alone" >"$tmp/log" 2>&1 ||
		fail "$m: include/verbshim.hpp alone"
	checked=$((checked + 1))
	$cxx -std=$std $flags -fno-exceptions -c -o "$tmp/noexc.o" test/compile-fail/cxx_control_ok.cpp >"$tmp/log" 2>&1 ||
		fail "$m -fno-exceptions: test/compile-fail/cxx_control_ok.cpp"
	for call in "${calls[@]}" keep; do
		stmt="$call;"
		if [ "$call" = keep ]; then
			stmt=""
			for c in "${calls[@]}"; do stmt="$stmt
			if (!$c) return 1;"; done
		fi
		cat >"$tmp/drop.cpp" <<-EOT
		#include <verbshim.hpp>
		int f(vs::context &ctx, vs::pd &pd, vs::rc_qp &qp, vs::rc_batch &b, const vs_rc_config &cfg);
		int f(vs::context &ctx, vs::pd &pd, vs::rc_qp &qp, vs::rc_batch &b, const vs_rc_config &cfg)
		{
			$stmt
			return 0;
		}
		EOT
		checked=$((checked + 1))
		if $cxx -std=$std $flags -Werror=unused-result -fsyntax-only "$tmp/drop.cpp" >"$tmp/log" 2>&1; then
			[ "$call" = keep ] || fail "$m: dropping the result of $call compiles"
		elif [ "$call" = keep ]; then
			fail "$m: the calls with their results used"
		elif ! grep -q 'nodiscard\|unused-result\|unused result' "$tmp/log"; then
			fail "$m: $call: not the unused-result diagnostic"
		fi
	done
	tag=${cxx/++/xx}-${std/++/xx}
	for src in examples/*.cpp; do
		checked=$((checked + 1))
		$cxx -std=$std $flags -c -o "$tmp/ex.o" "$src" >"$tmp/log" 2>&1 || fail "$m: $src"
	done
	checked=$((checked + 1))
	bin=$out/cxx_owners-$tag
	if $cxx -std=$std $flags -O2 -o "$bin" test/unit/cxx_owners.cpp lib/libverbshim.a \
		-ldl -lpthread >"$tmp/log" 2>&1; then
		"$bin" >"$tmp/log" 2>&1 || fail "$m: $bin (exit $?)"
	else
		fail "$m: test/unit/cxx_owners.cpp"
	fi
	echo "$checked $fails"
}

# The modes side by side.
n=0
for cxx in "${compilers[@]}"; do
	for std in c++17 c++20; do
		n=$((n + 1))
		mode "$cxx" "$std" >"$tmp/mode$n" 2>&1 &
	done
done
wait
checked=0 fails=0
for ((i = 1; i <= n; i++)); do
	sed '$d' "$tmp/mode$i"
	read -r c f < <(tail -n 1 "$tmp/mode$i")
	checked=$((checked + ${c:-0})) fails=$((fails + ${f:-1}))
done
echo "cxx: $checked checks (${compilers[*]}; C++17 and C++20), $fails failed"
[ $fails -eq 0 ]
