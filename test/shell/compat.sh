#!/usr/bin/env bash
# Unchanged build systems: `make install` puts a compat directory in
# PREFIX/lib/verbshim/compat (libibverbs.a, librdmacm.a, libefa.a, their
# .pc files) and stock projects that say -libverbs link the shim through it:
#   - autotools (test/compat/autotools: AC_CHECK_LIB(ibverbs, ...)), with
#     LDFLAGS=-LDIR (LIBRARY_PATH is searched after the system directories,
#     so it reaches the shim only where rdma-core's libibverbs.so is not
#     installed, as on this host: not used here);
#   - CMake (test/compat/cmake: find_library(IBVERBS ibverbs) and
#     pkg_check_modules(libibverbs)), with CMAKE_LIBRARY_PATH and
#     PKG_CONFIG_PATH at it;
#   - plain make style: cc ... -L DIR -libverbs -lrdmacm -lefa.
# Each builds examples/verbs_loopback.c (plain verbs, checks every byte).
# Every binary: no rdma-core NEEDED, ibv_* defined inside, and it starts
# here (exit 77: no device on this host).  They land in build/compat/bin
# for test/vm/host-root/compat.sh, which runs them on rxe.  The same projects
# built without the compat directory do link rdma-core (the check can fail).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
for t in autoreconf cmake pkg-config; do
	command -v $t >/dev/null || { echo "$t not installed (scripts/deps.sh installs it)"; exit 1; }
done
out=build/compat
rm -rf "$out"
mkdir -p "$out/bin"
prefix=$repo/$out/prefix
make -s -j"$(nproc)" install PREFIX="$prefix" >"$out/install.log" 2>&1 || { cat "$out/install.log"; exit 1; }
compat=$prefix/lib/verbshim/compat
for f in libibverbs.a librdmacm.a libefa.a libibverbs.pc librdmacm.pc libefa.pc; do
	[ -s "$compat/$f" ] || { echo "make install did not install $compat/$f"; exit 1; }
done
status=0

# check LABEL BINARY [rdma-core expected: 1]
check() {
	local label=$1 bin=$2 want_rdma=${3:-0} needed rc=0
	needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	if [ "$want_rdma" = 1 ]; then
		# The control: without the compat directory the project links rdma-core.
		grep -qE 'libibverbs|librdmacm' <<<"$needed" &&
			{ echo "ok   $label: links rdma-core ($needed)"; return; }
		echo "FAIL $label: expected rdma-core in NEEDED: $needed"
		status=1
		return
	fi
	if grep -qE 'libibverbs|librdmacm|libefa' <<<"$needed"; then
		echo "FAIL $label: NEEDED $needed"
		status=1
		return
	fi
	grep -qE ' [Tt] ibv_get_device_list$' <<<"$(nm "$bin")" ||
		{ echo "FAIL $label: ibv_get_device_list is not defined in the binary"; status=1; return; }
	"$bin" >"$out/run.log" 2>&1 || rc=$?
	if [ $rc -ne 77 ] && [ $rc -ne 0 ]; then
		cat "$out/run.log"
		echo "FAIL $label: exit $rc (77: no device, or 0)"
		status=1
		return
	fi
	echo "ok   $label: NEEDED $needed; runs (exit $rc: $(tail -n 1 "$out/run.log"))"
}

project() {	# NAME: a fresh copy of test/compat/NAME with the program
	rm -rf "${out:?}/$1"
	cp -r "test/compat/$1" "$out/$1"
	cp examples/verbs_loopback.c "$out/$1/"
}

# autotools
project autotools
(cd "$out/autotools" && autoreconf -i >autoreconf.log 2>&1) || { cat "$out/autotools/autoreconf.log"; exit 1; }
if (cd "$out/autotools" && ./configure -q LDFLAGS="-L$compat" && make -s) >"$out/autotools.log" 2>&1; then
	grep -E '^(ac_cv_lib_ibverbs|ac_cv_lib_rdmacm)' "$out/autotools/config.log" | sed 's/^/     /'
	cp "$out/autotools/verbs_loopback" "$out/bin/verbs_loopback-autotools"
	check "autotools AC_CHECK_LIB(ibverbs), LDFLAGS=-L compat" "$out/bin/verbs_loopback-autotools"
	(cd "$out/autotools" && make -s clean && ./configure -q && make -s) >>"$out/autotools.log" 2>&1 &&
		check "autotools without the compat directory" "$out/autotools/verbs_loopback" 1
else
	tail -n 30 "$out/autotools.log" "$out/autotools/config.log"
	echo "FAIL autotools project did not build"
	status=1
fi

# CMake
project cmake
if CMAKE_LIBRARY_PATH=$compat PKG_CONFIG_PATH=$compat \
	cmake -S "$out/cmake" -B "$out/cmake/build" >"$out/cmake.log" 2>&1 &&
	cmake --build "$out/cmake/build" >>"$out/cmake.log" 2>&1; then
	grep -E 'find_library:|pkg-config:' "$out/cmake.log" | sed 's/^/     /'
	for b in find_library pkg_config; do
		cp "$out/cmake/build/verbs_loopback_$b" "$out/bin/verbs_loopback-cmake-$b"
		check "cmake $b" "$out/bin/verbs_loopback-cmake-$b"
	done
	if cmake -S "$out/cmake" -B "$out/cmake/control" >>"$out/cmake.log" 2>&1 &&
		cmake --build "$out/cmake/control" >>"$out/cmake.log" 2>&1; then
		check "cmake without the compat directory" "$out/cmake/control/verbs_loopback_find_library" 1
	fi
else
	tail -n 30 "$out/cmake.log"
	echo "FAIL CMake project did not configure or build"
	status=1
fi

# Plain make style, all three names; and pkg-config --static.
${CC:-cc} -o "$out/bin/verbs_loopback-plain" examples/verbs_loopback.c -L"$compat" -libverbs -lrdmacm -lefa
check "cc -L compat -libverbs -lrdmacm -lefa" "$out/bin/verbs_loopback-plain"
flags=$(PKG_CONFIG_PATH=$compat pkg-config --static --libs libibverbs librdmacm libefa)
echo "     pkg-config --static --libs libibverbs librdmacm libefa: $flags"
# shellcheck disable=SC2086
${CC:-cc} -o "$out/plain-pc" examples/verbs_loopback.c $flags
check "cc \$(pkg-config --static --libs libibverbs ...)" "$out/plain-pc"
exit $status
