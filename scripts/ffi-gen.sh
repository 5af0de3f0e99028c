#!/usr/bin/env bash
# The FFI twin's rows (include/verbshim/ffi.h, VS__FFI_FUNCTIONS), written
# from the public headers by the compiler, never by hand: gcc -aux-info
# prints every function the headers define, with its parameters and its
# argument names; each public static one (vs_NAME, not the private vs__)
# becomes XFN(return type, NAME, (parameters), (arguments)), XVOID when it
# returns nothing.
#
#   scripts/ffi-gen.sh           rewrites the rows in include/verbshim/ffi.h
#   scripts/ffi-gen.sh --check   exits 1, with the difference, when they are stale
#
# Needs gcc (clang has no -aux-info); CC=gcc-NN to pick one.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-gcc}
case $($cc --version 2>/dev/null | head -n 1) in
*clang*|'') cc=gcc ;;
esac
hdr=include/verbshim/ffi.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# every public header, ffi.h itself kept out by its include guard
printf '#define VERBSHIM_FFI_H\n#include "verbshim.h"\n' >"$tmp/all.c"
$cc -std=c11 -D_GNU_SOURCE -DVS__NO_TYPE_GUARDS -Iinclude -S -o /dev/null \
	-aux-info "$tmp/aux" "$tmp/all.c"
sed -nE 's|^/\* include/verbshim/[a-z0-9_]+\.h:[0-9]+:NF \*/ static (.*[ *])vs_([a-z][a-z0-9_]*) \((.*)\); /\* \(([^)]*)\) .*|\1@\2@\3@\4|p' "$tmp/aux" |
	awk -F@ '!seen[$2]++ {
		ret = $1
		sub(/ +$/, "", ret)
		gsub(/_Bool/, "bool", ret)
		params = $3
		gsub(/_Bool/, "bool", params)
		if (ret == "void")
			printf "\tXVOID(%s, (%s), (%s)) \\\n", $2, params, $4
		else
			printf "\tXFN(%s, %s, (%s), (%s)) \\\n", ret, $2, params, $4
	}' | sed '$ s/ \\$//' >"$tmp/rows"
[ -s "$tmp/rows" ] || { echo "ffi-gen.sh: no rows from $cc -aux-info" >&2; exit 1; }

# the rows stand between the #define line and the first line after them
awk -v rows="$tmp/rows" '
	/^#define VS__FFI_FUNCTIONS\(XFN, XVOID\) \\$/ {
		print
		while ((getline l < rows) > 0)
			print l
		skip = 1
		next
	}
	skip && /^\t(XFN|XVOID)\(/ { next }
	{ skip = 0; print }
' "$hdr" >"$tmp/ffi.h"
if [ "${1:-}" = --check ]; then
	if ! diff -u "$hdr" "$tmp/ffi.h"; then
		echo "ffi-gen.sh: $hdr's rows are not the headers' inlines: run scripts/ffi-gen.sh"
		exit 1
	fi
	echo "$(wc -l <"$tmp/rows") rows of $hdr as the headers define them"
	exit 0
fi
cmp -s "$hdr" "$tmp/ffi.h" || cp "$tmp/ffi.h" "$hdr"
echo "$(wc -l <"$tmp/rows") rows written to $hdr"
