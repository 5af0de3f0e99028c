#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR/..
# The binaries that stock autotools, CMake and plain-make projects built
# through the compat directory (test/shell/compat.sh, run by make check
# before the VM stage) on the rxe device: examples/verbs_loopback.c, which
# checks every byte of SEND/RECV, RDMA WRITE/READ and atomics, and the
# mlx5dv/umad project's dv_probe (umad_init, mlx5dv_create_qp on rxe
# failing as libmlx5 fails it).  Host root
# only (they are built with today's toolchain: scripts/vm/stage.sh).
set -euo pipefail
# shellcheck source=test/vm/lib/common.bash
. "$(dirname "$0")/../lib/common.bash"
need_vm
cd "$(dirname "$0")/../../.."
bins=(build/compat/bin/verbs_loopback-*)
[ -x "${bins[0]}" ] || { echo "FAIL: no build/compat/bin/verbs_loopback-*: run test/shell/compat.sh (scripts/vm/stage.sh does when they are missing)"; exit 1; }
[ ${#bins[@]} -eq 5 ] || { echo "FAIL: expected 5 compat binaries, found: ${bins[*]}"; exit 1; }
probe=build/compat/bin/dv_probe-autotools-dv
[ -x "$probe" ] || { echo "FAIL: no $probe: run test/shell/compat.sh"; exit 1; }
status=0
for b in "${bins[@]}"; do
	echo "== $b"
	rc=0
	"$b" -d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" || rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $b exit $rc"; status=1; }
done
echo "== $probe"
rc=0
"$probe" || rc=$?
[ $rc -eq 0 ] || { echo "FAIL: $probe exit $rc"; status=1; }
exit $status
