#!/usr/bin/env bash
# Install what the build and the test bed need, only what is missing.
#
#   scripts/deps.sh          everything (build, host tests, VM test bed)
#   scripts/deps.sh --vm     just what the VM test bed needs
#   scripts/deps.sh --arm64  the second architecture (make ARCH=arm64,
#                            make check-arm64): Debian 12's aarch64 cross
#                            gcc/g++ and libc, qemu-user for the unit tests,
#                            qemu-system-aarch64 for the arm64 VM
#   scripts/deps.sh --rpm    the RPMs (make rpm, make check-rpm): rpmbuild
#                            and rpmlint (with --arm64 too: make rpm ARCH=arm64)
#
# As root: apt-get update + install -y of the missing packages.  Otherwise
# it names what is missing and fails.
set -euo pipefail

me=deps.sh
# autoconf automake libtool libpci-dev: building perftest (test/shell/perftest.sh); cmake: test/compat;
# groff-base man-db: make man and test/shell/man.sh; lintian: test/shell/deb.sh;
# cython3 python3-dev ninja-build libnl-3-dev libnl-route-3-dev libudev-dev:
# rdma-core's pyverbs for make check-conformance (scripts/conformance.sh)
build="build-essential clang libibverbs-dev librdmacm-dev ibverbs-providers libibumad-dev pkg-config valgrind python3 groff-base man-db
autoconf automake libtool libpci-dev cmake lintian
cython3 python3-dev ninja-build libnl-3-dev libnl-route-3-dev libudev-dev"
# perftest: Debian's, the stock peer of the shim-built perftest
vm="qemu-system-x86 busybox-static kmod cpio xz-utils zstd iproute2 rdma-core
ibverbs-providers ibverbs-utils rdmacm-utils perftest"
# busybox-static, cpio: the arm64 guest's initramfs takes arm64 busybox
# from Debian's package, but packing it needs cpio
arm64="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user qemu-system-arm
busybox-static kmod cpio xz-utils zstd"
# rpm: rpmbuild and rpm --root (make rpm, test/shell/rpm.sh)
rpm="rpm rpmlint"

case ${1:-} in
--vm) want=$vm ;;
--arm64) want=$arm64 ;;
--rpm) want=$rpm ;;
"") want="$build $vm" ;;
*) echo "usage: $me [--vm|--arm64|--rpm]" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "$me: error: missing packages:$missing" >&2
	echo "$me: run as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "$me: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Two scripts may race here; apt's own lock serialises them.
apt-get update -q >/dev/null || { echo "$me: error: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $missing ||
	{ echo "$me: error: apt-get install failed:$missing" >&2; exit 1; }
