#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The drop-in on arm64 (make check-arm64): real programs written for
# rdma-core, their source unchanged, cross-built for arm64 with
# build/arm64/libverbshim.a in place of -libverbs -lrdmacm (...), then run
# in the arm64 guest on rxe0 beside stock rdma-core's own builds; each must
# get the stock one's verdict.  What test/shell/perftest.sh and
# test/shell/trace_examples.sh prove on x86-64.
#   - rdma-core's examples (VS_RDMA_CORE_SRC: a checkout or git mirror of
#     github.com/linux-rdma/rdma-core, VS_RDMA_CORE_REF default v44.0, the
#     guest root's release): ibv_devices, ibv_rc/uc/ud/srq_pingpong (-c:
#     buffers checked), rping -V, udaddy, ucmatose, rdma_server/rdma_client.
#     Each runs twice on rxe0, stock (the root's ibverbs-utils and
#     rdmacm-utils) and shim-built, same arguments: both must pass (exit 0,
#     no "invalid data in page" from a pingpong's -c, which exits 0 all the
#     same; ibv_devices list the same rxe0 line).
#   - perftest (the shared tarball ../shared/sources/perftest-4.5-0.17.tar.gz,
#     or VS_PERFTEST_SRC: a release tarball), configured for
#     aarch64-linux-gnu with its build system unchanged against a compat
#     directory of the arm64 archive (scripts/build/compat-dir.sh: -libverbs,
#     -lmlx5... link the shim) and bookworm's arm64 libpci; against Debian
#     12's arm64 perftest 4.5+0.17 (the stock peer): ib_write_bw,
#     ib_read_bw, ib_send_bw (RC and UD), ib_write_lat, ib_send_lat (RC and
#     UD), ib_atomic_bw with the shim-built one as client, and ib_write_bw
#     and ib_send_bw as server: both sides exit 0 with a result row
#     (-n 200: every message crosses rxe under TCG).  Then one stock pair,
#     for comparison.
# Without either source the test skips, naming it; with one, that part runs
# and the missing one is said.  Built with the host's aarch64 cross gcc
# (Debian 12's) as x86-64's are with the host's gcc; run in the arm64
# guest's 44.0 root (Debian 12's rdma-core and glibc).  VS_ARM64_TIMEOUT:
# the boot's limit (default 3600 s), VS_DROPIN_TIMEOUT: one program's in
# the guest (default 300 s).
#
#   test/shell/dropin_arm64.sh          build on the host, then one arm64 boot
#   test/shell/dropin_arm64.sh --build  the build and its checks only (no boot)
#   test/shell/dropin_arm64.sh --runs   the runs only (inside the arm64 guest)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$repo/build/arm64/dropin
triplet=aarch64-linux-gnu
rdma_core='lib(ibverbs|rdmacm|mlx5|mlx4|ibumad|efa|hns)\.so'
# seconds one program may take in the guest (TCG: 10-50x slower)
tmo=${VS_DROPIN_TIMEOUT:-300}
# shellcheck source=lib/workloads.bash
. test/shell/lib/workloads.bash
pt_tests=("${PERFTEST_TESTS[@]}")

# ---- in the guest ---------------------------------------------------------

# verdict NAME STOCK_CMD... -- SHIM_CMD...: for a pair, each CMD is
# "SERVER -- CLIENT" spelled as SERVER... ::: CLIENT...
run_one() {	# LOG CMD...: 0 when CMD (pair or single) passes
	local log=$1 srv=() cli=() rc=0
	shift
	if [[ " $* " == *" ::: "* ]]; then
		while [ "$1" != ::: ]; do srv+=("$1"); shift; done
		shift
		cli=("$@")
		# (each side bounded: one hang under TCG fails that pair only)
		pair timeout "$tmo" "${srv[@]}" -- timeout "$tmo" "${cli[@]}" >"$log" 2>&1 || rc=$?
	else
		timeout "$tmo" "$@" >"$log" 2>&1 || rc=$?
	fi
	return $rc
}

