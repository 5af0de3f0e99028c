#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Connection setup through the typed connection manager against librdmacm's
# own cmtime (Debian's rdmacm-utils, a dependency of scripts/deps.sh), in
# one VM run, on one rxe device (client and server in the same guest).
#
#   bench/cm_setup.sh             boots the VM (scripts/vm-run.sh)
#   VS_VM_PROVIDER=siw            on soft-iWARP's siw0 instead
#   VS_BENCH_CONNS=N              connections per run (default 50)
#   VS_BENCH_REPS=N               runs of each tool (default 7)
#   VS_BENCH_CLOCK=icount|real    the guest's clock (below; default icount)
#   VS_BENCH_RDMA_CORE=VERSION    in that release's root (33.2 44.0 56.1
#                                 65.0), against its own cmtime
#
# Staged: each step for all N connections before the next, connects
# overlapping (cmtime's way; build/bin/cm_time -P, one shared CM event
# channel per side as cmtime's; -P -I, a channel per id, the library's
# default), in turn (each run starts with the next tool).  Then cm_time
# one connection after the other, for the per-connection latency of a
# step.  Then bench/cm_steps: the resolve and QP steps raw and typed in one
# process, in turn.  Last, each staged client's system calls (strace -c).
# Prints each run's table: figures, never judged (docs/bench-cm.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# VS_BENCH_CLOCK=icount (default): qemu's icount mode, one vCPU, the
# guest's clock advancing 1 ns per instruction executed (kernel and user),
# idle skipped: the same binaries give the same figures to within about 1%,
# where real-time TCG moves them by a quarter between runs.  It counts
# work, not a real CPU's caches or pipelines.  VS_BENCH_CLOCK=real: the
# host's clock, two vCPUs, as the tests run.
clock=${VS_BENCH_CLOCK:-icount}
# VS_BENCH_RDMA_CORE=VERSION: in that release's root, against its own
# cmtime, with the binaries built on the oldest distribution (make oldest)
release=${VS_BENCH_RDMA_CORE:-}
bld=build
[ -n "$release" ] && bld=build/oldest
[ -x $bld/bin/cm_time ] || { echo "$bld/bin/cm_time missing: make $([ -n "$release" ] && echo oldest || echo examples)"; exit 1; }
if [ "${VERBSHIM_IN_VM:-}" != 1 ]; then
	vm=(--timeout 1200)
	[ -n "$release" ] && vm+=(--rdma-core "$release")
	case $clock in
	icount) vm+=(--icount 0 --smp 1) ;;
	real) ;;
	*) echo "VS_BENCH_CLOCK=$clock: icount or real"; exit 2 ;;
	esac
	exec scripts/vm-run.sh "${vm[@]}" -- bench/cm_setup.sh
fi
echo "== clock: $clock ($([ "$clock" = icount ] && echo 'guest time = instructions executed, 1 ns each, one vCPU' || echo "host time under TCG, $VS_GUEST_SMP vCPUs"))"
command -v cmtime >/dev/null || { echo "no cmtime (apt-get install rdmacm-utils)"; exit 1; }
n=${VS_BENCH_CONNS:-50} reps=${VS_BENCH_REPS:-7} port=7600
# cm_time runs from the guest's tmpfs, as cmtime and the libraries run
# from the host's root, which the guest mounts with cache=loose: the repo
# is mounted uncached, so a binary run from it page-faults its code in
# through 9p afresh on every run (a cost of the test bed: at 50
# connections it added about 150 us per connection to the QP step alone).
bin=$(mktemp -d)
cp $bld/bin/cm_time "$bin/"
cm_time=$bin/cm_time
[ -x $bld/bench/cm_steps ] && cp $bld/bench/cm_steps "$bin/"

