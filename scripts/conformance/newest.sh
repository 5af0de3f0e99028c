#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# `make check-conformance NEWEST=1`: newest on oldest.  The newest pyverbs
# and tests/ at hand (rdma-core 64.0's release source) are built once, in
# the Debian 11 build root with bullseye's Python 3.9 and Cython, linked
# through verbshim only (the build root's libverbshim.a, made there against
# the pinned headers; `readelf -d`: no rdma-core NEEDED), and run in the VM
# on rxe chrooted into each release root (scripts/rdma-core-root.sh: that
# release's rdma-core, libnl and glibc, nothing else).  bullseye's python3.9
# and ip(8), with the libraries they need that a release root lacks, come
# along in build/conformance/newest/rt, used through PATH and
# LD_LIBRARY_PATH; none of them is an rdma-core or libnl library, and each
# run first prints the libibverbs, libnl and libc the loader mapped.
#
# Per runtime, in build/conformance/newest/on-VER/: the verdicts
# (shim.verdicts, by conformance.sh's suite: a test that kills the
# interpreter is recorded as a crash and the rest run on), the skips by
# reason, every test whose verdict or reason differs from 65.0's, the
# reference (vs65), and the functions a missing version node makes answer
# "not supported" (verbshim-info --binary under VERBSHIM_INFO_ROOT=the
# release root: absent).  A run fails on a crash or when no verdict was
# written; which tests fail and why is reported, not judged here
# (docs/conformance.md, "Newest on oldest").
#
#   scripts/conformance/newest.sh [--release "VER..."] [--provider rxe|siw] [--build-only]
#   scripts/conformance/newest.sh --no-build ...    run on the last build
#   scripts/conformance/newest.sh --guest VER DEV ROOT    (in the VM)
#
# VER: 33.2 44.0 56.1 65.0 (default: each; 65.0 runs first, the reference).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
me=conformance/newest.sh
src=64.0
dir=$repo/build/conformance/newest
oldest=build/oldest	# the build root's `make BUILD=` (Makefile: oldest)
# shellcheck source=common.bash
. scripts/conformance/common.bash

# What the build root lacks to build pyverbs (py_bullseye, as
# conformance.sh's 33.2) and a release root to run the suite (py_run):
# scripts/conformance/common.bash.
shadow='lib(ibverbs|rdmacm|mlx[45]|efa|ibumad|nl-[a-z-]*3|c|gcc_s|tinfo)\.so'

# In the VM: DEV's netdev visible (conformance.sh), then the suite chrooted
# into the release root ROOT, with rt beside.
guest() {
	local ver=$1 dev=$2 root=$3 rt=$dir/rt
	scripts/conformance.sh --sysfs-device "$dev"
	run_in_root "$root" "$rt/usr/bin:$rt/bin:$rt/sbin" "$rt" \
		PYTHONPATH="$dir/shim/python" VS_CONFORMANCE_SEED="${VS_CONFORMANCE_SEED:-1}" -- \
		scripts/conformance/newest.sh --in-root "$ver" "$dev"
}

# In the release root: what the loader mapped, then the suite, run by
# conformance.sh's suite (a test that kills the interpreter is recorded as
# a crash, and the rest run on) in on-VER/, whose src and shim are the
# build's.
in_root() {
	local ver=$1 dev=$2 run=$dir/on-$1 t0=$SECONDS
	echo "== rdma-core $src's pyverbs and tests through verbshim, on rdma-core $ver's runtime, $dev"
	python3.9 -c '
import sys
import pyverbs.device as d
import pyverbs.cmid as c
ctx = d.Context(name=sys.argv[1])
ch = c.CMEventChannel()
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l})
print("\n".join("   mapped: " + l for l in libs))
' "$dev" >"$run/maps" 2>&1 || true
	grep -E '/(libibverbs\.so|librdmacm|libnl|libc[.-]|librxe|libpython)|Error' "$run/maps" || true
	VS_CONFORMANCE_PYTHON=python3.9 scripts/conformance.sh --suite "$run" shim --dev "$dev"
	echo "   $((SECONDS - t0)) s: $(tail -n 3 "$run/shim.log" | tr '\n' ' ')"
}

