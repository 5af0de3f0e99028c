#!/usr/bin/env bash
# The CMake package: `make install` (staged with DESTDIR, so the package
# must find its prefix from where it lies) puts
# PREFIX/lib/cmake/verbshim/verbshimConfig.cmake and its version file, and a
# stock CMake project (test/compat/cmake-package: find_package(verbshim 1.0
# REQUIRED), target_link_libraries(... verbshim::verbshim), nothing else)
# builds the typed loopback example (C) and a C++17 program over the C API.
# Both: no rdma-core NEEDED, and they start here (exit 77: no device on this
# host); test/vm/host-root/cmake_package.sh runs them on rxe.  The version
# policy is checked both ways: a request for 1.0 is met, one for 2.0 and an
# EXACT one for another version are refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v cmake >/dev/null || { echo "cmake not installed (scripts/deps.sh installs it)"; exit 1; }
command -v "${CXX:-c++}" >/dev/null || { echo "no C++ compiler (${CXX:-c++}; scripts/deps.sh installs build-essential)"; exit 1; }
out=build/cmake-package
rm -rf "$out"
mkdir -p "$out/bin"
stage=$PWD/$out/stage
make -s -j"$(nproc)" install DESTDIR="$stage" PREFIX=/opt/verbshim >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log"; exit 1; }
prefix=$stage/opt/verbshim
for f in verbshimConfig.cmake verbshimConfigVersion.cmake; do
	[ -s "$prefix/lib/cmake/verbshim/$f" ] || { echo "FAIL: make install did not install lib/cmake/verbshim/$f"; exit 1; }
done
version=$(sed -n 's/^VERSION := //p' Makefile)
status=0

proj=$out/project
cp -r test/compat/cmake-package "$proj"
cp examples/loopback.c "$proj/"
mkdir -p "$proj/common"
cp examples/common/ex_common.[ch] "$proj/common/"
if cmake -S "$proj" -B "$proj/build" -DCMAKE_PREFIX_PATH="$prefix" >"$out/cmake.log" 2>&1 &&
	cmake --build "$proj/build" >>"$out/cmake.log" 2>&1; then
	grep -E -- '-- verbshim ' "$out/cmake.log" | sed 's/^/     /'
	grep -q -- "-- verbshim $version from $prefix/lib/cmake/verbshim" "$out/cmake.log" ||
		{ echo "FAIL: find_package did not report verbshim $version from the staged prefix"; status=1; }
else
	tail -n 30 "$out/cmake.log"
	echo "FAIL: the CMake project did not configure or build"
	exit 1
fi
# What the imported target gave the link: the archive, -ldl, threads.
link=$(cat "$proj/build/CMakeFiles/cxx_loopback.dir/link.txt")
for want in "$prefix/lib/libverbshim.a" "-ldl"; do
	grep -qF -- "$want" <<<"$link" || { echo "FAIL: the link line lacks $want: $link"; status=1; }
done
for b in loopback cxx_loopback; do
	cp "$proj/build/$b" "$out/bin/$b"
	needed=$(readelf -d "$out/bin/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	if grep -qE 'lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so' <<<"$needed"; then
		echo "FAIL: $b needs rdma-core: $needed"
		status=1
		continue
	fi
	rc=0
	"$out/bin/$b" >"$out/run.log" 2>&1 || rc=$?
	# (without a device: 77, at vs_device_open, saying so)
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		cat "$out/run.log"
		echo "FAIL: $b exit $rc"
		status=1
		continue
	fi
	echo "ok   $b: NEEDED $needed; runs (exit $rc: $(tail -n 1 "$out/run.log"))"
done

# The version policy (SameMajorVersion): 2.0 and an exact other version refused.
for req in "2.0" "1.0 EXACT"; do
	mkdir -p "$out/req"
	printf 'cmake_minimum_required(VERSION 3.13)\nproject(req C)\nfind_package(verbshim %s REQUIRED)\n' "$req" \
		>"$out/req/CMakeLists.txt"
	[ "$req" = "1.0 EXACT" ] && [ "$version" = 1.0 ] && continue
	if cmake -S "$out/req" -B "$out/req/build" -DCMAKE_PREFIX_PATH="$prefix" >"$out/req.log" 2>&1; then
		echo "FAIL: find_package(verbshim $req) accepted version $version"
		status=1
	else
		echo "ok   find_package(verbshim $req) refused (version $version)"
	fi
	rm -rf "$out/req"
done
exit $status
