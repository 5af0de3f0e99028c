#!/usr/bin/env bash
# `make check-arm64`: the arm64 build (make ARCH=arm64: build/arm64, and
# make oldest ARCH=arm64: build/arm64/oldest) proven the way the x86-64 one
# is; ends with "N passed, N failed, N skipped".
#
#   scripts/check-arm64.sh [unit] [floor] [vm] [smoke]   (default: unit floor vm)
#
#   unit   the host unit tests under qemu-user, with Debian 12's arm64
#          rdma-core 44.0 and glibc as their root (qemu-aarch64 -L; the
#          x86-64 unit stage runs on the host's, 44.0 too): the fake
#          provider and the stubs of build/arm64/stubs, the loader tests
#          on the real libraries; then build/arm64/oldest's (Debian 11's
#          cross gcc) the same way in the arm64 33.2 root (glibc 2.31)
#   floor  test/shell/glibc_floor.sh on both arm64 archives, with the
#          cross toolchain (floor GLIBC_2.17 on aarch64)
#   vm     the boots of test/boots.list in group check-arm64
#          (scripts/vm-stage.sh): the tests of WHERE vm (device tests,
#          examples, the demo's two among them, tool tests) on rxe0 in the
#          arm64 guest, build/arm64 in the 44.0 root, build/arm64/oldest in
#          the 33.2 and 65.0 roots
#   smoke  group arm64-smoke: one boot, the tests of WHERE arm64-smoke
#          (the demo's two programs and a few device tests), build/arm64
#          in the 44.0 root
set -u
cd "$(dirname "$0")/.."
export VERBSHIM_CACHE=${VERBSHIM_CACHE:-$PWD/.cache}
stages=${*:-unit floor vm}
mkdir -p build/arm64
results=$(mktemp build/arm64/test-results.XXXXXX)
trap 'rm -f "$results"' EXIT
status=0
t0=$SECONDS

scripts/deps.sh --arm64 || exit 1

for s in $stages; do
	case $s in
	unit)
		echo "== arm64 unit tests under qemu-user (qemu-aarch64 -L: arm64 rdma-core 44.0 root)"
		if root=$(scripts/rdma-core-root.sh --arch arm64 44.0); then
			VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-unit \
				--timeout 900 --wrap "qemu-aarch64 -L $root" build/arm64/test/unit/* || status=1
		else
			echo "arm64-unit 0 1 0" >>"$results"; status=1
		fi
		echo "== arm64 unit tests of the Debian 11 build (build/arm64/oldest) in the arm64 rdma-core 33.2 root"
		if root=$(scripts/rdma-core-root.sh --arch arm64 33.2) && [ -s build/arm64/oldest/toolchain ]; then
			VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-oldest-unit-33.2 \
				--timeout 900 --wrap "qemu-aarch64 -L $root" build/arm64/oldest/test/unit/* || status=1
		else
			echo "no build/arm64/oldest (make oldest ARCH=arm64) or no 33.2 root"
			echo "arm64-oldest-unit-33.2 0 1 0" >>"$results"; status=1
		fi
		;;
	floor)
		echo "== the arm64 archives' glibc floor"
		VS_TEST_LOGDIR=build/arm64/test-logs \
		CC=aarch64-linux-gnu-gcc OBJDUMP=aarch64-linux-gnu-objdump \
		VS_GLIBC_FLOOR_ARCHIVES="build/arm64/libverbshim.a build/arm64/oldest/libverbshim.a" \
			test/run.sh --results "$results" --stage arm64-floor test/shell/glibc_floor.sh || status=1
		;;
	vm) VS_VM_CONFIGS=check-arm64 scripts/vm-stage.sh "$results" || status=1 ;;
	smoke) VS_VM_CONFIGS=arm64-smoke scripts/vm-stage.sh "$results" || status=1 ;;
	*) echo "usage: $0 [unit] [floor] [vm] [smoke]" >&2; exit 2 ;;
	esac
done

echo "== make check-arm64: $((SECONDS - t0)) s"
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$results"
[ $status -eq 0 ]
