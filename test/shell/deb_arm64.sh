#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The arm64 Debian packages (make check-arm64's deb stage): `make deb
# ARCH=arm64` cross-builds libverbshim-dev and verbshim-tools in the
# Debian 11 build root with bullseye's aarch64 toolchain (dpkg-buildpackage
# -a arm64); their library files are under the multiarch directory
# /usr/lib/aarch64-linux-gnu.  Then:
#   - lintian (the host's) reports no error on either;
#   - Multi-Arch: same: libverbshim-dev of amd64 (`make deb`, built here
#     too) and of arm64 ship the same files outside their /usr/lib/TRIPLET
#     (headers, man pages, docs), byte for byte, and dpkg installs both
#     side by side in an empty root (dpkg refuses a shared file that
#     differs between the two);
#   - in a copy of the arm64 rdma-core 44.0 root (Debian 12's, the arm64
#     guest's default) with bookworm's arm64 libibverbs-dev, librdmacm-dev,
#     libc6-dev and linux-libc-dev, the host's dpkg --root -i installs both
#     (arm64 a foreign architecture there; dependencies checked);
#   - programs are built against the installed files only, with the
#     host's aarch64 cross compiler and that root as sysroot: the typed
#     loopback through pkg-config (verbshim.pc), cxx_loopback (C++17)
#     through find_package(verbshim 1.0) with a cross toolchain file,
#     verbs_loopback through the compat directory; none needs rdma-core;
#   - under qemu-user in that root (qemu-aarch64 -L: rdma-core 44.0, no
#     device) the packaged verbshim-info names the libibverbs it loaded
#     from the root, and each program prints the shim's verdict, exit 77;
#   - one arm64 VM boot (scripts/vm-run.sh --arch arm64) runs, in the root
#     copy on rxe0, the packaged verbshim-info and the three programs
#     (the loopbacks check the bytes that arrived).
# As root (the build root).
#   test/shell/deb_arm64.sh           all of it
#   test/shell/deb_arm64.sh --runs    the runs on rxe0 (inside the VM)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/arm64/deb-test
triplet=aarch64-linux-gnu
rel=44.0

if [ "${1:-}" = --runs ]; then
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	status=0
	installed_runs "the arm64 rdma-core $rel root with the packages" "$repo/$out/root" "$repo/$out/bin" "$out/run.log" || status=1
	exit $status
fi

