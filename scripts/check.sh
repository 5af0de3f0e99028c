#!/usr/bin/env bash
# The test suite, in stages; ends with the total "N passed, N failed, N skipped".
#
#   scripts/check.sh all    host stages, then the SoftRoCE VM stage
#   scripts/check.sh unit   host stages only
#   scripts/check.sh rxe    the VM stage only
#
# Host stages: unit + shell tests; the unit tests again under ASan+UBSan and
# under valgrind; the race tests under TSan.  VM stage: scripts/vm-stage.sh.
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
MAKE=${MAKE:-make}
mkdir -p build
# One results file per run: two runs in one checkout must not mix counts.
results=$(mktemp build/test-results.XXXXXX)
trap 'rm -f "$results"' EXIT
status=0

run() { test/run.sh --results "$results" "$@" || status=1; }

# The unit tests share nothing (each its own fake devices and files): the
# sanitizer and valgrind stages, single-threaded per test, run two at a time.
jobs=$(( $(nproc) > 1 ? 2 : 1 ))

# Shell tests that build only in trees of their own (a temporary copy, a
# BUILD of their own) and only read build/: they run beside the others,
# which make, install or package in build/ (most of them are compilers
# run one file at a time).  A new shell test goes with the others unless
# it is one of these kinds.
SELF_CONTAINED=" architecture compile_fail coverage cross_version doc_links dropin error_record
	example_last_line feature_config ffi_rows fuzz glibc_floor headers hygiene lib_cycles
	man must_check no_rdma_core readme static verbshim_info "

host_stages() {
	local t n shared=() own=() pid rc=0
	for t in test/shell/*.sh; do
		n=${t##*/}
		if [[ $SELF_CONTAINED == *[[:space:]]${n%.sh}[[:space:]]* ]]; then
			own+=("$t")
		else
			shared+=("$t")
		fi
	done
	# what make install needs, made once: the tests beside each other
	# then only read it
	$MAKE -s man build/verbshim.pc >/dev/null
	# Shell tests build whole trees (header sets, clang, the oldest root):
	# the timeout guards against hangs, not slowness on a loaded machine.
	# The self-contained ones' report follows the others'.
	test/run.sh --results "$results" --stage shell --timeout 600 "${own[@]}" \
		>build/shell-stage.log 2>&1 &
	pid=$!
	run --stage unit --timeout 600 build/test/unit/* "${shared[@]}"
	wait $pid || rc=$?
	cat build/shell-stage.log
	[ $rc -eq 0 ] || status=1

	echo "== building the ASan+UBSan variant"
	if $MAKE -s -j"$(nproc)" BUILD=build/asan SAN=asan tests >build/asan.log 2>&1; then
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			run --stage asan --jobs "$jobs" build/asan/test/unit/*
	else
		cat build/asan.log; echo "asan: build failed"
		echo "asan 0 1 0" >>"$results"; status=1
	fi

	VS_RACE_PROCESSES=6 run --stage valgrind --timeout 300 --jobs "$jobs" \
		--wrap "valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible" \
		build/test/unit/*

	echo "== building the TSan variant"
	if $MAKE -s -j"$(nproc)" BUILD=build/tsan SAN=tsan tests >build/tsan.log 2>&1; then
		run --stage tsan build/tsan/test/unit/race*
	else
		cat build/tsan.log; echo "tsan: build failed"
		echo "tsan 0 1 0" >>"$results"; status=1
	fi
}

vm_stage() {
	scripts/vm-stage.sh "$results" || status=1
}

case $what in
all) host_stages; vm_stage ;;
unit) host_stages ;;
rxe) vm_stage ;;
*) echo "usage: $0 all|unit|rxe" >&2; exit 2 ;;
esac

awk '{p += $2; f += $3; s += $4}
     END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$results"
[ $status -eq 0 ]
