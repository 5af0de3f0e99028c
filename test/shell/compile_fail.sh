#!/usr/bin/env bash
# Misuse of the typed API must not compile, as C11 and as C++, with gcc and
# clang, and without -Werror (a warning is not enough: the user may not
# have asked for it).  Every test/compile-fail/*.c fails with an error
# whose text its expect comment names, per compiler:
#   /* expect-gcc: ... */ /* expect-clang: ... */ (as C11)
#   /* expect-g++: ... */ /* expect-clang++: ... */ (the same file as C++20)
# or /* expect: ... */ for all four; the control case (expect: OK)
# compiles without a single warning in every mode.  The C++ owners'
# cases (test/compile-fail/*.cpp, include/verbshim.hpp) are compiled by
# g++ and clang++ only, as C++17 and as C++20.
set -u
export LC_ALL=C # ASCII quotes in the diagnostics
cd "$(dirname "$0")/../.."
common="-Wall -Wextra -D_GNU_SOURCE -Iinclude -fsyntax-only"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# run_mode CC LANG-FLAGS: every case in one mode; prints its failures, and
# "CHECKED FAILS" as its last line.
run_mode() {
	local cc=$1 lang=$2 checked=0 fails=0 want tmp src flags
	tmp=$(mktemp -p "$dir")
	for src in test/compile-fail/*.c test/compile-fail/*.cpp; do
		want=$(sed -n "s|^/\* expect-$cc: \(.*\) \*/\$|\1|p" "$src")
		[ -n "$want" ] || want=$(sed -n 's|^/\* expect: \(.*\) \*/$|\1|p' "$src")
		case $src:$lang in
		*.cpp:*'-x c '*) continue ;;   # C++ only
		*.cpp:*) set -- "${lang/-std=c++20/-std=c++17}" "$lang" ;;
		*) set -- "$lang" ;;
		esac
		if [ -z "$want" ]; then
			echo "FAIL $src: no expect comment for $cc"; fails=$((fails + 1)); continue
		fi
		for flags in "$@"; do
			checked=$((checked + 1))
			# shellcheck disable=SC2086
			if $cc $flags $common "$src" >"$tmp" 2>&1; then
				if [ "$want" != OK ]; then
					echo "FAIL $cc $flags $src: compiled (warnings are not enough), expected \"$want\""
					sed 's/^/    /' "$tmp" | head -10; fails=$((fails + 1))
				elif [ -s "$tmp" ]; then
					echo "FAIL $cc $flags $src: the control case has diagnostics:"
					sed 's/^/    /' "$tmp" | head -10; fails=$((fails + 1))
				fi
			elif [ "$want" = OK ]; then
				echo "FAIL $cc $flags $src: the control case does not compile:"
				sed 's/^/    /' "$tmp"; fails=$((fails + 1))
			elif ! grep 'error' "$tmp" | grep -qF -- "$want"; then
				echo "FAIL $cc $flags $src: failed, but no error says \"$want\":"
				sed 's/^/    /' "$tmp" | head -20; fails=$((fails + 1))
			fi
		done
	done
	echo "$checked $fails"
}

# The four modes side by side (each compiles every case once).
n=0
for mode in "gcc:-x c -std=c11" "clang:-x c -std=c11" \
	    "g++:-x c++ -std=c++20 -Wno-missing-field-initializers" \
	    "clang++:-x c++ -std=c++20 -Wno-missing-field-initializers"; do
	cc=${mode%%:*} lang=${mode#*:}
	command -v "$cc" >/dev/null || { echo "note: $cc not installed, skipped"; continue; }
	n=$((n + 1))
	run_mode "$cc" "$lang" >"$dir/mode$n" 2>&1 &
done
wait
fails=0 checked=0 modes=0
for ((i = 1; i <= n; i++)); do
	modes=$((modes + 1))
	sed '$d' "$dir/mode$i"
	read -r c f < <(tail -n 1 "$dir/mode$i")
	checked=$((checked + ${c:-0})) fails=$((fails + ${f:-1}))
done
echo "compile-fail: $checked cases checked in $modes modes (no -Werror), $fails wrong"
[ $modes -gt 0 ] && [ $fails -eq 0 ]
