#!/usr/bin/env bash
# Build (once) a minimal root holding one rdma-core release from Debian.
#
#   scripts/rdma-core-root.sh [--rebuild] [--arch arm64] VERSION
#                                                    prints the root dir
#
# --arch arm64: the release's arm64 packages (rdma-core-VERSION-arm64), for
# the arm64 guest (scripts/vm-run.sh --arch arm64) and qemu-aarch64 -L.
#
# VERSION: 33.2 (bullseye) | 44.0 (bookworm) | 56.1 (trixie) | 65.0 (sid),
# Debian's packages; or 17.1 (Ubuntu 18.04) | 22.4 (RHEL/CentOS 7.9) |
# 28.0 (Ubuntu 20.04) | 32.0 (RHEL 8.4) | 39.0 (Ubuntu 22.04), built from
# the upstream tag (../shared/sources/rdma-core-VERSION.tar.gz, or
# $VS_RDMA_CORE_SOURCES/) in the Debian 11 build root (scripts/build-root.sh)
# as a distribution builds it (scripts/roots/rdma-core-build.sh: the flags an
# old tag needs with gcc 10 and glibc 2.31, and why).
# The root (${VERBSHIM_CACHE:-.cache}/roots/rdma-core-VERSION) has that
# suite's libibverbs1, ibverbs-providers, librdmacm1, libibumad3, ibverbs-utils,
# rdmacm-utils and libnl, and that same suite's libc6, libgcc-s1 and bash:
# each release runs on its own distribution's glibc, nothing is borrowed (so
# binaries meant to run in every root are built on the oldest one: `make
# oldest`).  A release built from source gets the same packages as 33.2's
# root, bullseye's (libc 2.31: the glibc it was compiled against), with its
# own libraries, providers, .driver files and programs in place of 33.2's
# (the build log in ROOT/.verbshim-build.log).  A root is rebuilt when its
# recipe changes: this script and its helpers (and, for a source build,
# rdma-core-build.sh, the build root's recipe and the tarball).
# A static busybox for the rest of /bin.  Merged-usr layout,
# relative symlinks only, so it works
#   (a) on the host:  ROOT/lib64/ld-linux-x86-64.so.2 --library-path
#       ROOT/usr/lib/x86_64-linux-gnu:ROOT/lib/x86_64-linux-gnu BINARY
#       (libibverbs still reads the host's /etc/libibverbs.d there)
#   (b) as a chroot (the VM does that): libibverbs then finds this release's
#       own providers and /etc/libibverbs.d.
set -euo pipefail

me=rdma-core-root.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
rebuild=0 arch=amd64
[ "${1:-}" = --rebuild ] && { rebuild=1; shift; }
if [ "${1:-}" = --arch ]; then
	arch=${2:-}
	shift 2 || true
fi
case $arch in
amd64) sfx='' ;;
arm64) sfx=-arm64 ;;
*) die "--arch $arch: amd64 or arm64" ;;
esac
ROOT_ARCH=$arch
ver=${1:-}
releases="17.1 22.4 28.0 32.0 33.2 39.0 44.0 56.1 65.0"
fromsrc=0
case $ver in
33.2 | 33) ver=33.2 suite=bullseye rdmacm=librdmacm1 ;;
44.0 | 44) ver=44.0 suite=bookworm rdmacm=librdmacm1 ;;
# The time64 transition renamed librdmacm1.
56.1 | 56) ver=56.1 suite=trixie rdmacm=librdmacm1t64 ;;
65.0 | 65) ver=65.0 suite=sid rdmacm=librdmacm1t64 ;;
17.1 | 17 | 22.4 | 22 | 28.0 | 28 | 32.0 | 32 | 39.0 | 39)
	case $ver in 17) ver=17.1 ;; 22) ver=22.4 ;; *.*) ;; *) ver=$ver.0 ;; esac
	suite=bullseye fromsrc=1 ;;
