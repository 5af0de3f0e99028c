#!/usr/bin/env bash
# The test suite, in stages; ends with the total "N passed, N failed, N skipped".
#
#   scripts/check/check.sh all    host stages, then the VM stage
#   scripts/check/check.sh unit   host stages only
#   scripts/check/check.sh rxe    the VM stage only (VS_VM_CONFIGS: its boots)
#   scripts/check/check.sh needs all|unit|rxe   the make targets they need
#
# Which test runs where, and what it needs built: test/tests.list
# (scripts/check/tests.sh reads it; docs/tests.md).  Host stages: the entries of
# WHERE host and beside; asan, valgrind and tsan, each in its variant.  VM
# stage: scripts/vm/stage.sh, the boots of test/boots.list.  Before the
# stages, the make targets their entries need are built (CHECK_JOBS jobs).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/check/checked-runs.bash
. scripts/check/checked-runs.bash
what=${1:-all}
MAKE=${MAKE:-make}
mkdir -p build
# One results file per run: two runs in one checkout must not mix counts.
results=$(mktemp build/test-results.XXXXXX)
trap 'rm -f "$results"' EXIT
status=0
t_start=$SECONDS

HOST_WHERE=host,beside,asan,valgrind,tsan
# needs WHAT: the make targets what's entries need; the release roots'
# boots need make oldest's build.  The arm64 boots' builds are make
# check-arm64's (make ARCH=arm64 all tests oldest), not counted here.
needs() {
	local w='' sel='' oldest=''
	case $1 in all | unit) w=$HOST_WHERE ;; esac
	case $1 in all | rxe)
		# shellcheck disable=SC2086
		sel=$(scripts/check/tests.sh boots ${VS_VM_CONFIGS:-check}) || return 1
		sel=$(awk '$3 == "x86_64"' <<<"$sel")
		w+=,$(awk '{printf "%s,", $8}' <<<"$sel")
		oldest=$(awk 'NF && $6 != "host" && $6 != "-" {print "oldest"; exit}' <<<"$sel") ;;
	esac
	w=$(scripts/check/tests.sh needs "${w#,}") || return 1
	[[ " $w " == *" oldest "* ]] && oldest=
	echo "$w${oldest:+ $oldest}"
}

run() { test/run.sh --results "$results" "$@" || status=1; }

# Where the time went, printed before the total: CI's budget is the
# whole run's, and a log that names the slow part saves a rerun.
times=() t_phase=$SECONDS
phase() { times+=("$1 $((SECONDS - t_phase))s"); t_phase=$SECONDS; }

# The unit tests share nothing (each its own fake devices and files): the
# sanitizer and valgrind stages, single-threaded per test, run two at a time.
jobs=$(( $(nproc) > 1 ? 2 : 1 ))

# list WHERE [BUILD]: the registry's entries that run there
list() { mapfile -t "$1" < <(scripts/check/tests.sh list --build "${3:-build}" "$2"); }

host_stages() {
	local host beside asan valgrind tsan pid rc=0
	list host host
	list beside beside
	list asan asan build/asan
	list valgrind valgrind
	list tsan tsan build/tsan
	# The tests beside the others build only in trees of their own (a
	# temporary copy, a BUILD of their own) and only read build/; those
	# of host make, install or package in build/.  Shell tests build
	# whole trees (header sets, clang, the oldest root): the timeout
	# guards against hangs, not slowness on a loaded machine.  The report
	# of those beside follows the others'.
	test/run.sh --results "$results" --stage shell --timeout 600 "${beside[@]}" \
		>build/shell-stage.log 2>&1 &
	pid=$!
	run --stage unit --timeout 600 "${host[@]}"
	wait $pid || rc=$?
	cat build/shell-stage.log
	[ $rc -eq 0 ] || status=1
	phase "unit+shell"

	echo "== building the ASan+UBSan variant"
	# Each variant builds the tests it runs (and the stubs they load), not
	# the device tests and examples it never runs.
	if $MAKE -s -j"$(nproc)" BUILD=build/asan SAN=asan "${asan[@]}" stubs >build/asan.log 2>&1; then
		ASAN_OPTIONS=$ASAN_CHECKED \
		UBSAN_OPTIONS=$UBSAN_CHECKED \
			run --stage asan --jobs "$jobs" "${asan[@]}"
	else
		cat build/asan.log; echo "asan: build failed"
		echo "asan 0 1 0" >>"$results"; status=1
	fi
	phase asan

	VS_RACE_PROCESSES=6 run --stage valgrind --timeout 300 --jobs "$jobs" \
		--wrap "valgrind $VALGRIND_FLAGS" \
		"${valgrind[@]}"
	phase valgrind

	echo "== building the TSan variant"
	if $MAKE -s -j"$(nproc)" BUILD=build/tsan SAN=tsan "${tsan[@]}" stubs >build/tsan.log 2>&1; then
		run --stage tsan "${tsan[@]}"
	else
		cat build/tsan.log; echo "tsan: build failed"
		echo "tsan 0 1 0" >>"$results"; status=1
	fi
	phase tsan
}

vm_stage() {
	if [ -n "$fetch_pid" ]; then
		wait "$fetch_pid" || { echo "== the VM stage's early fetch failed (build/vm-fetch.log):"; cat build/vm-fetch.log; }
		fetch_pid=
		phase "vm fetch (waited)"
	fi
	scripts/vm/stage.sh "$results" || status=1
	phase vm
}

# The registry's own test is a host-stage test; the VM stage alone runs it
# too, so that a test no entry names (and so runs nowhere) fails there.
registry() {
	run --stage registry test/shell/registry.sh
}

case $what in
all | unit | rxe) ;;
needs) needs "${2:?usage: $0 needs all|unit|rxe}"; exit ;;
*) echo "usage: $0 all|unit|rxe|needs WHAT" >&2; exit 2 ;;
esac
targets=$(needs "$what") || exit 1
# The VM stage's downloads (kernels, release roots) and siw.ko, beside
# the build and the host stages: on a cold cache they are minutes of
# network that cost no CPU.  Locked per item, so the host stage's own
# fetches (build_root.sh, header_sets.sh) wait rather than collide; the
# VM stage's own preparation then finds them done, or says what failed.
fetch_pid=
if [ "$what" = all ]; then
	scripts/vm/stage.sh --fetch >build/vm-fetch.log 2>&1 &
	fetch_pid=$!
	trap 'rm -f "$results"; [ -z "$fetch_pid" ] || kill "$fetch_pid" 2>/dev/null' EXIT
fi
echo "== building what the tests need: $targets"
# shellcheck disable=SC2086
$MAKE -s -j"${CHECK_JOBS:-$(nproc)}" $targets || exit 1
phase build
case $what in
all) host_stages; vm_stage ;;
unit) host_stages ;;
rxe) registry; vm_stage ;;
esac

printf "== time: %s, in all %ss\n" "$(printf "%s, " "${times[@]}" | sed "s/, $//")" $((SECONDS - t_start))
awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$results"
[ $status -eq 0 ]
