#!/usr/bin/env bash
# Unchanged build systems: `make install` puts a compat directory in
# PREFIX/lib/verbshim/compat (libibverbs.a, librdmacm.a, libefa.a,
# libmlx5.a, libmlx4.a, libibumad.a, libhns.a, libmana.a, libionic.a, their
# .pc files) and stock projects that
# say -libverbs, -lmlx5 or -libumad link the shim through it:
#   - autotools (test/compat/autotools: AC_CHECK_LIB(ibverbs, ...)), with
#     LDFLAGS=-LDIR (LIBRARY_PATH is searched after the system directories,
#     so it reaches the shim only where rdma-core's libibverbs.so is not
#     installed, as on this host: not used here);
#   - CMake (test/compat/cmake: find_library(IBVERBS ibverbs) and
#     pkg_check_modules(libibverbs)), with CMAKE_LIBRARY_PATH and
#     PKG_CONFIG_PATH at it;
#   - autotools with mlx5 direct verbs and umad (test/compat/autotools-dv:
#     AC_CHECK_LIB(mlx5, mlx5dv_create_qp), AC_CHECK_LIB(ibumad, umad_init),
#     as perftest's configure): both must come out on, and its dv_probe
#     reaches libibumad and libmlx5 through the shim;
#   - plain make style: cc ... -L DIR -libverbs -lrdmacm -lefa -lmlx5
#     -lmlx4 -libumad -lhns -lmana -lionic.
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
rdma_libs="ibverbs rdmacm efa mlx5 mlx4 ibumad hns mana ionic"
for l in $rdma_libs; do
	for f in "lib$l.a" "lib$l.pc"; do
		[ -s "$compat/$f" ] || { echo "make install did not install $compat/$f"; exit 1; }
	done
done
rdma_needed='lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so'
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
	if grep -qE "$rdma_needed" <<<"$needed"; then
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

# autotools, mlx5dv and umad on (as perftest's configure turns them on)
project autotools-dv
(cd "$out/autotools-dv" && autoreconf -i >autoreconf.log 2>&1) || { cat "$out/autotools-dv/autoreconf.log"; exit 1; }
if (cd "$out/autotools-dv" && ./configure -q LDFLAGS="-L$compat" && make -s) >"$out/autotools-dv.log" 2>&1; then
	cv=$(grep -E '^ac_cv_lib_(mlx5_mlx5dv_create_qp|ibumad_umad_init)=' "$out/autotools-dv/config.log")
	sed 's/^/     /' <<<"$cv"
	if [ "$(grep -c '=yes$' <<<"$cv")" -ne 2 ]; then
		echo "FAIL autotools-dv: configure did not turn mlx5dv and umad on"
		status=1
	fi
	cp "$out/autotools-dv/verbs_loopback" "$out/bin/verbs_loopback-autotools-dv"
	cp "$out/autotools-dv/dv_probe" "$out/bin/dv_probe-autotools-dv"
	check "autotools -lmlx5 -libumad, LDFLAGS=-L compat" "$out/bin/verbs_loopback-autotools-dv"
	check "autotools dv_probe (mlx5dv, umad)" "$out/bin/dv_probe-autotools-dv"
	grep -qE ' [Tt] (mlx5dv_create_qp|umad_init)$' <<<"$(nm "$out/bin/dv_probe-autotools-dv")" ||
		{ echo "FAIL autotools-dv: mlx5dv_create_qp / umad_init not defined in dv_probe"; status=1; }
	(cd "$out/autotools-dv" && make -s clean && ./configure -q && make -s) >>"$out/autotools-dv.log" 2>&1 &&
		check "autotools -lmlx5 -libumad without the compat directory" "$out/autotools-dv/dv_probe" 1
else
	tail -n 30 "$out/autotools-dv.log" "$out/autotools-dv/config.log"
	echo "FAIL autotools-dv project did not build"
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

# Plain make style, all nine names; and pkg-config --static.
${CC:-cc} -o "$out/bin/verbs_loopback-plain" examples/verbs_loopback.c -L"$compat" -libverbs -lrdmacm -lefa \
	-lmlx5 -lmlx4 -libumad -lhns -lmana -lionic
check "cc -L compat -libverbs -lrdmacm -lefa -lmlx5 -lmlx4 -libumad -lhns -lmana -lionic" "$out/bin/verbs_loopback-plain"
# shellcheck disable=SC2086 # (list)
flags=$(PKG_CONFIG_PATH=$compat pkg-config --static --libs $(printf 'lib%s ' $rdma_libs))
# shellcheck disable=SC2086
echo "     pkg-config: $(PKG_CONFIG_PATH=$compat pkg-config --modversion $(printf 'lib%s ' $rdma_libs) | tr '\n' ' ')"
echo "     pkg-config --static --libs lib{$(tr ' ' , <<<"$rdma_libs")}: $flags"
# Versions as rdma-core writes them (soname major, node minor): what a
# configure's PKG_CHECK_MODULES([...], [libibumad >= 3.0]) compares.
for v in libibverbs:1.11 librdmacm:1.3 libefa:1.1 libmlx5:1.17 libmlx4:1.0 libibumad:3.2 \
	libhns:1.0 libmana:1.0 libionic:1.0; do
	PKG_CONFIG_PATH=$compat pkg-config --atleast-version "${v#*:}" "${v%%:*}" ||
		{ echo "FAIL ${v%%:*}.pc: Version below the rdma-core 33 baseline ${v#*:}"; status=1; }
done
# shellcheck disable=SC2086
${CC:-cc} -o "$out/plain-pc" examples/verbs_loopback.c $flags
check "cc \$(pkg-config --static --libs libibverbs ...)" "$out/plain-pc"
exit $status
