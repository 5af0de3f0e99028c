#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The Debian packages (debian/): `make deb` runs dpkg-buildpackage -b in
# the Debian 11 build root and gives libverbshim-dev (archive, headers,
# pkg-config, CMake package, compat directory, man pages) and
# verbshim-tools (verbshim-info, verbshim-selftest); lintian (the host's) reports no error.
# Then:
#   - in an overlay of the build root (scripts/build-root.sh --overlay: the
#     cached root stays clean) dpkg -i installs both, and examples are built
#     against the installed files only: the typed loopback through
#     pkg-config, cxx_loopback (C++17) through find_package(verbshim 1.0),
#     verbs_loopback through /usr/lib/x86_64-linux-gnu/verbshim/compat;
#   - in a copy of each release root (33.2, 44.0, 56.1, 65.0) with that
#     release's own libibverbs-dev and librdmacm-dev (what libverbshim-dev
#     depends on), dpkg --root -i installs both, dependencies checked;
#   - one VM boot runs, in each release root copy on rxe, the packaged
#     verbshim-info and the three examples (bytes checked).
# As root.  make check runs the first part (make deb, the contents, the
# build root's install and builds); VS_DEB_FULL=1 (make check-deb) all of
# it.  test/shell/deb.sh --runs: the runs only (inside the VM).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/deb-test
# Debian's four releases (scripts/rdma-core-releases.sh debian): the roots
# made from a distribution's packages; the five built from tags have no
# package database (no var/lib/dpkg) for an install to go through
RELEASES=$(scripts/rdma-core-releases.sh debian)

if [ "${1:-}" = --runs ]; then
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	# shellcheck disable=SC2086 # (words)
	releases_installed_runs .debs "$repo/$out/roots" "$repo/$out/bin" "$out/run.log" $RELEASES
	exit
fi

[ "$(id -u)" -eq 0 ] || { echo "skip: building in the build root needs root (chroot, mount namespace)"; exit 77; }
command -v lintian >/dev/null || { echo "lintian not installed (scripts/deps.sh installs it)"; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/roots"

# 1. the packages
make -s deb >"$out/make-deb.log" 2>&1 || { tail -n 40 "$out/make-deb.log"; echo "FAIL: make deb"; exit 1; }
version=$(sed -n 's/^VERSION := //p' Makefile)
dev=build/deb/libverbshim-dev_${version}_amd64.deb
tools=build/deb/verbshim-tools_${version}_amd64.deb
for d in "$dev" "$tools"; do [ -s "$d" ] || { echo "FAIL: make deb made no $d"; exit 1; }; done
status=0
want_dev="./usr/lib/x86_64-linux-gnu/libverbshim.a ./usr/include/verbshim.h ./usr/include/verbshim/loader.h
./usr/include/verbshim.hpp ./usr/include/verbshim/cxx/owner.hpp ./usr/include/verbshim/cxx/cm.hpp
./usr/lib/x86_64-linux-gnu/pkgconfig/verbshim.pc ./usr/lib/x86_64-linux-gnu/cmake/verbshim/verbshimConfig.cmake
./usr/lib/x86_64-linux-gnu/cmake/verbshim/verbshimConfigVersion.cmake ./usr/lib/x86_64-linux-gnu/verbshim/compat/libibverbs.a
./usr/lib/x86_64-linux-gnu/verbshim/compat/libmlx5.a ./usr/lib/x86_64-linux-gnu/verbshim/compat/libibumad.pc
./usr/share/man/man3/vs_device_open.3.gz ./usr/share/doc/libverbshim-dev/copyright
./usr/include/verbshim/rdma-core/infiniband/verbs.h ./usr/include/verbshim/rdma-core/rdma/rdma_cma.h
./usr/include/verbshim/rdma-core/COPYING ./usr/include/verbshim/rdma-core/VERSION"
list=$(dpkg-deb -c "$dev" | awk '{print $6}')
for f in $want_dev; do
	grep -qxF "$f" <<<"$list" || { echo "FAIL: libverbshim-dev lacks $f"; status=1; }
done
for f in ./usr/bin/verbshim-info ./usr/bin/verbshim-selftest ./usr/share/man/man1/verbshim-selftest.1.gz; do
	dpkg-deb -c "$tools" | awk '{print $6}' | grep -xF "$f" >/dev/null ||
		{ echo "FAIL: verbshim-tools lacks ${f#.}"; status=1; }
done
echo "ok   $(basename "$dev") ($(grep -c . <<<"$list") entries, $(grep -c 'man3/.*\.3\.gz$' <<<"$list") man pages), $(basename "$tools"): Depends: $(dpkg-deb -f "$tools" Depends)"

# 3. installed into the build root (an overlay), examples built against it
proj=$out/src
# shellcheck source=lib/deb_user.bash
. test/shell/lib/deb_user.bash
deb_user_project "$proj"
# shellcheck disable=SC2016 # (expanded in the root)
if scripts/build-root.sh --overlay "$out/overlay" -- sh -c '
	set -e
	dpkg -i "$1" "$2" >/dev/null
	dpkg -s libverbshim-dev verbshim-tools | grep -E "^(Package|Status|Version):"
	cd "$3"
	gcc -std=c11 -D_GNU_SOURCE -I. -o "$4/loopback" loopback.c common/ex_common.c $(pkg-config --static --cflags --libs verbshim)
	# (one command a line: set -e does not stop at a failure inside a && list)
	cmake -S cmake -B cmake/build -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
	cmake --build cmake/build
	cp cmake/build/cxx_loopback "$4/"
	gcc -o "$4/verbs_loopback" verbs_loopback.c -L/usr/lib/x86_64-linux-gnu/verbshim/compat -libverbs -lrdmacm
	' deb "$repo/$dev" "$repo/$tools" "$repo/$proj" "$repo/$out/bin" >"$out/build-root.log" 2>&1; then
	grep -E '^(Package|Status)|verbshim [0-9.]* from' "$out/build-root.log" | sed 's/^/     /'
	echo "ok   installed with dpkg in the build root; built against the installed files: $(cd "$out/bin" && echo *)"
else
	tail -n 30 "$out/build-root.log"
	echo "FAIL: installing or building in the build root"
	exit 1
fi
for b in "$out"/bin/*; do
	readelf -d "$b" | grep -E 'NEEDED.*lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so' >/dev/null &&
		{ echo "FAIL: ${b##*/} needs rdma-core"; status=1; }
