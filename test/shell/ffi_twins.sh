#!/usr/bin/env bash
# The FFI twin is complete and made from the headers alone: every public
# VS_INLINE function of include/verbshim/*.h (the QP accessors
# VS__QP_ACCESSORS makes included), found here by its text, independently
# of scripts/build/ffi-gen.sh, has a prototype in the generated
# build/gen/verbshim/ffi_twins.h and a definition vs_ffi_NAME in the
# archive, and nothing else does; no private vs__ helper is VS_INLINE (it
# would be twinned, and exported); test/unit/ffi_twin.c calls each twin;
# and no row list is kept in git.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=${1:-lib/libverbshim.a}
gen=${2:-build/gen}
[ -s "$gen/verbshim/ffi_twins.h" ] || { echo "no $gen/verbshim/ffi_twins.h: run make"; exit 1; }
fail=0
# shellcheck disable=SC2013 # one word per line: names
inlines=$( {
	grep -hoE '^VS_INLINE [^(]*[ *]vs_[a-z][a-z0-9_]*\(' include/verbshim/*.h |
		grep -oE 'vs_[a-z0-9_]+\($' | tr -d '('
	for t in $(grep -hoE '^VS__QP_ACCESSORS\([a-z]+' include/verbshim/*.h | sed 's/.*(//'); do
		for a in $(grep -oE 'vs_##t##_qp_[a-z_]+\(' include/verbshim/qp.h | sed 's/vs_##t##_qp_//; s/(//'); do
			echo "vs_${t}_qp_$a"
		done
	done
} | sed 's/^vs_//' | sort -u)
private=$(grep -hnE '^VS_INLINE [^(]*[ *]vs__[a-z0-9_]*\(' include/verbshim/*.h || true)
[ -z "$private" ] || { echo "private helpers defined VS_INLINE (VS__INLINE is theirs):"; echo "$private"; fail=1; }
declared=$(grep -oE 'vs_ffi_[a-z0-9_]+\(' "$gen/verbshim/ffi_twins.h" | sed 's/^vs_ffi_//; s/($//' | sort -u)
defined=$(nm -g --defined-only "$archive" 2>/dev/null | awk '$3 ~ /^vs_ffi_/ {sub(/^vs_ffi_/, "", $3); print $3}' | sort -u)
for what in declared defined; do
	missing=$(comm -23 <(echo "$inlines") <(echo "${!what}"))
	[ -z "$missing" ] || { echo "inlines without a $what twin:"; echo "$missing"; fail=1; }
	extra=$(comm -13 <(echo "$inlines") <(echo "${!what}"))
	[ -z "$extra" ] || { echo "$what twins of no public inline:"; echo "$extra"; fail=1; }
done
uncalled=$(for r in $inlines; do grep -q "CALL($r," test/unit/ffi_twin.c || echo "$r"; done)
[ -z "$uncalled" ] || { echo "twins test/unit/ffi_twin.c never calls:"; echo "$uncalled"; fail=1; }
# shellcheck disable=SC2016 # (a pattern)
stored=$(git grep -lE '^#define VS__FFI_FUNCTIONS|XFN\(' -- include lib 2>/dev/null || true)
[ -z "$stored" ] || { echo "a row list kept in git: $stored"; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "$(echo "$inlines" | wc -l) public inlines, each with its generated prototype and its vs_ffi_ twin in $archive"