[ "$(id -u)" -eq 0 ] || { echo "skip: building in the build root needs root (chroot, mount namespace)"; exit 77; }
scripts/deps.sh --arm64 >/dev/null || { echo "FAIL: scripts/deps.sh --arm64"; exit 1; }
for t in cmake pkg-config dpkg-deb lintian; do
	command -v $t >/dev/null || { echo "$t not installed (scripts/deps.sh installs it)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/bin"

# 1. the packages
make -s deb ARCH=arm64 >"$out/make-deb.log" 2>&1 || { tail -n 40 "$out/make-deb.log"; echo "FAIL: make deb ARCH=arm64"; exit 1; }
version=$(sed -n 's/^VERSION := //p' Makefile)
dev=build/arm64/deb/libverbshim-dev_${version}_arm64.deb
tools=build/arm64/deb/verbshim-tools_${version}_arm64.deb
for d in "$dev" "$tools"; do [ -s "$d" ] || { echo "FAIL: make deb ARCH=arm64 made no $d"; exit 1; }; done
status=0
l=./usr/lib/$triplet
want_dev="$l/libverbshim.a $l/pkgconfig/verbshim.pc $l/cmake/verbshim/verbshimConfig.cmake
$l/cmake/verbshim/verbshimConfigVersion.cmake $l/verbshim/compat/libibverbs.a $l/verbshim/compat/libibverbs.pc
$l/verbshim/compat/include ./usr/include/verbshim.h ./usr/include/verbshim/rdma-core/infiniband/verbs.h
./usr/share/man/man3/vs_device_open.3.gz ./usr/share/doc/libverbshim-dev/copyright"
list=$(dpkg-deb -c "$dev" | awk '{print $6}')
for f in $want_dev; do
	grep -qxF "$f" <<<"$list" || { echo "FAIL: libverbshim-dev (arm64) lacks $f"; status=1; }
done
# nothing of the library outside the multiarch directory
if grep -E '^\./usr/lib/[^/]+$' <<<"$list" | grep -vxF "$l"; then
	echo "FAIL: libverbshim-dev (arm64) has files in /usr/lib, not /usr/lib/$triplet"; status=1
fi
for f in Architecture Multi-Arch; do echo "$f: $(dpkg-deb -f "$dev" "$f")"; done | tr '\n' ' ' | grep 'Architecture: arm64 Multi-Arch: same' >/dev/null ||
	{ echo "FAIL: libverbshim-dev: $(dpkg-deb -f "$dev" Architecture Multi-Arch | tr '\n' ' ')"; status=1; }
[ "$(dpkg-deb -f "$tools" Architecture)" = arm64 ] || { echo "FAIL: verbshim-tools is not arm64"; status=1; }
dpkg-deb -c "$tools" | awk '{print $6}' | grep -x ./usr/bin/verbshim-info >/dev/null ||
	{ echo "FAIL: verbshim-tools lacks /usr/bin/verbshim-info"; status=1; }
mkdir -p "$out/x"
dpkg-deb -x "$dev" "$out/x"
dpkg-deb -x "$tools" "$out/x"
arch_of() { readelf -h "$1" | sed -n 's/^ *Machine: *//p' | sort -u; }
[ "$(arch_of "$out/x/usr/lib/$triplet/libverbshim.a")" = AArch64 ] ||
	{ echo "FAIL: the packaged archive is $(arch_of "$out/x/usr/lib/$triplet/libverbshim.a"), not AArch64"; status=1; }
[ "$(arch_of "$out/x/usr/bin/verbshim-info")" = AArch64 ] || { echo "FAIL: verbshim-info is not AArch64"; status=1; }
grep -qx "libdir=\${prefix}/lib/$triplet" "$out/x/usr/lib/$triplet/pkgconfig/verbshim.pc" ||
	{ echo "FAIL: verbshim.pc's libdir: $(grep '^libdir' "$out/x/usr/lib/$triplet/pkgconfig/verbshim.pc")"; status=1; }
grep -qx "INPUT(/usr/lib/$triplet/libverbshim.a -ldl -lpthread)" "$out/x/usr/lib/$triplet/verbshim/compat/libibverbs.a" ||
	{ echo "FAIL: the compat libibverbs.a does not name /usr/lib/$triplet/libverbshim.a"; status=1; }
[ -f "$out/x/usr/lib/$triplet/verbshim/compat/include/infiniband/verbs.h" ] ||
	{ echo "FAIL: the compat directory's include link does not reach the rdma-core headers"; status=1; }
[ $status -eq 0 ] || exit 1
echo "ok   $(basename "$dev") ($(grep -c . <<<"$list") entries; $(dpkg-deb -f "$dev" Architecture), Multi-Arch: $(dpkg-deb -f "$dev" Multi-Arch)), $(basename "$tools"): Depends: $(dpkg-deb -f "$tools" Depends)"

# 2. lintian: no error (warnings are listed; the one override is deb.sh's)
lintian --tag-display-limit 0 --show-overrides "$dev" "$tools" >"$out/lintian.log" 2>&1 || true
if grep -q '^E: ' "$out/lintian.log"; then
	grep '^E: ' "$out/lintian.log"
	echo "FAIL: lintian reports errors on the arm64 packages"
	exit 1
fi
echo "ok   lintian $(lintian --version | awk '{print $2}'): no error; $(grep -c '^O: ' "$out/lintian.log" || true) overridden;" \
	"$(grep -c '^W: ' "$out/lintian.log" || true) warnings:$(grep '^W: ' "$out/lintian.log" | sed 's/^W: [^ ]* / /' | sort -u | tr '\n' ';')"

# 3. Multi-Arch: same.  dpkg lets libverbshim-dev:amd64 and :arm64 share
# a path only when the file is the same in both, so every path outside
# /usr/lib/TRIPLET must be in both packages, with the same bytes (a
# symlink: the same target), or the second install fails.
make -s deb DEB_DIR="$out/deb-amd64" >"$out/make-deb-amd64.log" 2>&1 ||
	{ tail -n 40 "$out/make-deb-amd64.log"; echo "FAIL: make deb (amd64)"; exit 1; }
dev64=$out/deb-amd64/libverbshim-dev_${version}_amd64.deb
[ -s "$dev64" ] || { echo "FAIL: make deb made no $dev64"; exit 1; }
[ "$(dpkg-deb -f "$dev64" Multi-Arch)" = same ] || { echo "FAIL: libverbshim-dev (amd64) is not Multi-Arch: same"; exit 1; }
mkdir -p "$out/ma/amd64" "$out/ma/arm64"
dpkg-deb -x "$dev64" "$out/ma/amd64"
dpkg-deb -x "$dev" "$out/ma/arm64"
# shared A: the paths outside usr/lib/TRIPLET, "TYPE PATH" (f, l, d)
shared() { (cd "$out/ma/$1" && find . -path "./usr/lib/$2" -prune -o -printf '%y %p\n' | grep -vx "d ./usr/lib/$2" | LC_ALL=C sort); }
shared amd64 x86_64-linux-gnu >"$out/ma/amd64.list"
shared arm64 $triplet >"$out/ma/arm64.list"
if ! diff "$out/ma/amd64.list" "$out/ma/arm64.list" >"$out/ma/list.diff"; then
	cat "$out/ma/list.diff"
	echo "FAIL: libverbshim-dev amd64 and arm64 ship different paths outside /usr/lib/TRIPLET (<: amd64, >: arm64)"
	status=1
fi
nsame=0
while read -r type path; do
	a=$out/ma/amd64/$path b=$out/ma/arm64/$path
	case $type in
	f) cmp -s "$a" "$b" || { echo "FAIL: $path differs between amd64 and arm64 (Multi-Arch: same)"; status=1; continue; } ;;
	l) [ "$(readlink "$a")" = "$(readlink "$b")" ] || { echo "FAIL: symlink $path: $(readlink "$a") (amd64), $(readlink "$b") (arm64)"; status=1; continue; } ;;
	*) continue ;;
	esac
	nsame=$((nsame + 1))
