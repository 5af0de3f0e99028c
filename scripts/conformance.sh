#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# `make check-conformance`: rdma-core's own test suite (pyverbs and tests/,
# as its run_tests.py runs them) as verbshim's conformance suite.  For a
# release, its own pyverbs is built from its release source with its own
# CMake, and its modules are linked twice from the same objects: stock
# (-libverbs -lrdmacm -lmlx5 -lefa) and through verbshim's compat
# directory (the same line, no rdma-core NEEDED: readelf -d).  In the VM,
# on a soft device whose netdev is a virtio NIC (the rdmacm tests look for
# /sys/class/infiniband/DEV/device/net/, which a dummy netdev lacks), the
# suite runs once each way; every test's verdict and skip reason are
# compared.  Fails on any test that differs; ends with "N passed, N
# failed, N skipped" (the verbshim run's) and how many verdicts differ.
#
#   scripts/conformance.sh [--release VER] [--provider rxe|siw]
#   scripts/conformance.sh --release VER --on-host DEV
#                          no VM: both runs on this machine's device DEV
#                          (mlx5_0, efa0: the tests that skip on soft devices)
#   scripts/conformance.sh --release VER --build-only
#   scripts/conformance.sh --guest VER DEV    (in the VM: both runs, compared)
#   scripts/conformance.sh --both DIR DEV     (DIR/src/tests with DIR/stock's
#                          and DIR/shim's pyverbs, compared: --guest's core,
#                          test/shell/conformance_runner.sh runs it on fakes)
#
# scripts/conformance/arm64.sh (make check-conformance ARCH=arm64) builds
# and runs the same for arm64 through --build-here and --guest, with
# VS_CONFORMANCE_OUT (build/arm64/conformance), VS_CONFORMANCE_BUILD
# (verbshim's build: build/arm64), CMAKE_TOOLCHAIN_FILE (cmake reads it),
# NM, and VS_CONFORMANCE_TESTS (run_tests.py's test names: a subset).
#
# VER: 28.0 32.0 33.2 39.0 44.0 56.1 65.0 (default: each; 17.1 and 22.4
# have no tests/ suite: skipped, saying so).  The sources are the release
# archives beside the checkout (../shared/sources/rdma-core-VER.tar.gz;
# 64.0's for 65.0, the nearest at hand); a release without its archive is
# skipped, saying so (77 when nothing ran).  A release's pyverbs is built
# with the Python of that release's distribution: today only 44.0, whose
# distribution (Debian 12) is the host's and whose packages the VM's
# host root has (checked: libibverbs1 44.0); 33.2 in the Debian 11 build
# root; 56.1 and 65.0 in their distributions' roots; the releases built
# from their tags (28.0, 32.0, 39.0: scripts/rdma-core-releases.sh source)
# in the Debian 11 build root they were built in, the stock modules linked
# with the release's own libraries (its root's build tree), run chrooted
# into the release root with bullseye's Python beside (docs/conformance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
me=conformance.sh
out=${VS_CONFORMANCE_OUT:-$repo/build/conformance}
# verbshim's build whose archive the shim link takes (Makefile's BUILD)
vsbuild=${VS_CONFORMANCE_BUILD:-build}
vslib=$repo/$vsbuild
[ "$vsbuild" != build ] || vslib=$repo/lib
rdma_core='lib(ibverbs|rdmacm|mlx5|mlx4|ibumad|efa)\.so'
# shellcheck source=conformance/common.bash
. scripts/conformance/common.bash

# from_source VER: a release built from its upstream tag
from_source() { [[ " $(scripts/rdma-core-releases.sh source) " == *" $1 "* ]]; }

