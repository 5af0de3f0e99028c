#!/usr/bin/env bash
# The oldest-built binaries (`make oldest`: Debian 11, gcc 10, glibc 2.31,
# the pinned rdma-core headers) on this host: every unit test of build/oldest runs
# here as it does in the release roots (scripts/vm/stage.sh), and needs
# nothing above the glibc it was built with.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=build/oldest
[ -s "$dir/toolchain" ] || { echo "no $dir: run make oldest (make check does)"; exit 1; }
echo "built with: $(cat "$dir/toolchain")"
status=0 n=0
for t in "$dir"/test/unit/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	n=$((n + 1))
	need=$(objdump -T "$t" | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p' | sort -V | tail -n 1)
	if [ "$(printf '%s\n' "$need" 2.31 | sort -V | tail -n 1)" != 2.31 ]; then
		echo "FAIL $t needs GLIBC_$need, above bullseye's 2.31"
		status=1
	fi
	rc=0
	timeout 300 "$t" >"$dir/$(basename "$t").log" 2>&1 || rc=$?
	case $rc in
	0) echo "ok   $t (needs GLIBC_$need)" ;;
	77) echo "ok   $t: skip: $(tail -n 1 "$dir/$(basename "$t").log")" ;;
	*) tail -n 20 "$dir/$(basename "$t").log"; echo "FAIL $t: exit $rc"; status=1 ;;
	esac
done
[ $n -gt 0 ] || { echo "FAIL: no unit test in $dir/test/unit"; exit 1; }
exit $status
