#!/usr/bin/env bash
# Build one rdma-core release from its upstream tag the way a distribution
# builds it, and install it into a staging directory.  Run by
# scripts/rdma-core-root.sh inside the Debian 11 build root
# (scripts/build-root.sh), the oldest that compiles every tag at hand:
#
#   scripts/roots/rdma-core-build.sh VERSION TARBALL WORK
#
# WORK/src the sources, WORK/b the build tree, WORK/dest the install
# (DESTDIR), WORK/build.log cmake's and the compiler's output.  Exit 0, or
# 1 after one line naming the release and the compiler's first error.
#
# As Debian's rules do: CMake with the prefix /usr, the libraries in
# lib/x86_64-linux-gnu (providers in its libibverbs/, their .driver files
# in /etc/libibverbs.d), dpkg-buildflags' hardening flags, Release; no
# man pages, no pyverbs (no Cython here), no udev or systemd units (not
# needed by libraries or programs).  The tag's sources unchanged but for
# what a newer toolchain needs (measured with bullseye's gcc 10.2 and glibc 2.31,
# each tag built plain first):
#
#   17.1: providers/hns uses htole32, le32toh and friends without
#     including <endian.h>, which glibc 2.31's headers no longer pull in for
#     it (gcc 10: "implicit declaration of function 'le32toh'", then the
#     link of libhns-rdmav17.so fails: "undefined reference to `htole32'").
#     Upstream's own fix (v22's hns_roce_u.h includes <endian.h>) is
#     applied, as a distribution backports one; every provider of the tag
#     then builds (Ubuntu 18.04 ships hns too).  A forced
#     `-include endian.h` in CFLAGS does not do: it fixes the feature
#     macros before the sources' _GNU_SOURCE ("undefined reference to
#     `strdupa'" in libibverbs/init.c).
#   -fcommon is not needed: gcc 10 defaults to -fno-common, but every tag
#     here builds and links without it (measured on 17.1 and 22.4, the
#     oldest: no "multiple definition").
set -euo pipefail

me=rdma-core-build.sh
ver=$1 tarball=$2 work=$3
log=$work/build.log

fail() {
	local first
	first=$(grep -m1 -E ': (fatal )?error:|CMake Error|multiple definition|undefined reference' "$log" || true)
	echo "$me: rdma-core $ver: $1${first:+: $first}" >&2
	exit 1
}

cflags="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security"
cppflags="-D_FORTIFY_SOURCE=2"
ldflags="-Wl,-z,relro"

rm -rf "$work/src" "$work/b" "$work/dest"
mkdir -p "$work/src" "$work/b"
: >"$log"
tar -xzf "$tarball" -C "$work/src" --strip-components=1
# --plain (measuring what a tag needs): the tag as it is
if [ "$ver" = 17.1 ] && [ "${4:-}" != --plain ]; then
	h=$work/src/providers/hns/hns_roce_u.h
	sed -i 's/^#include <stddef.h>$/&\n#include <endian.h>/' "$h" 2>>"$log" || true
	grep -qx '#include <endian.h>' "$h" 2>/dev/null || fail "cannot apply v22's <endian.h> include to $h"
	echo "applied: v22's #include <endian.h> in providers/hns/hns_roce_u.h" >>"$log"
fi

{
	echo "CFLAGS=$cflags $cppflags"
	cd "$work/b"
	CFLAGS="$cflags $cppflags" LDFLAGS="$ldflags" cmake "$work/src" \
		-DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX=/usr \
		-DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu \
		-DCMAKE_INSTALL_SYSCONFDIR=/etc \
		-DCMAKE_INSTALL_LIBEXECDIR=/usr/lib \
		-DCMAKE_INSTALL_SHAREDSTATEDIR=/var/lib \
		-DCMAKE_INSTALL_RUNDIR=/run \
		-DCMAKE_INSTALL_SYSTEMD_SERVICEDIR=/usr/lib/systemd/system \
		-DCMAKE_INSTALL_UDEV_RULESDIR=/usr/lib/udev/rules.d \
		-DCMAKE_INSTALL_PERLDIR=/usr/share/perl5 \
		-DNO_MAN_PAGES=1 -DNO_PYVERBS=1 -DENABLE_STATIC=0
} >>"$log" 2>&1 || fail "cmake failed (see $log)"
# Tags before v32 (no NO_MAN_PAGES) install, without pandoc, the man pages
# pre-built in buildlib/pandoc-prebuilt, which the release tarballs carry
# and a `git archive` of the tag does not (22.4: "file INSTALL cannot find
# .../buildlib/pandoc-prebuilt/41bb..."): empty files stand in for them
# (the root keeps no man pages).
{ grep -rhoE "$work/src/buildlib/pandoc-prebuilt/[0-9a-f]+" "$work/b" --include=cmake_install.cmake || true; } |
	sort -u | while read -r f; do
	[ -e "$f" ] || { mkdir -p "${f%/*}" && : >"$f"; }
done
# A failure is built again one job at a time: the first error named is
# the first in the build's order, not whichever job lost the race.
if ! nice make -C "$work/b" -j"$(nproc)" >>"$log" 2>&1; then
	echo "== again, one job at a time" >>"$log"
	mv "$log" "$log.parallel"
	make -C "$work/b" -j1 >"$log" 2>&1 || true
	fail "the build failed (see $log)"
fi
make -C "$work/b" install DESTDIR="$work/dest" >>"$log" 2>&1 || fail "make install failed (see $log)"
# As dh_strip leaves them (the debug info goes to -dbgsym packages).
find "$work/dest" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c \
	'for f; do file -b "$f" | grep -q "^ELF" && strip --strip-unneeded "$f"; done; true' - {} +
echo "$me: rdma-core $ver built and installed in $work/dest"
