#!/usr/bin/env bash
# The benchmarks' deterministic clock (scripts/vm-run.sh --icount): options
# it cannot serve are refused in one line without booting (more than one
# vCPU, a shift out of range), and a guest booted with it has one CPU and
# a working rxe device: build/bin/loopback moves bytes over it and checks
# them.  Runs on the host (VM stage, "paths"); boots one guest, ~10 s.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../../.." || exit 1
[ "${VERBSHIM_IN_VM:-}" = 1 ] && { echo "skip: boots a VM itself: run it on the host"; exit 77; }
[ -x build/bin/loopback ] || { echo "FAIL: build/bin/loopback missing (make all)"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused ARGS... -- WHAT: exit 125, one line naming WHAT, no boot.
refused() {
	local args=() rc=0 out
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	out=$(scripts/vm-run.sh "${args[@]}" -- true 2>&1) || rc=$?
	if [ $rc -eq 125 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && [[ $out == *"$2"* ]]; then
		echo "ok: ${args[*]}: $out"
	else
		fail "${args[*]}: exit $rc, not 125 with one line naming '$2': $out"
	fi
}
refused --icount 0 --smp 2 -- "--smp 1"
refused --icount 11 -- "a shift of 0 to 10"
refused --icount x --smp 1 -- "a shift of 0 to 10"

rc=0
out=$(scripts/vm-run.sh --icount 0 --smp 1 --timeout 240 -- \
	bash -c 'echo "guest CPUs: $(nproc)"; build/bin/loopback' 2>&1) || rc=$?
echo "$out" | sed 's/^/    | /'
[ $rc -eq 0 ] || fail "the icount guest: exit $rc"
echo "$out" | grep -q 'booting (.*icount shift 0' || fail "vm-run.sh did not say it booted with icount"
echo "$out" | grep -q 'guest CPUs: 1$' || fail "the icount guest has not exactly one CPU"

echo "$fails check(s) failed"
[ $fails -eq 0 ]
