#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# make check's short fault sweep (make check-faults is the whole one;
# scripts/check/faults.sh, docs/testing.md "The fault sweep"): the programs
# scripts/check/faults.list marks short (verbs_loopback, the README's hello,
# verbshim-selftest, cm_echo both sides), each function they call failed
# with ENOMEM at its first and its last call, their ASan+UBSan build (make
# faults-asan) with the leak check on.  Any verdict but clear fails, with
# the cases and their evidence.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
[ -x build/asan/bin/verbs_loopback ] || { echo "FAIL: build/asan/bin/verbs_loopback not built (make faults-asan)"; exit 1; }
out=build/faults/short-$VS_PROVIDER
rm -rf "$out"
mkdir -p "$out"
scripts/check/faults.sh --short --guest "$out"
r=$out/results.tsv
[ -s "$r" ] || { echo "FAIL: no case ran"; exit 1; }
bad=$(awk -F'\t' '$8 !~ /^(clear|unreached|refused|skip)$/' "$r")
counts=$(awk -F'\t' '{n[$8]++} END {for (v in n) printf "%s %d, ", v, n[v]}' "$r")
if [ -n "$bad" ]; then
	echo "$bad"
	echo "FAIL: the short fault sweep: ${counts%, } (evidence in $out/logs)"
	exit 1
fi
echo "pass: the short fault sweep on $VS_RXE_DEV: ${counts%, }"
