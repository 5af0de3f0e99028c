#!/usr/bin/env bash
# Every public function of include/verbshim/*.h is walked by
# test/unit/error_record.c (an ENTRY* line: made to fail, its record must
# name it) or is named in that file's EXEMPT comment with the reason.  A new
# entry point without either fails here.
set -euo pipefail
cd "$(dirname "$0")/../.."
test=test/unit/error_record.c
public=$(grep -hoE '^(VS_INLINE |)[a-z][^;(]*[ *]vs_[a-z0-9_]+\(' include/verbshim/*.h |
	grep -oE 'vs_[a-z0-9_]+\($' | tr -d '(' | grep -v '^vs__' | sort -u)
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
