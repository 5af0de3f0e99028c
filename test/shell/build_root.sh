#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The Debian 11 build root (scripts/build-root.sh) builds what users build:
#   - `make install PREFIX=...` works there (coreutils' install, python3 for
#     the man pages), from make oldest's objects (build/oldest);
#   - the stock CMake project test/compat/cmake-package (cmake 3.18,
#     find_package(verbshim 1.0) from that installation: the typed loopback
#     example in C and cxx_loopback, C++17 over the C API, with g++ 10);
#   - pkg-config --static --libs verbshim links test/dropin/plain_verbs.c;
#   - autotools: test/compat/autotools-dv (autoreconf, configure with
#     mlx5dv and umad on through the installed compat directory, make);
#   - autotools without pkg-config: test/compat/autotools-decls, whose
#     configure checks six declarations newer than rdma-core 33
#     (AC_CHECK_DECLS): with docs/shipping.md's recipe (LDFLAGS and
#     CPPFLAGS at the compat directory) it sees all six, with LDFLAGS
#     alone (the control) the root's own headers;
#   - the newest API (test/compat/newest-api/newest.c: ibv_reg_dmabuf_mr,
#     ibv_query_port_speed, mlx5dv_reg_dmabuf_mr, efadv_query_mr, newer
#     than the root's own rdma-core 33 headers, which refuse it) through
#     pkg-config, CMake verbshim::verbshim and the compat directory, from
#     sources, build and prefix outside the checkout (build-root.sh --bind);
#     the installed rdma-core headers under include/verbshim/rdma-core,
#     with the OpenIB.org BSD licence, the root's /usr/include untouched.
# Every binary: no rdma-core NEEDED.  Then one VM boot runs the loopback
# example and cxx_loopback on rxe in each release root
# (scripts/rdma-core-releases.sh check: make check's six, make check-releases' nine), each on its own distribution's glibc, bytes checked, and
# autotools-decls' program, whose calls a release predates must answer
# "Operation not supported".  As root.
#
#   test/shell/build_root.sh           all of it (boots the VM)
#   test/shell/build_root.sh --runs    the runs only (inside the VM)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/build-root-users
RELEASES=$(scripts/rdma-core-releases.sh check)
rdma_needed='lib(ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic)\.so'

if [ "${1:-}" = --runs ]; then
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	status=0
	for v in $RELEASES; do
		root=$(cat "$out/root-$v")
		for b in loopback cxx_loopback; do
			echo "== rdma-core $v: $b"
			rc=0
			release_chroot "$root" "$repo/$out/bin" "/tmp/bin/$b" -d "$VS_RXE_DEV" || rc=$?
			[ $rc -eq 0 ] || { echo "FAIL: $b in the rdma-core $v root: exit $rc"; status=1; }
		done
		# the newest functions configure saw: "not supported" where the
		# release predates them
		echo "== rdma-core $v: decls"
		rc=0
		release_chroot "$root" "$repo/$out/bin" /tmp/bin/decls >"$out/decls-$v.log" 2>&1 || rc=$?
		cat "$out/decls-$v.log"
		[ $rc -eq 0 ] || { echo "FAIL: decls in the rdma-core $v root: exit $rc"; status=1; }
		[ "$(grep -c ' (rdma-core [0-9]*): ' "$out/decls-$v.log")" -eq 5 ] || { echo "FAIL: decls answered $(grep -c ' (rdma-core' "$out/decls-$v.log") of 5 calls"; status=1; }
		while read -r name added answer; do
			added=${added%)*}
			[ "$answer" != "not declared" ] || { echo "FAIL: $name was not declared to configure"; status=1; }
			if [ "${v%%.*}" -lt "$added" ] && [ "$answer" != "Operation not supported" ]; then
				echo "FAIL: $name (rdma-core $added) in the rdma-core $v root: $answer, not \"Operation not supported\""; status=1
			fi
		done < <(sed -n 's/^\([a-z0-9_]*\) (rdma-core \([0-9]*\)): \(.*\)$/\1 \2) \3/p' "$out/decls-$v.log")
	done
	exit $status
fi

[ "$(id -u)" -eq 0 ] || { echo "skip: the build root needs root (chroot, mount namespace)"; exit 77; }
rm -rf "$out"
mkdir -p "$out/bin"
for v in $RELEASES; do
	scripts/rdma-core-root.sh "$v" >"$out/root-$v" || { echo "cannot make the rdma-core $v root"; exit 1; }
