#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# perftest linked with the shim (A) against the same objects linked with
# -libverbs -lrdmacm -lmlx5 -libumad -lefa (B), on rxe in one VM run,
# alternating A B A B: ib_write_bw / ib_send_bw average bandwidth over 3000
# iterations and ib_write_lat / ib_send_lat typical (median) and
# 99th-percentile latency over 500, at 8 B, 4 KiB and 64 KiB.  Both sides of each pair are the same build.  Prints a
# markdown table: mean of each side with its spread (min..max), and A
# against B.
#
# Needs build/perftest/{shim,stock}: VS_PERFTEST_NO_VM=1
# test/shell/perftest.sh builds them (from ../shared/sources' tarball, or
# VS_PERFTEST_SRC).
#
#   bench/perftest.sh            boots the VM (scripts/vm-run.sh)
#   VS_BENCH_REPS=N              A B rounds per row (default 3)
#   VS_BENCH_BW_ITERS=N          iterations per bandwidth run (default 3000:
#                                at 300 on the icount clock one 4 ms tick
#                                more or less decided the average of 8 B)
#   VS_BENCH_SIZES="8 ..."       message sizes (default 8 4096 65536)
#   VS_BENCH_CLOCK=icount|real   the guest's clock (default icount, as
#                                bench/cm_setup.sh): qemu's icount mode, one
#                                vCPU, 1 ns of guest time per instruction
#                                executed, idle skipped, so the figures count
#                                work and not the host's load; real: the
#                                host's clock under TCG, two vCPUs
#   VS_BENCH_TESTS="ib_write_bw ..."  the perftest programs (default: the
#                                two bandwidths under icount, where with one
#                                vCPU a latency round trip is the 4 ms
#                                scheduler tick, measured 2026-11-26; all
#                                four with real)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/perftest
for side in shim stock; do
	[ -x "$out/$side/ib_write_bw" ] || {
		echo "no $out/$side: run VS_PERFTEST_NO_VM=1 test/shell/perftest.sh (VS_PERFTEST_SRC=FILE|DIR when ../shared/sources has no perftest tarball)"
		exit 1
	}
done
clock=${VS_BENCH_CLOCK:-icount}
if [ "${VERBSHIM_IN_VM:-}" != 1 ]; then
	vm=(--timeout 2400 --env "VS_BENCH_CLOCK=$clock" --env "VS_BENCH_TESTS=${VS_BENCH_TESTS:-}"
		--env "VS_BENCH_REPS=${VS_BENCH_REPS:-3}" --env "VS_BENCH_BW_ITERS=${VS_BENCH_BW_ITERS:-3000}"
		--env "VS_BENCH_SIZES=${VS_BENCH_SIZES:-8 4096 65536}")
	case $clock in
	icount) vm+=(--icount 0 --smp 1) ;;
	real) ;;
	*) echo "VS_BENCH_CLOCK=$clock: icount or real"; exit 2 ;;
	esac
	exec scripts/vm-run.sh "${vm[@]}" -- bench/perftest.sh
fi

# shellcheck source=../test/vm/lib/common.bash
. test/vm/lib/common.bash
need_vm
reps=${VS_BENCH_REPS:-3}
bw_iters=${VS_BENCH_BW_ITERS:-3000}
sizes=${VS_BENCH_SIZES:-8 4096 65536}
a=(-d "$VS_RXE_DEV" -x "$VS_RXE_GID_INDEX" -F)
tmp=$(mktemp -d)

# one SIDE TEST SIZE -> prints the client's result row
one() {
	local side=$1 t=$2 size=$3 n=$bw_iters
	case $t in *lat) n=500 ;; esac
	pair "$out/$side/$t" "${a[@]}" -n $n -s "$size" -- \
		"$out/$side/$t" "${a[@]}" -n $n -s "$size" "$VS_RXE_IP" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; return 1; }
	sed -n 's/^ *client| *\([0-9][0-9]* \+[0-9][0-9]* .*\)/\1/p' "$tmp/log" | head -n 1
}

stats() {	# VALUES... -> "mean min max"
	printf '%s\n' "$@" | awk '{s += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1}
		END {printf "%.2f %.2f %.2f", s / NR, lo, hi}'
}

echo "| test | size | metric | shim (A) mean (min..max) | stock (B) mean (min..max) | A vs B |"
echo "|---|---:|---|---:|---:|---:|"
tests="ib_write_bw ib_send_bw ib_write_lat ib_send_lat"
[ "$clock" = icount ] && tests="ib_write_bw ib_send_bw"
for t in ${VS_BENCH_TESTS:-$tests}; do
	for size in $sizes; do
		declare -A v=()
		for ((r = 0; r < reps; r++)); do
			for side in shim stock; do
				row=$(one "$side" "$t" "$size")
				# bw: #bytes #iter peak average rate; lat: #bytes
				# #iter min max typical avg stdev p99 p99.9
				case $t in
				*bw) v[$side.bw]+="$(awk '{print $4}' <<<"$row") " ;;
				*lat)
					v[$side.p50]+="$(awk '{print $5}' <<<"$row") "
					v[$side.p99]+="$(awk '{print $8}' <<<"$row") " ;;
				esac
			done
		done
		case $t in *bw) metrics="bw" ;; *) metrics="p50 p99" ;; esac
		for m in $metrics; do
			# shellcheck disable=SC2086 # (lists)
			read -r am alo ahi <<<"$(stats ${v[shim.$m]})"
			# shellcheck disable=SC2086
			read -r bm blo bhi <<<"$(stats ${v[stock.$m]})"
			unit="MB/s"
			[ "$m" = bw ] || unit="us"
			name=$m
			[ "$m" = bw ] && name="BW average"
			[ "$m" = p50 ] && name="t_typical"
			[ "$m" = p99 ] && name="99%"
			delta=$(awk -v a="$am" -v b="$bm" 'BEGIN {printf "%+.1f%%", (a - b) / b * 100}')
			echo "| $t | $size | $name ($unit) | $am ($alo..$ahi) | $bm ($blo..$bhi) | $delta |"
		done
		unset v
	done
done
rm -rf "$tmp"
echo
case $clock in
icount) how="qemu's icount clock (1 ns per guest instruction, one vCPU)" ;;
*) how="qemu TCG, the host's clock, $(nproc) vCPUs" ;;
esac
echo "$reps rounds A B per row, $bw_iters iterations per bandwidth run (the average), 500 per latency run, rxe, $how; $(uname -r)"
