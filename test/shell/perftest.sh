#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# perftest as a real client of the shim.  Given perftest's source
# (VS_PERFTEST_SRC: a release tarball, a checkout, or a git mirror of which
# VS_PERFTEST_REF is taken, default v4.5-0.17 as in Debian 12; unset, the
# shared tarball ../shared/sources/perftest-4.5-0.17.tar.gz beside the
# checkout when it is there), build it the way Debian does
# (autogen.sh, configure with dpkg-buildflags) and link it with
# lib/libverbshim.a instead of -libverbs -lrdmacm -lmlx5 -lmlx4 -libumad
# -lefa; readelf -d must show no rdma-core library.  Then, on SoftRoCE in
# the VM, ib_write_bw, ib_read_bw, ib_send_bw (RC and UD), ib_write_lat,
# ib_send_lat (RC and UD) and ib_atomic_bw each run against a stock peer
# (Debian's perftest package, else the same source linked normally), the
# shim-built side as client and, for ib_write_bw and ib_send_bw, as server.
#
# The perftest source is never copied into this repository: it is built in
# build/perftest/.  Without VS_PERFTEST_SRC and without the shared tarball
# the test skips and says so.
#
#   test/shell/perftest.sh           build on the host, then the runs in
#                                    the VM (scripts/vm-run.sh)
#   test/shell/perftest.sh --runs    the runs only (inside the VM)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$repo/build/perftest
# shellcheck source=lib/workloads.bash
. test/shell/lib/workloads.bash
tests=("${PERFTEST_TESTS[@]}")
rdma_core='lib(ibverbs|rdmacm|mlx5|mlx4|ibumad|efa|hns)\.so'

runs() {
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	local peer=/usr/bin t status=0
	[ -x "$peer/ib_write_bw" ] || peer=$out/stock
	echo "stock peer: $peer ($(readelf -d "$peer/ib_write_bw" | grep -oE "$rdma_core" | sort -u | tr '\n' ' '))"
	# Few iterations: every message crosses an emulated NIC under TCG.
	local a=(-d "$VS_RXE_DEV" -x "$VS_RXE_GID_INDEX" -F)
	run_pair() {	# NAME SERVER CLIENT ARGS...
		local name=$1 srv=$2 cli=$3
		shift 3
		echo "== $name: server $srv, client $cli, $*"
		# Both exit 0 and both print a result row (#bytes #iterations).
		if pair "$srv" "${a[@]}" "$@" -- "$cli" "${a[@]}" "$@" "$VS_RXE_IP" >"$out/$name.log" 2>&1 &&
			[ "$(grep -cE '(client|server)\| +[0-9]+ +[0-9]+ ' "$out/$name.log")" -eq 2 ]; then
			grep -E 'client\| +(#bytes|[0-9]+ +[0-9]+ )' "$out/$name.log" | sed 's/^ *client|/   /'
		else
			sed 's/^/   | /' "$out/$name.log"
			echo "FAILED: $name"
			status=1
		fi
	}
	perftest_plan run_pair "$peer" "$out/shim"
	return $status
}

if [ "${1:-}" = --runs ]; then
	runs
	exit
fi

# The release archive every developer's machine and CI have beside the
# checkout (../shared/sources/README.md): the default source.
shared_tarball=$(dirname "$repo")/shared/sources/perftest-4.5-0.17.tar.gz
src=${VS_PERFTEST_SRC:-}
if [ -z "$src" ]; then
	if [ ! -f "$shared_tarball" ]; then
		echo "skip: no perftest source: VS_PERFTEST_SRC is unset and there is no $shared_tarball" \
			"(VS_PERFTEST_SRC=FILE|DIR: a perftest release tarball, checkout or git mirror, e.g. of github.com/linux-rdma/perftest)"
		exit 77
	fi
	src=$shared_tarball
