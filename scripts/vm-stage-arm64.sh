#!/usr/bin/env bash
# The arm64 VM stage of make check-arm64 (the x86-64 stage is
# scripts/vm-stage.sh, driven by test/boots.list; the arm64 boots are not
# rows of that table yet): VS_VM_CONFIGS=arm64 or arm64-smoke.
#   scripts/vm-stage-arm64.sh RESULTS_FILE
#
# Configurations (each appends "STAGE passed failed skipped" lines):
#   kernel 6.1, host root    rxe (build/test/device/*), rxe-examples
#                            (test/vm/examples.list), rxe-tools (test/vm/*.sh)
#   kernel 6.1, rdma-core 33.2 and 65.0 roots (VS_VM_MATRIX="33.2 44.0
#   56.1 65.0" for every release on 6.1)                     rxe-VER-6.1
#   kernel 6.12, rdma-core 56.1 root: Debian 13's own pair    rxe-56.1-6.12
#   soft-iWARP (siw0) instead of rxe: kernel 6.1, the host root, and the
#   33.2 and 65.0 roots; a skip must name iWARP      siw-6.1, siw-VER-6.1
#   (siw-trixie: kernel 6.12, the 56.1 root)         siw-56.1-6.12
#   two VMs over a qemu socket network, pingpong across      two-vm
#   (and cm_echo by address: the typed connection manager)
#   copies of the checkout under /tmp (with a space), /dev/shm
#   and /run, each booted once (test/vm/host/clone_paths.sh),
#   and the benchmarks' icount guest (test/vm/host/icount.sh)   vm-paths
#   arm64 (make check-arm64, not make check): the arm64 guest
#   (vm-run.sh --arch arm64), kernel 6.1: build/arm64's binaries in the
#   arm64 44.0 root (the host root's release), and build/arm64/oldest's
#   in the arm64 33.2 and 65.0 roots (VS_ARM64_MATRIX)   rxe-arm64-VER
#   arm64-smoke: the demo's programs and ARM64_SMOKE's device tests, one
#   boot (44.0, or VS_ARM64_SMOKE_RELEASE with build/arm64/oldest)
# Two builds: the host root runs today's toolchain's binaries (build/); the
# release roots, each on its own distribution's glibc, all run the one set
# built on the oldest supported distribution (`make oldest`: build/oldest).
#
# VS_VM_CONFIGS limits the run to some of: main matrix trixie siw siw-trixie
# two-vm paths (and, not in the default, arm64 arm64-smoke).
set -euo pipefail

me=vm-stage-arm64.sh
repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"

# The two-VM pingpong: the shim-linked example once it is built, else the
# stock tool (which proves the mechanism only).  Hook: this one variable.
TWO_VM_PINGPONG=${VS_TWO_VM_PINGPONG:-build/bin/rc_pingpong}

RELEASES="33.2 44.0 56.1 65.0"
# The release roots on kernel 6.1: the oldest and the newest.  44.0 is
# Debian 12's, the host root's (main, on 6.1, Debian 12's kernel), and
# 56.1 Debian 13's, run on Debian 13's kernel 6.12 (trixie): each release
# once, each on its own glibc.  Every release on 6.1 too:
# VS_VM_MATRIX="33.2 44.0 56.1 65.0"
MATRIX=${VS_VM_MATRIX:-33.2 65.0}
vmdir=build/vm
# The release roots' binaries, and the build/ directories they stand in for.
OLDEST=build/oldest
OLDEST_DIRS="bin test dropin stubs"

# The arm64 guest: releases (besides 44.0) and the smoke's device tests.
ARM64_MATRIX=${VS_ARM64_MATRIX:-33.2 65.0}
ARM64_SMOKE=" typed_rc_ops typed_uc_ud_srq cm_rc scope "

# Device tests the host root's configuration alone runs: the soak's short
# version (its long run is make soak; what it measures is the server's
# memory and fds over time, not what differs between rdma-core releases).
HOST_ROOT_ONLY=" cm_soak "

