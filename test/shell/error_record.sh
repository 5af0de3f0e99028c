#!/usr/bin/env bash
# Every public function of include/verbshim/*.h is walked by
# test/unit/error_record.c (an ENTRY* line: made to fail, its record must
# name it) or is named in that file's EXEMPT comment with the reason.  A new
# entry point without either fails here.
set -euo pipefail
cd "$(dirname "$0")/../.."
test=test/unit/error_record.c
# The public functions as the compiler sees them (gcc's -aux-info: every
# function the headers declare or define, whatever attributes or macros
# spell it: VS_INLINE VS__HOT, a return type on its own line, the
# VS__QP_ACCESSORS expansions), not as a pattern reads the text; the
# generated FFI twins (vs_ffi_) are the inlines again.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include "verbshim.h"\n' >"$tmp/all.c"
cc=${CC:-gcc}
case $($cc --version 2>/dev/null | head -n 1) in *clang*|'') cc=gcc ;; esac
$cc -std=c11 -D_GNU_SOURCE -DVS__NO_TYPE_GUARDS -Iinclude -S -o /dev/null \
	-aux-info "$tmp/aux" "$tmp/all.c"
public=$(grep -E '^/\* include/verbshim/' "$tmp/aux" | grep -oE '[ *]vs_[a-z][a-z0-9_]* \(' |
	tr -d ' (*' | grep -v '^vs_ffi_' | sort -u)
[ "$(wc -w <<<"$public")" -gt 100 ] || { echo "only $(wc -w <<<"$public") public functions from $cc -aux-info"; exit 1; }
walked=$(grep -oE 'ENTRY(_VERB|_VALUE)?\(vs_[a-z0-9_]+' "$test" | sed 's/.*(//' | sort -u)
exempt=$(sed -n '/^ \* EXEMPT/,/^ \*\//p' "$test" | grep -oE 'vs_[a-z0-9_*]+' | sort -u)
missing=
for f in $public; do
	grep -qx "$f" <<<"$walked" && continue
	hit=0
	for e in $exempt; do
		# shellcheck disable=SC2053
		[[ $f == $e ]] && { hit=1; break; }
	done
	[ $hit -eq 1 ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	echo "public functions neither walked by $test nor EXEMPT:$missing"
	exit 1
fi
echo "$(wc -w <<<"$public") public functions: $(wc -w <<<"$walked") walked, the rest exempt with a reason"
