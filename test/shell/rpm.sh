#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The RPMs (scripts/rpm/verbshim.spec, make check-rpm): `make rpm` and `make rpm
# ARCH=arm64` (rpmbuild from Debian's rpm, the build in the Debian 11
# build root) give verbshim-devel and verbshim-tools for x86_64 and
# aarch64.  Then:
#   - each holds what it should (/usr/lib64 as Fedora and RHEL want), the
#     devel package provides verbshim-static (Fedora's rule for a
#     static-only library) and not the compat directory's pkgconfig names
#     (pkgconfig(libibverbs)...), the tools package states its weak
#     dependencies on the rdma-core libraries it loads;
#   - rpmlint (Debian's) reports nothing, with scripts/rpm/rpmlint.toml's
#     configuration (each filter with its reason);
#   - rpm --root installs both, each arch, into a scratch root with a
#     database of its own (the host's stays without them);
#   - x86_64: in an overlay of the build root holding that install,
#     programs are built against the installed files only: the typed
#     loopback through pkg-config, cxx_loopback (C++17) through
#     find_package(verbshim 1.0), verbs_loopback through the compat
#     directory (-L and -I, as docs/shipping.md says); none needs
#     rdma-core; installed with rpm --root into a copy of each release
#     root (33.2, 44.0, 56.1, 65.0), one VM boot runs the packaged
#     verbshim-info and the three programs there on rxe (bytes checked);
#   - aarch64: the typed loopback is cross-built against the installed
#     files (pkg-config with the scratch root as sysroot), an aarch64
#     program needing no rdma-core.
# As root.  test/shell/rpm.sh --runs: the runs only (inside the VM).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/rpm-test
# Debian's four releases (scripts/rdma-core-releases.sh debian): the roots
# made from a distribution's packages; the five built from tags have no
# package database (no var/lib/dpkg) for an install to go through
RELEASES=$(scripts/rdma-core-releases.sh debian)
rdma_needed='lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so'

if [ "${1:-}" = --runs ]; then
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	# shellcheck disable=SC2086 # (words)
	releases_installed_runs RPMs "$repo/$out/roots" "$repo/$out/bin" "$out/run.log" $RELEASES
	exit
fi