done
in_root() { scripts/build-root.sh -- "$@"; }
prefix=$repo/$out/prefix
in_root make -j2 BUILD=build/oldest install PREFIX="$prefix" >"$out/install.log" 2>&1 ||
	{ tail -n 30 "$out/install.log"; echo "FAIL: make install in the build root"; exit 1; }
echo "ok   make install PREFIX=$prefix in the build root ($(in_root sh -c 'gcc --version | head -n 1'))"

# CMake + C++
proj=$out/cmake-package
cp -r test/compat/cmake-package "$proj"
cp examples/loopback.c "$proj/"
mkdir -p "$proj/common"
cp examples/common/ex_common.[ch] "$proj/common/"
# (-static-libstdc++: the release roots have no libstdc++, as docs/shipping.md's
# shipping recipe says; the project itself is unchanged)
in_root sh -c "cmake -S $proj -B $proj/build -DCMAKE_PREFIX_PATH=$prefix \
	-DCMAKE_EXE_LINKER_FLAGS='-static-libstdc++ -static-libgcc' && cmake --build $proj/build" \
	>"$out/cmake.log" 2>&1 || { tail -n 30 "$out/cmake.log"; echo "FAIL: the CMake project in the build root"; exit 1; }
echo "ok   $(grep -m1 -o 'The CXX compiler identification is .*' "$out/cmake.log"), $(in_root cmake --version | head -n 1): $(grep -m1 -o 'verbshim [0-9.]* from .*' "$out/cmake.log")"
cp "$proj/build/loopback" "$proj/build/cxx_loopback" "$out/bin/"

# pkg-config
in_root sh -c "PKG_CONFIG_PATH=$prefix/lib/pkgconfig; export PKG_CONFIG_PATH; \
	gcc -o $out/bin/plain_verbs test/dropin/plain_verbs.c \$(pkg-config --static --cflags --libs verbshim)" \
	>"$out/pkg-config.log" 2>&1 || { cat "$out/pkg-config.log"; echo "FAIL: pkg-config link in the build root"; exit 1; }
echo "ok   pkg-config --static --libs verbshim: $(in_root pkg-config --version) links plain_verbs"

# autotools, through the installed compat directory
at=$out/autotools-dv
cp -r test/compat/autotools-dv "$at"
cp examples/verbs_loopback.c "$at/"
in_root sh -c "cd $at && autoreconf -i && ./configure LDFLAGS=-L$prefix/lib/verbshim/compat && make" \
	>"$out/autotools.log" 2>&1 || { tail -n 30 "$out/autotools.log"; echo "FAIL: the autotools project in the build root"; exit 1; }
grep -q 'mlx5dv: yes, umad: yes' "$out/autotools.log" ||
	{ grep 'mlx5dv:' "$out/autotools.log"; echo "FAIL: configure in the build root did not turn mlx5dv and umad on"; exit 1; }
echo "ok   $(in_root autoconf --version | head -n 1), $(in_root automake --version | head -n 1): dv_probe, verbs_loopback"
cp "$at/dv_probe" "$at/verbs_loopback" "$out/bin/"

# autotools that never asks pkg-config (AC_CHECK_DECLS, as UCX's configure):
# docs/shipping.md's recipe, LDFLAGS and CPPFLAGS at the compat directory,
# sees the newest declarations; LDFLAGS alone (the control) sees the root's
# rdma-core 33 headers.
ad=$out/autotools-decls
compat=$prefix/lib/verbshim/compat
cp -r test/compat/autotools-decls "$ad"
in_root sh -c "cd $ad && autoreconf -i && mkdir control && cd control && ../configure LDFLAGS=-L$compat && \
	cd .. && ./configure LDFLAGS=-L$compat CPPFLAGS=-I$compat/include && make" \
	>"$out/autotools-decls.log" 2>&1 || { tail -n 30 "$out/autotools-decls.log"; echo "FAIL: the autotools-decls project in the build root"; exit 1; }
grep -qx '#define HAVE_DECL_IBV_REG_DMABUF_MR 0' "$ad/control/config.h" ||
	{ grep HAVE_DECL "$ad/control/config.h"; echo "FAIL: the control (LDFLAGS only) saw ibv_reg_dmabuf_mr: the check below proves nothing"; exit 1; }
for d in IBV_REG_DMABUF_MR IBV_REG_MR_EX IBV_QUERY_PORT_SPEED MLX5DV_GET_DATA_DIRECT_SYSFS_PATH EFADV_QUERY_MR RDMA_RESOLVE_ADDRINFO; do
	grep -qx "#define HAVE_DECL_$d 1" "$ad/config.h" ||
		{ grep HAVE_DECL "$ad/config.h"; echo "FAIL: configure with CPPFLAGS=-I$compat/include did not see $d"; exit 1; }
