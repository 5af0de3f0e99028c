#!/usr/bin/env bash
# Misuse of the typed API must not compile: every test/compile-fail/*.c
# fails with the diagnostic its "expect:" comment names (per compiler with
# "expect-gcc:" / "expect-clang:"), and the control case (expect: OK)
# compiles cleanly.  Checked with gcc and, when present, clang, using the
# project's flags.
set -u
export LC_ALL=C # ASCII quotes in the diagnostics
cd "$(dirname "$0")/../.."
flags="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -fsyntax-only"
fails=0 checked=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "note: $cc not installed, skipped"; continue; }
	for src in test/compile-fail/*.c; do
		want=$(sed -n "s|^/\* expect-$cc: \(.*\) \*/\$|\1|p" "$src")
		[ -n "$want" ] || want=$(sed -n 's|^/\* expect: \(.*\) \*/$|\1|p' "$src")
		if [ -z "$want" ]; then
			echo "FAIL $src: no expect comment"; fails=$((fails + 1)); continue
		fi
		checked=$((checked + 1))
		# shellcheck disable=SC2086
		if $cc $flags "$src" >"$tmp" 2>&1; then
			if [ "$want" != OK ]; then
				echo "FAIL $cc $src: compiled, expected \"$want\""
				fails=$((fails + 1))
			fi
		elif [ "$want" = OK ]; then
			echo "FAIL $cc $src: the control case does not compile:"
			sed 's/^/    /' "$tmp"; fails=$((fails + 1))
		elif ! grep -qF -- "$want" "$tmp"; then
			echo "FAIL $cc $src: failed, but without \"$want\":"
			sed 's/^/    /' "$tmp" | head -20; fails=$((fails + 1))
		fi
	done
done
echo "compile-fail: $checked cases checked, $fails wrong"
[ $fails -eq 0 ]