fi
[ -d "$src" ] || [ -f "$src" ] || { echo "VS_PERFTEST_SRC=$src: neither a tarball nor a directory"; exit 1; }
ref=${VS_PERFTEST_REF:-v4.5-0.17}
[ -f lib/libverbshim.a ] || { echo "no lib/libverbshim.a: run make"; exit 1; }

# One configured tree, built twice: linked with the shim, and as configured
# (the fallback stock peer).
rm -rf "$out"
mkdir -p "$out/src" "$out/shim" "$out/stock"
if [ -f "$src" ]; then
	# A release tarball: its one top directory (perftest-VERSION/) is the tree.
	tar -xaf "$src" -C "$out/src" --strip-components=1 ||
		{ echo "VS_PERFTEST_SRC=$src: not a tar archive"; exit 1; }
	[ -x "$out/src/autogen.sh" ] || { echo "$src: no autogen.sh at its top: not a perftest source archive"; exit 1; }
	echo "perftest from $src"
elif [ "$(git -C "$src" rev-parse --is-bare-repository 2>/dev/null)" = true ] ||
	[ -d "$src/.git" ]; then
	git -C "$src" archive --format=tar "$ref" | tar -x -C "$out/src"
	echo "perftest $ref from $src"
else
	cp -a "$src/." "$out/src/"
	echo "perftest from $src"
fi
cd "$out/src"
{
	./autogen.sh
	./configure --prefix=/usr CFLAGS="$(dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)" LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
} >"$out/configure.log" 2>&1 || { tail -n 30 "$out/configure.log"; echo "perftest: configure failed"; exit 1; }
grep -E '^(LIBS|LIBUMAD|LIBMLX4|LIBMLX5|LIBEFA|LIBHNS) =' Makefile | sed 's/^/configured: /'

make -j2 >"$out/stock.log" 2>&1 || { tail -n 30 "$out/stock.log"; echo "perftest: stock build failed"; exit 1; }
cp "${tests[@]}" "$out/stock/"
# The same objects, linked with the archive in place of every rdma-core
# library: LIBS keeps what is not rdma-core (-lpci, -ldl, -lpthread).
libs=$(sed -n 's/^LIBS = //p' Makefile | tr ' ' '\n' |
	grep -vE '^-l(ibverbs|rdmacm|mlx5|mlx4|ibumad|efa|hns)$' | tr '\n' ' ')
rm -f "${tests[@]}"
make -j2 LIBS="$repo/lib/libverbshim.a $libs -ldl -lpthread" LIBUMAD= LIBMLX4= \
	LIBMLX5= LIBEFA= LIBHNS= "${tests[@]}" >"$out/shim.log" 2>&1 ||
	{ tail -n 30 "$out/shim.log"; echo "perftest: link with the shim failed"; exit 1; }
cp "${tests[@]}" "$out/shim/"
cd "$repo"

status=0
for t in "${tests[@]}"; do
	needed=$(readelf -d "$out/shim/$t" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
	stock=$(readelf -d "$out/stock/$t" | grep -oE "$rdma_core" | sort -u | tr '\n' ' ')
	if grep -qE "$rdma_core" <<<"$needed"; then
		echo "FAIL: $t built with the shim still needs: $needed"
		status=1
	else
		echo "$t: needs $needed(stock build: $stock)"
	fi
	# The mlx5dv symbols perftest uses come from the archive.
	nm "$out/shim/$t" | grep -cE ' [Tt] (ibv_get_device_list|mlx5dv_create_qp)$' | grep -qx 2 ||
		{ echo "FAIL: $t does not define the drop-ins"; status=1; }
done
[ $status -eq 0 ] || exit 1

if [ "${VERBSHIM_IN_VM:-}" = 1 ]; then
	runs
elif [ -n "${VS_PERFTEST_NO_VM:-}" ]; then
	echo "built and checked; runs on rxe not asked for (VS_PERFTEST_NO_VM)"
else
	scripts/vm-run.sh -- test/shell/perftest.sh --runs
fi
