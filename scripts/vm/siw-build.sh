#!/usr/bin/env bash
# Build soft-iWARP (siw.ko) for the test VM's kernel of a suite.
#
#   scripts/vm/siw-build.sh [--rebuild] [--arch arm64] bookworm|trixie
#                                                   prints the siw.ko path
#
# Debian builds no siw (CONFIG_RDMA_SIW is not set), but ships its source.
# The module is built from Debian's own packages of the guest kernel's
# version, with that suite's own compiler, in a throw-away root made with
# the project's apt (scripts/roots/apt-fetch.sh, scripts/roots/root.bash), never
# with the host's toolchain: linux-headers-KVER (and the -common, kbuild
# and compiler packages it depends on) and linux-source-X.Y, whose
# drivers/infiniband/sw/siw is all that is taken out of the tarball.
# vermagic is checked against the kernel.  Cached in
# ${VERBSHIM_CACHE:-.cache}/siw/KVER/RECIPE/siw.ko, RECIPE a hash of this
# script.
#
# --arch arm64 (bookworm: the arm64 guest's 6.1): a cross build, the way
# Debian's headers provide for one.  linux-headers-KVER-arm64 is the
# arm64 package (its Makefile takes CROSS_COMPILE), but its scripts/ is a
# link into linux-kbuild-X.Y, which is Multi-Arch: foreign: the build
# host's (amd64) package of the same version serves it (modpost, fixdep:
# both ELF64 little-endian, one devicetable layout).  The compiler is
# bookworm's amd64-hosted gcc-12-aarch64-linux-gnu, run in the same kind
# of throw-away amd64 root.
# Building needs root (chroot, mount namespace); a cached module does not.
set -euo pipefail

me=siw-build.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/../.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
rebuild=0 arch=amd64
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=1; shift ;;
	--arch) arch=${2:-}; shift 2 || true ;;
	*) break ;;
	esac
done
suite=${1:-}
usage() { echo "usage: $me [--rebuild] [--arch amd64|arm64] bookworm|trixie" >&2; exit 2; }
# The suite's compiler and what it needs to run (cc1, as, ld): the
# headers' Depends name the compiler; its libraries are listed here, so no
# resolver reaches for another suite's package.
case $arch/$suite in
amd64/bookworm) gcc=12 toolchain="gcc-12 cpp-12 gcc-12-base libgcc-12-dev libcc1-0 libgcc-s1
libgomp1 libitm1 libatomic1 libquadmath0 libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6
libzstd1 zlib1g libjansson4 binutils binutils-common binutils-x86-64-linux-gnu libbinutils
libctf0 libctf-nobfd0 libgprofng0 libelf1 libssl3 libc6 make bash libtinfo6" ;;
amd64/trixie) gcc=14 toolchain="gcc-14 gcc-14-x86-64-linux-gnu cpp-14 cpp-14-x86-64-linux-gnu
gcc-14-base libgcc-14-dev libcc1-0 libgcc-s1 libgomp1 libitm1 libatomic1 libquadmath0
libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6 libzstd1 zlib1g libjansson4 binutils
binutils-common binutils-x86-64-linux-gnu libbinutils libctf0 libctf-nobfd0 libgprofng0
libsframe1 libelf1t64 libssl3t64 libc6 make bash libtinfo6" ;;
# The cross gcc-12 (the headers' Makefile runs $(CROSS_COMPILE)gcc-12);
# libgcc-12-dev-arm64-cross holds its include/ (stdarg.h).  Hosted on
# amd64 like linux-kbuild's tools: libelf1 and libssl3 are theirs.
arm64/bookworm) gcc=12 toolchain="gcc-12-aarch64-linux-gnu cpp-12-aarch64-linux-gnu
gcc-12-aarch64-linux-gnu-base libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu
binutils-common libbinutils libctf0 libctf-nobfd0 libgprofng0 libcc1-0 libgcc-s1
libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6 libzstd1 zlib1g libjansson4 libelf1
libssl3 libc6 make bash libtinfo6" ;;
arm64/*) die "--arch arm64: bookworm only (the arm64 guest's 6.1 kernel)" ;;
*/bookworm | */trixie) die "--arch $arch: amd64 or arm64" ;;
*) usage ;;
esac
karch=() cross=() triplet=x86_64-linux-gnu
if [ "$arch" = arm64 ]; then
	karch=(--arch arm64)
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	triplet=aarch64-linux-gnu
fi

kdir=$("$repo/scripts/vm/kernel-fetch.sh" "${karch[@]}" "$suite") || die "cannot fetch the $suite${karch:+ arm64} kernel"
kver=$(cat "$kdir/version")
recipe=$(cat "$0" "$repo/scripts/roots/root.bash" | sha256sum | cut -c1-16)
# One module per recipe: checkouts of different versions of this script
# sharing a cache keep their own instead of rebuilding over each other's.
out=$cache/siw/$kver/$recipe
mkdir -p "$cache/siw/$kver"
exec 9>"$cache/siw/$kver/.lock-$recipe"
flock 9
# Other recipes' modules: stale once unused for a day.
find "$cache/siw/$kver" -mindepth 1 -maxdepth 1 -type d ! -name "$recipe" -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
if [ $rebuild -eq 0 ] && [ -s "$out/siw.ko" ] && [ "$(cat "$out/recipe" 2>/dev/null)" = "$recipe" ]; then
	touch "$out"
	echo "$out/siw.ko"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "building siw.ko for $kver needs root (chroot, mount namespace); no cached module in $out"
