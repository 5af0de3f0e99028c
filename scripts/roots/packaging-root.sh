#!/usr/bin/env bash
# A whole Debian distribution as a root, made (once) from Debian's packages
# with the project's own apt, like the release roots, for the real tools
# that need more than a release root's busybox:
#   --for packaging (the default): Debian trixie (or sid) with debhelper,
#     dh-dlopenlibdeps, systemd (systemd-analyze dlopen-metadata), gcc and
#     the rdma-core runtime libraries: the real readers of verbshim's ELF
#     dlopen notes (test/shell/dlopen_tools.sh, make check-dlopen);
#   --for pyverbs: a suite's own compiler, CMake, Python, Cython, rdma-core
#     (-dev and runtime) and ip(8): rdma-core's pyverbs built and its tests
#     run in the release's own distribution (scripts/conformance.sh: trixie
#     for 56.1, sid for 65.0).
#
#   scripts/roots/packaging-root.sh [--rebuild] [--for SET] [--suite SUITE]
#                                    prints the root dir
#   scripts/roots/packaging-root.sh [...] [--bind DIR]... -- CMD
#                                    runs CMD in it (needs root), cwd the
#                                    first DIR (bound read-write), else /tmp
#   scripts/roots/packaging-root.sh --arch arm64 [...]
#                                    the arm64 packages' root (-arm64): a
#                                    sysroot to cross-build in, a root for
#                                    the arm64 guest (no CMD: its programs
#                                    run under qemu-aarch64 only)
#
# The package list is apt's closure of the few named below in that suite
# (scripts/roots/apt-fetch.sh --closure), recorded in ROOT/.verbshim-root: too
# large to write by hand, and only this suite's packages are taken.  The
# root lives in ${VERBSHIM_CACHE:-.cache}/roots/SET-SUITE-RECIPE.
set -euo pipefail
me=packaging-root
die() { echo "$me.sh: error: $*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${VERBSHIM_CACHE:-$repo/.cache}
suite=trixie rebuild=0 binds=() set=packaging arch=amd64
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=1; shift ;;
	--suite) suite=${2:-}; shift 2 ;;
	--for) set=${2:-}; shift 2 ;;
	--arch) arch=${2:-}; shift 2 ;;
	--bind) [ -d "${2:-}" ] || die "--bind ${2:-}: not a directory"
		binds+=("$(cd "$2" && pwd -P)"); shift 2 ;;
	--) shift; [ $# -gt 0 ] || die "nothing to run after --"; break ;;
	*) echo "usage: $me.sh [--rebuild] [--for packaging|pyverbs] [--suite SUITE] [--bind DIR]... [-- CMD...]" >&2; exit 2 ;;
	esac
