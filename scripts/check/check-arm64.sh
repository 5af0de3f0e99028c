#!/usr/bin/env bash
# `make check-arm64`: the arm64 build (make ARCH=arm64: build/arm64, and
# make oldest ARCH=arm64: build/arm64/oldest) proven the way the x86-64 one
# is; ends with "N passed, N failed, N skipped".
#
#   scripts/check/check-arm64.sh [unit] [floor] [vm] [smoke] [shell] [asan] [asan-vm] [valgrind] [tsan]
#                                     (default: unit floor vm shell asan)
#
#   unit   the host unit tests under qemu-user, with Debian 12's arm64
#          rdma-core 44.0 and glibc as their root (qemu-aarch64 -L; the
#          x86-64 unit stage runs on the host's, 44.0 too): the fake
#          provider and the stubs of build/arm64/stubs, the loader tests
#          on the real libraries; then build/arm64/oldest's (Debian 11's
#          cross gcc) the same way in the arm64 33.2 root
#   floor  test/shell/glibc_floor.sh on both arm64 archives, with the
#          cross toolchain (floor GLIBC_2.17 on aarch64)
#   vm     the boots of test/boots.list in group check-arm64
#          (scripts/vm/stage.sh): the tests of WHERE vm (device tests,
#          examples, the demo's two among them, tool tests) on rxe0 and
#          siw0 in the arm64 guest, build/arm64 in the 44.0 root,
#          build/arm64/oldest in the 33.2 and 65.0 roots; the mixed pairs;
#          and the checked boots below
#   smoke  group arm64-smoke: one boot, the tests of WHERE arm64-smoke
#          (the demo's two programs and a few device tests), build/arm64
#          in the 44.0 root
#   shell  the shell tests of WHERE check-arm64, one at a time on the
#          host: each cross-builds what it needs and boots the arm64 guest
#          itself (test/shell/dropin_arm64.sh: rdma-core's examples and
#          perftest built on build/arm64's archive, beside stock rdma-core's
#          in the 44.0 root; test/shell/deb_arm64.sh: the arm64 Debian
#          packages, cross-built in the Debian 11 root, lintian, Multi-Arch:
#          same against the amd64 ones, installed in the arm64 44.0 root,
#          programs built against them run under qemu-user and on rxe0;
#          test/shell/conformance_arm64.sh: rdma-core 44.0's own tests, a
#          subset, its pyverbs cross-built and linked stock and through
#          build/arm64's archive, verdicts compared in the guest)
#   asan   test/tests.list's asan entries built with ASan+UBSan
#          (build/arm64/asan), under qemu-user in the arm64 44.0 root, two
#          at a time; no leak check (LeakSanitizer stops the world with
#          ptrace, which qemu-user does not emulate: "LeakSanitizer has
#          encountered a fatal error")
#   asan-vm  group arm64-asan: the boot asan-arm64-44.0, the same
#          binaries in the arm64 guest, where ASan runs natively, the leak
#          check included
#   valgrind  group arm64-valgrind: the boot valgrind-arm64-44.0, the
#          entries of WHERE arm64-valgrind (build/arm64) under bookworm's
#          arm64 valgrind in the arm64 guest (valgrind is itself an
#          emulator: it cannot run under qemu-user), make check's flags
#   tsan   test/tests.list's tsan entries built with TSan (build/arm64/tsan)
#          under qemu-user in the arm64 44.0 root, two at a time, with the
#          address space's randomisation off (setarch -R): TSan re-executes
#          itself to turn it off, which qemu-user cannot ("execve failed,
#          errno 8", ENOEXEC without binfmt_misc)
#
# The sanitizer runtimes the arm64 roots lack (libasan, libubsan and the
# libstdc++ they need) are copied from the cross toolchain into
# build/arm64/asan/sanlib; the guest's valgrind is unpacked into
# build/arm64/valgrind (scripts/vm/stage.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/check/checked-runs.bash
. scripts/check/checked-runs.bash
export VERBSHIM_CACHE=${VERBSHIM_CACHE:-$PWD/.cache}
stages=${*:-unit floor vm shell asan}
mkdir -p build/arm64
results=$(mktemp build/arm64/test-results.XXXXXX)
trap 'rm -f "$results"' EXIT
status=0
t0=$SECONDS

