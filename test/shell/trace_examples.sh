#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# docs/trace.md on real programs: rdma-core's own ibv_rc_pingpong and rping
# (their source unchanged, VS_RDMA_CORE_SRC: a checkout or git mirror of
# github.com/linux-rdma/rdma-core, VS_RDMA_CORE_REF default v44.0) built
# on libverbshim.a, run on rxe in the VM with VERBSHIM_TRACE=all and
# VERBSHIM_STATS=1: each side's trace holds the expected calls with their
# arguments decoded (QP states, access flags, CM event types) and as many
# lines as its counters' total.  When test/shell/perftest.sh has built
# perftest on the shim (build/perftest/shim), VERBSHIM_FAULT makes its
# ibv_reg_mr fail: perftest must report its own error and exit, not crash.
#
#   test/shell/trace_examples.sh          build on the host, run in the VM
#   test/shell/trace_examples.sh --runs   the runs only (inside the VM)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=$repo/build/trace-examples

fail() {
	echo "FAIL: $*"
	status=1
}

# The trace file of one process: PREFIX.<pid>, the newest (a client the
# pair retried left one per attempt).
trace_of() {
	# shellcheck disable=SC2012 # our own names: PREFIX.<pid>
	ls -t "$1".* 2>/dev/null | head -n 1
}

# check_trace FILE WHAT PATTERN...: every extended regex is in FILE, and the
# lines of calls are as many as the counters' total at exit.
check_trace() {
	local f=$1 what=$2 lines total p
	shift 2
	if [ -z "$f" ] || [ ! -s "$f" ]; then
		fail "$what: no trace file"
		return
	fi
	for p in "$@"; do
		grep -qE -- "$p" "$f" || fail "$what: no line matching: $p"
	done
	lines=$(grep -c '^verbshim: \[[0-9]*\] ' "$f")
	total=$(sed -n 's/^verbshim: total *\([0-9]*\) .*/\1/p' "$f")
	if [ "$lines" = "$total" ]; then
		echo "$what: $lines calls traced, counters' total $total"
	else
		fail "$what: $lines trace lines, counters' total ${total:-missing}"
	fi
}

