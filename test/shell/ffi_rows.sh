#!/usr/bin/env bash
# The FFI twin is complete: the rows of include/verbshim/ffi.h are what
# scripts/ffi-gen.sh writes from the headers (no row kept by hand); every
# public VS_INLINE function of include/verbshim/*.h (the QP accessors
# VS__QP_ACCESSORS makes, in any header, included), found here by its
# text, has its row; the archive defines vs_ffi_NAME for each row, and
# test/unit/ffi_twin.c calls each.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=${1:-lib/libverbshim.a}
scripts/ffi-gen.sh --check
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
rows=$( {
	grep -oE '^	XFN\([^,]*, [a-z0-9_]+, \(' include/verbshim/ffi.h | sed -E 's/^	XFN\([^,]*, //'
	grep -oE '^	XVOID\([a-z0-9_]+, \(' include/verbshim/ffi.h | sed -E 's/^	XVOID\(//'
} | sed 's/, ($//' | sort -u)
missing=$(comm -23 <(echo "$inlines") <(echo "$rows"))
[ -z "$missing" ] || { echo "inlines without an FFI row in include/verbshim/ffi.h:"; echo "$missing"; exit 1; }
extra=$(comm -13 <(echo "$inlines") <(echo "$rows"))
[ -z "$extra" ] || { echo "FFI rows for no inline:"; echo "$extra"; exit 1; }
defined=$(nm -g --defined-only "$archive" 2>/dev/null | awk '$3 ~ /^vs_ffi_/ {sub(/^vs_ffi_/, "", $3); print $3}' | sort -u)
undef=$(comm -23 <(echo "$rows") <(echo "$defined"))
[ -z "$undef" ] || { echo "rows the archive does not define as vs_ffi_*:"; echo "$undef"; exit 1; }
uncalled=$(for r in $rows; do grep -q "CALL($r," test/unit/ffi_twin.c || echo "$r"; done)
[ -z "$uncalled" ] || { echo "twins test/unit/ffi_twin.c never calls:"; echo "$uncalled"; exit 1; }
echo "$(echo "$rows" | wc -l) inlines, each with its out-of-line vs_ffi_ twin in $archive"