scripts/deps.sh --arm64 || exit 1

# variant_build VARIANT STAGE: build/arm64/VARIANT (asan: ASan+UBSan,
# tsan) and the runtimes the arm64 roots lack, or a failed STAGE
variant_build() {
	echo "== building the arm64 $1 variant (build/arm64/$1)"
	local b=build/arm64/$1
	if ! make -s -j"${CHECK_JOBS:-2}" ARCH=arm64 BUILD="$b" SAN="$1" tests \
		>"$b.log" 2>&1 || ! arm64_sanlib "$b" "$1"; then
		cat "$b.log"; echo "$2: build failed"
		echo "$2 0 1 0" >>"$results"; return 1
	fi
}

# vm_boots STAGE GROUP: the boots of test/boots.list that GROUP selects
# (scripts/vm/stage.sh), after building the variants their checked sets
# run (asan, tsan: build/arm64/VARIANT)
vm_boots() {
	local v
	for v in $(scripts/check/tests.sh boots "$2" | awk '{print $8}' | sort -u); do
		v=$(scripts/check/tests.sh variant "$v") || continue
		case $v in asan | tsan) variant_build "$v" "$1" || return 1 ;; esac
	done
	VS_VM_CONFIGS=$2 scripts/vm/stage.sh "$results"
}

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
	asan)
		echo "== arm64 ASan+UBSan unit tests under qemu-user (arm64 rdma-core 44.0 root)"
		mapfile -t t < <(scripts/check/tests.sh list --build build/arm64/asan asan)
		if variant_build asan arm64-asan && root=$(scripts/rdma-core-root.sh --arch arm64 44.0); then
			# ASAN_OPTIONS in qemu's own environment: the runtime
			# reads /proc/self/environ, which qemu-user does not fake
			ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
			UBSAN_OPTIONS=$UBSAN_CHECKED \
			VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-asan \
				--timeout 900 --jobs 2 \
				--wrap "qemu-aarch64 -L $root -E LD_LIBRARY_PATH=$PWD/build/arm64/asan/sanlib" \
				"${t[@]}" || status=1
		else
			status=1
		fi
		;;
	tsan)
		echo "== arm64 TSan unit tests under qemu-user (arm64 rdma-core 44.0 root)"
		mapfile -t t < <(scripts/check/tests.sh list --build build/arm64/tsan tsan)
		if variant_build tsan arm64-tsan && root=$(scripts/rdma-core-root.sh --arch arm64 44.0); then
			VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-tsan \
				--timeout 1800 --jobs 2 \
				--wrap "setarch -R qemu-aarch64 -L $root -E LD_LIBRARY_PATH=$PWD/build/arm64/tsan/sanlib" \
				"${t[@]}" || status=1
		else
			status=1
		fi
		;;
	asan-vm) vm_boots arm64-asan-vm arm64-asan || status=1 ;;
	valgrind) vm_boots arm64-valgrind arm64-valgrind || status=1 ;;
	vm) vm_boots arm64-vm check-arm64 || status=1 ;;
	smoke) vm_boots arm64-smoke arm64-smoke || status=1 ;;
	shell)
		echo "== arm64 shell tests on the host (they boot the arm64 guest themselves)"
		mapfile -t t < <(scripts/check/tests.sh list check-arm64)
		# a boot under TCG and its runs: VS_ARM64_TIMEOUT for the boot
		VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-shell \
			--timeout $((${VS_ARM64_TIMEOUT:-3600} + 1800)) "${t[@]}" || status=1
		;;
	*) echo "usage: $0 [unit] [floor] [vm] [smoke] [shell] [asan] [asan-vm] [valgrind] [tsan]" >&2; exit 2 ;;
	esac
done

echo "== make check-arm64: $((SECONDS - t0)) s"
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$results"
[ $status -eq 0 ]