runs() {
	# shellcheck source=../vm/lib/common.bash
	. test/vm/lib/common.bash
	need_vm
	status=0
	local t=$out/traces
	rm -rf "$t"
	mkdir -p "$t"
	export VERBSHIM_TRACE=all VERBSHIM_STATS=1

	if [ "${VS_PROVIDER:-rxe}" != siw ]; then
		local a=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 20 -c)
		pair env VERBSHIM_TRACE_FILE="$t/rc.srv" "$out/ibv_rc_pingpong" "${a[@]}" -- \
			env VERBSHIM_TRACE_FILE="$t/rc.cli" "$out/ibv_rc_pingpong" "${a[@]}" "$VS_RXE_IP" ||
			fail "ibv_rc_pingpong on the shim"
		for side in srv cli; do
			check_trace "$(trace_of "$t/rc.$side")" "ibv_rc_pingpong ($side)" \
				'\] ibv_open_device\(device=device#1\) = context#1 <' \
				'\] ibv_alloc_pd\(context=context#1\) = pd#1 <' \
				'\] ibv_reg_mr(_iova2)?\(pd=pd#1, addr=0x[0-9a-f]+, length=4096, .*access=IBV_ACCESS_LOCAL_WRITE\) = mr#1 <' \
				'\] ibv_create_cq\(context=context#1, cqe=[0-9]+, cq_context=NULL, channel=NULL, comp_vector=0\) = cq#1 <' \
				'\] ibv_create_qp\(pd=pd#1, qp_init_attr=\{qp_type=IBV_QPT_RC, send_cq=cq#1, recv_cq=cq#1, cap=\{max_send_wr=1, max_recv_wr=500, ' \
				'\] ibv_modify_qp\(qp=qp#1, attr=\{qp_state=IBV_QPS_INIT, qp_access_flags=0, port_num=1, \.\.\.\}, attr_mask=IBV_QP_STATE\|IBV_QP_ACCESS_FLAGS\|IBV_QP_PKEY_INDEX\|IBV_QP_PORT\) = 0 <' \
				'\] ibv_modify_qp\(qp=qp#1, attr=\{qp_state=IBV_QPS_RTR, path_mtu=IBV_MTU_[0-9]+, dest_qp_num=[0-9]+, rq_psn=[0-9]+, ah_attr=\{.*attr_mask=IBV_QP_STATE\|IBV_QP_AV\|IBV_QP_PATH_MTU\|IBV_QP_RQ_PSN\|IBV_QP_MIN_RNR_TIMER\|IBV_QP_MAX_DEST_RD_ATOMIC\|IBV_QP_DEST_QPN\) = 0 <' \
				'\] ibv_modify_qp\(qp=qp#1, attr=\{qp_state=IBV_QPS_RTS, sq_psn=[0-9]+, \.\.\.\}, .*\) = 0 <' \
				'\] ibv_destroy_qp\(qp=qp#1\) = 0 <' \
				'\] ibv_dereg_mr\(mr=mr#1\) = 0 <' \
				'\] ibv_close_device\(context=context#1\) = 0 <'
		done
	fi

	pair env VERBSHIM_TRACE_FILE="$t/rping.srv" "$out/rping" -s -a "$VS_RXE_IP" -C 10 -S 256 -V -- \
		env VERBSHIM_TRACE_FILE="$t/rping.cli" "$out/rping" -c -a "$VS_RXE_IP" -C 10 -S 256 -V ||
		fail "rping on the shim"
	check_trace "$(trace_of "$t/rping.srv")" "rping (server)" \
		'\] rdma_create_event_channel\(\) = event_channel#1 <' \
		'\] rdma_create_id\(channel=event_channel#1, id=0x[0-9a-f]+, context=0x[0-9a-f]+, ps=[0-9]+\) => \*id=cm_id#1 = 0 <' \
		'\] rdma_bind_addr\(id=cm_id#1, addr=\{AF_INET [0-9.]+:[0-9]+\}\) = 0 <' \
		'\] rdma_listen\(id=cm_id#1, backlog=[0-9]+\) = 0 <' \
		'\] rdma_get_cm_event\(channel=event_channel#1, event=0x[0-9a-f]+\) => \*event=cm_event#[0-9]+\{event=RDMA_CM_EVENT_CONNECT_REQUEST, status=0, id=cm_id#2\} = 0 <' \
		'\] rdma_accept\(id=cm_id#2, conn_param=NULL\) = 0 <' \
		'event=RDMA_CM_EVENT_ESTABLISHED' \
		'event=RDMA_CM_EVENT_DISCONNECTED' \
		'\] ibv_reg_mr(_iova2)?\(pd=pd#1, .*access=IBV_ACCESS_LOCAL_WRITE\|IBV_ACCESS_REMOTE_WRITE\|IBV_ACCESS_REMOTE_READ\) = mr#[0-9]+ <' \
		'\] rdma_destroy_id\(id=cm_id#2\) = 0 <'
	check_trace "$(trace_of "$t/rping.cli")" "rping (client)" \
		'\] rdma_resolve_addr\(id=cm_id#1, src_addr=NULL, dst_addr=\{AF_INET [0-9.]+:7174\}, timeout_ms=2000\) = 0 <' \
		'event=RDMA_CM_EVENT_ADDR_RESOLVED' \
		'event=RDMA_CM_EVENT_ROUTE_RESOLVED' \
		'\] rdma_connect\(id=cm_id#1, conn_param=\{' \
		'event=RDMA_CM_EVENT_ESTABLISHED' \
		'\] rdma_disconnect\(id=cm_id#1\) = 0 <'
	echo "== the traces (server sides):"
	local f
	for f in "$(trace_of "$t/rc.srv")" "$(trace_of "$t/rping.srv")"; do
		[ -n "$f" ] && head -n 60 "$f" | sed 's/^/  | /'
	done

	local pt=$repo/build/perftest
	if [ -x "$pt/shim/ib_write_bw" ] && [ "${VS_PROVIDER:-rxe}" != siw ]; then
		local peer=/usr/bin/ib_write_bw rc=0
		[ -x "$peer" ] || peer=$pt/stock/ib_write_bw
		timeout 120 "$peer" -d "$VS_RXE_DEV" -x "$VS_RXE_GID_INDEX" -F -n 20 >"$t/pt.srv" 2>&1 &
		local spid=$! try
		# perftest connects (TCP) before it registers memory: again
		# while the server is not listening yet
		for try in $(seq 30); do
			sleep 1
			rc=0
			VERBSHIM_TRACE=failed VERBSHIM_FAULT='ibv_reg_mr*:ENOMEM:1' \
				timeout 60 "$pt/shim/ib_write_bw" -d "$VS_RXE_DEV" -x "$VS_RXE_GID_INDEX" -F -n 20 \
				"$VS_RXE_IP" >"$t/pt.cli" 2>&1 || rc=$?
			grep -q "Couldn't connect to" "$t/pt.cli" || break
		done
		echo "(client attempt $try)"
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		echo "== perftest ib_write_bw with VERBSHIM_FAULT='ibv_reg_mr*:ENOMEM:1': exit $rc"
		sed 's/^/  | /' "$t/pt.cli"
		# its own error, its own exit: not 0, not a signal, not timeout's 124
		if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
			fail "perftest did not fail by itself (exit $rc)"
		fi
		grep -qE '\] ibv_reg_mr(_iova2)?\(.*\) = NULL ENOMEM \(Cannot allocate memory\) \[injected by VERBSHIM_FAULT\]' "$t/pt.cli" ||
			fail "perftest: no injected ibv_reg_mr line"
		grep -qiE "couldn't allocate MR|failed to create mr|Couldn't create" "$t/pt.cli" ||
			fail "perftest: its own error message is missing"
	else
		echo "perftest: not built on the shim here (test/shell/perftest.sh builds it): fault run skipped"
	fi
	return $status
}