# sysfs_device DEV: give DEV the sysfs `device` link that a NIC-backed
# RDMA device has, pointing at its netdev's own device (virtio0, which has
# net/eth0): the tests look for DEV/device/net/ (tests/base.py), and rxe and
# siw have no parent device (kernels 6.1 and 6.12).  DEV's directory is
# bound over by one that holds symlinks to every real entry, and that link.
sysfs_device() {
	local dev=$1 real view netdev e
	[ ! -e "/sys/class/infiniband/$dev/device" ] || return 0
	# rxe has a `parent` file; siw has not, rdma(8) names both
	netdev=$(cat "/sys/class/infiniband/$dev/parent" 2>/dev/null ||
		rdma link show "$dev/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	[ -e "/sys/class/net/$netdev/device/net/$netdev" ] ||
		{ echo "$dev: its netdev '$netdev' has no device: the rdmacm tests will skip"; return 0; }
	real=$(readlink -f "/sys/class/infiniband/$dev")
	view=$(mktemp -d)
	mkdir "$view/real" "$view/view"
	mount --bind "$real" "$view/real"
	for e in "$view"/real/*; do
		ln -s "$e" "$view/view/"
	done
	ln -s "$(readlink -f "/sys/class/net/$netdev/device")" "$view/view/device"
	mount --bind "$view/view" "$real"
	echo "$dev: device -> $(readlink "/sys/class/infiniband/$dev/device") (net/$(ls "/sys/class/infiniband/$dev/device/net"))"
}

# The rdma-core tests' names and verdicts, both ways, compared.
guest() {
	local ver=$1 dir=$out/$1 root=${3:-}
	[ -z "${VERBSHIM_IN_VM:-}" ] || sysfs_device "$2"
	if [ -n "$root" ]; then	# the release's own root, with its Python
		# (a release built from its tag: its root has no Python, bullseye's
		# python3.9 comes in rt, as newest.sh's does)
		run_in_root "$root" "$dir/rt/usr/bin:$dir/rt/bin:$dir/rt/sbin" "$dir/rt" \
			VS_CONFORMANCE_PYTHON="$(if from_source "$ver"; then echo python3.9; else echo /usr/bin/python3; fi)" -- \
			scripts/conformance.sh --guest "$ver" "$2"
	fi
	both "$dir" "$2"
}

# both DIR DEV: DIR/src/tests run with DIR/stock's pyverbs, then with
# DIR/shim's, on DEV; the verdicts compared
both() {
	local dir=$1 way t0
	for way in stock shim; do
		echo "== rdma-core $(basename "$dir") tests, pyverbs linked $way, on $2"
		t0=$SECONDS
		# shellcheck disable=SC2086 # (run_tests.py's test names: words)
		suite "$dir" "$way" --dev "$2" ${VS_CONFORMANCE_TESTS:-}
		echo "   $(tail -n 3 "$dir/$way.log" | tr '\n' ' ')($((SECONDS - t0)) s)"
	done
	compare "$dir"
}

# suite DIR WAY ARGS...: the tests with DIR/WAY's pyverbs; a test that
# kills the interpreter is recorded as a crash (its signal) and the rest
# run on (conformance/run.py resumes after the tests already recorded).
# VS_CONFORMANCE_PYTHON: another interpreter (conformance/newest.sh's).
suite() {
	local dir=$1 way=$2 v=$1/$2.verdicts rc
	shift 2
	rm -f "$v" "$v.current" "$dir/$way.log"
	while :; do
		rc=0
		PYTHONPATH=$dir/$way/python "${VS_CONFORMANCE_PYTHON:-/usr/bin/python3}" scripts/conformance/run.py \
			"$dir/src/tests" "$v" "$@" >>"$dir/$way.log" 2>&1 || rc=$?
		[ $rc -gt 128 ] && [ -s "$v.current" ] || break
		printf '%s\tcrash\tkilled by signal %d\n' "$(cat "$v.current")" $((rc - 128)) | tee -a "$v"
		rm -f "$v.current"
	done
}

# compare DIR: the verdict lines of DIR/stock.verdicts and DIR/shim.verdicts
compare() {
	local dir=$1 differ
	sort "$dir/stock.verdicts" >"$dir/stock.sorted"
	sort "$dir/shim.verdicts" >"$dir/shim.sorted"
	differ=$(diff "$dir/stock.sorted" "$dir/shim.sorted" | grep -c '^[<>]' || true)
	if [ "$differ" -ne 0 ]; then
		echo "differences (< stock, > verbshim):"
		diff "$dir/stock.sorted" "$dir/shim.sorted" | grep '^[<>]' | head -50 || true	# (diff's 1)
	fi
	[ -s "$dir/stock.sorted" ] || { echo "no verdicts: the stock run did not start (see $dir/stock.log)"; differ=1; }
	echo "stock: $(awk -F'\t' '{print $2}' "$dir/stock.sorted" | sort | uniq -c | tr -s ' \n' ' ')"
	echo "$(counts "$dir/shim.sorted"); $differ verdicts differ from stock"
	[ "$differ" -eq 0 ]
}

# counts VERDICTS: "N passed, N failed, N skipped" (a crash is a failure)
counts() {
	awk -F'\t' '$2 == "pass" || $2 == "xfail" {p++}
		$2 == "fail" || $2 == "error" || $2 == "xpass" || $2 == "crash" {f++}
		$2 == "skip" {s++}
		END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$1"
}

case ${1:-} in
--guest) guest "$2" "$3" "${4:-}"; exit ;;
--both)
	[ -d "${2:-}/src/tests" ] && [ -n "${3:-}" ] ||
		{ echo "$me: --both DIR DEV: DIR/src/tests and a device name" >&2; exit 2; }
	both "$2" "$3"; exit ;;
--counts) counts "$2"; exit ;;	# (scripts/conformance/newest.sh's summary)
# (scripts/conformance/newest.sh's guest: before it chroots, and in the root)
--sysfs-device) sysfs_device "$2"; exit ;;
--suite) shift; suite "$@"; exit ;;
esac

releases="$(scripts/rdma-core-releases.sh source | sed 's/^17.1 22.4 //') $(scripts/rdma-core-releases.sh debian)" provider=rxe onhost='' buildonly=0 here=''
while [ $# -gt 0 ]; do
	case $1 in
	--release) releases=$2; shift 2 ;;
	--provider) provider=$2; shift 2 ;;
	--on-host) onhost=$2; shift 2 ;;
	--build-only) buildonly=1; shift ;;
	--build-here) here=$2; shift 2 ;;	# (inside a root: build_here)
	*) echo "usage: $me [--release VER] [--provider rxe|siw] [--on-host DEV] [--build-only]" >&2; exit 2 ;;
	esac
done
case $provider in rxe | siw) ;; *) echo "$me: --provider $provider: rxe or siw" >&2; exit 2 ;; esac
[ -f "$vslib/libverbshim.a" ] || { echo "$me: no $vslib/libverbshim.a: run make" >&2; exit 1; }
shared=$(dirname "$repo")/shared/sources

# build VER: the release's pyverbs objects, linked stock and through the
# compat directory, in $out/VER/{stock,shim}/python.
# What bullseye's root lacks to build and to run pyverbs: py_bullseye and
# ip_bullseye (scripts/conformance/common.bash).

build() {
	local ver=$1 srcver=$1 dir=$out/$1 tarball
	[ "$ver" = 65.0 ] && srcver=64.0
	tarball=$shared/rdma-core-$srcver.tar.gz
	if [ ! -f "$tarball" ]; then
		echo "skip $ver: no $tarball (the release archives beside the checkout: ../shared/sources/README.md)"
		return 77
	fi
	mkdir -p "$dir"
	unpack_release "$tarball" "$dir"
	case $ver in
	44.0)
		local have
		have=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null || true)
		case $have in
		44.0-*) ;;
		*) echo "skip $ver: the host's libibverbs1 is '$have', not 44.0: the VM's host root is not that release"; return 77 ;;
		esac
		build_here "$ver" ;;
	33.2)
		# The Debian 11 build root is 33.2's distribution (bullseye's
		# rdma-core 33.2 and glibc): with bullseye's Cython and
		# python3.9-dev in an overlay, it builds; the guest runs the
		# suite chrooted into it, with bullseye's ip(8) beside.
		local debs d
		mapfile -t debs < <(scripts/roots/apt-fetch.sh bullseye "${py_bullseye[@]}" "${ip_bullseye[@]}")
		[ ${#debs[@]} -eq $((${#py_bullseye[@]} + ${#ip_bullseye[@]})) ] || { echo "$me: fetching bullseye packages failed" >&2; return 1; }
		rm -rf "$dir/debs" "$dir/rt" && mkdir -p "$dir/debs" "$dir/rt"
		# Into the overlay only what installs under /usr (a deb of /lib or
		# /bin unpacked there would replace merged-usr's symlinks).
		cp "${debs[@]:0:$((${#py_bullseye[@]} + 1))}" "$dir/debs/"
		for d in "${debs[@]:${#py_bullseye[@]}}"; do dpkg-deb -x "$d" "$dir/rt"; done
		scripts/build-root.sh --overlay "$dir/overlay" -- bash -c \
			'for d in "$1"/debs/*.deb; do dpkg-deb -x "$d" /; done; exec scripts/conformance.sh --build-here "$2"' - "$dir" "$ver" ;;
	17.1 | 22.4 | 28.0 | 32.0 | 39.0)
		# Built from its tag in the Debian 11 build root (its objects
		# there, ROOT.build/b, its libraries there in lib/): pyverbs too,
		# with bullseye's Cython and python3.9-dev in an overlay; the stock
		# modules link the release's libraries (VS_CONFORMANCE_STOCK_LIBDIR,
		# the build tree's lib/: -libverbs there is the release's), and the
		# guest runs the suite chrooted into the release root, bullseye's
		# python3.9 and ip(8) beside in rt (py_run, as newest.sh's).
		local root debs d
		if [ ! -f "$dir/src/tests/run_tests.py" ]; then
			echo "skip $ver: rdma-core $ver has no tests/run_tests.py (pyverbs' suite: 28.0 and later here)"
			return 77
		fi
		root=$(scripts/rdma-core-root.sh "$ver") || return 1
		[ -d "$root.build/b/lib" ] || { echo "$me: no $root.build/b/lib: the $ver root's build tree is gone (scripts/rdma-core-root.sh --rebuild $ver)" >&2; return 1; }
		mapfile -t debs < <(scripts/roots/apt-fetch.sh bullseye "${py_bullseye[@]}" "${py_run[@]}")
		[ ${#debs[@]} -eq $((${#py_bullseye[@]} + ${#py_run[@]})) ] || { echo "$me: fetching bullseye packages failed" >&2; return 1; }
		rm -rf "$dir/debs" "$dir/rt" && mkdir -p "$dir/debs" "$dir/rt"
		# libpython3.9 too (newest.sh: else CMake links libpython3.9.a)
		cp "${debs[@]:0:${#py_bullseye[@]}}" "$(printf '%s\n' "${debs[@]}" | grep /libpython3.9_)" "$dir/debs/"
		for d in "${debs[@]:${#py_bullseye[@]}}"; do dpkg-deb -x "$d" "$dir/rt"; done
		scripts/build-root.sh --overlay "$dir/overlay" --bind "$root.build" -- bash -c \
			'cd "$3" && for d in "$1"/debs/*.deb; do dpkg-deb -x "$d" /; done
			exec env VS_CONFORMANCE_STOCK_LIBDIR="$4" scripts/conformance.sh --build-here "$2"' \
			- "$dir" "$ver" "$repo" "$root.build/b/lib" ;;
	56.1 | 65.0)
		# Their distributions' own roots (trixie: 56.1-1; sid: 65.0-1.1),
		# with gcc, CMake, Python, Cython and rdma-core's -dev packages.
		local root
		root=$(pyverbs_root "$ver") || return 1
		scripts/roots/packaging-root.sh --for pyverbs --suite "$(suite_of "$ver")" --bind "$repo" -- \
			scripts/conformance.sh --build-here "$ver" ;;
	*)
		echo "$me: --release $ver: one of $(scripts/rdma-core-releases.sh)" >&2
		return 1 ;;
	esac
}

suite_of() { case $1 in 56.1) echo trixie ;; 65.0) echo sid ;; esac; }

# pyverbs_root VER: the root of VER's distribution, checked to hold VER
pyverbs_root() {
	local root have
	root=$(scripts/roots/packaging-root.sh --for pyverbs --suite "$(suite_of "$1")") || return 1
	have=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' libibverbs1)
	case $have in
	"$1"-*) echo "$root" ;;
	*) echo "$me: the $(suite_of "$1") root's libibverbs1 is $have, not $1 (the suite moved on)" >&2; return 1 ;;
	esac
}

# build_here VER: cmake, the objects, the two links, with this machine's
# (or this root's) compiler, Python and rdma-core.
# VS_CONFORMANCE_WAYS: "stock shim" (the default), or "shim" alone
# (scripts/conformance/newest.sh: no stock rdma-core of that release).
build_here() {
	local ver=$1 dir=$out/$1 mods m objs link way lp
	local ways=${VS_CONFORMANCE_WAYS:-stock shim}
	command -v cython3 >/dev/null || { echo "$me: no cython3 (scripts/deps.sh)" >&2; return 1; }
	if [ ! -f "$dir/b/build.ninja" ]; then
		cmake -GNinja -S "$dir/src" -B "$dir/b" -DNO_MAN_PAGES=1 -DCMAKE_BUILD_TYPE=Release \
			-DCYTHON_EXECUTABLE="$(command -v cython3)" -DPYTHON_EXECUTABLE=/usr/bin/python3 \
			>"$dir/cmake.log" 2>&1 || { tail "$dir/cmake.log"; return 1; }
	fi
	mapfile -t mods < <(ninja -C "$dir/b" -t targets all | awk -F: '/^python\/pyverbs\/.*\.so:/ {print $1}')
	[ ${#mods[@]} -gt 10 ] || { echo "$me: pyverbs is not configured (see $dir/cmake.log)" >&2; return 1; }
	# Only the modules' objects and rdma-core's static helpers (ccan,
	# util) they link: not rdma-core's libraries.
	objs=()
	for m in "${mods[@]}"; do
		mapfile -t -O ${#objs[@]} objs < <(ninja -C "$dir/b" -t query "$m" |
			awk '/^  input:/ {on = 1; next} /^  outputs:/ {on = 0} on && /(\.o|_pic\.a)$/ {print $NF}')
	done
	mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
	ninja -C "$dir/b" -j"$(nproc)" "${objs[@]}" >"$dir/ninja.log" 2>&1 || { tail "$dir/ninja.log"; return 1; }

	rm -rf "$dir/compat" && mkdir -p "$dir/compat"
	scripts/build/compat-dir.sh --libdir "$vslib" "$repo" "$vsbuild/gen/vs_config.h" "$dir/compat" >/dev/null
	for way in $ways; do
		rm -rf "${dir:?}/$way" && mkdir -p "$dir/$way"
		cp -rL "$dir/b/python" "$dir/$way/python"
		find "$dir/$way/python" -name '*.so' -delete
	done
	for m in "${mods[@]}"; do
		# rdma-core's own link line, less its in-tree libraries and rpath.
		link=$(ninja -C "$dir/b" -t commands "$m" | tail -n 1 | sed 's/^: && //; s/ && :$//')
		link=$(sed -E 's# -Wl,-rpath,[^ ]*##g; s# ([^ ]*/)?lib/lib(ibverbs|rdmacm|mlx5|efa)\.so[^ ]*##g; s# -o [^ ]*# -o @OUT@#' <<<"$link")
		for way in $ways; do
			lp=
			[ $way = shim ] && lp="-L$dir/compat"
			# a release built from its tag: its own libraries, not the
			# build root's (33.2's)
			[ $way = stock ] && [ -n "${VS_CONFORMANCE_STOCK_LIBDIR:-}" ] && lp="-L$VS_CONFORMANCE_STOCK_LIBDIR"
			(cd "$dir/b" && eval "${link/@OUT@/$dir/$way/$m}" "$lp" -libverbs -lrdmacm -lmlx5 -lefa) ||
				{ echo "$me: linking $m $way failed" >&2; return 1; }
		done
		if readelf -d "$dir/shim/$m" | grep -E "NEEDED.*$rdma_core"; then
			echo "$me: $dir/shim/$m needs rdma-core" >&2
			return 1
		fi
	done
	[ -d "$dir/stock" ] || { echo "$ver: ${#mods[@]} pyverbs modules linked through verbshim only (no rdma-core NEEDED)"; return 0; }
	# What the stock modules take from libibverbs' private node.
	${NM:-nm} -D --undefined-only "$dir"/stock/python/pyverbs/*.so "$dir"/stock/python/pyverbs/providers/*/*.so |
		awk '/@IBVERBS_PRIVATE/ {print $2}' | sort -u >"$dir/private.txt"
	echo "$ver: ${#mods[@]} pyverbs modules linked stock and through verbshim (no rdma-core NEEDED);" \
		"private symbols they use: $(tr '\n' ' ' <"$dir/private.txt")"
}