examples_runs() {
	# shellcheck disable=SC2034 # (ip, pp: in the table's words, eval'd)
	local e=$out/examples ip=$VS_RXE_IP
	# shellcheck disable=SC2034
	local pp=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 100 -c)
	local name stock_rc shim_rc line t0 stock_t shim_t detail
	# NAME|ARGS as bash words ($pp, $ip expanded here); ::: splits server
	# and client; BIN is the program both sides run
	while IFS='|' read -r name line; do
		[ -n "$name" ] || continue
		local args=()
		eval "args=($line)"
		local s=() m=() w
		for w in "${args[@]}"; do
			case $w in
			BIN) s+=("/usr/bin/$name"); m+=("$e/$name") ;;
			BIN:*) s+=("/usr/bin/${w#BIN:}"); m+=("$e/${w#BIN:}") ;;
			*) s+=("$w"); m+=("$w") ;;
			esac
		done
		# (not pair's VS_PAIR_READY: these servers' first line stays in
		# stdio's buffer, a file is no tty; a client is tried again
		# while it is rejected, nobody listening yet)
		stock_rc=0 shim_rc=0 t0=$SECONDS
		run_one "$out/logs/$name.stock" "${s[@]}" || stock_rc=$?
		stock_t=$((SECONDS - t0)) t0=$SECONDS
		run_one "$out/logs/$name.shim" "${m[@]}" || shim_rc=$?
		shim_t=$((SECONDS - t0))
		# the pingpongs' -c says so but exits 0 (rping -V exits 1)
		if grep -qE 'invalid data|data mismatch' "$out/logs/$name.stock"; then
			stock_rc=98
			echo "   $name (stock): the bytes that arrived are not the ones sent"
		fi
		if grep -qE 'invalid data|data mismatch' "$out/logs/$name.shim"; then
			shim_rc=98
			echo "   $name (shim-built): the bytes that arrived are not the ones sent"
		fi
		if [ "$name" = ibv_devices ] && [ $stock_rc -eq 0 ] && [ $shim_rc -eq 0 ]; then
			grep -E "^ +$VS_RXE_DEV " "$out/logs/$name.stock" >"$out/logs/devices.stock" || true
			grep -E "^ +$VS_RXE_DEV " "$out/logs/$name.shim" >"$out/logs/devices.shim" || true
			if [ ! -s "$out/logs/devices.stock" ] || ! cmp -s "$out/logs/devices.stock" "$out/logs/devices.shim"; then
				shim_rc=99
				echo "   ibv_devices: the stock and shim-built ones do not list the same $VS_RXE_DEV line"
			fi
		fi
		if [ $stock_rc -eq 0 ] && [ $shim_rc -eq 0 ]; then
			detail=$(grep -E "client\| .*bytes in|^ +$VS_RXE_DEV " "$out/logs/$name.shim" | head -n 1 |
				sed 's/^ *client| *//; s/^ *//' | tr -s ' \t' ' ') || true	# (none: rping)
			printf 'ok   %-16s stock exit 0 (%d s), shim-built exit 0 (%d s): %s\n' "$name" \
				"$stock_t" "$shim_t" "${detail:-both sides}"
		else
			echo "== $name: stock exit $stock_rc"
			sed 's/^/   stock| /' "$out/logs/$name.stock"
			echo "== $name: shim-built exit $shim_rc"
			sed 's/^/   shim| /' "$out/logs/$name.shim"
			echo "FAILED: $name: stock exit $stock_rc, shim-built exit $shim_rc"
			status=1
		fi
	done <<EOF