# Device tests, example wrappers and tool tests, as test/run.sh arguments.
# device_tests MODE: the release roots' configurations leave HOST_ROOT_ONLY
# out; the host root's, on rxe (main) and on siw (siw-6.1), run it.
device_tests() {
	local t
	for t in build/test/device/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		[[ $1 == arm64-smoke* ]] && [[ $ARM64_SMOKE != *" ${t##*/} "* ]] && continue
		[ "$1" != main ] && [ "$1" != siw-6.1 ] &&
			[[ $HOST_ROOT_ONLY == *" ${t##*/} "* ]] && continue
		echo "$t"
	done
	return 0
}
# A C++ example (examples/NAME.cpp) missing from the build in use (a
# build/oldest made where the build root had no C++ compiler; see the
# Makefile's HAVE_CXX) is left out, said on stderr; any other must be there.
example_tests() {
	local t name
	for t in "$vmdir"/examples/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		name=$(sed -n 's|^# binary: build/bin/||p' "$t")
		if [ -n "$name" ] && [ -e "examples/$name.cpp" ] && [ ! -x "build/bin/$name" ]; then
			echo "note: build/bin/$name (C++) is not in this build: ${t##*/} not run here" >&2
			continue
		fi
		echo "$t"
	done
	return 0
}
tool_tests() { ls test/vm/*.sh; }
# Host root only: binaries built with today's toolchain outside make
# (test/shell/compat.sh's stock autotools/CMake projects).
host_root_tests() { ls test/vm/host-root/*.sh; }

# ---- in the guest -------------------------------------------------------

# use_build DIR: DIR's binaries at build/'s paths (guest-only bind mounts),
# so the tests and the example wrappers run them unchanged.
use_build() {
	local dir=$1 d
	[ -s "$dir/toolchain" ] || { echo "$me: no $dir/toolchain: run make oldest"; return 1; }
	for d in $OLDEST_DIRS; do
		mount --bind "$dir/$d" "build/$d" || { echo "$me: cannot bind $dir/$d over build/$d"; return 1; }
	done
	local libc
	for libc in /lib/x86_64-linux-gnu/libc.so.6 /lib/aarch64-linux-gnu/libc.so.6; do [ -x "$libc" ] && break; done
	echo "binaries: $dir ($(cat "$dir/toolchain")); libc here: $("$libc" | head -n 1)"
}

# --inner MODE OUT [BUILD]: run one configuration's tests, results to OUT.
inner() {
	local mode=$1 out=$2 status=0
	local dev ex tools hr
	if [ -n "${3:-}" ] && [ "$3" != build ]; then
		use_build "$3" || { echo "$mode 0 1 0" >>"$out"; return 1; }
	fi
	# typed_events' lost-wake-up race runs its 100000 messages on the host
	# root (main); the other configurations differ in library or kernel,
	# not in that race: a tenth there
	[ "$mode" = main ] || export VS_EVENTS_MESSAGES=${VS_EVENTS_MESSAGES:-10000}
	mapfile -t dev < <(device_tests "$mode")
	mapfile -t ex < <(example_tests)
	mapfile -t tools < <(tool_tests)
	case $mode in
	arm64-smoke*)
		# the demo's two programs and a few device tests; TCG emulating
		# another architecture is slower: longer per-test timeouts
		ex=()
		for t in "$vmdir"/examples/loopback "$vmdir"/examples/verbs_loopback; do [ -x "$t" ] && ex+=("$t"); done
		test/run.sh --stage "$mode" --timeout 360 --no-skip --results "$out" "${dev[@]}" "${ex[@]}" || status=1
		;;
	rxe-arm64-*)
		test/run.sh --stage "$mode" --timeout 360 --no-skip --results "$out" "${dev[@]}" "${ex[@]}" "${tools[@]}" || status=1
		;;
	main)
		if [ ${#dev[@]} -gt 0 ]; then
			test/run.sh --stage rxe --no-skip --results "$out" "${dev[@]}" || status=1
		else
			echo "rxe: no device tests built (build/test/device/ is empty)"
		fi
		if [ ${#ex[@]} -gt 0 ]; then
			test/run.sh --stage rxe-examples --no-skip --results "$out" "${ex[@]}" || status=1
		fi
		mapfile -t hr < <(host_root_tests)
		test/run.sh --stage rxe-tools --no-skip --results "$out" "${tools[@]}" "${hr[@]}" || status=1
		;;
	siw*)
		# what iWARP has not is skipped, naming it
		test/run.sh --stage "$mode" --no-skip --skip-ok "iWARP" --results "$out" "${dev[@]}" "${ex[@]}" "${tools[@]}" || status=1
		;;
	*)
		test/run.sh --stage "$mode" --no-skip --results "$out" "${dev[@]}" "${ex[@]}" "${tools[@]}" || status=1
		;;
	esac
	return $status
}

# --two-vm server | client SERVER_IP
two_vm() {
	local role=$1 server=${2:-} pp=$TWO_VM_PINGPONG
	# Round trips: each one crosses two emulated machines.
	local a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n "${VS_TWO_VM_ITERS:-1000}")
	if [ -x "$pp" ]; then
		echo "two-vm: $role with $pp (linked with the shim)"
	else
		echo "two-vm: $pp not built; $role with the stock ibv_rc_pingpong"
		pp=ibv_rc_pingpong
		a+=(-c)
	fi
	# iWARP connects only through the CM: the pingpong's handshake is not for it
	if [ "${VS_PROVIDER:-rxe}" = siw ]; then
		echo "two-vm: $VS_RXE_DEV is iWARP: the CM echo only"
		two_vm_cm "$role" "$server"
		return
	fi
	if [ "$role" = server ]; then
		timeout 150 "$pp" "${a[@]}" || return
		two_vm_cm server
		return
	fi
	two_vm_client "$pp" "${a[@]}" "$server" || return
	two_vm_cm client "$server"
}

# Client side: retry while the server VM cannot be reached yet.
two_vm_client() {
	local try=0 deadline=$((SECONDS + 120)) rc log=/tmp/client.log
	while :; do
		try=$((try + 1))
		rc=0
		timeout 60 "$@" >"$log" 2>&1 || rc=$?
		if [ $rc -eq 0 ] || [ $SECONDS -ge $deadline ] ||
			! grep -qiE "couldn't connect|connection refused|unable to connect|no route|rejected|unreachable" "$log"; then
			break
		fi
		sleep 1
	done
	echo "client $1 (attempt $try, exit $rc):"
	cat "$log"
	return $rc
}

# The typed connection manager across the two VMs: cm_echo by the other
# VM's address, private data and bytes checked both ways, 2 clients.
two_vm_cm() {
	local ce=${VS_TWO_VM_CM_ECHO:-build/bin/cm_echo} a=(-p 7481 -n 200)
	[ -x "$ce" ] || { echo "two-vm: $ce not built"; return 1; }
	if [ "$1" = server ]; then
		echo "two-vm: cm_echo server, 2 clients"
		timeout 150 "$ce" "${a[@]}" -c 2
		return
	fi
	two_vm_client "$ce" "${a[@]}" "$2" && two_vm_client "$ce" "${a[@]}" "$2"
}

case ${1:-} in
--inner) inner "$2" "$3" "${4:-}"; exit ;;
--two-vm) shift; two_vm "$@"; exit ;;
esac

# ---- on the host --------------------------------------------------------

results=${1:?usage: $me RESULTS_FILE}
touch "$results"
# siw-trixie (siw on kernel 6.12) is make check-siw's, beside siw.
configs=${VS_VM_CONFIGS:-main matrix trixie siw two-vm paths}
mkdir -p "$vmdir"
status=0
summary=()
t_all=$SECONDS

# The host root's test/vm/host-root/compat.sh runs the binaries that
# test/shell/compat.sh builds through `make install`'s compat directory
# (make check's host stage runs it first).  Made here when the stage runs
# on its own (make check-rxe) and they are missing, or any is older than
# the archive, test/shell/compat.sh or its projects (test/compat, the
# example): the VM never runs stale ones, nor misses one a newer script makes.
compat_bins() {
	local b n=0 src
	for b in build/compat/bin/*; do
		[ -x "$b" ] || { n=0; break; }
		for src in lib/libverbshim.a test/shell/compat.sh examples/verbs_loopback.c $(find test/compat -type f); do
			[ "$b" -nt "$src" ] || { n=0; break 2; }
		done
		n=$((n + 1))
	done
	[ $n -gt 0 ] && return 0
	echo "== VM stage: building the compat binaries (test/shell/compat.sh)"
	scripts/deps.sh || return 1
	test/shell/compat.sh >build/compat-stage.log 2>&1 ||
		{ cat build/compat-stage.log; echo "$me: error: test/shell/compat.sh failed" >&2; return 1; }
}

# Fetch everything up front: a network problem shows here, once, clearly.
prep() {
	echo "== VM stage: preparing kernels and rdma-core roots"
	scripts/deps.sh --vm || return 1
	scripts/kernel-fetch.sh bookworm >/dev/null || return 1
	case " $configs " in *" trixie "*) scripts/kernel-fetch.sh trixie >/dev/null || return 1 ;; esac
	case " $configs " in *" siw "*) scripts/siw-build.sh bookworm >/dev/null || return 1 ;; esac
	case " $configs " in *" siw-trixie "*)
		scripts/kernel-fetch.sh trixie >/dev/null || return 1
		scripts/siw-build.sh trixie >/dev/null || return 1 ;;
	esac
	case " $configs " in
	*" matrix "* | *" trixie "* | *" siw "* | *" siw-trixie "*)
		for v in $RELEASES; do scripts/rdma-core-root.sh "$v" >/dev/null || return 1; done
		local d
		for d in $OLDEST_DIRS; do
			[ -d "$OLDEST/$d" ] && [ -d "build/$d" ] ||
				{ echo "$me: error: the release roots run $OLDEST/$d over build/$d: run make all tests oldest" >&2; return 1; }
		done
		;;
	esac
	case " $configs " in *" main "*) compat_bins || return 1 ;; esac
	case " $configs " in *" arm64"*)
		scripts/deps.sh --arm64 || return 1
		scripts/kernel-fetch.sh --arch arm64 bookworm >/dev/null || return 1
		for v in 44.0 $ARM64_MATRIX ${VS_ARM64_SMOKE_RELEASE:-}; do scripts/rdma-core-root.sh --arch arm64 "$v" >/dev/null || return 1; done
		local b
		for b in build/arm64 build/arm64/oldest; do
			[ "$b" = build/arm64/oldest ] && [[ " $configs " != *" arm64 "* ]] &&
				[ "${VS_ARM64_SMOKE_RELEASE:-44.0}" = 44.0 ] && continue
			[ -x $b/bin/loopback ] && [ -d $b/test/device ] ||
				{ echo "$me: error: no $b/bin/loopback: run make ARCH=arm64 all tests oldest" >&2; return 1; }
		done
		# what use_build prints of the binaries (make oldest writes its own)
		printf '%s; %s\n' "$(aarch64-linux-gnu-gcc --version | head -n 1)" \
			"$(qemu-aarch64 -L /usr/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib/libc.so.6 | head -n 1)" >build/arm64/toolchain
		# the guest binds the arm64 builds over these
		mkdir -p $(printf 'build/%s ' $OLDEST_DIRS)
		;;
	esac
}
if ! prep; then
	echo "$me: error: cannot prepare the test bed (see above)" >&2
	echo "vm-setup 0 1 0" >>"$results"
	exit 1
fi

# Wrappers for the examples of test/vm/examples.list that are built.
# Rewritten in place (another checkout user's stage may be running them).
mkdir -p "$vmdir/examples"
keep=" "
# arm64 configurations: the examples of the arm64 build too
ex_bins=build/bin
case " $configs " in *" arm64"*) ex_bins+=" build/arm64/bin" ;; esac
while read -r id name mode args; do
	case $id in '' | '#'*) continue ;; esac
	for b in $ex_bins; do [ -x "$b/$name" ] && break; done
	[ -x "$b/$name" ] || continue
	w=$vmdir/examples/$id
	keep+="$id "
	{
		echo '#!/usr/bin/env bash'
		echo "# Generated by scripts/vm-stage.sh from test/vm/examples.list."
		echo "# binary: build/bin/$name"
		echo "cd '$repo' || exit 1"
		echo '. test/vm/lib/common.bash'
		echo 'need_vm'
		case $mode in
		single) echo "exec build/bin/$name $args" ;;
		pair) echo "pair build/bin/$name $args -- build/bin/$name $args \"\$VS_RXE_IP\"" ;;
		*) echo "echo 'examples.list: unknown mode $mode'; exit 1" ;;
		esac
	} >"$w.$$"
	chmod +x "$w.$$"
	mv -f "$w.$$" "$w"
done <test/vm/examples.list
for w in "$vmdir"/examples/*; do
	[ -e "$w" ] || continue
	case $keep in *" ${w##*/} "*) ;; *) rm -f "$w" ;; esac