done

# make check stops here (lintian alone takes minutes on 187 man pages):
# make check-deb runs the whole test.
if [ -z "${VS_DEB_FULL:-}" ]; then
	[ $status -eq 0 ] || exit 1
	echo "lintian, the release roots and the runs on rxe: make check-deb (VS_DEB_FULL=1)"
	exit 0
fi

# 2. lintian: no error (warnings are listed)
# (libverbshim-dev overrides one tag, with the reason: the compat
# directory's lib*.a are linker scripts, which lintian's ar cannot unpack)
lintian --tag-display-limit 0 --show-overrides "$dev" "$tools" >"$out/lintian.log" 2>&1 || true
if grep -q '^E: ' "$out/lintian.log"; then
	grep '^E: ' "$out/lintian.log"
	echo "FAIL: lintian reports errors"
	status=1
else
	echo "ok   lintian $(lintian --version | awk '{print $2}'): no error; $(grep -c '^O: ' "$out/lintian.log" || true) overridden; $(grep -c '^W: ' "$out/lintian.log" || true) warnings:$(grep '^W: ' "$out/lintian.log" | sed 's/^W: [^ ]* / /' | sort -u | tr '\n' ';')"
fi
[ $status -eq 0 ] || exit 1

# 4. installed into a copy of each release root, with that release's headers
# shellcheck source=../../scripts/roots/dpkg-status.bash
. scripts/roots/dpkg-status.bash
cache=${VERBSHIM_CACHE:-$repo/.cache}
for v in $RELEASES; do
	rel=$(scripts/rdma-core-root.sh "$v")
	suite=$(sed -n '1s/.* from \([a-z]*\)$/\1/p' "$rel/.verbshim-root")
	copy=$out/roots/$v
	cp -a "$rel" "$copy"
	mapfile -t rdebs < <(sed '1d;$d' "$rel/.verbshim-root" | while read -r f; do
		find "$cache/apt" -name "$f" -print -quit; done)
	# shellcheck disable=SC2207 # (paths without spaces)
	hdrs=($(scripts/roots/apt-fetch.sh "$suite" libibverbs-dev librdmacm-dev libnl-3-dev libnl-route-3-dev))
	[ ${#hdrs[@]} -eq 4 ] || { echo "FAIL: fetching $suite's rdma-core headers"; exit 1; }
	for d in "${hdrs[@]}"; do dpkg-deb -x "$d" "$copy"; done
	root_dpkg_status "$copy" "${rdebs[@]}" "${hdrs[@]}"
	if dpkg --root="$copy" --force-bad-path -i "$dev" "$tools" >"$out/dpkg-$v.log" 2>&1; then
		echo "ok   rdma-core $v ($suite): dpkg -i both, $(grep -c . <<<"$(dpkg --root="$copy" -L libverbshim-dev)") files"
	else
		cat "$out/dpkg-$v.log"
		echo "FAIL: dpkg -i in the rdma-core $v root"
		status=1
	fi
done
[ $status -eq 0 ] || exit 1

if [ "${VERBSHIM_IN_VM:-}" = 1 ]; then
	exec "$0" --runs
fi
scripts/vm-run.sh -- test/shell/deb.sh --runs
