#!/usr/bin/env bash
# Build soft-iWARP (siw.ko) for the test VM's kernel of a suite.
#
#   scripts/siw-build.sh [--rebuild] bookworm|trixie     prints the siw.ko path
#
# Debian builds no siw (CONFIG_RDMA_SIW is not set), but ships its source.
# The module is built from Debian's own packages of the guest kernel's
# version, with that suite's own compiler, in a throw-away root made with
# the project's apt (scripts/apt-fetch.sh, scripts/lib/root.bash), never
# with the host's toolchain: linux-headers-KVER (and the -common, kbuild
# and compiler packages it depends on) and linux-source-X.Y, whose
# drivers/infiniband/sw/siw is all that is taken out of the tarball.
# vermagic is checked against the kernel.  Cached in
# ${VERBSHIM_CACHE:-.cache}/siw/KVER/siw.ko, keyed by this script.
# Building needs root (chroot, mount namespace); a cached module does not.
set -euo pipefail

me=siw-build.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
rebuild=0
[ "${1:-}" = --rebuild ] && { rebuild=1; shift; }
suite=${1:-}
# The suite's compiler and what it needs to run (cc1, as, ld): the
# headers' Depends name the compiler; its libraries are listed here, so no
# resolver reaches for another suite's package.
case $suite in
bookworm) gcc=12 toolchain="gcc-12 cpp-12 gcc-12-base libgcc-12-dev libcc1-0 libgcc-s1
libgomp1 libitm1 libatomic1 libquadmath0 libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6
libzstd1 zlib1g libjansson4 binutils binutils-common binutils-x86-64-linux-gnu libbinutils
libctf0 libctf-nobfd0 libgprofng0 libelf1 libssl3 libc6 make bash libtinfo6" ;;
trixie) gcc=14 toolchain="gcc-14 gcc-14-x86-64-linux-gnu cpp-14 cpp-14-x86-64-linux-gnu
gcc-14-base libgcc-14-dev libcc1-0 libgcc-s1 libgomp1 libitm1 libatomic1 libquadmath0
libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6 libzstd1 zlib1g libjansson4 binutils
binutils-common binutils-x86-64-linux-gnu libbinutils libctf0 libctf-nobfd0 libgprofng0
libsframe1 libelf1t64 libssl3t64 libc6 make bash libtinfo6" ;;
*) echo "usage: $me [--rebuild] bookworm|trixie" >&2; exit 2 ;;
esac

kdir=$("$repo/scripts/kernel-fetch.sh" "$suite") || die "cannot fetch the $suite kernel"
kver=$(cat "$kdir/version")
out=$cache/siw/$kver
recipe=$(cat "$0" "$repo/scripts/lib/root.bash" | sha256sum | cut -c1-16)
mkdir -p "$cache/siw"
exec 9>"$cache/siw/.lock-$kver"
flock 9
if [ $rebuild -eq 0 ] && [ -s "$out/siw.ko" ] && [ "$(cat "$out/recipe" 2>/dev/null)" = "$recipe" ]; then
	echo "$out/siw.ko"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "building siw.ko for $kver needs root (chroot, mount namespace); no cached module in $out"
command -v unshare >/dev/null || die "unshare not found (util-linux)"
# shellcheck source=scripts/lib/root.bash
. "$repo/scripts/lib/root.bash"
busybox=$(root_static_busybox) || exit 1

# The headers of this very kernel; their Depends name the rest, pinned.
hdeb=$("$repo/scripts/apt-fetch.sh" "$suite" "linux-headers-$kver") ||
	die "no linux-headers-$kver in $suite: the archive moved on; scripts/kernel-fetch.sh --refresh $suite takes the current kernel"
hver=$(dpkg-deb -f "$hdeb" Version)
deps=$(dpkg-deb -f "$hdeb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
	grep -E '^linux-(headers-.*-common|kbuild-|compiler-)' || true)
[ -n "$deps" ] || die "linux-headers-$kver names no -common or kbuild package"
series=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
pins=()
for p in $deps linux-source-"$series"; do pins+=("$p=$hver"); done
# shellcheck disable=SC2086 # (lists)
mapfile -t debs < <("$repo/scripts/apt-fetch.sh" "$suite" "${pins[@]}" $toolchain)
[ ${#debs[@]} -eq $((${#pins[@]} + $(wc -w <<<"$toolchain"))) ] ||
	die "fetching the packages of linux $hver failed (see above)"
src=
for d in "${debs[@]}"; do
	case ${d##*/} in linux-source-*) src=$d ;; esac
done

echo "$me: building siw.ko for $kver (linux $hver, gcc-$gcc, $suite)" >&2
t0=$SECONDS
tmp=$cache/siw/root.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
others=()
for d in "${debs[@]}"; do [ "$d" = "$src" ] || others+=("$d"); done
root_unpack "$tmp" "$hdeb" "${others[@]}" || die "unpacking failed"
root_busybox "$tmp" "$busybox"
ln -sfn "gcc-$gcc" "$tmp/usr/bin/gcc"
ln -sfn "gcc-$gcc" "$tmp/usr/bin/cc"
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
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		make -C "/usr/src/linux-headers-$kver" M=/siw CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= -j2 modules
' siw-build "$tmp" "$kver" >"$log" 2>&1; then
	tail -n 30 "$log" | sed 's/^/  | /' >&2
	die "building siw.ko for $kver failed"
fi
ko=$tmp/siw/siw.ko
[ -s "$ko" ] || die "the build made no siw.ko"
magic=$(modinfo -F vermagic "$ko")
[ "${magic%% *}" = "$kver" ] || die "siw.ko's vermagic '$magic' is not $kver's"
mkdir -p "$out"
cp "$ko" "$out/siw.ko.tmp"
mv "$out/siw.ko.tmp" "$out/siw.ko"
echo "$recipe" >"$out/recipe"
echo "$me: $out/siw.ko (vermagic $magic) in $((SECONDS - t0)) s" >&2
echo "$out/siw.ko"