done

# One boot: STAGE-NAMES (for the failure line), the build dir whose
# binaries run, then vm-run options.
boot() {
	local label=$1 mode=$2 bdir=$3 out t0 rc=0
	shift 3
	out=$vmdir/results-$label.$$
	: >"$out"
	t0=$SECONDS
	echo "== VM: $label"
	scripts/vm-run.sh --timeout "${VS_VM_TIMEOUT:-900}" "$@" -- scripts/vm-stage-arm64.sh --inner "$mode" "$out" "$bdir" || rc=$?
	if [ ! -s "$out" ]; then
		# The VM never got to run the tests: count it as one failure.
		echo "$label 0 1 0" >"$out"
	elif [ $rc -eq 124 ] || [ $rc -eq 125 ]; then
		# It died (timeout, crash) after some tests had reported.
		echo "$label-vm 0 1 0" >>"$out"
	fi
	[ $rc -eq 0 ] || status=1
	cat "$out" >>"$results"
	summary+=("$(printf '%-16s %4ss  %s' "$label" $((SECONDS - t0)) "$(awk '{p+=$2; f+=$3; s+=$4} END {printf "%d passed, %d failed, %d skipped", p, f, s}' "$out")")")
	rm -f "$out"
}

# two_vm_run [rxe|siw]: the provider of both guests (label two-vm, two-vm-siw)
two_vm_run() {
	local t0=$SECONDS spid cpid src=0 crc=0 p1 p2 line prov=${1:-rxe}
	local opts=(--timeout "${VS_VM_TIMEOUT:-600}" --smp "${VS_TWO_VM_SMP:-1}" --provider "$prov")
	local net1 net2 mode=${VS_TWO_VM_NET:-udp} label=two-vm
	[ "$prov" = rxe ] || label=two-vm-$prov
	echo "== VM: $label (two guests, qemu socket network ($mode) on 127.0.0.1)"
	# Free loopback ports for the socket netdev.
	for _ in $(seq 1 50); do
		p1=$((20000 + RANDOM % 20000))
		p2=$((p1 + 1))
		ss -Htuln "( sport = :$p1 or sport = :$p2 )" | grep -q . || break
	done
	# UDP by default: qemu's TCP socket netdev leaves Nagle on, which costs
	# ~50 ms per round trip (1.9 ms over UDP).  tcp: listen/connect.
	if [ "$mode" = tcp ]; then
		net1=listen:$p1 net2=connect:$p1
	else
		net1=udp:$p1:$p2 net2=udp:$p2:$p1
	fi
	scripts/vm-run.sh "${opts[@]}" --name vm1 --netdev-socket "$net1" --ip 10.77.0.1/24 \
		-- scripts/vm-stage-arm64.sh --two-vm server &
	spid=$!
	if [ "$mode" = tcp ]; then
		# The client's qemu needs the listener up.
		for _ in $(seq 1 300); do
			ss -Htln "sport = :$p1" | grep -q . && break
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	scripts/vm-run.sh "${opts[@]}" --name vm2 --netdev-socket "$net2" --ip 10.77.0.2/24 \
		-- scripts/vm-stage-arm64.sh --two-vm client 10.77.0.1 &
	cpid=$!
	wait "$cpid" || crc=$?
	wait "$spid" || src=$?
	if [ $src -eq 0 ] && [ $crc -eq 0 ]; then
		line="$label 1 0 0"
	else
		echo "$me: $label: server VM exit $src, client VM exit $crc" >&2
		line="$label 0 1 0"
		status=1
	fi
	echo "$line" >>"$results"
	summary+=("$(printf '%-16s %4ss  %s' "$label" $((SECONDS - t0)) "server exit $src, client exit $crc")")
}

