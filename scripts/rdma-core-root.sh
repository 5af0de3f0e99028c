#!/usr/bin/env bash
# Build (once) a minimal root holding one rdma-core release from Debian.
#
#   scripts/rdma-core-root.sh [--rebuild] VERSION      prints the root dir
#
# VERSION: 33.2 (bullseye) | 44.0 (bookworm) | 56.1 (trixie) | 65.0 (sid).
# The root (${VERBSHIM_CACHE:-.cache}/roots/VERSION) has that suite's
# libibverbs1, ibverbs-providers, librdmacm1, libibumad3, ibverbs-utils, rdmacm-utils and
# libnl; libc6, libgcc-s1 and bash of the newer of bookworm and that suite
# (our binaries are built on bookworm: glibc >= 2.36); a static busybox for
# the rest of /bin.  Merged-usr layout, relative symlinks only, so it works
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
rebuild=0
[ "${1:-}" = --rebuild ] && { rebuild=1; shift; }
ver=${1:-}
case $ver in
33.2 | 33) ver=33.2 suite=bullseye libc_suite=bookworm rdmacm=librdmacm1 ;;
44.0 | 44) ver=44.0 suite=bookworm libc_suite=bookworm rdmacm=librdmacm1 ;;
# The time64 transition renamed librdmacm1.
56.1 | 56) ver=56.1 suite=trixie libc_suite=trixie rdmacm=librdmacm1t64 ;;
65.0 | 65) ver=65.0 suite=sid libc_suite=sid rdmacm=librdmacm1t64 ;;
*) echo "usage: $me [--rebuild] 33.2|44.0|56.1|65.0" >&2; exit 2 ;;
esac

root=$cache/roots/$ver
mkdir -p "$cache/roots"
exec 9>"$cache/roots/.lock-$ver"
flock 9
# A root built by another version of this script is rebuilt.
recipe=$(sha256sum "$0" | cut -c1-16)
if [ $rebuild -eq 0 ] && [ "$(tail -n 1 "$root/.verbshim-root" 2>/dev/null)" = "recipe $recipe" ]; then
	echo "$root"
	exit 0
fi

busybox=/bin/busybox
if [ ! -x "$busybox" ] || grep -q /lib64/ld-linux-x86-64.so.2 "$busybox"; then
	die "a static $busybox is needed (apt-get install busybox-static)"
fi
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

rel_pkgs="libibverbs1 ibverbs-providers $rdmacm libibumad3 ibverbs-utils rdmacm-utils libnl-3-200 libnl-route-3-200"
libc_pkgs="libc6 libgcc-s1 bash libtinfo6"
# shellcheck disable=SC2086 # (lists)
mapfile -t debs < <("$repo/scripts/apt-fetch.sh" "$suite" $rel_pkgs)
# shellcheck disable=SC2086 # (lists)
mapfile -t ldebs < <("$repo/scripts/apt-fetch.sh" "$libc_suite" $libc_pkgs)
[ ${#debs[@]} -eq 8 ] || die "fetching packages failed (see above)"
[ ${#ldebs[@]} -eq 4 ] || die "fetching packages failed (see above)"

got=$(dpkg-deb -f "${debs[0]}" Version)
upstream=${got%%-*}
upstream=${upstream#*:}
if [ "$upstream" != "$ver" ]; then
	echo "$me: note: $suite has rdma-core $got, not $ver; using it" >&2
fi

echo "$me: building the rdma-core $got root ($suite; libc from $libc_suite)" >&2
tmp=$root.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
for d in "${debs[@]}" "${ldebs[@]}"; do
	dpkg-deb -x "$d" "$tmp"
done

# Merged /usr whatever each suite did, so ROOT/lib64/ld-linux-x86-64.so.2
# and ROOT/usr/lib/x86_64-linux-gnu always hold the files.
for d in bin sbin lib lib64; do
	if [ -d "$tmp/$d" ] && [ ! -L "$tmp/$d" ]; then
		mkdir -p "$tmp/usr/$d"
		cp -a "$tmp/$d/." "$tmp/usr/$d/"
		rm -rf "${tmp:?}/$d"
	fi
	mkdir -p "$tmp/usr/$d"
	ln -sfn "usr/$d" "$tmp/$d"
done
# Absolute symlinks (bookworm's /lib64/ld-linux-x86-64.so.2) would point
# into the host: make them relative.
while IFS= read -r l; do
	t=$(readlink "$l")
	ln -sfnr "$tmp$t" "$l"
done < <(find "$tmp" -type l -lname '/*')
[ -e "$tmp/lib64/ld-linux-x86-64.so.2" ] || die "no lib64/ld-linux-x86-64.so.2 in the root"

# Everything else from busybox; bash and the rdma tools stay real.
cp "$busybox" "$tmp/usr/bin/busybox"
for a in $("$busybox" --list); do
	[ -e "$tmp/usr/bin/$a" ] || [ -e "$tmp/usr/sbin/$a" ] || ln -s busybox "$tmp/usr/bin/$a"
done
ln -sfn busybox "$tmp/usr/bin/sh"
# busybox date knows no %N, which test/run.sh times tests with: for that
# one format, read the time of day (in us) through busybox adjtimex.
rm -f "$tmp/usr/bin/date"
cat >"$tmp/usr/bin/date" <<'EOF'
#!/bin/sh
if [ "$*" = "+%s.%N" ]; then
	busybox adjtimex | awk '/tv_sec/ { s = $2 } /tv_usec/ { u = $2 }
		END { printf "%d.%06d000\n", s, u }'
	exit
fi
exec busybox date "$@"
EOF
chmod 755 "$tmp/usr/bin/date"
mkdir -p "$tmp"/{proc,sys,dev,tmp,run,etc,root}
chmod 1777 "$tmp/tmp"
echo "root:x:0:0:root:/root:/bin/sh" >"$tmp/etc/passwd"
echo "root:x:0:" >"$tmp/etc/group"
printf '/usr/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n' >"$tmp/etc/ld.so.conf"

# Sanity: the release's own tools run with the release's own loader.
lp=$tmp/usr/lib/x86_64-linux-gnu:$tmp/lib/x86_64-linux-gnu
for b in usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong usr/bin/rping usr/bin/bash; do
	# shellcheck disable=SC2015 # (die never returns)
	deps=$("$tmp/lib64/ld-linux-x86-64.so.2" --library-path "$lp" --list "$tmp/$b" 2>&1) &&
		! grep -q 'not found' <<<"$deps" ||
		die "$b does not load with the root's own loader and libraries: $deps"
done
ls "$tmp/usr/lib/x86_64-linux-gnu/libibverbs/"librxe-rdmav*.so >/dev/null 2>&1 ||
	die "no rxe provider in the root"

{
	echo "rdma-core $got from $suite; libc from $libc_suite"
	for d in "${debs[@]}" "${ldebs[@]}"; do basename "$d"; done
	echo "recipe $recipe"
} >"$tmp/.verbshim-root"
rm -rf "$root"
mv "$tmp" "$root"
echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
echo "$root"