done
echo "ok   configure without pkg-config: LDFLAGS alone saw $(grep -c 'HAVE_DECL_.* 1$' "$ad/control/config.h" || true) of 6 newest declarations, with CPPFLAGS=-I$compat/include all 6"
cp "$ad/decls" "$out/bin/"

# The newest API, from a user's own directory outside the checkout.
user=$(mktemp -d /var/tmp/verbshim-user.XXXXXX)
trap 'rm -rf "$user"' EXIT
cp -r test/compat/newest-api/. "$user/"
inc=$prefix/include/verbshim/rdma-core
for f in infiniband/verbs.h infiniband/efadv.h infiniband/mlx5dv.h infiniband/umad.h rdma/rdma_cma.h rdma/rsocket.h; do
	[ -s "$inc/$f" ] || { echo "FAIL: make install did not ship $inc/$f"; exit 1; }
done
grep -q 'OpenIB.org BSD license' "$inc/COPYING" || { echo "FAIL: no OpenIB.org BSD licence in $inc/COPYING"; exit 1; }
[ "$(cat "$inc/VERSION")" = "$(scripts/rdma-headers.sh --version)" ] || { echo "FAIL: $inc/VERSION is not the pin's"; exit 1; }
grep -q ibv_reg_dmabuf_mr "$(scripts/build-root.sh)/usr/include/infiniband/verbs.h" &&
	{ echo "FAIL: the build root's own headers declare ibv_reg_dmabuf_mr: the control below proves nothing"; exit 1; }
in_user() { scripts/build-root.sh --bind "$user" --bind "$prefix" -- "$@"; }
w='-Wall -Wextra -Werror -Werror=implicit-function-declaration'
# control: the root's own headers (rdma-core 33) refuse the program
if in_user sh -c "gcc $w -I$prefix/include -c -o newest.o newest.c" >"$out/newest-control.log" 2>&1; then
	echo "FAIL: newest.c compiled against the build root's rdma-core 33 headers"; exit 1
fi
grep -q 'ibv_reg_dmabuf_mr' "$out/newest-control.log" ||
	{ cat "$out/newest-control.log"; echo "FAIL: the control failed for another reason"; exit 1; }
in_user sh -c "PKG_CONFIG_PATH=$prefix/lib/pkgconfig; export PKG_CONFIG_PATH; \
	gcc $w -o newest-pc newest.c \$(pkg-config --static --cflags --libs verbshim)" \
	>"$out/newest-pc.log" 2>&1 || { cat "$out/newest-pc.log"; echo "FAIL: newest.c through pkg-config verbshim"; exit 1; }
in_user sh -c "cmake -S . -B build -DCMAKE_PREFIX_PATH=$prefix && cmake --build build" \
	>"$out/newest-cmake.log" 2>&1 || { tail -n 30 "$out/newest-cmake.log"; echo "FAIL: newest.c through CMake verbshim::verbshim"; exit 1; }
compat=$prefix/lib/verbshim/compat
in_user sh -c "PKG_CONFIG_PATH=$compat; export PKG_CONFIG_PATH; \
	gcc $w -o newest-compat-pc newest.c \$(pkg-config --static --cflags --libs libibverbs libmlx5 libefa) && \
	gcc $w -I$compat/include -o newest-compat newest.c -L$compat -libverbs -lmlx5 -lefa" \
	>"$out/newest-compat.log" 2>&1 || { cat "$out/newest-compat.log"; echo "FAIL: newest.c through the compat directory"; exit 1; }
cp "$user/newest-pc" "$user/build/newest" "$user/newest-compat-pc" "$user/newest-compat" "$out/bin/"
echo "ok   newest.c (rdma-core 34-62 API; the root's 33 headers refuse it) builds in $user (--bind) through pkg-config, CMake and the compat directory, with the $(cat "$inc/VERSION") headers of $inc"

status=0
for b in "$out"/bin/*; do
	needed=$(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	if grep -qE "$rdma_needed" <<<"$needed"; then
		echo "FAIL: ${b##*/} needs rdma-core: $needed"
		status=1
	fi
done
[ $status -eq 0 ] || exit 1
echo "ok   no rdma-core NEEDED by: $(cd "$out/bin" && echo *)"

if [ "${VERBSHIM_IN_VM:-}" = 1 ]; then
	exec "$0" --runs
fi
scripts/vm-run.sh -- test/shell/build_root.sh --runs