for c in $configs; do
	case $c in
	main) boot rxe-6.1 main build --kernel bookworm ;;
	matrix)
		for v in $MATRIX; do
			boot "rxe-$v-6.1" "rxe-$v-6.1" "$OLDEST" --kernel bookworm --rdma-core "$v"
		done
		;;
	trixie) boot rxe-56.1-6.12 rxe-56.1-6.12 "$OLDEST" --kernel trixie --rdma-core 56.1 ;;
	siw-trixie) boot siw-56.1-6.12 siw-56.1-6.12 "$OLDEST" --kernel trixie --provider siw --rdma-core 56.1 ;;
	siw)
		boot siw-6.1 siw-6.1 build --kernel bookworm --provider siw
		for v in 33.2 65.0; do
			boot "siw-$v-6.1" "siw-$v-6.1" "$OLDEST" --kernel bookworm --provider siw --rdma-core "$v"
		done
		two_vm_run siw
		;;
	two-vm) two_vm_run ;;
	arm64)
		# ~50 tests under TCG emulating aarch64 outlast 900 s (measured: 15
		# device tests in 900 s at load ~20): an hour per boot
		boot rxe-arm64-44.0 rxe-arm64-44.0 build/arm64 --arch arm64 --rdma-core 44.0 --timeout "${VS_ARM64_TIMEOUT:-3600}"
		for v in $ARM64_MATRIX; do
			boot "rxe-arm64-$v" "rxe-arm64-$v" build/arm64/oldest --arch arm64 --rdma-core "$v" --timeout "${VS_ARM64_TIMEOUT:-3600}"
		done
		;;
	arm64-smoke)
		# VS_ARM64_SMOKE_RELEASE: 44.0 runs build/arm64, another release the
		# Debian 11 build (build/arm64/oldest)
		v=${VS_ARM64_SMOKE_RELEASE:-44.0} b=build/arm64
		[ "$v" = 44.0 ] || b=build/arm64/oldest
		boot "rxe-arm64-smoke-$v" "arm64-smoke-$v" "$b" --arch arm64 --rdma-core "$v"
		;;
	paths)
		echo "== VM: paths (the test bed run from copies of the checkout elsewhere)"
		test/run.sh --stage vm-paths --no-skip --timeout 600 --results "$results" test/vm/host/clone_paths.sh test/vm/host/icount.sh || status=1
		;;
	*) echo "$me: unknown configuration $c" >&2; status=1 ;;
	esac
done

echo "== VM stage summary ($((SECONDS - t_all))s)"
printf '  %s\n' "${summary[@]}"
exit $status