if [ -n "$here" ]; then
	build_here "$here"
	exit
fi
status=0 ran=0 p=0 f=0 s=0 d=0
for ver in $releases; do
	rc=0
	build "$ver" || rc=$?
	[ $rc -eq 77 ] && continue
	[ $rc -eq 0 ] || { status=1; continue; }
	[ $buildonly -eq 0 ] || { ran=$((ran + 1)); continue; }
	log=$out/$ver/${onhost:-vm-$provider}.log
	t0=$SECONDS
	rc=0
	if [ -n "$onhost" ]; then
		guest "$ver" "$onhost" 2>&1 | tee "$log" || rc=$?
	else
	# A virtio NIC with no peer (a UDP socket nobody listens on): rxe/siw
	# loop back to themselves, and the device has a `device/net` link.
	port=$((20000 + RANDOM % 20000))
	root=
	case $ver in
	33.2) root=$(scripts/build-root.sh) ;;
	56.1 | 65.0) root=$(pyverbs_root "$ver") ;;
	*) ! from_source "$ver" || root=$(scripts/rdma-core-root.sh "$ver") ;;
	esac
	[ -z "$root" ] || mkdir -p "$root$repo"	# the mount point, as the roots' own runners make it
	scripts/vm-run.sh --provider "$provider" --netdev-socket "udp:$port:$((port + 1))" \
		--timeout "${VS_CONFORMANCE_TIMEOUT:-7200}" \
		-- bash -c 'exec scripts/conformance.sh --guest "$1" "$VS_RXE_DEV" "$2"' - "$ver" "$root" 2>&1 | tee "$log" || rc=$?
	fi
	echo "rdma-core $ver on ${onhost:-$provider}: $((SECONDS - t0)) s${onhost:- in the VM}"
	[ $rc -eq 0 ] || status=1
	ran=$((ran + 1))
	line=$(grep -oE '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped; [0-9]+ verdicts differ' "$log" | tail -n 1) ||
		{ status=1; continue; }
	read -r a _ b _ c _ e _ <<<"${line//[,;]/}"
	p=$((p + a)) f=$((f + b)) s=$((s + c)) d=$((d + e))
done
[ $status -eq 0 ] || [ $ran -gt 0 ] || exit 1
[ $ran -gt 0 ] || { echo "skip: no release ran (see above)"; exit 77; }
[ $buildonly -eq 0 ] || exit $status
echo "$p passed, $f failed, $s skipped; $d verdicts differ between stock and verbshim"
exit $status
