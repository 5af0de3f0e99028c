#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The shim benchmark (issue 2): builds what it needs, runs everything and
# prints markdown tables, ready for docs/bench-shim.md.
#
#   bench/run.sh                 from anywhere
#   CC=clang BUILD=build/clang bench/run.sh
#                                another compiler, in its own build tree
#
# 1. Call cost: build/bench/call_cost (the Makefile's, libverbshim.a, no
#    -libverbs) against build/bench/call_cost-direct (the same source,
#    linked with -libverbs here, since the Makefile links every bench with
#    the archive only): ns per call (best of REPS x ROUNDS slices of CALLS
#    calls, 20 x 3 of 10^6 by default) and
#    instructions per call (callgrind, only the loop, 10^6 calls).
# 2. First use: build/bench/first_use, fresh processes per measurement:
#    raw dlopen vs vs_library_load(), one dlvsym() per row (the fill as it was) and the
#    RTLD_NOLOAD probes alone; instructions of each step with callgrind.
#
# Figures are printed, never judged: this exits non-zero only on errors.
# Knobs: CC, CFLAGS, OPT, BUILD (as for make), ROUNDS (3), REPS (20),
# CALLS (1000000), RUNS (50), CG_CALLS (1000000).
set -eu

cd "$(dirname "$0")/.."
CC=${CC:-cc}
export CC
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-50}
REPS=${REPS:-20}
CALLS=${CALLS:-1000000}
CG_CALLS=${CG_CALLS:-1000000}
BUILD=${BUILD:-build}
B=$BUILD/bench
FNS="wc_status_str rate_to_mult"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

die() {
	echo "bench/run.sh: $*" >&2
	exit 1
}

# --- build ---------------------------------------------------------------
make -s BUILD="$BUILD" lib benches >&2
# The baseline, with the Makefile's own flags for a bench so that the two
# loops are compiled alike; only the link differs.
# shellcheck disable=SC2086 # OPT and CFLAGS are word lists, as in make
$CC -std=c11 -Wall -Wextra -Werror ${OPT:--O2 -g} -fPIC ${CFLAGS:-} \
	-D_GNU_SOURCE -o "$B/call_cost-direct" bench/call_cost.c -libverbs ||
	die "cannot build the -libverbs baseline (libibverbs-dev installed?)"

needs_ibverbs() {
	readelf -d "$1" | grep -q 'NEEDED.*libibverbs'
}
needs_ibverbs "$B/call_cost" && die "$B/call_cost links libibverbs"
needs_ibverbs "$B/first_use" && die "$B/first_use links libibverbs"
needs_ibverbs "$B/call_cost-direct" || die "$B/call_cost-direct is no baseline"

have_cg=0
command -v valgrind >/dev/null 2>&1 && have_cg=1

# Ir collected by callgrind while inside function $1, running binary $2
# with the remaining arguments.  Empty when callgrind is not there.  It
# runs a copy without debug info: valgrind 3.19 gives up on clang 14's
# DWARF 5, and --toggle-collect needs only the symbol table.
cg_ir() {
	fn=$1
	bin=$tmp/$(basename "$2")
	shift 2
	[ $have_cg = 1 ] || return 0
	[ -e "$bin" ] || objcopy --strip-debug "$B/$(basename "$bin")" "$bin"
	out=$tmp/cg.out
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="$fn" "$bin" "$@" >/dev/null 2>"$tmp/cg.err" ||
		die "callgrind failed: $bin $* ($(tail -n 3 "$tmp/cg.err"))"
	sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out"
}

# --- 1. call cost ----------------------------------------------------------
# Rounds alternate the two binaries, so that neither gets a quieter spell
# of the machine to itself; best over all of them.
r=0
while [ $r -lt "$ROUNDS" ]; do
	# Not in a pipeline: sh would only see the exit status of sed.
	"$B/call_cost" "$CALLS" "$REPS" >"$tmp/out"
	sed 's/^time /shim /' "$tmp/out" >>"$tmp/time"
	"$B/call_cost-direct" "$CALLS" "$REPS" >"$tmp/out"
	sed 's/^time /direct /' "$tmp/out" >>"$tmp/time"
	r=$((r + 1))
done
for fn in $FNS; do
	for side in shim direct; do
		bin=$B/call_cost
		[ $side = direct ] && bin=$B/call_cost-direct
		ir=$(cg_ir "vs_bench_loop_$fn" "$bin" --only "$fn" "$CG_CALLS")
		echo "$side $fn ${ir:-} $CG_CALLS" >>"$tmp/ir"
	done
done

# --- 2. first use ----------------------------------------------------------
"$B/first_use" "$RUNS" >"$tmp/first"
for lib in ibverbs rdmacm efa; do
	for mode in raw shim dlvsym probe; do
		ir=$(cg_ir vs_bench_timed_step "$B/first_use" --child $mode $lib)
		echo "$lib $mode ${ir:-}" >>"$tmp/first_ir"
	done
done

# --- report ----------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
rdma=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null || echo unknown)
cc_ver=$($CC --version | head -n 1)

printf '%s\n' "Machine: ${cpu:-unknown CPU}, $(nproc) CPUs, Linux $(uname -r);" \
	"rdma-core (libibverbs1) $rdma; $cc_ver." ""