wait_listen() {	# PORT: until a TCP socket listens on it (10 s at most)
	local hex
	hex=$(printf ':%04X' "$1")
	for _ in $(seq 50); do
		awk -v p="$hex" '$2 ~ p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
			/proc/net/tcp /proc/net/tcp6 && return
		sleep 0.2
	done
	echo "nothing listens on port $1 after 10 s"
}

run_pair() {	# SERVER... -- CLIENT...
	local srv=() cli=()
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	port=$((port + 1))
	local out
	out=$(mktemp)
	timeout 120 "${srv[@]}" -p $port >"$out" 2>&1 &
	local spid=$!
	sleep 1
	# cm_time's server says when it listens (librdmacm's start may take
	# longer than the second on a loaded host); cmtime's says nothing
	if [[ ${srv[0]} == */cm_time ]]; then
		for _ in $(seq 100); do
			grep -q listening "$out" && break
			sleep 0.2
		done
	fi
	# iWARP's listener is a TCP socket, and a connect that comes before it
	# is refused at once (RoCE's CM retries its request): wait for it
	[ "${VS_PROVIDER:-rxe}" = siw ] && wait_listen $port
	timeout 120 "${cli[@]}" -p $port || echo "client failed: exit $?"
	# the server's own figures are not printed: do not wait for its
	# clean-up (cmtime's server may wait for events that never come)
	sleep 2
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	rm -f "$out"
}

staged() {	# 0: cmtime, 1: cm_time -P, 2: cm_time -P -I
	case $1 in
	0) echo "== run $r: cmtime -c $n (librdmacm $(ls /usr/lib/x86_64-linux-gnu/librdmacm.so.1.* 2>/dev/null | sed 's/.*so\.1\.//'))"
	   # (|| true: a failed client prints nothing, and the table says so)
	   run_pair cmtime -b "$VS_RXE_IP" -c "$n" -- cmtime -s "$VS_RXE_IP" -c "$n" |
		{ grep -v '^[a-z]*ing\|^creating\|^resolving' || true; } ;;
	1) echo "== run $r: cm_time -P -n $n (one shared CM event channel per side)"
	   run_pair "$cm_time" -P -n "$n" -- "$cm_time" -P -n "$n" "$VS_RXE_IP" ;;
	2) echo "== run $r: cm_time -P -I -n $n (a CM event channel per id)"
	   run_pair "$cm_time" -n "$n" -- "$cm_time" -P -I -n "$n" "$VS_RXE_IP" ;;
	esac
	# a killed server's connections are torn down by the kernel (rxe,
	# emulated): not inside the next tool's clock
	sleep 3
}

# The cmtime of 56.1 and 65.0 is a rewrite (tests of its own, other steps
# and table; its client is rejected by a server of another mode): the
# whole-tool comparison needs the earlier one (33.2, 44.0).  The library
# alone (cm_steps) runs with every release.
whole=1
usage=$(cmtime -h 2>&1 || true)
if [[ $usage == *'[-S]'* ]]; then
	echo "== whole tools: skipped: this librdmacm's cmtime is the rewritten one (use 33.2 or 44.0 for it)"
	whole=0 reps=0
fi
log=$(mktemp)
for ((r = 1; r <= reps; r++)); do
	# the staged tools in turn, each run starting with the next one
	for k in 0 1 2; do
		# not through a pipe: run_pair's port count must stay in this shell
		staged $(((r - 1 + k) % 3)) >"$log.run"
		cat "$log.run" >>"$log"
		cat "$log.run"
	done
	echo "== run $r: cm_time -n $n (one after the other)"
	run_pair "$cm_time" -n "$n" -- "$cm_time" -n "$n" "$VS_RXE_IP"
	sleep 3
done