if [ "${1:-}" = --runs ]; then
	runs
	exit
fi

src=${VS_RDMA_CORE_SRC:-}
ref=${VS_RDMA_CORE_REF:-v44.0}
if [ -z "$src" ]; then
	echo "skip: VS_RDMA_CORE_SRC is unset (a checkout or git mirror of github.com/linux-rdma/rdma-core, whose examples this builds)"
	exit 77
fi
[ -f lib/libverbshim.a ] || { echo "no lib/libverbshim.a: run make"; exit 1; }
rm -rf "$out"
mkdir -p "$out/src"
files="libibverbs/examples/rc_pingpong.c libibverbs/examples/pingpong.c libibverbs/examples/pingpong.h
librdmacm/examples/rping.c librdmacm/examples/common.c librdmacm/examples/common.h
ccan/minmax.h ccan/build_assert.h"
# shellcheck source=lib/workloads.bash
. test/shell/lib/workloads.bash
# shellcheck disable=SC2086 # the list
rdma_core_sources "$src" "$ref" "$out/src" $files || exit 1
cc=${CC:-cc}
flags=(-O2 -g -D_GNU_SOURCE -I"$out/src" -I"$out/src/libibverbs/examples" -w)
"$cc" "${flags[@]}" -o "$out/ibv_rc_pingpong" "$out/src/libibverbs/examples/rc_pingpong.c" \
	"$out/src/libibverbs/examples/pingpong.c" lib/libverbshim.a -ldl -lpthread
"$cc" "${flags[@]}" -o "$out/rping" "$out/src/librdmacm/examples/rping.c" \
	"$out/src/librdmacm/examples/common.c" lib/libverbshim.a -ldl -lpthread
for b in ibv_rc_pingpong rping; do
	if readelf -d "$out/$b" | grep -qE 'lib(ibverbs|rdmacm)\.so'; then
		echo "FAIL: $b links rdma-core"
		exit 1
	fi
done
echo "built on the shim: $out/ibv_rc_pingpong $out/rping (no rdma-core library needed)"
if [ "${VERBSHIM_IN_VM:-}" = 1 ]; then
	runs
else
	scripts/vm-run.sh --timeout 900 -- test/shell/trace_examples.sh --runs
fi
