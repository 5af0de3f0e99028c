#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR/..
# The programs a stock CMake project built through verbshim's installed
# CMake package (test/shell/cmake_package.sh, run by make check before the
# VM stage) on the rxe device: the typed loopback example (C) and
# cxx_loopback (C++17 over the C API), each checking every byte.  Host root
# only (built with today's toolchain).
set -euo pipefail
# shellcheck source=test/vm/lib/common.bash
. "$(dirname "$0")/../lib/common.bash"
need_vm
cd "$(dirname "$0")/../../.."
status=0
for b in build/cmake-package/bin/loopback build/cmake-package/bin/cxx_loopback; do
	[ -x "$b" ] || { echo "FAIL: no $b: run test/shell/cmake_package.sh (make check does)"; exit 1; }
	echo "== $b"
	rc=0
	"$b" -d "$VS_RXE_DEV" || rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $b exit $rc"; status=1; }
done
exit $status