command -v unshare >/dev/null || die "unshare not found (util-linux)"
# shellcheck source=scripts/roots/root.bash
. "$repo/scripts/roots/root.bash"
busybox=$(root_static_busybox) || exit 1

# The headers of this very kernel; their Depends name the rest, pinned.
# (arm64: the headers from the arm64 lists, the rest as amd64 packages)
hdeb=$("$repo/scripts/roots/apt-fetch.sh" "${karch[@]}" "$suite" "linux-headers-$kver") ||
	die "no linux-headers-$kver in $suite: the archive moved on; scripts/vm/kernel-fetch.sh --refresh $suite takes the current kernel"
hver=$(dpkg-deb -f "$hdeb" Version)
deps=$(dpkg-deb -f "$hdeb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
	grep -E '^linux-(headers-.*-common|kbuild-|compiler-)' || true)
[ -n "$deps" ] || die "linux-headers-$kver names no -common or kbuild package"
series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
pins=()
for p in $deps linux-source-"$series"; do pins+=("$p=$hver"); done
# shellcheck disable=SC2086 # (lists)
mapfile -t debs < <("$repo/scripts/roots/apt-fetch.sh" "$suite" "${pins[@]}" $toolchain)
[ ${#debs[@]} -eq $((${#pins[@]} + $(wc -w <<<"$toolchain"))) ] ||
	die "fetching the packages of linux $hver failed (see above)"
src=
for d in "${debs[@]}"; do
	case ${d##*/} in linux-source-*) src=$d ;; esac
done

echo "$me: building siw.ko for $kver (linux $hver, $triplet-gcc-$gcc, $suite)" >&2
t0=$SECONDS
tmp=$cache/siw/root.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
others=()
for d in "${debs[@]}"; do [ "$d" = "$src" ] || others+=("$d"); done
root_unpack "$tmp" "$hdeb" "${others[@]}" || die "unpacking failed"
root_busybox "$tmp" "$busybox"
if [ "$arch" = amd64 ]; then
	ln -sfn "gcc-$gcc" "$tmp/usr/bin/gcc"
	ln -sfn "gcc-$gcc" "$tmp/usr/bin/cc"
fi
ln -sfn bash "$tmp/usr/bin/sh"
[ -d "$tmp/usr/src/linux-headers-$kver" ] || die "no usr/src/linux-headers-$kver in the headers package"

# Only the driver's directory of the ~140 MB source tarball.
dir=linux-source-$series/drivers/infiniband/sw/siw
dpkg-deb --fsys-tarfile "$src" |
	tar -xO "./usr/src/linux-source-$series.tar.xz" |
	tar -xJ -C "$tmp" "$dir" || die "no $dir in $(basename "$src")"
mv "$tmp/$dir" "$tmp/siw"

log=$tmp/build.log
# No BTF for the module (6.12 makes it with pahole, which BTF-less
# tracing does not need); 6.1 skips it by itself.
# shellcheck disable=SC2016 # (expanded by that shell)
if ! unshare -m --propagation private -- /bin/sh -c '
	set -e
	root=$1 kver=$2
	shift 2
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		make -C "/usr/src/linux-headers-$kver" M=/siw CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= "$@" -j2 modules
' siw-build "$tmp" "$kver" "${cross[@]}" >"$log" 2>&1; then
	tail -n 30 "$log" | sed 's/^/  | /' >&2
	die "building siw.ko for $kver failed"
fi
ko=$tmp/siw/siw.ko
[ -s "$ko" ] || die "the build made no siw.ko"
magic=$(modinfo -F vermagic "$ko")
[ "${magic%% *}" = "$kver" ] || die "siw.ko's vermagic '$magic' is not $kver's"
# The kernel's own modules carry the rest of the vermagic (SMP, modversions,
# aarch64): the same string, or insmod refuses.
kmagic=$(modinfo -F vermagic "$(find "$kdir/tree/lib/modules/$kver" -name 'rdma_rxe.ko*' | head -n 1)")
[ "$magic" = "$kmagic" ] || die "siw.ko's vermagic '$magic' differs from rdma_rxe's '$kmagic'"
case $(od -A n -j 18 -N 2 -t u2 "$ko" | tr -d ' ') in
62) [ "$arch" = amd64 ] ;;
183) [ "$arch" = arm64 ] ;;
*) false ;;
esac || die "siw.ko is not an $arch object (ELF e_machine)"
mkdir -p "$out"
cp "$ko" "$out/siw.ko.tmp"
mv "$out/siw.ko.tmp" "$out/siw.ko"
echo "$recipe" >"$out/recipe"
echo "$me: $out/siw.ko (vermagic $magic) in $((SECONDS - t0)) s" >&2
echo "$out/siw.ko"
