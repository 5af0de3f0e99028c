#!/usr/bin/env bash
# make install into a staging root, then build a plain verbs program the
# way a user would: pkg-config --static for the flags, no -libverbs; and
# the same tree moved elsewhere (pkg-config's relocation).
set -euo pipefail
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
command -v pkg-config >/dev/null || { echo "skip: pkg-config not installed"; exit 77; }

make -s -j"$(nproc)" install DESTDIR="$stage" PREFIX=/usr/local >"$stage.log" 2>&1 ||
	{ cat "$stage.log"; rm -f "$stage.log"; exit 1; }
rm -f "$stage.log"
for f in include/verbshim.h include/verbshim.hpp include/verbshim/loader.h include/verbshim/wr.h \
	include/verbshim/cxx/error.hpp include/verbshim/cxx/cm.hpp lib/libverbshim.a \
	lib/pkgconfig/verbshim.pc bin/verbshim-info bin/verbshim-selftest share/man/man1/verbshim-selftest.1; do
	[ -e "$stage/usr/local/$f" ] || { echo "not installed: $f"; exit 1; }
done
export PKG_CONFIG_PATH=$stage/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
flags=$(pkg-config --static --cflags --libs verbshim)
echo "pkg-config --static --cflags --libs verbshim: $flags"
grep -q -- '-ldl' <<<"$flags" && grep -q -- '-lpthread' <<<"$flags" ||
	{ echo "the .pc lacks -ldl/-lpthread for a static link"; exit 1; }
# shellcheck disable=SC2086
${CC:-cc} -o "$stage/plain" test/dropin/plain_verbs.c $flags
readelf -d "$stage/plain" | grep -E 'NEEDED.*(ibverbs|rdmacm|efa)' && { echo "links rdma-core"; exit 1; }
"$stage/plain"
# The pinned rdma-core headers ship under the project's prefix, with their
# licence, and verbshim.pc puts them first: a program calling the newest
# API compiles whatever /usr/include has (test/compat/newest-api/newest.c).
inc=$stage/usr/local/include/verbshim/rdma-core
for f in infiniband/verbs.h infiniband/efadv.h infiniband/mlx5dv.h rdma/rdma_cma.h COPYING VERSION; do
	[ -s "$inc/$f" ] || { echo "not installed: include/verbshim/rdma-core/$f"; exit 1; }
done
grep -q 'OpenIB.org BSD license' "$inc/COPYING" || { echo "no OpenIB.org BSD licence in $inc/COPYING"; exit 1; }
[ ! -e "$stage/usr/local/include/infiniband" ] && [ ! -e "$stage/usr/local/include/rdma" ] ||
	{ echo "rdma-core headers installed outside include/verbshim"; exit 1; }
grep -q -- "-I$stage/usr/local/include/verbshim/rdma-core -I$stage/usr/local/include" <<<"$flags" ||
	{ echo "verbshim.pc does not put the shipped rdma-core headers first: $flags"; exit 1; }
# shellcheck disable=SC2086
${CC:-cc} -Wall -Wextra -Werror -o "$stage/newest" test/compat/newest-api/newest.c $flags
readelf -d "$stage/newest" | grep -E 'NEEDED.*(ibverbs|rdmacm|efa|mlx5)' && { echo "newest links rdma-core"; exit 1; }
echo "the newest API (rdma-core $(cat "$inc/VERSION") headers) compiles through verbshim.pc"
# A tree moved after its install (unpacked elsewhere, a relocatable
# SDK): verbshim.pc follows with pkg-config --define-prefix, the compat
# directory's .pc files with --define-variable=prefix (they are not in a
# pkgconfig directory, which --define-prefix needs); their Cflags name the
# moved tree's headers, never the install's prefix.
moved=$stage/moved
mv "$stage/usr/local" "$moved"
rflags=$(env -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH="$moved/lib/pkgconfig" \
	pkg-config --define-prefix --static --cflags --libs verbshim)
grep -q -- "-I$moved/include/verbshim/rdma-core -I$moved/include .*-L$moved/lib " <<<"$rflags " ||
	{ echo "verbshim.pc of the moved tree (--define-prefix): $rflags"; exit 1; }
# shellcheck disable=SC2086
${CC:-cc} -Wall -Wextra -Werror -o "$stage/newest-moved" test/compat/newest-api/newest.c $rflags
readelf -d "$stage/newest-moved" | grep -E 'NEEDED.*(ibverbs|rdmacm|efa|mlx5)' && { echo "newest (moved tree) links rdma-core"; exit 1; }
cflags=$(env -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH="$moved/lib/verbshim/compat" \
	pkg-config --define-variable=prefix="$moved" --cflags libibverbs libmlx5 libefa | sed 's/ *$//')
[ "$cflags" = "-I$moved/include/verbshim/rdma-core" ] ||
	{ echo "the compat .pc files' Cflags in the moved tree: '$cflags' (not from \${prefix})"; exit 1; }
# the compat Cflags alone bring the pinned headers (the archive: verbshim.pc's)
# shellcheck disable=SC2086
${CC:-cc} -Wall -Wextra -Werror -o "$stage/newest-compat" test/compat/newest-api/newest.c $cflags \
	-L"$moved/lib" -lverbshim -ldl -lpthread
echo "the moved tree builds: verbshim.pc (--define-prefix) and the compat .pc Cflags (--define-variable=prefix)"
mv "$moved" "$stage/usr/local"
# the C++ owners from the installed headers (the example, built as a user would)
if command -v "${CXX:-c++}" >/dev/null; then
	# shellcheck disable=SC2086
	${CXX:-c++} -std=c++17 -o "$stage/cm_echo_cxx" examples/cm_echo_cxx.cpp $flags
	out=$("$stage/cm_echo_cxx" -n 0 2>&1 || true)
	grep -q 'must be positive' <<<"$out" || { echo "cm_echo_cxx built from the install does not run: $out"; exit 1; }
	echo "cm_echo_cxx (C++ owners) built from the installed headers"
fi