ibv_devices|BIN
ibv_rc_pingpong|BIN "\${pp[@]}" ::: BIN "\${pp[@]}" \$ip
ibv_uc_pingpong|BIN "\${pp[@]}" ::: BIN "\${pp[@]}" \$ip
ibv_ud_pingpong|BIN "\${pp[@]}" -s 1024 ::: BIN "\${pp[@]}" -s 1024 \$ip
ibv_srq_pingpong|BIN "\${pp[@]}" -q 4 ::: BIN "\${pp[@]}" -q 4 \$ip
rping|BIN -s -a \$ip -C 20 -S 256 -V ::: BIN -c -a \$ip -C 20 -S 256 -V
udaddy|BIN -b \$ip ::: BIN -s \$ip
ucmatose|BIN -b \$ip ::: BIN -s \$ip
rdma_server|BIN -s \$ip ::: BIN:rdma_client -s \$ip
EOF
	# The control: a shim-built program whose ibv_reg_mr fails must fail
	# here, its own way (its message, its exit), so the passes above are
	# the programs' own and not the harness's.
	local rc=0
	VERBSHIM_TRACE=failed VERBSHIM_FAULT='ibv_reg_mr*:ENOMEM:1' timeout "$tmo" \
		"$e/ibv_rc_pingpong" -d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 1 "$ip" >"$out/logs/control" 2>&1 || rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q "Couldn't register MR" "$out/logs/control" &&
		grep -q 'injected by VERBSHIM_FAULT' "$out/logs/control"; then
		echo "ok   control: ibv_rc_pingpong (shim-built) with VERBSHIM_FAULT='ibv_reg_mr*:ENOMEM:1' fails: exit $rc, \"Couldn't register MR\""
	else
		sed 's/^/   control| /' "$out/logs/control"
		echo "FAILED: the control: ibv_rc_pingpong with an injected ibv_reg_mr failure exited $rc"
		status=1
	fi
}

perftest_runs() {
	local stock=$out/perftest/stock/usr/bin shim=$out/perftest/shim
	# libpci and its libraries (bookworm's arm64, beside the root's rdma-core)
	export LD_LIBRARY_PATH=$out/perftest/sysroot/usr/lib/$triplet
	local a=(-d "$VS_RXE_DEV" -x "$VS_RXE_GID_INDEX" -F)
	pt_pair() {	# NAME SERVER CLIENT ARGS...
		local name=$1 sbin=$2 cbin=$3
		shift 3
		if pair timeout "$tmo" "$sbin" "${a[@]}" "$@" -- timeout "$tmo" "$cbin" "${a[@]}" "$@" "$VS_RXE_IP" \
			>"$out/logs/pt-$name" 2>&1 &&
			[ "$(grep -cE '(client|server)\| +[0-9]+ +[0-9]+ ' "$out/logs/pt-$name")" -eq 2 ]; then
			printf 'ok   %-24s %s\n' "$name" "$(grep -E 'client\| +[0-9]+ +[0-9]+ ' "$out/logs/pt-$name" | sed 's/^ *client| *//' | tr -s ' ')"
		else
			sed 's/^/   | /' "$out/logs/pt-$name"
			echo "FAILED: perftest $name (server ${sbin#"$out"/}, client ${cbin#"$out"/})"
			status=1
		fi
	}
	echo "perftest, shim-built client against Debian's arm64 perftest (server), -n 200 (#bytes #iterations and the figures)"
	perftest_plan pt_pair "$stock" "$shim"
	# the stock pair too: what the verdicts are compared with
	pt_pair ib_write_bw-stock-both "$stock/ib_write_bw" "$stock/ib_write_bw" -n 200 -s 4096
	unset LD_LIBRARY_PATH
}

if [ "${1:-}" = --runs ]; then
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	# a step that fails where errexit ends the runs says which
	set -E
	trap 'echo "FAILED: dropin_arm64.sh line $LINENO: $BASH_COMMAND (exit $?)"' ERR
	status=0
	rm -rf "$out/logs"
	mkdir -p "$out/logs"
	echo "== arm64 guest: $(uname -m), $("$(ls /lib/$triplet/libc.so.6)" | head -n 1)"
	if [ -x "$out/examples/ibv_rc_pingpong" ]; then
		echo "== rdma-core's examples: stock ($(ls /usr/lib/$triplet/libibverbs.so.1.*)) and built on the shim"
		examples_runs
	fi
	if [ -x "$out/perftest/shim/ib_write_bw" ]; then
		echo "== perftest"
		perftest_runs
	fi
	exit $status
fi

# ---- on the host ----------------------------------------------------------