# The staged runs summed up: per step, each tool's median over the runs of
# microseconds per connection, and cm_time's median against cmtime's
# (cmtime's resolve is its create id + resolve addr + resolve route steps,
# as cm_time's resolve creates the ids too).  Figures, not a verdict.
[ $whole = 1 ] && awk -v n="$n" '
/^== run / {
	run = $3 + 0
	tool = ""
	if ($4 == "cmtime")
		tool = "cmtime"
	else if ($4 == "cm_time" && $5 == "-P")
		tool = $6 == "-I" ? "cm_time -P -I" : "cm_time -P"
	next
}
tool == "cmtime" && /^(create id|resolve addr|resolve route) *:/ { split($0, f, ":"); split(f[2], v, " "); add(tool, "resolve", v[1]) }
tool == "cmtime" && /^create qp *:/ { split($0, f, ":"); split(f[2], v, " "); add(tool, "qp", v[1]) }
tool == "cmtime" && /^connect *:/ { split($0, f, ":"); split(f[2], v, " "); add(tool, "connect", v[1]) }
tool ~ /^cm_time/ && /^resolve \(addr\+route\)/ { add(tool, "resolve", $3) }
tool ~ /^cm_time/ && /^create PD\+CQ\+QP/ { add(tool, "qp", $3) }
tool ~ /^cm_time/ && /^connect / { add(tool, "connect", $2) }
function add(t, step, ms) { sum[t, step, run] += ms * 1000 / n; sum[t, "all", run] += ms * 1000 / n; if (!(run in runs)) nruns++; runs[run] = 1 }
function median(t, step,    k, c, x, i, j, tmp) {
	c = 0
	for (k in runs) if ((t, step, k) in sum) x[++c] = sum[t, step, k]
	for (i = 2; i <= c; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { tmp = x[j]; x[j] = x[j - 1]; x[j - 1] = tmp }
	return c ? (c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2) : 0
}
END {
	split("resolve qp connect all", steps, " ")
	split("resolve (create id, address, route)|create QP|connect|resolve + QP + connect", names, "|")
	printf "== summary: median us per connection over %d runs of %d connections\n", length(runs), n
	printf "%-36s %10s %12s %8s %14s %8s\n", "step", "cmtime", "cm_time -P", "ratio", "cm_time -P -I", "ratio"
	for (i = 1; i <= 4; i++) {
		c = median("cmtime", steps[i]); p = median("cm_time -P", steps[i]); q = median("cm_time -P -I", steps[i])
		printf "%-36s %10.1f %12.1f %7.2fx %14.1f %7.2fx\n", names[i], c, p, c ? p / c : 0, q, c ? q / c : 0
	}
}' "$log"
rm -f "$log" "$log.run"

# The library alone: the same steps raw and typed in one process, in turn
# (bench/cm_steps.c; make benches builds it).
if [ -x "$bin/cm_steps" ]; then
	"$bin/cm_steps" -n "$n" "$VS_RXE_IP"
	sleep 3
fi

# The staged clients' system calls (strace -f -c, one run each): a count,
# which the host's load does not move as it moves the times.
[ $whole = 1 ] && command -v strace >/dev/null || { rm -rf "$bin"; exit 0; }
st=$(mktemp)
count() {	# what's printed: total calls, and cmtime's polling (sched_yield)
	awk -v what="$1" '$NF == "total" { t = $4 } $NF == "sched_yield" { y = $4 }
		END { printf "== syscalls of %s: %d in all, %d per connection (sched_yield %d)\n",
			what, t, t / '"$n"', y }' "$st"
}
run_pair cmtime -b "$VS_RXE_IP" -c "$n" -- strace -f -c -o "$st" cmtime -s "$VS_RXE_IP" -c "$n" >/dev/null
count "cmtime -c $n"
run_pair "$cm_time" -P -n "$n" -- strace -f -c -o "$st" "$cm_time" -P -n "$n" "$VS_RXE_IP" >/dev/null
count "cm_time -P -n $n"
run_pair "$cm_time" -n "$n" -- strace -f -c -o "$st" "$cm_time" -P -I -n "$n" "$VS_RXE_IP" >/dev/null
count "cm_time -P -I -n $n"
rm -f "$st"
rm -rf "$bin"