# summary VER: counts, failures, skips by reason, crashes, and the
# differences from 65.0's verdicts.
summary() {
	local ver=$1 run=$dir/on-$1 v=$dir/on-$1/shim.verdicts ref=$dir/on-65.0/shim.verdicts
	local crashed
	[ -s "$v" ] || { echo "rdma-core $ver: no verdicts (see $run/shim.log)"; return 1; }
	crashed=$(awk -F'\t' '$2 == "crash"' "$v" | wc -l)
	echo "rdma-core $ver: $(scripts/conformance.sh --counts "$v"); $crashed crashed"
	awk -F'\t' '$2 == "fail" || $2 == "error" || $2 == "crash" {print "   " $2 ": " $1 ": " $3}' "$v"
	# The skips by reason, numbers folded (mlx5 and mlx4 alike).
	awk -F'\t' '$2 == "skip" {print $3}' "$v" | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn >"$run/skips"
	echo "   skips by reason: $run/skips ($(wc -l <"$run/skips") reasons)"
	if [ "$ver" != 65.0 ] && [ -s "$ref" ]; then
		# Each test whose verdict or reason differs: 65.0's, then VER's.
		LC_ALL=C join -t "$(printf '\t')" -a 1 -a 2 -e '-' -o 0,1.2,1.3,2.2,2.3 \
			<(LC_ALL=C sort "$ref") <(LC_ALL=C sort "$v") >"$run/joined"
		awk -F'\t' '$2 != $4 || $3 != $5 {print $1 ": 65.0 " $2 " [" $3 "], " v " " $4 " [" $5 "]"}' \
			v="$ver" "$run/joined" >"$run/vs65"
		echo "   $(awk -F'\t' '$2 != $4' "$run/joined" | wc -l) verdicts differ from 65.0's," \
			"$(wc -l <"$run/vs65") verdicts or reasons ($run/vs65)"
	fi
	# A crash, or a runner that stopped without a signal, fails the run.
	if [ "$crashed" -ne 0 ] || [ -e "$v.current" ]; then
		echo "   FAILED: a crash, or the runner stopped (see $run/shim.log)"
		return 1
	fi
}