done < <(comm -12 "$out/ma/amd64.list" "$out/ma/arm64.list")
[ $status -eq 0 ] || exit 1
# and dpkg's own verdict: both in one (empty) root, amd64 its native
# architecture, arm64 added (dependencies left out: the files are the point)
ma=$out/ma/root
mkdir -p "$ma/var/lib/dpkg/info" "$ma/var/lib/dpkg/updates"
: >"$ma/var/lib/dpkg/status"
dpkg --root="$ma" --add-architecture arm64
if dpkg --root="$ma" --force-depends --force-bad-path -i "$dev64" "$dev" >"$out/ma/dpkg.log" 2>&1 &&
	[ "$(dpkg-query --root="$ma" -W -f '${Package}:${Architecture} ${Status}\n' libverbshim-dev | LC_ALL=C sort | tr '\n' ';')" = \
		"libverbshim-dev:amd64 install ok installed;libverbshim-dev:arm64 install ok installed;" ]; then
	echo "ok   Multi-Arch: same: $nsame shared files identical in libverbshim-dev amd64 and arm64;" \
		"dpkg installs both side by side ($(dpkg-query --root="$ma" -W -f '${Package}:${Architecture}\n' libverbshim-dev | LC_ALL=C sort | paste -sd ' '))"
else
	cat "$out/ma/dpkg.log"
	echo "FAIL: dpkg -i libverbshim-dev amd64 and arm64 side by side"
	exit 1
fi