echo "### Call cost: drop-in definition vs direct PLT call"
echo
awk -v rounds="$ROUNDS" -v reps="$REPS" -v calls="$CALLS" -v cg="$CG_CALLS" '
FNR == 1 { file++ }
file == 1 {	# "SIDE time FN NS N"
	k = $1 SUBSEP $2
	if (!(k in ns) || $3 < ns[k]) ns[k] = $3
	next
}
file == 2 {	# "SIDE FN IR N"
	if ($3 != "") ir[$1 SUBSEP $2] = $3 / $4
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
}
# Rounded first, so that equal cells never differ by "-0.00".
function d(a, b, fmt) {
	return sprintf("%+" fmt, sprintf("%" fmt, a) - sprintf("%" fmt, b))
}
END {
	print "| measure | shim (drop-in) | direct (PLT) | difference |"
	print "|---|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		f = order[i]; s = "shim" SUBSEP f; p = "direct" SUBSEP f
		printf "| `ibv_%s()` ns/call | %.2f | %.2f | %s |\n", f,
			ns[s], ns[p], d(ns[s], ns[p], ".2f")
		if ((s in ir) && (p in ir))
			printf "| `ibv_%s()` instructions/call | %.2f | %.2f | %s |\n",
				f, ir[s], ir[p], d(ir[s], ir[p], ".2f")
		else
			printf "| `ibv_%s()` instructions/call | n/a | n/a | (no valgrind) |\n", f
	}
	printf "\nns: best of %d x %d rounds of %d calls, CLOCK_MONOTONIC. ", reps, rounds, calls
	printf "Instructions: callgrind Ir of the loop function alone over %d calls, ", cg
	printf "divided by %d; both columns include the same loop instructions and the same ", cg
	print "libibverbs function body, so the difference is the call path. Target: at most +3."
}' "$tmp/time" "$tmp/ir"

echo
echo "The drop-in, as linked into $B/call_cost:"
echo
echo '```'
objdump -d --no-show-raw-insn --disassemble=ibv_wc_status_str "$B/call_cost" |
	sed -n '/<ibv_wc_status_str>:/,/^$/p' | sed '/^$/d'
echo '```'
echo "and the PLT entry of the baseline (one instruction once bound):"
echo
echo '```'
objdump -d --no-show-raw-insn -j .plt "$B/call_cost-direct" 2>/dev/null |
	sed -n '/<ibv_wc_status_str@plt>:/,/^$/p' | sed '/^$/d'
objdump -d --no-show-raw-insn -j .plt.sec "$B/call_cost-direct" 2>/dev/null |
	sed -n '/<ibv_wc_status_str@plt>:/,/^$/p' | sed '/^$/d'
echo '```'

echo
echo "### First use: fresh process, µs, median (best) of $RUNS"
echo
awk '
FNR == 1 { file++ }
file == 1 && $1 != "first" { next }	# "absent LIB": not on this machine
file == 1 {	# "first LIB MODE BEST MEDIAN SLOTS"
	best[$2, $3] = $4 / 1000; med[$2, $3] = $5 / 1000
	if ($3 == "shim") slots[$2] = $6
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
	next
}
{ ir[$1, $2] = $3 }	# "LIB MODE IR"
function cell(l, m) { return sprintf("%.1f (%.1f)", med[l, m], best[l, m]) }
function irc(l, m) { return ir[l, m] == "" ? "n/a" : ir[l, m] }
END {
	print "| library (slots) | raw dlopen | shim `vs_library_load()` | shim - dlopen | one dlvsym() per row | RTLD_NOLOAD probes |"
	print "|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		l = order[i]
		printf "| lib%s (%d) | %s | %s | %.1f (%.1f) | %s | %s |\n", l,
			slots[l], cell(l, "raw"), cell(l, "shim"),
			med[l, "shim"] - med[l, "raw"],
			best[l, "shim"] - best[l, "raw"],
			cell(l, "dlvsym"), cell(l, "probe")
	}
	print ""
	print "Instructions (callgrind, the timed step only):"
	print ""
	print "| library | raw dlopen | shim `vs_library_load()` | shim - dlopen | one dlvsym() per row | RTLD_NOLOAD probes |"
	print "|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		l = order[i]
		diff = (ir[l, "shim"] == "" || ir[l, "raw"] == "") ? "n/a" : \
			sprintf("%+d", ir[l, "shim"] - ir[l, "raw"])
		printf "| lib%s | %s | %s | %s | %s | %s |\n", l, irc(l, "raw"),
			irc(l, "shim"), diff, irc(l, "dlvsym"), irc(l, "probe")
	}
	print ""
	print "librdmacm and libefa rows: libibverbs already loaded (untimed), as the"
	print "shim always loads it first. \"one dlvsym() per row\": the table resolved"
	print "the way the loader did before it read the library's GNU hash table itself"
	print "(for comparison). \"RTLD_NOLOAD probes\": the loader looking"
	print "for an already-loaded copy by soname and dev name when there is none."
	print "Target: resolving at most 50 µs beyond dlopen."
}' "$tmp/first" "$tmp/first_ir"
