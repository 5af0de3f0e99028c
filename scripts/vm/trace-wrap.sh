#!/usr/bin/env bash
# One test of a traced boot (test/boots.list: the set word `trace`;
# scripts/vm/guest.sh passes this to test/run.sh --wrap): the test runs with
# VERBSHIM_TRACE=all VERBSHIM_STATS=1, its processes' lines and counters
# going to DIR/NAME/trace.PID, never to its own output.  Its verdict is
# the test's, except that a device test (build/test/device/) that left no
# trace line fails: a trace that silently traced nothing proves nothing.
# The lines counted are those of its files and of its own output (a test
# that sets its own knobs, as test/device/trace_cm_fault.c does, traces to
# its own file and prints it).  A pass ends with what was traced (a skip's
# last line stays its reason).
#
#   scripts/vm/trace-wrap.sh DIR TEST [ARGS...]
set -u
dir=${1:?usage: trace-wrap.sh DIR TEST [ARGS...]}
shift
test=${1:?usage: trace-wrap.sh DIR TEST [ARGS...]}
name=$(echo "${test#./}" | tr '/' '_')
out=$dir/$name
rm -rf "$out"
mkdir -p "$out" || exit 1
# written to the guest's own /tmp (a tmpfs): a line at a time over 9p costs
# the guest a round trip per write; copied to DIR once it ended
local_dir=$(mktemp -d "${TMPDIR:-/tmp}/vs-trace.XXXXXX") || exit 1
VERBSHIM_TRACE=all VERBSHIM_STATS=1 VERBSHIM_TRACE_FILE=$local_dir/trace "$@" 2>&1 |
	tee "$out/output"
rc=${PIPESTATUS[0]}
cp "$local_dir"/. "$out"/ -r 2>/dev/null
rm -rf "$local_dir"
files=0 counted=0
lines=$(grep -c '^verbshim: \[[0-9]*\] ' "$out/output")
for f in "$out"/trace.*; do
	[ -f "$f" ] || continue
	files=$((files + 1))
	lines=$((lines + $(grep -c '^verbshim: \[[0-9]*\] ' "$f")))
	grep -q '^verbshim: calls through the shim (VERBSHIM_STATS)' "$f" && counted=$((counted + 1))
done
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
if [ "$rc" -eq 0 ] && [[ $test == */test/device/* ]] && [ "$lines" -eq 0 ]; then
	echo "trace-wrap: $test passed but left no trace line ($files file(s) in $out, nor in its output): VERBSHIM_TRACE=all traced nothing"
	exit 1
fi
[ "$rc" -eq 0 ] && echo "trace: $lines lines, $counted of $files file(s) with the exit counters ($out)"
exit "$rc"
