#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The conformance run (scripts/conformance.sh, docs/conformance.md) on
# arm64: rdma-core 44.0's pyverbs cross-built for arm64 with its own CMake
# (a toolchain file: the host's aarch64-linux-gnu-gcc 12, bookworm's, and
# as sysroot the arm64 bookworm pyverbs root, scripts/roots/packaging-root.sh
# --for pyverbs --suite bookworm --arch arm64: its python3.11 headers and
# libpython, libnl, libudev, rdma-core 44.0's -dev; the host's cython3, the
# same Cython 0.29 as bookworm's, writes the C), its modules linked twice
# from the same objects (stock -libverbs -lrdmacm -lmlx5 -lefa from the
# sysroot, and through the compat directory of build/arm64's archive),
# then run in the arm64 guest (qemu-system-aarch64, TCG) chrooted into that
# root, whose Python, ip(8) and rdma-core 44.0 the tests use, with rxe (or
# siw) on a virtio NIC; per-test verdicts compared as on x86-64.
#
#   scripts/conformance/arm64.sh [--provider rxe|siw] [--tests 'NAME...'] [--build-only]
#
# --tests: run_tests.py's test names (test_device, test_qp.QPTest, ...): a
# subset (make check-arm64's: $VS_CONFORMANCE_ARM64_TESTS, see
# scripts/check/check-arm64.sh); default the whole suite.  VS_ARM64_TIMEOUT: the
# boot's limit (default 14400 s: the whole suite under TCG).  Ends with
# scripts/conformance.sh's "N passed, N failed, N skipped; N verdicts
# differ"; exit 1 when any verdict differs, 77 without the 44.0 archive.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
me=conformance/arm64.sh
ver=44.0
# shellcheck source=common.bash
. scripts/conformance/common.bash
export VS_CONFORMANCE_OUT=$repo/build/arm64/conformance VS_CONFORMANCE_BUILD=build/arm64
dir=$VS_CONFORMANCE_OUT/$ver
provider=rxe tests='' buildonly=0
while [ $# -gt 0 ]; do
	case $1 in
	--provider) provider=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--build-only) buildonly=1; shift ;;
	*) echo "usage: $me [--provider rxe|siw] [--tests 'NAME...'] [--build-only]" >&2; exit 2 ;;
	esac
done
case $provider in rxe | siw) ;; *) echo "$me: --provider $provider: rxe or siw" >&2; exit 2 ;; esac
tarball=$(dirname "$repo")/shared/sources/rdma-core-$ver.tar.gz
[ -f "$tarball" ] || { echo "skip: no $tarball (the release archives beside the checkout: ../shared/sources/README.md)"; exit 77; }
[ -f build/arm64/libverbshim.a ] || { echo "$me: no build/arm64/libverbshim.a: make ARCH=arm64 lib" >&2; exit 1; }
scripts/deps.sh --arm64 >/dev/null || exit 1
root=$(scripts/roots/packaging-root.sh --for pyverbs --suite bookworm --arch arm64)

# ---- the cross-build: conformance.sh's build_here with a toolchain file
t0=$SECONDS
mkdir -p "$dir"
unpack_release "$tarball" "$dir"
# A new root (its recipe changed) is a new sysroot: configure afresh.
if [ "$(cat "$dir/sysroot" 2>/dev/null)" != "$root" ]; then
	rm -rf "$dir/b"
	echo "$root" >"$dir/sysroot"
fi
# pkg-config (libnl, libudev) looks in the sysroot only; the programs
# (cython, python) are the build machine's.
cat >"$dir/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_SYSROOT $root)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} $root)
set(ENV{PKG_CONFIG_LIBDIR} $root/usr/lib/aarch64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig)
EOF
CMAKE_TOOLCHAIN_FILE=$dir/toolchain.cmake NM=aarch64-linux-gnu-nm \
	scripts/conformance.sh --build-here "$ver"
# rdma-core's CMake names the modules by the build machine's Python
# (EXT_SUFFIX .cpython-311-x86_64-linux-gnu.so); the guest's imports
# .cpython-311-aarch64-linux-gnu.so (or plain .so).
find "$dir/stock" "$dir/shim" -name '*.cpython-*-x86_64-linux-gnu.so' | while read -r f; do
	mv "$f" "${f%-x86_64-linux-gnu.so}-aarch64-linux-gnu.so"
done
bad=$(find "$dir/stock" "$dir/shim" -name '*.so' -exec readelf -h {} + | grep -c 'Machine:' | tr -d ' ')
arm=$(find "$dir/stock" "$dir/shim" -name '*.so' -exec readelf -h {} + | grep -c 'Machine: *AArch64' | tr -d ' ')
[ "$bad" = "$arm" ] || { echo "$me: $((bad - arm)) of the $bad modules are not AArch64" >&2; exit 1; }
echo "$ver arm64: $((arm / 2)) modules each way, AArch64 ($((SECONDS - t0)) s)"
[ $buildonly -eq 0 ] || exit 0

# The root has no mount(8) (conformance.sh --guest binds the device's
# sysfs view): Debian's static arm64 busybox as mount, beside.
cache=${VERBSHIM_CACHE:-$repo/.cache} ROOT_ARCH=arm64
# shellcheck source=scripts/roots/root.bash
. scripts/roots/root.bash
rm -rf "$dir/rt" && mkdir -p "$dir/rt"
busybox=$(root_static_busybox) || exit 1
cp "$busybox" "$dir/rt/busybox"
ln -s busybox "$dir/rt/mount"

# ---- the runs, in the arm64 guest
port=$((20000 + RANDOM % 20000))
log=$dir/vm-$provider.log
t0=$SECONDS
rc=0
# shellcheck disable=SC2016 # (expanded in the guest)
VS_CONFORMANCE_TESTS=$tests scripts/vm-run.sh --arch arm64 --root "$root" --provider "$provider" \
	--netdev-socket "udp:$port:$((port + 1))" --timeout "${VS_ARM64_TIMEOUT:-14400}" \
	-- bash -c 'PATH=$1:$PATH exec scripts/conformance.sh --guest "$2" "$VS_RXE_DEV"' - "$dir/rt" "$ver" 2>&1 | tee "$log" || rc=$?
echo "rdma-core $ver on $provider, arm64 guest${tests:+ ($tests)}: $((SECONDS - t0)) s"
grep -qE '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped; [0-9]+ verdicts differ' "$log" || rc=1
exit $rc
