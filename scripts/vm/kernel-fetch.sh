#!/usr/bin/env bash
# Fetch and unpack Debian's stock amd64 (or arm64) kernel of a suite for the test VM.
#
#   scripts/vm/kernel-fetch.sh [--refresh] [--arch arm64] bullseye|bookworm|trixie
#                                                   prints the kernel dir
#
# bullseye: 5.10, the oldest guest kernel (the old rdma-core releases'
# era: test/boots.list's *-5.10 boots); bookworm 6.1; trixie 6.12.
#
# The dir (cached under ${VERBSHIM_CACHE:-.cache}/kernels/SUITE, or
# SUITE-arm64) holds:
#   tree/       the unpacked package (lib/modules/VER with a modules.dep)
#   vmlinux     the uncompressed ELF, booted through qemu's PVH entry
#               (about twice as fast under TCG as the bzImage); amd64 only
#   Image       arm64 only: the kernel Image qemu-system-aarch64 boots
#   vmlinuz     the bzImage (arm64: the Image), as shipped
#   version     the kernel release (uname -r)
# The package is never installed.  Once cached, the kernel is reused without
# asking apt; --refresh looks for a newer one in the archive.
set -euo pipefail

me=kernel-fetch.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${VERBSHIM_CACHE:-$repo/.cache}
refresh=0 arch=amd64
[ "${1:-}" = --refresh ] && { refresh=1; shift; }
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || true
fi
suite=${1:-}
case $suite in
bullseye | bookworm | trixie | sid) ;;
*) echo "usage: $me [--refresh] [--arch amd64|arm64] bullseye|bookworm|trixie" >&2; exit 2 ;;
esac
case $arch in
amd64) boot=vmlinux fetch=("$repo/scripts/roots/apt-fetch.sh") dir=$cache/kernels/$suite ;;
arm64) boot=Image fetch=("$repo/scripts/roots/apt-fetch.sh" --arch arm64) dir=$cache/kernels/$suite-arm64 ;;
*) die "--arch $arch: amd64 or arm64" ;;
esac
for t in dpkg-deb depmod xz od grep; do
	command -v "$t" >/dev/null || die "$t not found (apt-get install dpkg kmod xz-utils coreutils)"
done

mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/.lock-${dir##*/}"
flock 9

if [ $refresh -eq 0 ] && [ -s "$dir/$boot" ] && [ -s "$dir/package" ]; then
	echo "$dir"
	exit 0
fi

# The metapackage names the current ABI package: linux-image-6.1.0-N-ARCH.
meta=$("${fetch[@]}" "$suite" "linux-image-$arch")
pkg=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' |
	sed -n "s/^ *\(linux-image-[0-9][^ ]*-$arch\).*/\1/p" | head -n 1)
[ -n "$pkg" ] || die "cannot find the kernel package in $(basename "$meta")'s Depends"

if [ -s "$dir/$boot" ] && [ "$(cat "$dir/package" 2>/dev/null)" = "$pkg" ]; then
	echo "$dir"
	exit 0
fi

deb=$("${fetch[@]}" "$suite" "$pkg")
echo "$me: unpacking $(basename "$deb")" >&2
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/tree"
dpkg-deb -x "$deb" "$dir.tmp/tree"

# Merged-usr packages (trixie on) ship usr/lib/modules; depmod -b and
# modprobe -d of bookworm's kmod look in lib/modules.
if [ ! -d "$dir.tmp/tree/lib/modules" ] && [ -d "$dir.tmp/tree/usr/lib/modules" ]; then
	ln -s usr/lib "$dir.tmp/tree/lib"
fi
ver=$(find "$dir.tmp/tree/lib/modules" -mindepth 1 -maxdepth 1 -printf "%f\n" | head -n 1)
[ -n "$ver" ] || die "no lib/modules/VERSION in $pkg"
vmlinuz=$dir.tmp/tree/boot/vmlinuz-$ver
[ -f "$vmlinuz" ] || vmlinuz=$dir.tmp/tree/usr/boot/vmlinuz-$ver
[ -f "$vmlinuz" ] || die "no boot/vmlinuz-$ver in $pkg"

# The package ships no modules.dep.
depmod -b "$dir.tmp/tree" "$ver" || die "depmod failed on $ver"

if [ "$arch" = arm64 ]; then
	# Debian's arm64 vmlinuz is the plain Image ("ARM\x64" at 0x38); a
	# gzipped one is unpacked (qemu's -kernel takes either, the plain
	# one loads faster).
	if [ "$(head -c 2 "$vmlinuz" | od -A n -t x1 | tr -d ' ')" = 1f8b ]; then
		gzip -dc <"$vmlinuz" >"$dir.tmp/Image"
	else
		cp "$vmlinuz" "$dir.tmp/Image"
	fi
	[ "$(tail -c +57 "$dir.tmp/Image" | head -c 4)" = $'ARM\x64' ] ||
		die "$vmlinuz is not an arm64 kernel Image"
else
	# The vmlinux is the compressed stream inside the bzImage: xz in
	# bookworm (magic FD 37 7A 58 5A 00), zstd from trixie on (28 B5 2F
	# FD).  Find the magic and decompress from there; the decoder stops at
	# the stream end.
	magic_at() { LC_ALL=C grep -obUaP "$1" "$vmlinuz" | head -n 1 | cut -d: -f1 || true; }
	off=$(magic_at '\xFD7zXZ\x00')
	if [ -n "$off" ]; then
		tail -c +$((off + 1)) "$vmlinuz" | xz -dc -q 2>/dev/null >"$dir.tmp/vmlinux" || true
	else
		off=$(magic_at '\x28\xB5\x2F\xFD')
		[ -n "$off" ] || die "no xz or zstd stream in $vmlinuz"
		command -v zstd >/dev/null || die "zstd not found (apt-get install zstd)"
		tail -c +$((off + 1)) "$vmlinuz" | zstd -dcq 2>/dev/null >"$dir.tmp/vmlinux" || true
	fi
	head -c 4 "$dir.tmp/vmlinux" | od -A n -t x1 | grep -q '7f 45 4c 46' ||
		die "decompressed vmlinux is not an ELF file"
fi

cp "$vmlinuz" "$dir.tmp/vmlinuz"
echo "$ver" >"$dir.tmp/version"
echo "$pkg" >"$dir.tmp/package"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$me: $pkg ($ver, $arch) ready" >&2
echo "$dir"
