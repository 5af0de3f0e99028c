#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Two guests over a qemu socket network (scripts/vm/stage.sh runs it in
# each of a boot of test/boots.list with GUESTS 2):
#
#   test/vm/two_vm.sh server
#   test/vm/two_vm.sh client SERVER_IP
#
# On rxe: rc_pingpong across the machines (the shim-linked example once it
# is built, else the stock ibv_rc_pingpong, which proves the mechanism
# only; VS_TWO_VM_PINGPONG, VS_TWO_VM_ITERS), then cm_echo by the other
# guest's address (the typed connection manager: private data and bytes
# checked both ways, 2 clients), then verbshim-selftest's server and
# client (lib/selftest_two_vm.bash).  On iWARP, which connects only through
# the CM, the CM echo and the selftest only.  Exit 0 pass, 1 fail, 77
# outside the VM.
#
# Each guest runs its own architecture's build: build/bin on x86-64,
# build/arm64/bin on arm64 (an arm64 guest runs in the arm64 44.0 root),
# so a pair may mix them (test/boots.list's ARCH arm64+x86_64): the
# endpoint bytes and the echoed messages then cross architectures.
# VS_TWO_VM_WAIT: seconds the client retries while the server is not up
# (default 120), the server waits 30 more (a TCG arm64 peer boots in
# minutes).
set -u
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
# shellcheck source=lib/selftest_two_vm.bash
. "$(dirname "$0")/lib/selftest_two_vm.bash"
need_vm
cd "$(dirname "$0")/../.." || exit 1
role=${1:?usage: two_vm.sh server | client SERVER_IP}
server=${2:-}
machine=$(uname -m)
case $machine in
aarch64) bin=build/arm64/bin ;;
*) bin=build/bin ;;
esac
wait_s=${VS_TWO_VM_WAIT:-120}
[[ $wait_s =~ ^[1-9][0-9]*$ ]] || { echo "two-vm: VS_TWO_VM_WAIT=$wait_s: seconds"; exit 1; }

# Client side: retry while the server VM cannot be reached yet.
client() {
	local try=0 deadline=$((SECONDS + wait_s)) rc log=/tmp/client.log t
	while :; do
		try=$((try + 1))
		rc=0
		# The examples retry their connect themselves, ~3 s an attempt
		# while the server's address does not answer ARP (a peer still
		# booting): each run may take until the deadline, 60 s at least.
		t=$((deadline - SECONDS))
		[ $t -ge 60 ] || t=60
		timeout $t "$@" >"$log" 2>&1 || rc=$?
		# (RDMA_CM_EVENT_ADDR_ERROR: the CM's resolve found no one at the
		# server's address yet, as the TCP connect's "no route")
		if [ $rc -eq 0 ] || [ $SECONDS -ge $deadline ] ||
			! grep -qiE "couldn't connect|connection refused|unable to connect|no route|rejected|unreachable|RDMA_CM_EVENT_ADDR_ERROR" "$log"; then
			break
		fi
		sleep 1
	done
	echo "client $1 (attempt $try, exit $rc):"
	cat "$log"
	return $rc
}

# cm_echo by the other guest's address, 2 clients
cm_echo() {
	local ce=${VS_TWO_VM_CM_ECHO:-$bin/cm_echo} a=(-p 7481 -n 200)
	[ -x "$ce" ] || { echo "two-vm: $ce not built"; return 1; }
	if [ "$role" = server ]; then
		echo "two-vm: cm_echo server ($machine, $ce), 2 clients"
		timeout $((wait_s + 30)) "$ce" "${a[@]}" -c 2
		return
	fi
	echo "two-vm: cm_echo client ($machine, $ce)"
	client "$ce" "${a[@]}" "$server" && client "$ce" "${a[@]}" "$server"
}

if [ "${VS_PROVIDER:-rxe}" = siw ]; then
	echo "two-vm: $VS_RXE_DEV is iWARP: the CM echo and verbshim-selftest only"
	cm_echo || exit
	selftest_two_vm "$role" "$server"
	exit
fi
pp=${VS_TWO_VM_PINGPONG:-$bin/rc_pingpong}
# Round trips: each one crosses two emulated machines.
a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n "${VS_TWO_VM_ITERS:-1000}")
if [ -x "$pp" ]; then
	echo "two-vm: $role ($machine) with $pp (linked with the shim)"
else
	echo "two-vm: $pp not built; $role ($machine) with the stock ibv_rc_pingpong"
	pp=ibv_rc_pingpong
	a+=(-c)
fi
if [ "$role" = server ]; then
	timeout $((wait_s + 30)) "$pp" "${a[@]}" || exit
else
	client "$pp" "${a[@]}" "$server" || exit
fi
cm_echo || exit
selftest_two_vm "$role" "$server"
