#!/usr/bin/env bash
# The compat directory `make install` puts in PREFIX/lib/verbshim/compat:
# libibverbs.a, librdmacm.a, libefa.a and libibverbs.pc, librdmacm.pc,
# libefa.pc that resolve to the shim, so a build system that says -libverbs
# (AC_CHECK_LIB, find_library, pkg-config) links libverbshim.a instead,
# unmodified: point LIBRARY_PATH / -L / CMAKE_LIBRARY_PATH or
# PKG_CONFIG_PATH at the directory.
#
#   scripts/compat-dir.sh PREFIX VS_CONFIG_H OUTDIR
#
# Each lib*.a is a GNU ld linker script naming the installed archive by
# its absolute path (CMake links found libraries by full path, without -L)
# and -ldl -lpthread, which a static link of the shim needs on glibc < 2.34.
# Each .pc says the highest version node of that library the archive was
# built with (VS_CONFIG_H), as rdma-core's own .pc files do.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: compat-dir.sh PREFIX VS_CONFIG_H OUTDIR" >&2; exit 2; }
prefix=$1 config=$2 out=$3
[ -r "$config" ] || { echo "compat-dir.sh: no $config (build first)" >&2; exit 1; }
mkdir -p "$out"

# LIB FAMILY BASE_MINOR: the 1.x node the archive covers for LIB (the
# rdma-core 33 baseline, raised by every VS_HAVE_<FAMILY>_1_N the headers had).
node() {
	local minor
	minor=$( { echo "$2"; sed -n "s/^#define VS_HAVE_${1}_1_\([0-9]*\) 1\$/\1/p" "$config"; } | sort -n | tail -n 1)
	echo "1.$minor"
}

for row in ibverbs:IBVERBS:11 rdmacm:RDMACM:3 efa:EFA:1; do
	IFS=: read -r lib family base <<<"$row"
	cat >"$out/lib$lib.a" <<EOF
/* verbshim compat: -l$lib links the shim (libverbshim.a), not rdma-core.
   A GNU ld linker script; see README "Shipping a binary". */
INPUT($prefix/lib/libverbshim.a -ldl -lpthread)
EOF
	cat >"$out/lib$lib.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib/verbshim/compat

Name: lib$lib
Description: verbshim in place of rdma-core's lib$lib: no link-time rdma-core dependency
Version: $(node "$family" "$base")
Libs: -L\${libdir} -l$lib
Libs.private: -ldl -lpthread
Cflags:
EOF
done
