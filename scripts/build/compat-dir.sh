#!/usr/bin/env bash
# The compat directory `make install` puts in LIBDIR/verbshim/compat
# (LIBDIR: PREFIX/lib, or make deb's multiarch PREFIX/lib/TRIPLET):
# for every library the drop-in replaces (libibverbs, librdmacm, libefa,
# libmlx5, libmlx4, libibumad, libhns, libmana, libionic) a lib*.a and a
# lib*.pc that resolve to the shim, so a build system that says -libverbs,
# -lmlx5 or -libumad (AC_CHECK_LIB, find_library, pkg-config) links
# libverbshim.a instead,
# unmodified: point LIBRARY_PATH / -L / CMAKE_LIBRARY_PATH or
# PKG_CONFIG_PATH at the directory.
#
#   scripts/build/compat-dir.sh [--libdir LIBDIR] PREFIX VS_CONFIG_H OUTDIR [rdma-core]
#
# rdma-core: make install ships the pinned rdma-core headers in
# PREFIX/include/verbshim/rdma-core; the .pc files' Cflags name them, and
# OUTDIR/include links to them for builds that never ask pkg-config:
# autotools' CPPFLAGS=-IDIR/include (LDFLAGS=-LDIR alone leaves configure's
# declaration checks on the machine's own headers), -I or CPATH for a
# plain build (docs/shipping.md).
#
# Each lib*.a is a GNU ld linker script naming the installed archive by
# its absolute path (CMake links found libraries by full path, without -L)
# and -ldl -lpthread, which a static link of the shim needs on glibc < 2.34.
# Each .pc's Version is the highest version node of that library the
# archive was built with (VS_CONFIG_H), written as rdma-core's own .pc files
# write it: the soname's major, then the node's minor (IBVERBS_1.14 is
# 1.14, IBUMAD_1.2 of libibumad.so.3 is 3.2), without rdma-core's release.
set -euo pipefail
libdir=
if [ "${1:-}" = --libdir ]; then
	libdir=${2:-}
	shift 2 || true
fi
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: compat-dir.sh [--libdir LIBDIR] PREFIX VS_CONFIG_H OUTDIR [rdma-core]" >&2; exit 2; }
prefix=$1 config=$2 out=$3 cflags=
libdir=${libdir:-$prefix/lib}
case $libdir in
"$prefix"/*) ;;
*) echo "compat-dir.sh: --libdir $libdir is not under $prefix" >&2; exit 2 ;;
esac
librel=${libdir#"$prefix"/}
# from ${prefix}, as everything in the .pc files: a tree moved elsewhere
# is found with pkg-config --define-variable=prefix=NEW (--define-prefix
# relocates only .pc files in a pkgconfig directory, as verbshim.pc)
# shellcheck disable=SC2016
[ "${4:-}" = rdma-core ] && cflags='-I${prefix}/include/verbshim/rdma-core'
[ -r "$config" ] || { echo "compat-dir.sh: no $config (build first)" >&2; exit 1; }
mkdir -p "$out"

# FAMILY BASE_MINOR SONAME_MAJOR: the version of the highest 1.N node the
# archive covers for the library (the rdma-core 33 baseline, raised by
# every VS_HAVE_<FAMILY>_1_N the headers had).
node() {
	local minor
	minor=$( { echo "$2"; sed -n "s/^#define VS_HAVE_${1}_1_\([0-9]*\) 1\$/\1/p" "$config"; } | sort -n | tail -n 1)
	echo "$3.$minor"
}

# lib:FAMILY:baseline minor (rdma-core 33's highest node):soname major
for row in ibverbs:IBVERBS:11:1 rdmacm:RDMACM:3:1 efa:EFA:1:1 mlx5:MLX5:17:1 mlx4:MLX4:0:1 \
	hns:HNS:0:1 mana:MANA:0:1 ionic:IONIC:0:1 \
	ibumad:IBUMAD:2:3; do
	IFS=: read -r lib family base major <<<"$row"
	cat >"$out/lib$lib.a" <<EOF
/* verbshim compat: -l$lib links the shim (libverbshim.a), not rdma-core.
   A GNU ld linker script; see docs/shipping.md in verbshim. */
INPUT($libdir/libverbshim.a -ldl -lpthread)
EOF
	cat >"$out/lib$lib.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/$librel/verbshim/compat

Name: lib$lib
Description: verbshim in place of rdma-core's lib$lib: no link-time rdma-core dependency
Version: $(node "$family" "$base" "$major")
Libs: -L\${libdir} -l$lib
Libs.private: -ldl -lpthread
Cflags:${cflags:+ $cflags}
EOF
done
if [ -n "$cflags" ]; then
	rm -f "$out/include"
	# from LIBDIR/verbshim/compat up to PREFIX
	ln -s "$(realpath -ms --relative-to="$libdir/verbshim/compat" "$prefix/include/verbshim/rdma-core")" "$out/include"
fi
