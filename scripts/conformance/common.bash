# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # (the lists: the runners'; repo: theirs)
# What the conformance runners share (sourced by scripts/conformance.sh,
# scripts/conformance/newest.sh and scripts/conformance/arm64.sh, each
# with repo set): the bullseye package lists, the release archive's
# extraction, and the guest's run of a command chrooted into a release
# root.

# What the Debian 11 build root lacks to build pyverbs (conformance.sh's
# 33.2, newest.sh's 64.0).
py_bullseye=(cython3 python3.9-dev libpython3.9-dev python3-dev libpython3-dev
	libexpat1-dev zlib1g-dev ninja-build python3-distutils python3-lib2to3)
# What 33.2's run lacks beside its root: libpython3.9 (rdma-core links the
# modules with it) and ip(8) with its libraries (tests/base.py runs
# `ip -j addr show`).
ip_bullseye=(libpython3.9 iproute2 libbpf0 libbsd0 libcap2 libelf1 libmnl0 libxtables12 libmd0)
# What a release root lacks to run the suite (newest.sh): bullseye's
# interpreter and standard library (built on glibc 2.31: they run on every
# newer one), the libraries of its extension modules the tests import,
# and ip(8).  Never libnl, libc, libgcc or rdma-core: those are the
# release's.
py_run=(python3.9-minimal libpython3.9-minimal libpython3.9-stdlib libpython3.9
	libexpat1 zlib1g libffi7 libssl1.1 libbz2-1.0 liblzma5 libmpdec3 libuuid1
	iproute2 libbpf0 libbsd0 libcap2 libelf1 libmnl0 libxtables12 libmd0)

# unpack_release TARBALL DIR: the release archive's tree in DIR/src, once.
unpack_release() {
	if [ ! -f "$2/src/CMakeLists.txt" ]; then
		rm -rf "$2/src" && mkdir -p "$2/src"
		tar -xzf "$1" -C "$2/src" --strip-components=1
	fi
}

# run_in_root ROOT RT_PATH RT [NAME=VALUE...] -- CMD...: in the guest, CMD
# chrooted into the release root ROOT (the guest's proc, sys and dev, a
# tmpfs /tmp, the repository at its own path; cwd the repository) in a
# clean environment: PATH RT_PATH then the root's, HOME=/root, RT's
# libraries first (LD_LIBRARY_PATH), and the NAME=VALUEs.  Never returns.
run_in_root() {
	local root=$1 rt_path=$2 rt=$3 m envs=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	for m in proc sys dev; do mount --rbind "/$m" "$root/$m"; done
	mount -t tmpfs tmpfs "$root/tmp"
	mount --bind "$repo" "$root$repo"
	exec chroot "$root" /usr/bin/env -i PATH="$rt_path:/usr/sbin:/usr/bin:/sbin:/bin" \
		HOME=/root LD_LIBRARY_PATH="$rt/lib/x86_64-linux-gnu:$rt/usr/lib/x86_64-linux-gnu" \
		"${envs[@]}" bash -c 'cd "$1" && shift && exec "$@"' - "$repo" "$@"
}