[ "$(id -u)" -eq 0 ] || { echo "skip: building in the build root needs root (chroot, mount namespace)"; exit 77; }
scripts/deps.sh --rpm >/dev/null || { echo "FAIL: scripts/deps.sh --rpm"; exit 1; }
scripts/deps.sh --arm64 >/dev/null || { echo "FAIL: scripts/deps.sh --arm64"; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/roots"
version=$(sed -n 's/^VERSION := //p' Makefile)
status=0

# rpm_root DIR RPM...: rpm --root DIR -i, its own database in DIR
# (--nodeps: DIR is a Debian root, its packages unknown to rpm;
# --force-debian: Debian's rpm refuses to install otherwise).
rpm_root() {
	local dir
	mkdir -p "$1"
	dir=$(cd "$1" && pwd -P)
	shift
	rpm --root "$dir" --initdb && rpm --root "$dir" -i --nodeps --force-debian --ignorearch "$@"
}

# 1. the packages, their contents, dependencies and rpmlint
for arch in x86_64 aarch64; do
	if [ $arch = x86_64 ]; then margs=() dir=build/rpm; else margs=(ARCH=arm64) dir=build/arm64/rpm; fi
	make -s rpm "${margs[@]}" >"$out/make-rpm-$arch.log" 2>&1 ||
		{ tail -n 40 "$out/make-rpm-$arch.log"; echo "FAIL: make rpm ${margs[*]}"; exit 1; }
	devel=$dir/RPMS/$arch/verbshim-devel-$version-1.$arch.rpm
	tools=$dir/RPMS/$arch/verbshim-tools-$version-1.$arch.rpm
	for r in "$devel" "$tools"; do [ -s "$r" ] || { echo "FAIL: make rpm made no $r"; exit 1; }; done
	list=$(rpm -qpl "$devel")
	for f in /usr/lib64/libverbshim.a /usr/include/verbshim.h /usr/include/verbshim/loader.h \
		/usr/include/verbshim.hpp /usr/include/verbshim/cxx/owner.hpp /usr/include/verbshim/cxx/cm.hpp \
		/usr/lib64/pkgconfig/verbshim.pc /usr/lib64/cmake/verbshim/verbshimConfig.cmake \
		/usr/lib64/verbshim/compat/libibverbs.a /usr/lib64/verbshim/compat/libibverbs.pc \
		/usr/lib64/verbshim/compat/include /usr/include/verbshim/rdma-core/infiniband/verbs.h \
		/usr/share/man/man3/vs_device_open.3.gz; do
		grep -qxF "$f" <<<"$list" || { echo "FAIL: verbshim-devel ($arch) lacks $f"; status=1; }
	done
	for f in /usr/bin/verbshim-info /usr/bin/verbshim-selftest /usr/share/man/man1/verbshim-selftest.1.gz; do
		grep -qx "$f" <<<"$(rpm -qpl "$tools")" || { echo "FAIL: verbshim-tools ($arch) lacks $f"; status=1; }
	done
	[ "$(rpm -qp --qf '%{ARCH}' "$devel")" = $arch ] || { echo "FAIL: $devel is not $arch"; status=1; }
	provides=$(rpm -qp --provides "$devel")
	grep -q "^verbshim-static = $version-1$" <<<"$provides" || { echo "FAIL: verbshim-devel ($arch) does not provide verbshim-static"; status=1; }
	if grep -E '^pkgconfig\((libibverbs|librdmacm|libefa|libmlx5|libmlx4|libibumad|libhns|libmana|libionic)\)' <<<"$provides"; then
		echo "FAIL: verbshim-devel ($arch) provides the compat directory's pkgconfig names"; status=1
	fi
	weak=$(rpm -qp --recommends --suggests "$tools" | tr '\n' ' ')
	for s in libibverbs.so.1 librdmacm.so.1 libefa.so.1 libmlx5.so.1 libmlx4.so.1 libibumad.so.3 \
		libhns.so.1 libmana.so.1 libionic.so.1; do
		grep -qF "$s()(64bit)" <<<"$weak" || { echo "FAIL: verbshim-tools ($arch) has no weak dependency on $s: $weak"; status=1; }
	done
	rpm -qp --requires "$tools" | grep -E "$rdma_needed" && { echo "FAIL: verbshim-tools ($arch) requires rdma-core"; status=1; }
	rpmlint -c scripts/rpm/rpmlint.toml "$devel" "$tools" scripts/rpm/verbshim.spec >"$out/rpmlint-$arch.log" 2>&1 || true
	if grep -E '^[^ ]*: [EW]: ' "$out/rpmlint-$arch.log"; then
		echo "FAIL: rpmlint ($arch) reports the above"; status=1
	else
		echo "ok   $(basename "$devel") ($(grep -c . <<<"$list") files), $(basename "$tools") (Recommends/Suggests: $weak); rpmlint $(rpmlint --version 2>/dev/null | head -n 1): $(tail -n 1 "$out/rpmlint-$arch.log" | sed 's/^ *//')"
	fi
	# into a scratch root with a database of its own
	scratch=$out/scratch-$arch
	rpm_root "$scratch" "$devel" "$tools" >"$out/rpm-$arch.log" 2>&1 || { cat "$out/rpm-$arch.log"; echo "FAIL: rpm --root -i ($arch)"; exit 1; }
	scratch=$(cd "$scratch" && pwd -P)
	rpm --root "$scratch" -q verbshim-devel verbshim-tools >/dev/null || { echo "FAIL: rpm --root $scratch -q"; status=1; }
	rpm -q verbshim-devel >/dev/null 2>&1 && { echo "FAIL: verbshim-devel is in the host's rpm database"; status=1; }
	grep -q "$([ $arch = x86_64 ] && echo x86-64 || echo aarch64)" <<<"$(file -L "$scratch/usr/bin/verbshim-info")" ||
		{ file "$scratch/usr/bin/verbshim-info"; echo "FAIL: the installed verbshim-info is not $arch"; status=1; }
	echo "ok   rpm --root $scratch -i ($arch): $(rpm --root "$scratch" -qa | sort | tr '\n' ' ')"
done
[ $status -eq 0 ] || exit 1

# 2. aarch64: a program cross-built against the installed files
scratch=$repo/$out/scratch-aarch64
read -ra pcflags <<<"$(PKG_CONFIG_SYSROOT_DIR=$scratch PKG_CONFIG_LIBDIR=$scratch/usr/lib64/pkgconfig \
	pkg-config --static --cflags --libs verbshim)"
aarch64-linux-gnu-gcc -std=c11 -D_GNU_SOURCE -Iexamples -o "$out/loopback-aarch64" examples/loopback.c \
	examples/common/ex_common.c "${pcflags[@]}" >"$out/cross.log" 2>&1 ||
	{ cat "$out/cross.log"; echo "FAIL: cross-building loopback against the installed aarch64 RPM"; exit 1; }
grep -q aarch64 <<<"$(file "$out/loopback-aarch64")" || { echo "FAIL: loopback-aarch64 is not aarch64"; exit 1; }
aarch64-linux-gnu-readelf -d "$out/loopback-aarch64" | grep -E "NEEDED.*$rdma_needed" && { echo "FAIL: loopback-aarch64 needs rdma-core"; exit 1; }
echo "ok   loopback cross-built for aarch64 through pkg-config against the installed verbshim-devel.aarch64 (no rdma-core NEEDED)"

# 3. x86_64: built against the installed files in an overlay of the build root
# (rpm --root into the overlay's upper layer, then the root sees it at /usr)
devel=build/rpm/RPMS/x86_64/verbshim-devel-$version-1.x86_64.rpm
tools=build/rpm/RPMS/x86_64/verbshim-tools-$version-1.x86_64.rpm
mkdir -p "$out/overlay/upper"
rpm_root "$out/overlay/upper" "$devel" "$tools" >"$out/rpm-overlay.log" 2>&1 ||
	{ cat "$out/rpm-overlay.log"; echo "FAIL: rpm --root into the build root's overlay"; exit 1; }
proj=$out/src
# shellcheck source=lib/deb_user.bash
. test/shell/lib/deb_user.bash
deb_user_project "$proj"
# Fedora's and RHEL's CMake look in PREFIX/lib64/cmake; Debian's platform
# file turns that off, so the project says it (after project(), where the
# platform file ran).
echo 'set_property(GLOBAL PROPERTY FIND_LIBRARY_USE_LIB64_PATHS TRUE)' >"$out/lib64.cmake"
# shellcheck disable=SC2016 # (expanded in the root)
if scripts/build-root.sh --overlay "$out/overlay" -- sh -c '
	set -e
	cd "$1"
	# (Fedora'\''s pkg-config searches /usr/lib64/pkgconfig; Debian'\''s does not)
	PKG_CONFIG_PATH=/usr/lib64/pkgconfig; export PKG_CONFIG_PATH
	gcc -std=c11 -D_GNU_SOURCE -I. -o "$2/loopback" loopback.c common/ex_common.c $(pkg-config --static --cflags --libs verbshim)
	cmake -S cmake -B cmake/build -DCMAKE_PROJECT_INCLUDE="$3" -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
	cmake --build cmake/build
	cp cmake/build/cxx_loopback "$2/"
	c=/usr/lib64/verbshim/compat
	gcc -I$c/include -o "$2/verbs_loopback" verbs_loopback.c -L$c -libverbs -lrdmacm
	' rpm "$repo/$proj" "$repo/$out/bin" "$repo/$out/lib64.cmake" >"$out/build-root.log" 2>&1; then
	sed -n 's/^-- \(verbshim [0-9.]* from .*\)/     \1/p' "$out/build-root.log"
	echo "ok   installed with rpm --root in the build root's overlay; built against the installed files: $(cd "$out/bin" && echo *)"
else
	tail -n 30 "$out/build-root.log"
	echo "FAIL: building against the RPM's files in the build root"
	exit 1
fi
for b in "$out"/bin/*; do
	readelf -d "$b" | grep -qE "NEEDED.*$rdma_needed" && { echo "FAIL: ${b##*/} needs rdma-core"; status=1; }
done
[ $status -eq 0 ] || exit 1

# 4. into a copy of each release root, then run there on rxe
for v in $RELEASES; do
	rel=$(scripts/rdma-core-root.sh "$v")
	cp -a "$rel" "$out/roots/$v"
	rpm_root "$out/roots/$v" "$devel" "$tools" >"$out/rpm-$v.log" 2>&1 ||
		{ cat "$out/rpm-$v.log"; echo "FAIL: rpm --root -i in the rdma-core $v root"; exit 1; }
done
echo "ok   rpm --root -i into copies of the rdma-core $RELEASES roots"

if [ "${VERBSHIM_IN_VM:-}" = 1 ]; then
	exec "$0" --runs
fi
scripts/vm-run.sh -- test/shell/rpm.sh --runs