# 4. installed into a copy of the arm64 44.0 root, with its headers and libc6-dev
# shellcheck source=../../scripts/roots/dpkg-status.bash
. scripts/roots/dpkg-status.bash
cache=${VERBSHIM_CACHE:-$repo/.cache}
src=$(scripts/rdma-core-root.sh --arch arm64 $rel)
suite=$(sed -n '1s/.* from \([a-z]*\) (arm64)$/\1/p' "$src/.verbshim-root")
root=$out/root
cp -a "$src" "$root"
mapfile -t rdebs < <(sed '1d;$d' "$src/.verbshim-root" | while read -r f; do
	find "$cache/apt-arm64" -name "$f" -print -quit; done)
# shellcheck disable=SC2207 # (paths without spaces)
hdrs=($(scripts/roots/apt-fetch.sh --arch arm64 "$suite" libibverbs-dev librdmacm-dev libnl-3-dev libnl-route-3-dev \
	libc6-dev linux-libc-dev libcrypt-dev libcrypt1))
[ ${#hdrs[@]} -eq 8 ] || { echo "FAIL: fetching $suite's arm64 rdma-core headers and libc6-dev"; exit 1; }
# unpacked through the root's merged-/usr symlinks (lib -> usr/lib...):
# dpkg-deb -x would put a directory in the place of /lib, and the root's
# loader (/lib/ld-linux-aarch64.so.1) would be gone
for d in "${hdrs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -x --keep-directory-symlink -C "$root"; done
[ -L "$root/lib" ] || { echo "FAIL: $root/lib is no longer the merged-/usr symlink"; exit 1; }
root_dpkg_status "$root" "${rdebs[@]}" "${hdrs[@]}"
dpkg --root="$root" --add-architecture arm64
if dpkg --root="$root" --force-bad-path -i "$dev" "$tools" >"$out/dpkg.log" 2>&1; then
	echo "ok   arm64 rdma-core $rel ($suite): dpkg --root -i both, $(dpkg --root="$root" -L libverbshim-dev:arm64 | grep -c .) files;" \
		"$(dpkg --root="$root" -s libverbshim-dev:arm64 | grep -E '^(Status|Architecture):' | tr '\n' ' ')"
else
	cat "$out/dpkg.log"
	echo "FAIL: dpkg -i in the arm64 rdma-core $rel root"
	exit 1
fi

# 5. built against the installed files, the root as sysroot
proj=$out/src
# shellcheck source=lib/deb_user.bash
. test/shell/lib/deb_user.bash
deb_user_project "$proj"
# A cross toolchain file as a user would write one: the root is the sysroot,
# packages and libraries come from it alone.
cat >"$proj/aarch64.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER $triplet-gcc)
set(CMAKE_CXX_COMPILER $triplet-g++)
set(CMAKE_SYSROOT $repo/$root)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
sysroot=$repo/$root
if (
	set -e
	cd "$proj"
	export PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_LIBDIR=$sysroot/usr/lib/$triplet/pkgconfig:$sysroot/usr/share/pkgconfig
	echo "pkg-config: $(pkg-config --static --cflags --libs verbshim)"
	# shellcheck disable=SC2046 # (flags)
	$triplet-gcc --sysroot="$sysroot" -std=c11 -D_GNU_SOURCE -I. -o "$repo/$out/bin/loopback" loopback.c common/ex_common.c \
		$(pkg-config --static --cflags --libs verbshim)
	cmake -S cmake -B cmake/build -DCMAKE_TOOLCHAIN_FILE="$PWD/aarch64.cmake" \
		-DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
	cmake --build cmake/build
	cp cmake/build/cxx_loopback "$repo/$out/bin/"
	# (the compat directory's linker scripts name /usr/lib/TRIPLET/libverbshim.a:
	# ld looks for it in the sysroot, as the script is in there)
	$triplet-gcc --sysroot="$sysroot" -o "$repo/$out/bin/verbs_loopback" verbs_loopback.c \
		-I"$sysroot/usr/lib/$triplet/verbshim/compat/include" -L"$sysroot/usr/lib/$triplet/verbshim/compat" -libverbs -lrdmacm
) >"$out/build.log" 2>&1; then
	grep -E '^pkg-config:|verbshim [0-9.]* from' "$out/build.log" | sed 's/^/     /'
	echo "ok   built against the installed arm64 files: $(cd "$out/bin" && echo *)"
else
	tail -n 30 "$out/build.log"
	echo "FAIL: building against the arm64 packages"
	exit 1
fi
grep -q -- "-- verbshim $version from $sysroot/usr/lib/$triplet/cmake/verbshim" "$out/build.log" ||
	{ echo "FAIL: find_package did not take the packaged CMake package"; status=1; }
for b in "$out"/bin/*; do
	[ "$(arch_of "$b")" = AArch64 ] || { echo "FAIL: ${b##*/} is not AArch64"; status=1; }
	readelf -d "$b" | grep -E 'NEEDED.*lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so' >/dev/null &&
		{ echo "FAIL: ${b##*/} needs rdma-core"; status=1; }
done
[ $status -eq 0 ] || exit 1

# 6. under qemu-user in the root (rdma-core 44.0; no RDMA device, nor the
# kernel's /sys/class/infiniband_verbs: libibverbs' device list fails with
# ENOSYS).  The packaged verbshim-info names the libibverbs it loaded from
# the root and finds no device (exit 2); each program built against the
# package gets the root's libibverbs' verdict through the shim and says
# so and exits 77 (the typed loopback: its error record, the last line).
rc=0
qemu-aarch64 -L "$root" "$root/usr/bin/verbshim-info" >"$out/qemu-verbshim-info.log" 2>&1 || rc=$?
# (44.0's libibverbs: version node IBVERBS_1.14, provider ABI 34)
if [ $rc -eq 2 ] && grep -q '^ *libibverbs */lib/aarch64-linux-gnu/libibverbs\.so\.1$' "$out/qemu-verbshim-info.log" &&
	grep -q '^ *version node: *IBVERBS_1\.14 ' "$out/qemu-verbshim-info.log" &&
	grep -q '^ *provider ABI: *34 ' "$out/qemu-verbshim-info.log"; then
	echo "ok   qemu-aarch64 verbshim-info (packaged): exit 2 (no device); loaded$(grep -m1 'libibverbs\.so\.1' "$out/qemu-verbshim-info.log" | tr -s ' '):" \
		"$(grep -m1 'version node:' "$out/qemu-verbshim-info.log" | tr -s ' ' | sed 's/^ //'), $(grep -m1 'provider ABI:' "$out/qemu-verbshim-info.log" | tr -s ' ' | sed 's/^ //')"
else
	cat "$out/qemu-verbshim-info.log"
	echo "FAIL: qemu-aarch64 verbshim-info: exit $rc (2 expected, the root's libibverbs.so.1: IBVERBS_1.14, provider ABI 34)"
	status=1
fi
for want in "loopback 77 ^vs_device_open failed: vs_device_open: ibv_get_device_list: Function not implemented: cannot list RDMA devices" \
	"cxx_loopback 77 ^no RDMA device here: Function not implemented$" \
	"verbs_loopback 77 ^no RDMA device: Function not implemented$"; do
	read -r b code line <<<"$want"
	rc=0
	qemu-aarch64 -L "$root" "$out/bin/$b" >"$out/qemu-$b.log" 2>&1 || rc=$?
	if [ $rc -eq "$code" ] && grep -qE "$line" "$out/qemu-$b.log"; then
		echo "ok   qemu-aarch64 $b: exit $rc: $(grep -m1 -E "$line" "$out/qemu-$b.log")"
	else
		cat "$out/qemu-$b.log"
		echo "FAIL: qemu-aarch64 $b: exit $rc ($code and a line '$line' expected)"
		status=1
	fi
done
[ $status -eq 0 ] || exit 1

# 7. on rxe0 in the arm64 guest
scripts/vm-run.sh --arch arm64 --rdma-core $rel --timeout "${VS_ARM64_TIMEOUT:-1200}" -- test/shell/deb_arm64.sh --runs
