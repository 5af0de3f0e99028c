#!/usr/bin/env bash
# The oldest supported distribution as a build root: Debian 11 (bullseye)
# with gcc 10 and g++ 10, glibc 2.31, binutils 2.35 and rdma-core 33
# headers, and what users' build systems need (coreutils, pkg-config,
# cmake 3.18, autoconf, automake, libtool, python3 for `make man`,
# dpkg-dev for `make deb`), made
# (once) from Debian's packages with the project's own apt, like the
# release roots.  Binaries built here run on bullseye and everything newer.
#
#   scripts/build-root.sh [--rebuild]          prints the root dir
#   scripts/build-root.sh [--rebuild] -- CMD   runs CMD in it (needs root)
#   scripts/build-root.sh --overlay DIR -- CMD  runs CMD in an overlay of it
#                       whose changes go to DIR (DIR/upper), never to the
#                       cached root: dpkg -i there, say (test/shell/deb.sh)
#   scripts/build-root.sh --arch arm64 ...   the same root with bullseye's
#                       aarch64 cross toolchain (gcc/g++ 10, glibc 2.31 and
#                       linux-libc-dev for arm64) in it, a root of its own
#                       (build-arm64-bullseye-RECIPE): `make oldest ARCH=arm64`
#   scripts/build-root.sh --bind DIR [--bind DIR2...] -- CMD
#                       also binds DIR read-write at its own path: a
#                       program's sources, its build directory, a prefix
#                       outside this checkout
#
# CMD runs chrooted into the root, in a private mount namespace, with this
# repository bound read-write at its own path (so build/ paths are the same
# inside and out), cwd the repository (or the first --bind DIR), the host's
# /dev, a tmpfs /tmp, and a clean environment (PATH, HOME, TERM; CC=gcc,
# CXX=g++; RDMA_CORE_INCLUDE naming the pinned rdma-core header set,
# scripts/rdma-headers.sh, bound read-only at its own path, so that make
# builds there with the same headers as on the host).  `make oldest` uses it.
# The root lives in ${VERBSHIM_CACHE:-.cache}/roots/build-bullseye-RECIPE
# (RECIPE: a digest of this script): checkouts of other versions sharing
# the cache keep their own root, and a root is only removed, once a newer
# recipe's is built, when no command runs in it (each holds a shared lock
# on ROOT.lock while it runs).
set -euo pipefail

me=build-root.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
suite=bullseye
rebuild=0 overlay= arch=amd64 binds=()
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=1; shift ;;
	--arch)
		arch=${2:-}
		case $arch in amd64 | arm64) ;; *) die "--arch $arch: amd64 or arm64" ;; esac
		shift 2 ;;
	--overlay)
		[ $# -ge 2 ] || die "--overlay needs a directory"
		mkdir -p "$2"
		overlay=$(cd "$2" && pwd -P)
		shift 2 ;;
	--bind)
		[ $# -ge 2 ] || die "--bind needs a directory"
		[ -d "$2" ] || die "--bind $2: no such directory"
		d=$(cd "$2" && pwd -P)
		case $d in /) die "--bind /: bind a directory of your own" ;; esac
		binds+=("$d")
		shift 2 ;;
	*) break ;;
	esac