# build: 64.0's pyverbs in an overlay of the build root, through verbshim.
build() {
	local tarball=$shared/rdma-core-$src.tar.gz debs d
	[ -f "$tarball" ] || { echo "skip: no $tarball (../shared/sources/README.md)"; return 77; }
	mkdir -p "$dir"
	unpack_release "$tarball" "$dir"
	mapfile -t debs < <(scripts/roots/apt-fetch.sh bullseye "${py_bullseye[@]}" "${py_run[@]}")
	[ ${#debs[@]} -eq $((${#py_bullseye[@]} + ${#py_run[@]})) ] || { echo "$me: fetching bullseye packages failed" >&2; return 1; }
	rm -rf "$dir/debs" "$dir/rt" && mkdir -p "$dir/debs" "$dir/rt"
	# libpython3.9 too: without it libpython3.9-dev's libpython3.9.so
	# dangles and CMake links the modules with the non-PIC libpython3.9.a.
	cp "${debs[@]:0:${#py_bullseye[@]}}" "$(printf '%s\n' "${debs[@]}" | grep /libpython3.9_)" "$dir/debs/"
	for d in "${debs[@]:${#py_bullseye[@]}}"; do dpkg-deb -x "$d" "$dir/rt"; done
	# The shim's archive built in the build root, on the pinned headers.
	scripts/build-root.sh -- make -s -j"$(nproc)" BUILD=$oldest lib >"$dir/lib.log" 2>&1 ||
		{ tail "$dir/lib.log"; return 1; }
	scripts/build-root.sh --overlay "$dir/overlay" -- bash -c \
		'for d in "$1"/debs/*.deb; do dpkg-deb -x "$d" /; done
		exec env VS_CONFORMANCE_WAYS=shim VS_CONFORMANCE_BUILD="$2" scripts/conformance.sh --build-here newest' \
		- "$dir" "$oldest" || return 1
	# Nothing the release runs may come from rt.
	if find "$dir/rt" -name '*.so*' | grep -E "/$shadow"; then
		echo "$me: rt would shadow the release's own library" >&2
		return 1
	fi
	# What pyverbs' objects call (rdma-core's functions among them).
	find "$dir/b/pyverbs" -name '*.o' -exec nm -u {} + | awk 'NF == 2 {print $2}' | sort -u >"$dir/called"
	echo "NEEDED of the modules: $(readelf -d "$dir"/shim/python/pyverbs/*.so "$dir"/shim/python/pyverbs/providers/*/*.so |
		sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | uniq -c | tr -s ' \n' ' ')"
}

# absent VER ROOT: the functions that answer "not supported" on the
# release (the version nodes its libraries lack: verbshim-info --binary
# reads the archive's ELF notes; every module that calls rdma-core links
# the same tables), and of those the ones 64.0's pyverbs calls (its
# objects' undefined symbols): VER.absent.
absent() {
	local ver=$1 root=$2 m f out=$dir/on-$1/absent
	for m in pyverbs/device pyverbs/cmid pyverbs/providers/mlx5/mlx5dv pyverbs/providers/efa/efadv; do
		# (2: something the archive was built with is missing there)
		VERBSHIM_INFO_ROOT=$root build/bin/verbshim-info --binary "$dir"/shim/python/$m.cpython-*.so || [ $? -eq 2 ]
	done | awk '/^lib[a-z0-9]*\.so/ {show = !seen[$1]++} show && /^(lib|  here|  not|    )/' >"$out"
	echo "called by $src's pyverbs, not supported on $ver:" >>"$out"
	for f in $(sed -n 's/^    [A-Z0-9_.]* (rdma-core [0-9]*)://p; s/^      //p' "$out"); do
		if grep -qx "$f" "$dir/called"; then echo "  $f"; fi
	done >>"$out"
}

case ${1:-} in
--guest) guest "$2" "$3" "$4"; exit ;;
--in-root) in_root "$2" "$3"; exit ;;
esac

releases="65.0 33.2 44.0 56.1" provider=rxe buildonly=0 nobuild=0
while [ $# -gt 0 ]; do
	case $1 in
	--release) releases=$2; shift 2 ;;
	--provider) provider=$2; shift 2 ;;
	--build-only) buildonly=1; shift ;;
	--no-build) nobuild=1; shift ;;
	*) echo "usage: $me [--release \"VER...\"] [--provider rxe|siw] [--build-only | --no-build]" >&2; exit 2 ;;
	esac
done
[ -x build/bin/verbshim-info ] || { echo "$me: no build/bin/verbshim-info: run make" >&2; exit 1; }
shared=$(dirname "$repo")/shared/sources
rc=0
if [ $nobuild -eq 0 ]; then
	build || rc=$?
else	# the last build's modules, as they are (another run may be using them)
	[ -s "$dir/called" ] || { echo "$me: --no-build: nothing built yet" >&2; rc=1; }
fi
[ $rc -eq 0 ] || exit $rc
[ $buildonly -eq 0 ] || exit 0
status=0
for ver in $releases; do
	root=$(scripts/rdma-core-root.sh "$ver")
	mkdir -p "$root$repo"	# the mount point of the repository
	rm -rf "$dir/on-$ver" && mkdir -p "$dir/on-$ver"
	ln -s ../src ../shim "$dir/on-$ver/"
	absent "$ver" "$root"
	port=$((20000 + RANDOM % 20000))
	t0=$SECONDS
	scripts/vm-run.sh --provider "$provider" --netdev-socket "udp:$port:$((port + 1))" \
		--timeout "${VS_CONFORMANCE_TIMEOUT:-7200}" \
		-- bash -c 'exec scripts/conformance/newest.sh --guest "$1" "$VS_RXE_DEV" "$2"' - "$ver" "$root" \
		2>&1 | tee "$dir/on-$ver/vm-$provider.log" || status=1
	echo "rdma-core $ver: $((SECONDS - t0)) s in the VM"
done
for ver in $releases; do
	summary "$ver" || status=1
done
exit $status
