#!/usr/bin/env bash
# `make check-arm64`: the arm64 build (make ARCH=arm64: build/arm64, and
# make oldest ARCH=arm64: build/arm64/oldest) proven the way the x86-64 one
# is; ends with "N passed, N failed, N skipped".
#
#   scripts/check-arm64.sh [unit] [floor] [vm] [smoke] [shell] [asan] [asan-vm] [valgrind]
#                                     (default: unit floor vm shell asan)
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
#   shell  the shell tests of WHERE check-arm64, one at a time on the
#          host: each cross-builds what it needs and boots the arm64 guest
#          itself (test/shell/dropin_arm64.sh: rdma-core's examples and
#          perftest built on build/arm64's archive, beside stock rdma-core's
#          in the 44.0 root; test/shell/deb_arm64.sh: the arm64 Debian
#          packages, cross-built in the Debian 11 root, lintian, Multi-Arch:
#          same against the amd64 ones, installed in the arm64 44.0 root,
#          programs built against them run under qemu-user and on rxe0)
#   asan   test/tests.list's asan entries built with ASan+UBSan
#          (build/arm64/asan), under qemu-user in the arm64 44.0 root, two
#          at a time; no leak check (LeakSanitizer stops the world with
#          ptrace, which qemu-user does not emulate: "LeakSanitizer has
#          encountered a fatal error")
#   asan-vm  the same binaries in the arm64 guest (44.0 root), where ASan
#          runs natively, the leak check included: one boot, hours under
#          TCG (not in the default)
#   valgrind  the valgrind entries (build/arm64) under bookworm's arm64
#          valgrind in the arm64 guest (valgrind is itself an emulator: it
#          cannot run under qemu-user), make check's flags: one boot
#          (not in the default; written, never run to its end yet)
#
# The sanitizer runtimes the arm64 roots lack (libasan, libubsan and the
# libstdc++ they need) are copied from the cross toolchain into
# build/arm64/asan/sanlib; the guest's valgrind is unpacked into
# build/arm64/valgrind (scripts/apt-fetch.sh --arch arm64).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/lib/checked-runs.bash
. scripts/lib/checked-runs.bash
export VERBSHIM_CACHE=${VERBSHIM_CACHE:-$PWD/.cache}
stages=${*:-unit floor vm shell asan}
mkdir -p build/arm64
results=$(mktemp build/arm64/test-results.XXXXXX)
trap 'rm -f "$results"' EXIT
status=0
t0=$SECONDS

scripts/deps.sh --arm64 || exit 1

# asan_build: build/arm64/asan and its runtimes, or a failed STAGE ($1)
asan_build() {
	local l
	echo "== building the arm64 ASan+UBSan variant (build/arm64/asan)"
	if ! make -s -j"${CHECK_JOBS:-2}" ARCH=arm64 BUILD=build/arm64/asan SAN=asan tests \
		>build/arm64/asan.log 2>&1; then
		cat build/arm64/asan.log; echo "$1: build failed"
		echo "$1 0 1 0" >>"$results"; return 1
	fi
	mkdir -p build/arm64/asan/sanlib
	for l in libasan.so.8 libubsan.so.1 libstdc++.so.6; do
		cp -L /usr/aarch64-linux-gnu/lib/$l build/arm64/asan/sanlib/ || {
			echo "$1 0 1 0" >>"$results"; return 1; }
	done
}

# guest STAGE TIMEOUT CMD...: CMD in the arm64 guest (44.0 root); its
# runner's results, or one failure when the boot died before any
guest() {
	local stage=$1 t=$2 out rc=0
	shift 2
	out=build/arm64/$stage.results
	rm -f "$out"
	scripts/vm-run.sh --arch arm64 --rdma-core 44.0 --timeout "$t" -- "$@" || rc=$?
	if [ -s "$out" ]; then cat "$out" >>"$results"; else echo "$stage 0 1 0" >>"$results"; fi
	rm -f "$out"
	[ $rc -eq 0 ]
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
		mapfile -t t < <(scripts/tests.sh list --build build/arm64/asan asan)
		if asan_build arm64-asan && root=$(scripts/rdma-core-root.sh --arch arm64 44.0); then
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
	asan-vm)
		echo "== arm64 ASan+UBSan unit tests in the arm64 guest (44.0 root, leak check on)"
		mapfile -t t < <(scripts/tests.sh list --build build/arm64/asan asan)
		if asan_build arm64-asan-vm; then
			guest arm64-asan-vm "${VS_ARM64_TIMEOUT:-3600}" env \
				ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
				UBSAN_OPTIONS=$UBSAN_CHECKED \
				VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --stage arm64-asan-vm \
				--results build/arm64/arm64-asan-vm.results --timeout 1800 --jobs 2 \
				--wrap "env LD_LIBRARY_PATH=$PWD/build/arm64/asan/sanlib" "${t[@]}" || status=1
		else
			status=1
		fi
		;;
	valgrind)
		echo "== arm64 unit tests under valgrind in the arm64 guest (44.0 root)"
		mapfile -t t < <(scripts/tests.sh list --build build/arm64 valgrind)
		vg=build/arm64/valgrind
		if deb=$(scripts/apt-fetch.sh --arch arm64 bookworm valgrind) &&
			rm -rf "$vg" && mkdir -p "$vg" && dpkg-deb -x "$deb" "$vg"; then
			guest arm64-valgrind "${VS_ARM64_TIMEOUT:-3600}" env \
				VALGRIND_LIB="$PWD/$vg/usr/libexec/valgrind" VS_RACE_PROCESSES=6 \
				VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --stage arm64-valgrind \
				--results build/arm64/arm64-valgrind.results --timeout 1800 --jobs 2 \
				--wrap "$PWD/$vg/usr/bin/valgrind $VALGRIND_FLAGS" \
				"${t[@]}" || status=1
		else
			echo "arm64-valgrind 0 1 0" >>"$results"; status=1
		fi
		;;
	vm) VS_VM_CONFIGS=check-arm64 scripts/vm-stage.sh "$results" || status=1 ;;
	smoke) VS_VM_CONFIGS=arm64-smoke scripts/vm-stage.sh "$results" || status=1 ;;
	shell)
		echo "== arm64 shell tests on the host (they boot the arm64 guest themselves)"
		mapfile -t t < <(scripts/tests.sh list check-arm64)
		# a boot under TCG and its runs: VS_ARM64_TIMEOUT for the boot
		VS_TEST_LOGDIR=build/arm64/test-logs test/run.sh --results "$results" --stage arm64-shell \
			--timeout $((${VS_ARM64_TIMEOUT:-3600} + 1800)) "${t[@]}" || status=1
		;;
	*) echo "usage: $0 [unit] [floor] [vm] [smoke] [shell] [asan] [asan-vm] [valgrind]" >&2; exit 2 ;;
	esac
done

echo "== make check-arm64: $((SECONDS - t0)) s"
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$results"
[ $status -eq 0 ]
