#!/usr/bin/env bash
# The oldest supported distribution as a build root: Debian 11 (bullseye)
# with gcc 10, glibc 2.31, binutils 2.35 and rdma-core 33 headers, made
# (once) from Debian's packages with the project's own apt, like the
# release roots.  Binaries built here run on bullseye and everything newer.
#
#   scripts/build-root.sh [--rebuild]          prints the root dir
#   scripts/build-root.sh [--rebuild] -- CMD   runs CMD in it (needs root)
#
# CMD runs chrooted into the root, in a private mount namespace, with this
# repository bound read-write at its own path (so build/ paths are the same
# inside and out), cwd the repository, the host's /dev, a tmpfs /tmp, and a
# clean environment (PATH, HOME, TERM; CC=gcc).  `make oldest` uses it.
# The root lives in ${VERBSHIM_CACHE:-.cache}/roots/build-bullseye.
set -euo pipefail

me=build-root.sh
die() { echo "$me: error: $*" >&2; exit 1; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
suite=bullseye
rebuild=0
[ "${1:-}" = --rebuild ] && { rebuild=1; shift; }
case ${1:-} in
"") ;;
--) shift; [ $# -gt 0 ] || die "nothing to run after --" ;;
*) echo "usage: $me [--rebuild] [-- CMD...]" >&2; exit 2 ;;
esac

# shellcheck source=scripts/lib/root.bash
. "$repo/scripts/lib/root.bash"
root=$cache/roots/build-$suite
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
	mapfile -t debs < <("$repo/scripts/apt-fetch.sh" "$suite" $pkgs)
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
	ln -sfn cpp-10 "$tmp/usr/bin/cpp"
	ln -sfn bash "$tmp/usr/bin/sh"
	root_check_loads "$tmp" usr/bin/gcc-10 usr/bin/make usr/bin/x86_64-linux-gnu-ld.bfd \
		usr/bin/x86_64-linux-gnu-as usr/bin/x86_64-linux-gnu-ar usr/bin/bash \
		usr/lib/gcc/x86_64-linux-gnu/10/cc1 || die "broken root"
	root_install "$tmp" "$root" "$recipe" \
		"$suite build root: gcc $(version_of gcc-10), libc $(version_of libc6), rdma-core headers $(version_of libibverbs-dev)" \
		"${debs[@]}"
	echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
}

(
	exec 9>"$cache/roots/.lock-build-$suite"
	flock 9
	recipe=$(cat "$0" "$repo/scripts/lib/root.bash" | sha256sum | cut -c1-16)
	if [ $rebuild -eq 1 ] || [ "$(tail -n 1 "$root/.verbshim-root" 2>/dev/null)" != "recipe $recipe" ]; then
		build_root
	fi
)
if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "running in the $suite root needs root (chroot, mount namespace)"
command -v unshare >/dev/null || die "unshare not found (util-linux)"
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
cmd=$(for a in "$@"; do printf ' %s' "$(q "$a")"; done)
# In a private mount namespace: nothing stays mounted when it ends.
# shellcheck disable=SC2016 # (expanded by that shell)
exec unshare -m --propagation private -- /bin/sh -c '
	set -e
	root=$1 repo=$2 cmd=$3
	mkdir -p "$root$repo"
	mount --bind "$repo" "$root$repo"
	mount --bind /dev "$root/dev"
	mount -t tmpfs tmp "$root/tmp"
	mount -t proc proc "$root/proc"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp TERM="${TERM:-dumb}" CC=gcc \
		/bin/sh -c "cd \"\$0\" && exec $cmd" "$repo"
' build-root "$root" "$repo" "$cmd"
