#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# README.md's C example (built from the README by make tests) on the
# device, extended and legacy verbs: the string it wrote by RDMA must come
# back.  On iWARP, whose QPs connect only through the CM, the example must
# fail in one line naming the vs_ call and iWARP (its error path: the RC QP
# is refused at create), and the test skips so.
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
prog=build/test/readme/hello
[ -x "$prog" ] || { echo "no $prog: run make tests"; exit 1; }
for legacy in 0 1; do
	rc=0
	out=$(VERBSHIM_FORCE_LEGACY=$legacy "$prog" "$VS_RXE_DEV" 2>&1) || rc=$?
	echo "legacy=$legacy: exit $rc: $out"
	if [ "${VS_PROVIDER:-rxe}" = siw ]; then
		case $rc:$out in
		1:vs_*iWARP*) ;;
		*) echo "FAIL: expected exit 1 and one line naming a vs_ call and iWARP"; exit 1 ;;
		esac
		[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAIL: more than one line"; exit 1; }
		[ $legacy = 1 ] && { echo "skip: $VS_RXE_DEV (iWARP): the README's example connects its QP to itself by endpoint bytes, refused as expected: $out"; exit 77; }
		continue
	fi
	if [ $rc -ne 0 ] || [ "$out" != "hello, RDMA" ]; then
		echo "FAIL: expected exit 0 and \"hello, RDMA\""
		exit 1
	fi
done
echo "pass: the README's example wrote and read back \"hello, RDMA\" on $VS_RXE_DEV, extended and legacy"