"") echo "usage: $me [--rebuild] [--arch amd64|arm64] VERSION (one of: $releases)" >&2; exit 2 ;;
*) echo "$me: no root for rdma-core '$ver': the nine are $releases" >&2; exit 2 ;;
esac
if [ $fromsrc -eq 1 ] && [ "$arch" != amd64 ]; then
	echo "$me: rdma-core $ver is built from source for amd64 only; arm64 roots: 33.2 44.0 56.1 65.0" >&2
	exit 2
fi

# shellcheck source=scripts/roots/root.bash
. "$repo/scripts/roots/root.bash"
root=$cache/roots/rdma-core-$ver$sfx
mkdir -p "$cache/roots"
exec 9>"$cache/roots/.lock-rdma-core-$ver$sfx"
flock 9
# A root built by another version of this script is rebuilt.
recipe=$(cat "$0" "$repo/scripts/roots/root.bash" "$repo/scripts/roots/source-root.bash" | sha256sum | cut -c1-16)
if [ $fromsrc -eq 1 ]; then
	sources=${VS_RDMA_CORE_SOURCES:-$repo/../shared/sources}
	tarball=$sources/rdma-core-$ver.tar.gz
	[ -f "$tarball" ] || die "rdma-core $ver is built from its tag: no $tarball (../shared/sources/README.md; or set VS_RDMA_CORE_SOURCES)"
	buildroot=$("$repo/scripts/build-root.sh") || die "no Debian 11 build root (see above)"
	recipe=$({
		echo "$recipe"
		cat "$repo/scripts/roots/rdma-core-build.sh"
		basename "$buildroot"
		sha256sum <"$tarball"
	} | sha256sum | cut -c1-16)
fi
if [ $rebuild -eq 0 ] && [ "$(tail -n 1 "$root/.verbshim-root" 2>/dev/null)" = "recipe $recipe" ]; then
	echo "$root"
	exit 0
fi

busybox=$(root_static_busybox) || exit 1
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

if [ $fromsrc -eq 1 ]; then
	# shellcheck source=scripts/roots/source-root.bash
	. "$repo/scripts/roots/source-root.bash"
	source_root
	exit 0
fi

# The release first (debs[0] names its version), then the suite's own libc.
pkgs="libibverbs1 ibverbs-providers $rdmacm libibumad3 ibverbs-utils rdmacm-utils libnl-3-200
libnl-route-3-200 libc6 libgcc-s1 bash libtinfo6"
# shellcheck disable=SC2086 # (list)
mapfile -t debs < <("$repo/scripts/roots/apt-fetch.sh" --arch "$arch" "$suite" $pkgs)
[ ${#debs[@]} -eq "$(wc -w <<<"$pkgs")" ] || die "fetching packages failed (see above)"

got=$(dpkg-deb -f "${debs[0]}" Version)
upstream=${got%%-*}
upstream=${upstream#*:}
if [ "$upstream" != "$ver" ]; then
	echo "$me: note: $suite has rdma-core $got, not $ver; using it" >&2
fi

echo "$me: building the rdma-core $got root ($suite, with its own libc)" >&2
tmp=$root.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
root_unpack "$tmp" "${debs[@]}" || die "unpacking failed"
# Everything else from busybox; bash and the rdma tools stay real.
root_busybox "$tmp" "$busybox"
# Sanity: the release's own tools run with the release's own loader.
root_check_loads "$tmp" usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong usr/bin/rping usr/bin/bash || die "broken root"
ls "$tmp/usr/lib/$ROOT_TRIPLET/libibverbs/"librxe-rdmav*.so >/dev/null 2>&1 ||
	die "no rxe provider in the root"

# libc6's version, found by name (an index into debs breaks when a
# package is added to the list)
libc=
for deb in "${debs[@]}"; do
	[ "$(dpkg-deb -f "$deb" Package)" = libc6 ] && libc=$(dpkg-deb -f "$deb" Version)
done
root_install "$tmp" "$root" "$recipe" \
	"rdma-core $got and libc $libc from $suite${sfx:+ ($arch)}" "${debs[@]}"
echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
echo "$root"
