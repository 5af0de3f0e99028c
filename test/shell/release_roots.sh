#!/usr/bin/env bash
# The release roots' bad input (scripts/rdma-core-root.sh, issue 49):
#   - a release with no root: exit 2, naming the nine that exist; its
#     arm64 root of a release built from source: exit 2, naming why;
#   - a tag whose build fails: scripts/roots/rdma-core-build.sh, in the
#     Debian 11 build root as rdma-core-root.sh runs it, exits 1 with one
#     line naming the release and the compiler's first error (a tarball
#     of two C files, each with an error of its own: the first one named),
#     and a tag that builds (a tarball whose one C file compiles) exits 0
#     with its install in WORK/dest (the control: the failure is the
#     source's, not the runner's).  As root (the build root is a chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*"; exit 1; }

nine="17.1 22.4 28.0 32.0 33.2 39.0 44.0 56.1 65.0"
for v in 18.0 64.0 33.1 x; do
	rc=0
	msg=$(scripts/rdma-core-root.sh "$v" 2>&1) || rc=$?
	[ $rc -eq 2 ] || fail "rdma-core-root.sh $v: exit $rc, want 2 ($msg)"
	[[ $msg == *"'$v'"*"$nine"* ]] || fail "rdma-core-root.sh $v does not name the release and the nine: $msg"
done
rc=0
msg=$(scripts/rdma-core-root.sh --arch arm64 22.4 2>&1) || rc=$?
[ $rc -eq 2 ] && [[ $msg == *"22.4 is built from source for amd64 only"* ]] ||
	fail "rdma-core-root.sh --arch arm64 22.4: exit $rc: $msg"
echo "ok: an unknown release names the nine; 22.4 for arm64 says why not"

[ "$(id -u)" -eq 0 ] || { echo "skip: the build half needs root (scripts/build-root.sh chroots)"; exit 77; }
mkdir -p build
tmp=$(mktemp -d build/release-roots.XXXXXX)
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT

# tarball NAME C-SOURCE...: a CMake project of those files, as a tag's
# archive is laid out (one top directory)
tarball() {
	local name=$1 d=$tmp/$1 i=0
	shift
	mkdir -p "$d/rdma-core-0"
	echo 'cmake_minimum_required(VERSION 3.10)
project(fake C)
file(GLOB srcs *.c)
add_library(fake SHARED ${srcs})
install(TARGETS fake LIBRARY DESTINATION ${CMAKE_INSTALL_PREFIX}/lib)' >"$d/rdma-core-0/CMakeLists.txt"
	for s in "$@"; do
		i=$((i + 1))
		printf '%s\n' "$s" >"$d/rdma-core-0/f$i.c"
	done
	tar -czf "$d.tar.gz" -C "$d" rdma-core-0
	rm -rf "$d"
}
tarball broken 'int a(void) { return undeclared_one; }' 'int b(void) { return undeclared_two; }'
tarball good 'int a(void) { return 1; }'

rc=0
msg=$(scripts/build-root.sh --bind "$tmp" -- "$PWD/scripts/roots/rdma-core-build.sh" 28.0 \
	"$tmp/broken.tar.gz" "$tmp/w1" 2>&1) || rc=$?
echo "$msg" | tail -n 1
[ $rc -eq 1 ] || fail "a tag that does not compile: exit $rc, want 1"
line=$(grep 'rdma-core-build.sh: rdma-core 28.0:' <<<"$msg") || fail "no line naming rdma-core 28.0: $msg"
[[ $line == *"f1.c"*"error:"*"undeclared_one"* ]] || fail "the line does not name the compiler's first error (f1.c, undeclared_one): $line"
[[ $line != *undeclared_two* ]] || fail "the line names the second error, not the first: $line"

rc=0
msg=$(scripts/build-root.sh --bind "$tmp" -- "$PWD/scripts/roots/rdma-core-build.sh" 22.4 \
	"$tmp/good.tar.gz" "$tmp/w2" 2>&1) || rc=$?
[ $rc -eq 0 ] || fail "a tag that compiles: exit $rc: $msg"
[ -f "$tmp/w2/dest/usr/lib/libfake.so" ] || fail "no install in WORK/dest: $(find "$tmp/w2/dest" | head)"
echo "ok: a failing build names rdma-core 28.0 and the first error; the control builds and installs"