done
case ${1:-} in
"") [ -z "$overlay" ] && [ ${#binds[@]} -eq 0 ] || die "--overlay and --bind need -- CMD" ;;
--) shift; [ $# -gt 0 ] || die "nothing to run after --" ;;
*) echo "usage: $me [--rebuild] [--arch amd64|arm64] [--overlay DIR] [--bind DIR]... [-- CMD...]" >&2; exit 2 ;;
esac

# shellcheck source=scripts/roots/root.bash
. "$repo/scripts/roots/root.bash"
# shellcheck source=scripts/roots/dpkg-status.bash
. "$repo/scripts/roots/dpkg-status.bash"
mkdir -p "$cache/roots"

# The toolchain and its libraries, libc6-dev, make, bash, the rdma-core
# headers (libibverbs-dev's own dependencies are libraries nothing here
# links).  Explicit: no resolver picks a newer suite's package by accident.
pkgs="gcc-10 cpp-10 gcc-10-base libgcc-10-dev libcc1-0 libgcc-s1 libgomp1 libitm1
libatomic1 libquadmath0 libstdc++6 libgmp10 libisl23 libmpc3 libmpfr6 libzstd1 zlib1g
binutils binutils-common binutils-x86-64-linux-gnu libbinutils libctf0 libctf-nobfd0
libc6 libc6-dev libc-dev-bin linux-libc-dev libcrypt1 libcrypt-dev make bash libtinfo6
libibverbs-dev librdmacm-dev ibverbs-providers libibverbs1 librdmacm1 libnl-3-200
libnl-route-3-200 libibumad-dev libibumad3"
# What users' builds need: g++ 10, coreutils (install), pkg-config, cmake,
# autoconf, automake, libtool, dpkg-dev (make deb), python3 (make man),
# and all they depend on
# in bullseye (apt's closure of them, without recommends, listed here).
pkgs+="
g++-10 libstdc++-10-dev libasan6 liblsan0 libtsan0 libubsan1 cpp coreutils grep sed
findutils diffutils gzip libc-bin
pkg-config cmake cmake-data autoconf automake autotools-dev libtool libtool-bin m4
libsigsegv2 dpkg dpkg-dev libdpkg-perl perl perl-base perl-modules-5.32 libperl5.32
libgdbm6 libgdbm-compat4 libdb5.3 patch tar bzip2 xz-utils file libmagic1 libmagic-mgc
mawk base-files debianutils debconf adduser passwd init-system-helpers lsb-base procps
libprocps8 libsystemd0 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libacl1 libattr1
libselinux1 libpcre2-8-0 libpcre3 libsemanage1 libsemanage-common libsepol1 libaudit1
libaudit-common libcap-ng0 libpam0g libpam-modules libpam-modules-bin libglib2.0-0 libffi7
libmount1 libblkid1 libarchive13 libbz2-1.0 libxml2 libicu67 libnettle8 libhogweed6
libcurl4 libbrotli1 libgssapi-krb5-2 libk5crypto3 libkrb5-3 libkrb5support0 libcom-err2
libkeyutils1 libidn2-0 libunistring2 libldap-2.4-2 libsasl2-2 libsasl2-modules-db
libgnutls30 libp11-kit0 libtasn1-6 libnghttp2-14 libpsl5 librtmp1 libssh2-1 libssl1.1
libexpat1 libjsoncpp24 librhash0 libuv1 libncurses6 libncursesw6 libnl-3-dev
libnl-route-3-dev libnsl-dev libnsl2 libtirpc-dev libtirpc3 libtirpc-common
python3 python3-minimal python3.9 python3.9-minimal libpython3-stdlib libpython3.9-minimal
libpython3.9-stdlib libmpdec3 libreadline8 readline-common libsqlite3-0 libuuid1 media-types
tzdata"

# The arm64 cross toolchain (Debian's cross packages: programs for this
# host, libraries and headers for arm64 under /usr/aarch64-linux-gnu).
cross_pkgs="gcc-10-aarch64-linux-gnu gcc-10-aarch64-linux-gnu-base cpp-10-aarch64-linux-gnu
g++-10-aarch64-linux-gnu binutils-aarch64-linux-gnu libgcc-10-dev-arm64-cross
libgcc-s1-arm64-cross libc6-arm64-cross libc6-dev-arm64-cross linux-libc-dev-arm64-cross
libstdc++-10-dev-arm64-cross libstdc++6-arm64-cross libasan6-arm64-cross libatomic1-arm64-cross
libgomp1-arm64-cross libitm1-arm64-cross liblsan0-arm64-cross libtsan0-arm64-cross
libubsan1-arm64-cross"
[ "$arch" = amd64 ] || pkgs+=" $cross_pkgs"

version_of() {	# PACKAGE: its version among debs
	local d
	for d in "${debs[@]}"; do
		case ${d##*/} in "$1"_*) dpkg-deb -f "$d" Version; return ;; esac
	done
}

build_root() {
	local busybox tmp
	busybox=$(root_static_busybox) || exit 1
	command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
	# shellcheck disable=SC2086 # (list)
	mapfile -t debs < <("$repo/scripts/roots/apt-fetch.sh" "$suite" $pkgs)
	[ ${#debs[@]} -eq "$(wc -w <<<"$pkgs")" ] || die "fetching packages failed (see above)"
	echo "$me: building the $suite build root (${#debs[@]} packages)" >&2
	tmp=$root.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	root_unpack "$tmp" "${debs[@]}" || die "unpacking failed"
	root_busybox "$tmp" "$busybox"
	# What the packages' maintainer scripts and alternatives would make.
	ln -sfn gcc-10 "$tmp/usr/bin/gcc"
	ln -sfn gcc-10 "$tmp/usr/bin/cc"
	ln -sfn g++-10 "$tmp/usr/bin/g++"
	ln -sfn g++-10 "$tmp/usr/bin/c++"
	ln -sfn cpp-10 "$tmp/usr/bin/cpp"
	ln -sfn mawk "$tmp/usr/bin/awk"
	ln -sfn aclocal-1.16 "$tmp/usr/bin/aclocal"
	ln -sfn automake-1.16 "$tmp/usr/bin/automake"
	ln -sfn bash "$tmp/usr/bin/sh"
	if [ "$arch" = arm64 ]; then
		local t
		for t in gcc g++ cpp; do ln -sfn aarch64-linux-gnu-$t-10 "$tmp/usr/bin/aarch64-linux-gnu-$t"; done
		root_check_loads "$tmp" usr/bin/aarch64-linux-gnu-gcc-10 usr/bin/aarch64-linux-gnu-ld.bfd \
			usr/lib/gcc-cross/aarch64-linux-gnu/10/cc1 usr/lib/gcc-cross/aarch64-linux-gnu/10/cc1plus || die "broken root"
		[ -e "$tmp/usr/aarch64-linux-gnu/lib/libc.so.6" ] || die "broken root: no arm64 libc"
	fi
	root_check_loads "$tmp" usr/bin/gcc-10 usr/bin/make usr/bin/x86_64-linux-gnu-ld.bfd \
		usr/bin/x86_64-linux-gnu-as usr/bin/x86_64-linux-gnu-ar usr/bin/bash \
		usr/lib/gcc/x86_64-linux-gnu/10/cc1 usr/lib/gcc/x86_64-linux-gnu/10/cc1plus \
		usr/bin/install usr/bin/pkg-config usr/bin/cmake usr/bin/perl usr/bin/python3 || die "broken root"
	for f in aclocal automake autoreconf libtoolize python3 g++ c++ awk; do
		[ -e "$tmp/usr/bin/$f" ] || die "broken root: no usr/bin/$f"
	done
	# dpkg's database, as if the packages were installed (dpkg-buildpackage,
	# dpkg-shlibdeps and dpkg-query read it; no maintainer script ran).
	root_dpkg_status "$tmp" "${debs[@]}"
	root_install "$tmp" "$root" "$recipe" \
		"$suite build root: gcc $(version_of gcc-10), libc $(version_of libc6), rdma-core headers $(version_of libibverbs-dev)${cross:+, arm64 cross gcc $(version_of gcc-10-aarch64-linux-gnu), libc $(version_of libc6-dev-arm64-cross)}" \
		"${debs[@]}"
	echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
}

# The recipe: what makes the root (this script up to the RUN line below,
# and the libraries it uses), not how commands run in it.
recipe=$(sed '/^# ---- RUN/q' "$0" | cat - "$repo/scripts/roots/root.bash" "$repo/scripts/roots/dpkg-status.bash" |
	sha256sum | cut -c1-16)
cross=
[ "$arch" = amd64 ] || cross=$arch-
root=$cache/roots/build-$cross$suite-$recipe
(
	exec 9>"$cache/roots/.lock-build-$cross$suite"
	flock 9
	if [ $rebuild -eq 1 ] || [ "$(tail -n 1 "$root/.verbshim-root" 2>/dev/null)" != "recipe $recipe" ]; then
		# (waits for commands running in it)
		[ $rebuild -eq 0 ] || exec 8>"$root.lock"
		[ $rebuild -eq 0 ] || flock 8
		build_root
		# Other recipes' roots, unless a command runs in one.
		for d in "$cache/roots/build-$cross$suite"-*; do
			case $d in "$root" | *.lock | *.tmp) continue ;; esac
			[ -d "$d" ] || continue
			(
				exec 7>"$d.lock"
				flock -n 7 && rm -rf "$d" "$d.lock"
			) || true
		done
	fi
)
# ---- RUN: how commands run in the root (not part of the recipe)
if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi

# The pinned rdma-core headers, fetched on the host (the root has no apt).
hdrs=$("$repo/scripts/rdma-headers.sh" --dir) || die "no pinned rdma-core headers (see above)"
# shellcheck source=scripts/roots/run.bash
. "$repo/scripts/roots/run.bash"
# While CMD runs, a shared lock on ROOT.lock keeps the root from removal
# (fd 8 stays open through the exec's).
exec 8>"$root.lock"
flock -s 8
ovl=()
[ -z "$overlay" ] || ovl=(--overlay "$overlay")
bind_args=()
for d in "${binds[@]}"; do bind_args+=(--bind "$d"); done
root_run "${ovl[@]}" --bind "$repo" --bind-ro "$hdrs" "${bind_args[@]}" \
	--env CC=gcc --env CXX=g++ --env RDMA_CORE_INCLUDE="$hdrs/include" \
	--cwd "${binds[0]:-$repo}" "$root" -- "$@"