scripts/deps.sh --arm64 >/dev/null || { echo "FAIL: scripts/deps.sh --arm64"; exit 1; }
archive=build/arm64/libverbshim.a
[ -f "$archive" ] || { echo "no $archive: run make ARCH=arm64"; exit 1; }
hdrs=$(scripts/rdma-headers.sh)
rm -rf "$out"
mkdir -p "$out"
built=()

# no_rdma_core BIN...: the shim inside, no rdma-core library needed
no_rdma_core() {
	local b needed
	for b; do
		needed=$(readelf -d "$b" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
		if grep -qE "$rdma_core" <<<"$needed"; then
			echo "FAIL: ${b#"$repo"/} still needs: $needed"
			return 1
		fi
		readelf -h "$b" | grep 'Machine: *AArch64' >/dev/null || { echo "FAIL: ${b#"$repo"/} is not AArch64"; return 1; }
	done
}

# 1. rdma-core's examples
src=${VS_RDMA_CORE_SRC:-}
ref=${VS_RDMA_CORE_REF:-v44.0}
if [ -n "$src" ]; then
	e=$out/examples
	mkdir -p "$e/src"
	files="libibverbs/examples/rc_pingpong.c libibverbs/examples/uc_pingpong.c libibverbs/examples/ud_pingpong.c
libibverbs/examples/srq_pingpong.c libibverbs/examples/device_list.c libibverbs/examples/pingpong.c
libibverbs/examples/pingpong.h librdmacm/examples/rping.c librdmacm/examples/udaddy.c
librdmacm/examples/cmatose.c librdmacm/examples/rdma_server.c librdmacm/examples/rdma_client.c
librdmacm/examples/common.c librdmacm/examples/common.h ccan/minmax.h ccan/build_assert.h"
	# shellcheck disable=SC2086 # the list
	rdma_core_sources "$src" "$ref" "$e/src" $files || exit 1
	flags=(-O2 -g -D_GNU_SOURCE -I"$e/src" -isystem "$hdrs" -w)
	v=$e/src/libibverbs/examples c=$e/src/librdmacm/examples
	lib=("$repo/$archive" -ldl -lpthread)
	(
		# every build must succeed (no errexit in a list || ends)
		cc() { $triplet-gcc "${flags[@]}" "$@" "${lib[@]}" || exit 1; }
		for p in rc uc ud srq; do
			cc -o "$e/ibv_${p}_pingpong" "$v/${p}_pingpong.c" "$v/pingpong.c"
		done
		cc -o "$e/ibv_devices" "$v/device_list.c"
		cc -o "$e/ucmatose" "$c/cmatose.c" "$c/common.c"
		for p in rping udaddy; do
			cc -o "$e/$p" "$c/$p.c" "$c/common.c"
		done
		for p in rdma_server rdma_client; do
			cc -o "$e/$p" "$c/$p.c"
		done
	) >"$out/examples-build.log" 2>&1 || { tail -n 30 "$out/examples-build.log"; echo "FAIL: building rdma-core's examples for arm64"; exit 1; }
	no_rdma_core "$e"/ibv_* "$e"/rping "$e"/udaddy "$e"/ucmatose "$e"/rdma_server "$e"/rdma_client || exit 1
	echo "ok   built on the shim for arm64 (no rdma-core library needed): $(cd "$e" && echo ibv_* rping udaddy ucmatose rdma_server rdma_client)"
	built+=(rdma-core-examples)
else
	echo "note: VS_RDMA_CORE_SRC is unset (a checkout or git mirror of github.com/linux-rdma/rdma-core): rdma-core's examples not built"
fi

# 2. perftest
shared_tarball=$(dirname "$repo")/shared/sources/perftest-4.5-0.17.tar.gz
ptsrc=${VS_PERFTEST_SRC:-}
[ -n "$ptsrc" ] || { [ -f "$shared_tarball" ] && ptsrc=$shared_tarball; }
if [ -n "$ptsrc" ]; then
	[ -f "$ptsrc" ] || { echo "VS_PERFTEST_SRC=$ptsrc: not a release tarball"; exit 1; }
	p=$out/perftest
	mkdir -p "$p/src" "$p/shim" "$p/stock" "$p/sysroot"
	# bookworm's arm64 perftest (the stock peer) and the libpci it and the
	# shim-built one link (perftest's configure wants pci/pci.h and -lpci),
	# with what libpci needs (libudev, libcap, zlib), none in the 44.0 root
	# shellcheck disable=SC2207 # (paths without spaces)
	debs=($(scripts/roots/apt-fetch.sh --arch arm64 bookworm perftest libpci3 libpci-dev libudev1 libudev-dev libcap2 zlib1g))
	[ ${#debs[@]} -eq 7 ] || { echo "FAIL: fetching bookworm's arm64 perftest and libpci"; exit 1; }
	dpkg-deb -x "${debs[0]}" "$p/stock"
	for d in "${debs[@]:1}"; do dpkg-deb -x "$d" "$p/sysroot"; done
	sl=$p/sysroot/usr/lib/$triplet
	# bookworm's libcap2 and zlib1g are in /lib: one directory for all
	cp -a "$p/sysroot/lib/$triplet/." "$sl/"
	echo "stock peer: Debian's $(dpkg-deb -f "${debs[0]}" Package) $(dpkg-deb -f "${debs[0]}" Version) (arm64)"
	tar -xaf "$ptsrc" -C "$p/src" --strip-components=1 || { echo "$ptsrc: not a tar archive"; exit 1; }
	# -libverbs, -lrdmacm, -libumad, -lmlx5, -lefa... resolve to the archive
	scripts/build/compat-dir.sh --libdir "$repo/build/arm64" "$repo/build" build/arm64/gen/vs_config.h "$p/compat" >/dev/null
	# (a chain: set -e does not hold in a list that || ends)
	(
		cd "$p/src" && ./autogen.sh &&
			./configure --host=$triplet --prefix=/usr CC=$triplet-gcc CFLAGS="-O2 -g" \
				CPPFLAGS="-isystem $hdrs -I$p/sysroot/usr/include -I$p/sysroot/usr/include/$triplet" \
				LDFLAGS="-L$p/compat -L$sl -Wl,-rpath-link,$sl" &&
			grep -E '^(LIBS|LIBUMAD|LIBMLX4|LIBMLX5|LIBEFA|LIBHNS) =' Makefile | sed 's/^/configured: /' &&
			make -j2 "${pt_tests[@]}" && cp "${pt_tests[@]}" "$p/shim/"
	) >"$p/build.log" 2>&1 || { tail -n 30 "$p/build.log"; echo "FAIL: building perftest for arm64 on the shim"; exit 1; }
	grep '^configured: ' "$p/build.log"
	no_rdma_core "${pt_tests[@]/#/$p/shim/}" || exit 1
	for t in "${pt_tests[@]}"; do
		# the drop-ins, mlx5dv's included, come from the archive
		nm "$p/shim/$t" | grep -cE ' [Tt] (ibv_get_device_list|mlx5dv_create_qp)$' | grep -qx 2 ||
			{ echo "FAIL: $t does not define the drop-ins"; exit 1; }
		[ -x "$p/stock/usr/bin/$t" ] || { echo "FAIL: Debian's arm64 perftest has no $t"; exit 1; }
	done
	echo "ok   perftest built for arm64 on the shim: ${pt_tests[*]} (needs: $(readelf -d "$p/shim/ib_write_bw" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '))"
	built+=(perftest)
else
	echo "note: no perftest source (VS_PERFTEST_SRC unset, no $shared_tarball): perftest not built"
fi

[ ${#built[@]} -gt 0 ] || { echo "skip: neither rdma-core's examples (VS_RDMA_CORE_SRC) nor perftest (../shared/sources) to build"; exit 77; }
[ "${1:-}" != --build ] || { echo "built and checked; no boot asked for (--build)"; exit 0; }
scripts/vm-run.sh --arch arm64 --rdma-core 44.0 --timeout "${VS_ARM64_TIMEOUT:-3600}" -- test/shell/dropin_arm64.sh --runs
