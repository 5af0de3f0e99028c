#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The events benchmark (issue 13), in one VM run: build/bench/events's
# table (round trips/s, messages/s, RTT p50/p99, completions per wake-up
# for busy-poll, typed events on extended and legacy CQs, and a raw
# textbook event loop), then system calls per round trip and per wake-up
# for each mode, counted by strace -c -f: two runs of N1 and N2 round
# trips, (calls(N2) - calls(N1)) / (N2 - N1), so set-up and teardown
# cancel out.  strace comes from the host root the VM mounts.
#
#   bench/events.sh                boots the VM (scripts/vm-run.sh)
#   VS_EVENTS_ROUNDS=N             round trips per table row (default 5000;
#                                  0: no table, the system calls only)
#   VS_EVENTS_PASSES=P             then P interleaved passes of raw, typed
#                                  and typed-legacy (VS_EVENTS_ROUNDS each,
#                                  one mode per process), each pass's typed
#                                  rows against the raw run just before them,
#                                  and the medians: on a shared host the load
#                                  drifts from one row to the next (default 0)
#   VS_EVENTS_N1 / VS_EVENTS_N2    strace runs (default 300 / 1000)
#   VS_EVENTS_BIN=PATH             another build of bench/events.c (default
#                                  build/bench/events)
#   VS_EVENTS_CALLGRIND=DIR        instead of all that: instructions per
#                                  round trip of raw, typed and typed-legacy
#                                  under callgrind (both threads; runs of
#                                  VS_EVENTS_N1 / N2, default 300 / 900,
#                                  the difference over N2 - N1), the
#                                  callgrind.MODE.N files kept in DIR for
#                                  callgrind_annotate (by function)
#
# Figures are printed, never judged.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}/bench
EV=${VS_EVENTS_BIN:-$B/events}
[ -x "$EV" ] || { echo "no $EV: make benches" >&2; exit 1; }
if [ "${VERBSHIM_IN_VM:-}" != 1 ]; then
	exec scripts/vm-run.sh --timeout 1800 -- bench/events.sh
fi
if [ -n "${VS_EVENTS_CALLGRIND:-}" ]; then
	# instruction counts do not depend on the host's load, unlike the rates
	command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
	N1=${VS_EVENTS_N1:-300}
	N2=${VS_EVENTS_N2:-900}
	D=$VS_EVENTS_CALLGRIND
	mkdir -p "$D"
	echo "## Instructions per round trip (callgrind, runs of $N2 minus runs of $N1)"
	echo
	echo "| mode | instructions per round trip |"
	echo "|---|---:|"
	for m in raw typed typed-legacy; do
		for n in "$N1" "$N2"; do
			valgrind -q --tool=callgrind --callgrind-out-file="$D/callgrind.$m.$n" \
				"$EV" --mode "$m" -n "$n" >/dev/null
		done
		awk -v m="$m" -v d=$((N2 - N1)) 'FNR == 1 { f[++k] = FILENAME }
			/^summary:/ { t[FILENAME] = $2 }
			END { printf "| %s | %.0f |\n", m, (t[f[2]] - t[f[1]]) / d }' \
			"$D/callgrind.$m.$N1" "$D/callgrind.$m.$N2"
	done
	exit 0
fi
command -v strace >/dev/null || { echo "strace is not installed (apt-get install strace)" >&2; exit 1; }
ROUNDS=${VS_EVENTS_ROUNDS:-5000}
N1=${VS_EVENTS_N1:-300}
N2=${VS_EVENTS_N2:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$ROUNDS" != 0 ]; then
	echo "## Round trips ($ROUNDS per mode, 64-byte sends, one CQ and channel per side)"
	echo
	"$EV" -n "$ROUNDS"
	echo
fi

PASSES=${VS_EVENTS_PASSES:-0}
if [ "$PASSES" != 0 ]; then
	PR=$ROUNDS
	[ "$PR" != 0 ] || PR=5000
	echo "## Interleaved passes ($PASSES x raw, typed, typed-legacy; $PR round trips each)"
	echo
	echo "| pass | mode | round trips/s | messages/s | RTT p50 (us) | RTT p99 (us) | messages/s against raw |"
	echo "|---:|---|---:|---:|---:|---:|---:|"
	for p in $(seq 1 "$PASSES"); do
		for m in raw typed typed-legacy; do
			"$EV" --mode "$m" -n "$PR"
		done | awk -v p="$p" '$1 == "raw" { raw = $2 }
			{ vs = raw ? sprintf("%+.1f%%", ($2 / raw - 1) * 100) : "-"
			  printf "| %d | %s | %.0f | %.0f | %s | %s | %s |\n", p, $1, $2, 2 * $2, $3, $4, vs }'
	done | tee "$tmp/passes"
	echo
	# medians over the passes, per mode: the rate, and the rate against
	# the raw run of the same pass
	awk -F'|' 'function median(x, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2 }
		{ gsub(/ /, "", $3); n[$3]++; v[$3, n[$3]] = $4 + 0; gsub(/[ %+]/, "", $8); d[$3, n[$3]] = $8 + 0 }
		END { for (m in n) { k = n[m]; split("", a); split("", b)
			for (i = 1; i <= k; i++) { a[i] = v[m, i]; b[i] = d[m, i] }
			med = median(a, k)
			printf "median %s: %.0f round trips/s (%.0f messages/s)", m, med, 2 * med
			if (m != "raw") printf ", %+.1f%% against raw", median(b, k)
			printf "\n" } }' "$tmp/passes" | sort
	echo
fi

# strace -c -f of one run of $2 round trips in mode $1: "syscall calls"
# lines into $3, and the run's wake-up count into $3.wake
count() {
	strace -f -c -o "$tmp/s" "$EV" --mode "$1" -n "$2" >"$tmp/out"
	awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { print $NF, $4 }' "$tmp/s" >"$3"
	awk '{ print $6 }' "$tmp/out" >"$3.wake"
}

echo "## System calls (strace -c -f; runs of $N2 minus runs of $N1 round trips)"
echo
echo "| mode | per round trip | wake-ups per round trip | per wake-up | by call, per round trip |"
echo "|---|---:|---:|---:|---|"
for m in poll typed typed-legacy raw; do
	count "$m" "$N1" "$tmp/a"
	count "$m" "$N2" "$tmp/b"
	awk -v n=$((N2 - N1)) -v m="$m" -v w1="$(cat "$tmp/a.wake")" -v w2="$(cat "$tmp/b.wake")" '
		FNR == NR { a[$1] = $2; next }
		{ d = ($2 - a[$1]) / n
		  if (d >= 0.005) { if (by != "") by = by ", "; by = by $1 " " sprintf("%.2f", d); t += d } }
		END { w = (w2 - w1) / n; pw = "-"
		      if (w > 0) pw = sprintf("%.2f", t / w)
		      printf "| %s | %.2f | %.2f | %s | %s |\n", m, t, w, pw, by }' "$tmp/a" "$tmp/b"
done
