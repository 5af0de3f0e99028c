#!/usr/bin/env bash
# The shim builds against other rdma-core header sets (RDMA_CORE_INCLUDE):
# bullseye's 33.2, the oldest supported, and sid's 65.0, the newest; each
# build defines every public function that release's own libraries export
# (65.0's headers bring IBVERBS_1.18, RDMACM_1.5, EFA_1.7, MLX5_1.27,
# IBUMAD_1.4, HNS_1.0, MANA_1.1 and IONIC_1.0; 33.2's have none of the
# last three, nor does the build take them from elsewhere; when 65.0 is
# the pinned set make builds with, make's own lib/libverbshim.a is
# checked).  And the whole tree builds with clang as well as gcc.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib/exports.bash
. test/shell/lib/exports.bash
cache=${VERBSHIM_CACHE:-$PWD/.cache}

headers() {	# VERSION SUITE -> prints the include dir
	local ver=$1 suite=$2 dir=$cache/headers/$1 debs
	# (.done-umad: sets fetched before libibumad-dev was added are topped up)
	if [ ! -f "$dir/.done-umad" ]; then
		debs=$(scripts/roots/apt-fetch.sh "$suite" libibverbs-dev librdmacm-dev ibverbs-providers libibumad-dev)
		rm -rf "$dir" && mkdir -p "$dir"
		for deb in $debs; do dpkg-deb -x "$deb" "$dir"; done
		touch "$dir/.done" "$dir/.done-umad"
	fi
	echo "$dir/usr/include"
}

# built_on_pin VERSION: build/ (make all) was compiled against the pinned
# header set and that set is VERSION's: its archive is the one to check
# (lib/libverbshim.a; the same headers twice would be the same build twice).
built_on_pin() {
	local pinned
	pinned=$(scripts/rdma-headers.sh --version) || return 1
	[[ $pinned == "$1"-* ]] && [ -f lib/libverbshim.a ] &&
		grep -qF -- "-isystem $(scripts/rdma-headers.sh) " build/gen/config.id 2>/dev/null
}

status=0
for pair in 33.2:bullseye 65.0:sid; do
	ver=${pair%%:*} suite=${pair#*:}
	root=$(scripts/rdma-core-root.sh "$ver")
	if built_on_pin "$ver"; then
		archive=lib/libverbshim.a
		echo "$ver headers: the pinned set ($(scripts/rdma-headers.sh --version)): make's own $archive"
	else
		inc=$(headers "$ver" "$suite")
		build=build/headers-$ver archive=build/headers-$ver/libverbshim.a
		if ! make -s -j"$(nproc)" BUILD="$build" RDMA_CORE_INCLUDE="$inc" "$build/libverbshim.a" >"$build.log" 2>&1; then
			cat "$build.log"; echo "build against $ver headers failed"; status=1; continue
		fi
		grep feature-config "$build.log" || true
	fi
	defined=$(defined_functions "$archive")
	# No hnsdv.h, manadv.h, ionic_dv.h in 33.2: none taken from /usr/include.
	if [ "$ver" = 33.2 ] && strays=$(grep -E '^(hnsdv|manadv|ionic_dv)_' <<<"$defined"); then
		echo "33.2 headers: defines functions its set does not declare:" $strays
		status=1
	fi
	for lib in libibverbs.so.1 librdmacm.so.1 libefa.so.1 libmlx5.so.1 libmlx4.so.1 libibumad.so.3 \
		libhns.so.1 libmana.so.1 libionic.so.1; do
		# (libhns, libmana, libionic: where the release ships them)
		[ -e "$root/usr/lib/x86_64-linux-gnu/$lib" ] || [[ $lib != lib@(hns|mana|ionic).so.1 ]] || continue
		exported=$(public_functions "$root/usr/lib/x86_64-linux-gnu/$lib")
		missing=$(comm -23 <(echo "$exported") <(echo "$defined"))
		if [ -n "$missing" ]; then
			echo "$ver headers: ${lib%%.so.*} exports what the build does not define:" $missing
			status=1
		else
			echo "$ver headers: all $(echo "$exported" | wc -l) public functions of ${lib%%.so.*} $ver defined"
		fi
	done
done

if command -v clang >/dev/null; then
	if make -s -j"$(nproc)" CC=clang CXX=clang++ BUILD=build/clang all tests >build/clang.log 2>&1; then
		echo "clang: library, examples and tests build with -Wall -Wextra -Werror (C++: clang++)"
	else
		tail -n 30 build/clang.log; echo "clang build failed"; status=1
	fi
else
	echo "clang not installed: clang build not checked"; status=1
fi
exit $status
