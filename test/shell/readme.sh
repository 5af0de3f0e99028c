#!/usr/bin/env bash
# README.md stays true:
# - its C example (the first ```c block) compiles as it stands with gcc and
#   clang, -std=c11 -Wall -Wextra -Werror, against include/ only, links
#   with the README's drop-in line (-lverbshim -ldl -lpthread), needs no
#   rdma-core library, and on this host either prints "hello, RDMA" or
#   fails in one line naming the vs_ call (test/vm/readme.sh runs it on the
#   devices);
# - the two commands are there verbatim, and .ci/run runs the second;
# - it stays one screen (at most 160 lines).
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=lib/libverbshim.a
[ -f "$archive" ] || { echo "no $archive: run make first"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

awk '/^```c$/ { f = 1; next } f && /^```/ { exit } f' README.md >"$tmp/hello.c"
lines=$(wc -l <"$tmp/hello.c")
[ "$lines" -ge 10 ] || { echo "FAIL: no C example in README.md (a \`\`\`c block)"; exit 1; }
echo "README.md's C example: $lines lines"

compilers=(gcc)
if command -v clang >/dev/null; then compilers+=(clang); else echo "note: no clang here: gcc only"; fi
for cc in "${compilers[@]}"; do
	bin=$tmp/hello-$cc
	if ! "$cc" -std=c11 -Wall -Wextra -Werror -Iinclude -o "$bin" "$tmp/hello.c" \
		-Llib -lverbshim -ldl -lpthread 2>"$tmp/err"; then
		cat "$tmp/err"
		fail "$cc does not compile README.md's example"
		continue
	fi
	needed=$(readelf -d "$bin" | awk '/NEEDED/ { print $NF }' | tr -d '[]')
	if grep -Eq 'ibverbs|rdmacm|efa|mlx[45]|ibumad' <<<"$needed"; then
		fail "$cc: the example needs an rdma-core library: $(tr '\n' ' ' <<<"$needed")"
	fi
	rc=0
	"$bin" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ $rc -eq 0 ]; then
		[ "$(cat "$tmp/out")" = "hello, RDMA" ] || fail "$cc: exit 0 but printed: $(cat "$tmp/out")"
		echo "$cc: compiled, no rdma-core in NEEDED, ran on a device here: $(cat "$tmp/out")"
	elif [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^vs_[a-z_]*: ' "$tmp/err"; then
		echo "$cc: compiled, no rdma-core in NEEDED, no device here: $(cat "$tmp/err")"
	else
		fail "$cc: the example exited $rc; stdout: $(cat "$tmp/out"); stderr: $(cat "$tmp/err")"
	fi
done

# The commands, exactly as the README gives them, and CI's.
for cmd in './scripts/deps.sh && make demo' './scripts/deps.sh && make check' \
	'cc -o app app.c -lverbshim -ldl -lpthread'; do
	grep -qF -- "$cmd" README.md || fail "README.md lacks: $cmd"
done
ci=$(grep -v '^[[:space:]]*\(#\|$\)' .ci/run | tail -n 1)
[ "$ci" = './scripts/deps.sh && make check' ] ||
	fail ".ci/run's command is \"$ci\", not the README's ./scripts/deps.sh && make check"

total=$(wc -l <README.md)
[ "$total" -le 160 ] || fail "README.md has $total lines: one screen's reading is about 150 (move the rest to docs/)"
echo "README.md: $total lines; the two commands and .ci/run agree"
exit $status
