#!/usr/bin/env bash
# Test runner: one program per test, exit 0 = pass, 77 = skip (its last
# output line says why), anything else = fail.  Each test runs under a
# timeout; the runner ends with "N passed, N failed, N skipped".
#
#   test/run.sh [--stage NAME] [--timeout SEC] [--wrap "CMD ARGS"]
#               [--results FILE] [--verdicts FILE]
#               [--no-skip [--skip-ok TEXT]] [--jobs N]
#               TEST...
#
# --wrap     runs each test as CMD ARGS TEST (valgrind, a loader, ...)
# --results  appends "NAME passed failed skipped" to FILE (for check.sh);
#            while running, FILE.running holds the counts so far (a VM
#            killed by its limit still tells what had passed)
# --verdicts appends "TEST PASS|FAIL|SKIP" per test to FILE (the VM stage
#            compares a traced boot's with the plain ones')
# --no-skip  a skip counts as a failure (inside the VM nothing may skip)
# --skip-ok  but a skip whose reason contains TEXT is one (a provider's own
#            reason, as "siw0 (iWARP): no UD QPs"); repeatable, any TEXT
# --jobs     N tests at a time (default 1), reported in the given order:
#            only for tests that share nothing (files, ports, devices)
set -u
stage=tests timeout=120 wrap= results= verdicts= noskip=0 jobs=1
skipok=()
while [ $# -gt 0 ]; do
	case $1 in
	--stage) stage=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--wrap) wrap=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--verdicts) verdicts=$2; shift 2 ;;
	--no-skip) noskip=1; shift ;;
	--skip-ok) skipok+=("$2"); shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

logdir=${VS_TEST_LOGDIR:-build/test-logs}/$stage
mkdir -p "$logdir"
passed=0 failed=0 skipped=0

status_dir=$(mktemp -d)
trap 'rm -rf "$status_dir"' EXIT

log_of() { echo "$logdir/$(echo "${1#./}" | tr '/' '_').log"; }

# Runs test number I ($2): its exit status and seconds go to its status file.
run_one() {
	local t=$1 i=$2 log start rc
	log=$(log_of "$t")
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	timeout -k 5 "$timeout" $wrap "$t" >"$log" 2>&1 </dev/null
	rc=$?
	echo "$rc $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e-s}')" \
		>"$status_dir/$i.tmp"
	mv "$status_dir/$i.tmp" "$status_dir/$i"
}

# skip_allowed REASON: REASON contains one of the --skip-ok texts
skip_allowed() {
	local t
	for t in "${skipok[@]}"; do
		[[ $1 == *"$t"* ]] && return 0
	done
	return 1
}

report() {
	local t=$1 i=$2 name log rc secs reason
	name=${t#./}
	log=$(log_of "$t")
	read -r rc secs <"$status_dir/$i"
	reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
	if [ "$rc" -eq 77 ] && [ $noskip -eq 1 ] && ! skip_allowed "$reason"; then
		rc=1
		reason="skipped where nothing may skip: $reason"
	fi
	case $rc in
	0)
		passed=$((passed + 1))
		printf '  PASS  %-44s %6ss\n' "$name" "$secs" ;;
	77)
		skipped=$((skipped + 1))
		printf '  SKIP  %-44s %s\n' "$name" "$reason" ;;
	*)
		failed=$((failed + 1))
		[ "$rc" -eq 124 ] && reason="timed out after ${timeout}s"
		printf '  FAIL  %-44s exit %d: %s\n' "$name" "$rc" "$reason"
		sed -n '1,60p' "$log" | sed 's/^/        | /'
		;;
	esac
	[ -z "$verdicts" ] || echo "$name $(case $rc in 0) echo PASS ;; 77) echo SKIP ;; *) echo FAIL ;; esac)" >>"$verdicts"
	[ -z "$results" ] || echo "$stage $passed $failed $skipped" >"$results.running"
}

tests=("$@")
reported=0
# reports, in order, every test finished so far
report_done() {
	while [ $reported -lt ${#tests[@]} ] && [ -f "$status_dir/$reported" ]; do
		report "${tests[$reported]}" $reported
		reported=$((reported + 1))
	done
}
running=0
for i in "${!tests[@]}"; do
	if [ "$jobs" -le 1 ]; then
		run_one "${tests[$i]}" "$i"
	else
		while [ $running -ge "$jobs" ]; do
			wait -n
			running=$((running - 1))
		done
		run_one "${tests[$i]}" "$i" &
		running=$((running + 1))
	fi
	report_done
done
wait
report_done

[ -n "$results" ] && echo "$stage $passed $failed $skipped" >>"$results" && rm -f "$results.running"
echo "$stage: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