done
case $set:$suite in
packaging:trixie | packaging:sid) ;;
packaging:*) die "--suite $suite: trixie or sid (dh-dlopenlibdeps)" ;;
pyverbs:bookworm | pyverbs:trixie | pyverbs:sid) ;;
pyverbs:*) die "--suite $suite: bookworm, trixie or sid (bullseye's is scripts/build-root.sh's)" ;;
*) die "--for $set: packaging or pyverbs" ;;
esac
case $arch in amd64 | arm64) ;; *) die "--arch $arch: amd64 or arm64" ;; esac
[ $arch = amd64 ] || [ $# -eq 0 ] || die "-- CMD: an arm64 root's programs do not run here"
export ROOT_ARCH=$arch

# shellcheck source=scripts/roots/root.bash
. "$repo/scripts/roots/root.bash"
# shellcheck source=scripts/roots/dpkg-status.bash
. "$repo/scripts/roots/dpkg-status.bash"
mkdir -p "$cache/roots"

# What a packager has: debhelper with dh-dlopenlibdeps, systemd (and
# elfutils' libdw and libelf, which systemd-analyze dlopens to read ELF
# files: only recommended, so not in the closure), a C compiler, the
# Essential tools debhelper's scripts call, and the rdma-core libraries
# whose packages dh-dlopenlibdeps must find (dpkg -S).
essential="bash coreutils dash diffutils findutils grep gzip sed tar mawk xz-utils
util-linux base-files base-passwd debianutils libc-bin perl-base"
wanted="debhelper dh-dlopenlibdeps systemd libdw1t64 libelf1t64 gcc libc6-dev dpkg-dev make
$essential libibverbs1 librdmacm1t64 ibverbs-providers libibumad3"
tools="dpkg-buildpackage dh dh_dlopenlibdeps"
summarized="debhelper systemd dh-dlopenlibdeps"
# What rdma-core's CMake needs to configure and build pyverbs (libnl,
# libudev; -dev packages of libibverbs and librdmacm for the stock link,
# with libmlx5.so and libefa.so), what its tests run (ip -j addr show).
if [ "$set" = pyverbs ]; then
	wanted="gcc libc6-dev make cmake ninja-build pkg-config binutils python3 python3-dev cython3
libnl-3-dev libnl-route-3-dev libudev-dev libibverbs-dev librdmacm-dev ibverbs-providers
iproute2 $essential"
	tools="cmake ninja cython3 ip"
	summarized="libibverbs1 python3 cython3 gcc"
fi

# summary ROOT: the versions of the packages the root is for
summary() {
	local p out=
	for p in $summarized; do
		out+="$p $(dpkg-query --admindir="$1/var/lib/dpkg" -W -f '${Version}' "$p" 2>/dev/null || echo ?), "
	done
	echo "${out%, }"
}

build_root() {
	local tmp pkgs debs
	mapfile -t pkgs < <("$repo/scripts/roots/apt-fetch.sh" --arch $arch --closure "$suite" $wanted)
	[ ${#pkgs[@]} -gt 50 ] || die "resolving the $suite packages failed (see above)"
	mapfile -t debs < <("$repo/scripts/roots/apt-fetch.sh" --arch $arch "$suite" "${pkgs[@]}")
	[ ${#debs[@]} -eq ${#pkgs[@]} ] || die "fetching packages failed (see above)"
	echo "$me: building the $suite $set root (${#debs[@]} packages)" >&2
	tmp=$root.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	root_unpack "$tmp" "${debs[@]}" || die "unpacking failed"
	# What maintainer scripts and alternatives would make.
	ln -sfn dash "$tmp/usr/bin/sh"
	ln -sfn mawk "$tmp/usr/bin/awk"
	[ -e "$tmp/usr/bin/cc" ] || ln -sfn gcc "$tmp/usr/bin/cc"
	mkdir -p "$tmp/etc" "$tmp/tmp" "$tmp/proc" "$tmp/dev" "$tmp/sys"
	# (systemd-analyze finds libsystemd-core through its RUNPATH: run below)
	root_check_loads "$tmp" usr/bin/gcc usr/bin/perl usr/bin/python3 ||
		die "broken root"
	for f in $tools; do
		[ -e "$tmp/usr/bin/$f" ] || [ -e "$tmp/usr/sbin/$f" ] || die "broken root: no usr/bin/$f"
	done
	root_dpkg_status "$tmp" "${debs[@]}"
	root_install "$tmp" "$root" "$recipe" \
		"$suite $set root: $(summary "$tmp")" \
		"${debs[@]}"
	echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
}

# The recipe: what makes the root (this script up to the RUN line below,
# and the libraries it uses), not how commands run in it.
recipe=$(sed '/^# ---- RUN/q' "$0" | cat - "$repo/scripts/roots/root.bash" "$repo/scripts/roots/dpkg-status.bash" |
	sha256sum | cut -c1-16)
root=$cache/roots/$set-$suite$([ $arch = amd64 ] || echo -$arch)-$recipe
(
	exec 9>"$cache/roots/.lock-$set-$suite-$arch"
	flock 9
	if [ $rebuild -eq 1 ] || [ "$(tail -n 1 "$root/.verbshim-root" 2>/dev/null)" != "recipe $recipe" ]; then
		build_root
	fi
)
# ---- RUN: how commands run in the root (not part of the recipe)
if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi

# shellcheck source=scripts/roots/run.bash
. "$repo/scripts/roots/run.bash"
bind_args=()
for d in "${binds[@]}"; do bind_args+=(--bind "$d"); done
root_run "${bind_args[@]}" --env LC_ALL=C.UTF-8 --cwd "${binds[0]:-/tmp}" "$root" -- "$@"
