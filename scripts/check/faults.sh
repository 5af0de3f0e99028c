#!/usr/bin/env bash
# The fault sweep (make check-faults; docs/testing.md, "The fault sweep"):
# every program we ship or show, with each function it calls failed on
# purpose (VERBSHIM_FAULT) at its first, a middle and its last call, with
# ENOMEM and then with the errnos the function can return
# (scripts/check/faults.list), built with ASan+UBSan (leak check on), in the
# VM on rxe and siw.  Each case gets a verdict:
#
#   crash   a signal, or an ASan/UBSan report
#   hang    the faulted program (or its peer) still running at its timeout
#   leak    LeakSanitizer's report at exit
#   wrong   exit 0 or 77 after the failure (a success or a skip for a
#           failure), or a message that names neither the call that failed
#           nor its errno
#   clear   none of those (exit 0 or 77 only where faults.list absorbs it)
#
# and two outcomes that are no case: refused (the shim refuses a rule for a
# function that cannot fail) and unreached (that call was not made in this
# run).  The run fails on any verdict but clear, and prints the counts and
# the cases; every verdict is in build/faults/results.tsv.
#
#   scripts/check/faults.sh [--short] [--provider rxe|siw|both]
#                           [--only ID[,ID...]] [--phase enomem|errnos|both]
#                           [--build DIR] [--no-build] [--plan]
#                           [--functions PATTERN] [--report]
#   scripts/check/faults.sh --guest OUT   (in the guest: the sweep itself)
#
# --report: print the table of the last run's results again, run nothing.
# --plan: learn each program's calls and count the cases, run none (the
# budget: cases times the seconds a case takes).
# --short: make check's version: the programs and functions faults.list
# marks short, the first call of each, ENOMEM only, rxe only.
# VS_FAULTS_TIMEOUT: the VM's whole run (seconds); VS_FAULTS_OUT: the
# results' directory (default build/faults).
set -u
cd "$(dirname "$0")/../.." || exit 1
list=scripts/check/faults.list
short=0 providers=both only='' phase=both build=build/asan do_build=1 guest_out='' plan=0 fpat='*' report=0
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1; providers=rxe; phase=enomem; shift ;;
	--provider) providers=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--phase) phase=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--no-build) do_build=0; shift ;;
	--guest) guest_out=$2; shift 2 ;;
	--plan) plan=1; shift ;;
	--report) report=1; do_build=0; shift ;;
	--functions) fpat=$2; shift 2 ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $phase in enomem | errnos | both) ;; *) echo "faults.sh: --phase $phase: enomem, errnos or both" >&2; exit 2 ;; esac

# ---- the guest: the sweep itself -------------------------------------------

# the program lines of faults.list: ID MODE TIMEOUT SHORT COMMAND...
programs() {
	awk '$1 == "program" {$1 = ""; sub(/^ /, ""); print}' "$list"
}

# errnos_of FUNCTION: the realistic errnos faults.list gives it
errnos_of() {
	local kind w pats errs p
	while read -r kind rest; do
		[ "$kind" = errnos ] || continue
		pats=() errs=()
		for w in $rest; do
			if [[ $w =~ ^E[A-Z0-9]+$ ]]; then errs+=("$w"); else pats+=("$w"); fi
		done
		for p in "${pats[@]}"; do
			# shellcheck disable=SC2053 # a pattern, on purpose
			if [[ $1 == $p ]]; then echo "${errs[*]}"; return; fi
		done
	done <"$list"
}

# absorbed ID SIDE FUNCTION ERRNO WHEN CALL: the reason when faults.list
# absorbs the case (exit 0 or 77 after it is right)
absorbed() {
	local kind id side fn err when reason
	while read -r kind id side fn err when reason; do
		[ "$kind" = absorb ] || continue
		# shellcheck disable=SC2053 # patterns, on purpose
		[[ $1 == $id && $2 == $side && $3 == $fn ]] || continue
		[ "$err" = '*' ] || [ "$err" = "$4" ] || continue
		[ "$when" = '*' ] || [ "$when" = "$5" ] || [ "$when" = "$6" ] || continue
		echo "$reason"
		return 0
	done <"$list"
	return 1
}

# names_call OUTPUT FUNCTION: the output names the function (or the verb
# its symbol stands for: ibv_reg_mr for ibv_reg_mr_iova2, ...)
names_call() {
	local f=$2 alt=()
	case $f in
	ibv_reg_mr_iova2 | ibv_reg_mr_iova) alt=(ibv_reg_mr) ;;
	_ibv_query_gid_ex) alt=(ibv_query_gid_ex ibv_query_gid) ;;
	_ibv_query_gid_table) alt=(ibv_query_gid_table) ;;
	ibv_query_port | ___ibv_query_port) alt=(ibv_query_port) ;;
	esac
	grep -qF -- "$f" "$1" && return 0
	for f in "${alt[@]}"; do grep -qF -- "$f" "$1" && return 0; done
	return 1
}

# names_errno OUTPUT ERRNO: its name or its text (strerror)
names_errno() {
	local text
	grep -qw -- "$2" "$1" && return 0
	text=$(errno_text "$2")
	[ -n "$text" ] && grep -qiF -- "$text" "$1"
}
errno_text() {
	case $1 in
	ENOMEM) echo "Cannot allocate memory" ;; EIO) echo "Input/output error" ;;
	ENODEV) echo "No such device" ;; EAGAIN) echo "Resource temporarily unavailable" ;;
	EBUSY) echo "Device or resource busy" ;; EINVAL) echo "Invalid argument" ;;
	ETIMEDOUT) echo "Connection timed out" ;; ECONNREFUSED) echo "Connection refused" ;;
	EACCES) echo "Permission denied" ;; EPERM) echo "Operation not permitted" ;;
	EMFILE) echo "Too many open files" ;; ENOSYS) echo "Function not implemented" ;;
	EFAULT) echo "Bad address" ;; EHOSTUNREACH) echo "No route to host" ;;
	EADDRINUSE) echo "Address already in use" ;; EADDRNOTAVAIL) echo "Cannot assign requested address" ;;
	ENETUNREACH) echo "Network is unreachable" ;; ECONNRESET) echo "Connection reset by peer" ;;
	ENOTCONN) echo "Transport endpoint is not connected" ;; EAFNOSUPPORT) echo "Address family not supported by protocol" ;;
	esac
}

# sanitizer OUTPUT: crash or leak when a sanitizer reported one
sanitizer() {
	if grep -qE 'ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer|AddressSanitizer:DEADLYSIGNAL' "$1"; then
		echo crash
	elif grep -q 'ERROR: LeakSanitizer' "$1"; then
		echo leak
	fi
}

# learn ID MODE TIMEOUT CMD...: run the program without faults, its
# counters in $work/learn-SIDE.*; prints "SIDE FUNCTION CALLS" lines
declare -A learned_rc
learn() {
	local id=$1 mode=$2 t=$3 side
	shift 3
	rm -rf "$work/learn" && mkdir -p "$work/learn"
	run_case "$id" "$mode" "$t" '' '' "$work/learn" "$@"
	for side in single server client; do
		[ -f "$work/learn/$side.rc" ] || continue
		learned_rc[$id-$side]=$(<"$work/learn/$side.rc")
		cat "$work/learn/$side".trace.* 2>/dev/null |
			awk -v side="$side" '
			/^verbshim: calls through the shim/ {on = 1; next}
			on && $2 == "function" {next}
			on && $2 == "total" {on = 0; next}
			on && $2 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && $3 ~ /^[0-9]+$/ {
				if ($3 > n[$2]) n[$2] = $3 }
			END {for (f in n) print side, f, n[f]}' | sort -k2
	done
}

# run_case ID MODE TIMEOUT FAULTSIDE RULE DIR CMD...: one run; per side,
# DIR/SIDE.out (its output), DIR/SIDE.rc, DIR/SIDE.trace.* (its failed
# calls and counters)
run_case() {
	local id=$1 mode=$2 t=$3 fside=$4 rule=$5 dir=$6 spid cpid deadline rc
	shift 6
	local cmd=("$@")
	launch() { # SIDE CMD...: in the background, the rule only on its side
		local side=$1
		shift
		local fault=()
		[ "$side" = "$fside" ] && fault=("VERBSHIM_FAULT=$rule")
		env "${fault[@]}" VERBSHIM_STATS=1 VERBSHIM_TRACE=failed \
			VERBSHIM_TRACE_FILE="$dir/$side.trace" \
			timeout -k 5 "$t" "$@" >"$dir/$side.out" 2>&1 </dev/null &
	}
	if [ "$mode" = single ]; then
		launch single "${cmd[@]}"
		wait $! ; echo $? >"$dir/single.rc"
		return
	fi
	launch server "${cmd[@]}"
	spid=$!
	if [ "$mode" = pair-ready ]; then
		deadline=$((SECONDS + 60))
		while [ ! -s "$dir/server.out" ] && [ $SECONDS -lt $deadline ] && kill -0 "$spid" 2>/dev/null; do
			sleep 0.1
		done
	else
		sleep 1
	fi
	launch client "${cmd[@]}" "$IP"
	cpid=$!
	wait "$cpid"; echo $? >"$dir/client.rc"
	# A server whose client failed before it connected waits for the next
	# one, as a server should: an unfaulted client then must be served
	# (the server lived through the failure), else the server hangs.
	if [ "$fside" = client ]; then
		deadline=$((SECONDS + 10))
		while kill -0 "$spid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
		if kill -0 "$spid" 2>/dev/null; then
			VERBSHIM_STATS=1 VERBSHIM_TRACE=failed VERBSHIM_TRACE_FILE="$dir/client2.trace" \
				timeout -k 5 "$t" "${cmd[@]}" "$IP" >"$dir/client2.out" 2>&1 </dev/null
			echo $? >"$dir/client2.rc"
		fi
	fi
	wait "$spid"; rc=$?
	echo $rc >"$dir/server.rc"
}

# verdict DIR ID SIDE FUNCTION ERRNO WHEN CALL: the faulted side's verdict
# and why, one line "VERDICT DETAIL"
verdict() {
	local dir=$1 id=$2 side=$3 f=$4 e=$5 when=$6 n=$7 out rc s peer prc why
	out=$dir/$side.out
	rc=$(<"$dir/$side.rc")
	if grep -q "VERBSHIM_FAULT=.*no fault is injected" "$out"; then
		echo "refused $(grep -m1 'VERBSHIM_FAULT=' "$out" | cut -c1-200)"; return
	fi
	s=$(sanitizer "$out")
	[ -n "$s" ] && { echo "$s $(grep -m1 -E 'ERROR: |runtime error:' "$out" | cut -c1-200)"; return; }
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && { echo "hang still running after ${t}s (killed)"; return; }
	[ "$rc" -gt 128 ] && { echo "crash killed by signal $((rc - 128))"; return; }
	for peer in server client client2; do
		[ -f "$dir/$peer.rc" ] || continue
		[ "$peer" = "$side" ] || [ "$side" = single ] && continue
		prc=$(<"$dir/$peer.rc")
		s=$(sanitizer "$dir/$peer.out")
		[ -n "$s" ] && { echo "$s the peer ($peer): $(grep -m1 -E 'ERROR: |runtime error:' "$dir/$peer.out" | cut -c1-180)"; return; }
		[ "$prc" -eq 124 ] || [ "$prc" -eq 137 ] && { echo "hang the peer ($peer) still running ${t}s after the fault (killed)"; return; }
		[ "$prc" -gt 128 ] && { echo "crash the peer ($peer) killed by signal $((prc - 128))"; return; }
	done
	if ! cat "$dir/$side".trace.* 2>/dev/null | grep -q "^verbshim: \[[0-9]*\] $f(.*\[injected by VERBSHIM_FAULT\]"; then
		echo "unreached call $n of $f not made in this run (exit $rc)"; return
	fi
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then
		if why=$(absorbed "$id" "$side" "$f" "$e" "$when" "$n"); then
			echo "clear absorbed (exit $rc): $why"; return
		fi
		echo "wrong exit $rc after $f failed: $(tail -n 1 "$out" | cut -c1-160)"; return
	fi
	if ! names_call "$out" "$f"; then
		echo "wrong exit $rc, the message does not name $f: $(tail -n 1 "$out" | cut -c1-160)"; return
	fi
	if ! names_errno "$out" "$e"; then
		echo "wrong exit $rc, the message names $f but not $e: $(grep -m1 -F "$f" "$out" | cut -c1-160)"; return
	fi
	echo "clear exit $rc: $(grep -m1 -F -e "$f" -e "${f%_iova2}" "$out" | cut -c1-160)"
}

guest() {
	local out=$1 id mode t sh rest dir f n side e when pos results
	: "${VS_RXE_DEV:?not in the VM: run through scripts/vm-run.sh}"
	# read by faults.list's commands (the eval below)
	# shellcheck disable=SC2034
	B=$build DEV=$VS_RXE_DEV IP=$VS_RXE_IP GIDX=$VS_RXE_GID_INDEX
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	work=$(mktemp -d "${TMPDIR:-/tmp}/vs-faults.XXXXXX") || exit 1
	mkdir -p "$out/logs"
	results=$out/results.tsv
	: >"$results"
	while read -r id mode t sh rest; do
		[ -n "$only" ] && [[ ,$only, != *,$id,* ]] && continue
		[ $short = 1 ] && [ "$sh" = no ] && continue
		eval "cmd=($rest)"
		# shellcheck disable=SC2154 # cmd is set by the eval
		[ -x "${cmd[0]}" ] || { printf '%s\t%s\t-\t-\t-\t-\t-\tmissing\t%s not built\n' "$VS_PROVIDER" "$id" "${cmd[0]}" >>"$results"; continue; }
		echo "== $id: learning its calls"
		learn "$id" "$mode" "$t" "${cmd[@]}" >"$work/calls"
		for side in single server client; do
			[ -n "${learned_rc[$id-$side]:-}" ] || continue
			# a program the device cannot run (the README's, whose QP
			# connects to itself by endpoint bytes, on iWARP) says so
			# with EOPNOTSUPP, whatever its status: no case here
			[ "${learned_rc[$id-$side]}" != 0 ] && grep -q 'Operation not supported' "$work/learn/$side.out" &&
				learned_rc[$id-$side]=77
			case ${learned_rc[$id-$side]} in
			0) ;;
			77) printf '%s\t%s\t%s\t-\t-\t-\t-\tskip\tthe unfaulted run skips: %s\n' "$VS_PROVIDER" "$id" "$side" \
				"$(tail -n 1 "$work/learn/$side.out" | cut -c1-160)" >>"$results"
			    echo "   $side skips unfaulted: $(tail -n 1 "$work/learn/$side.out")" ;;
			*) printf '%s\t%s\t%s\t-\t-\t-\t-\tbroken\tthe unfaulted run exits %s: %s\n' "$VS_PROVIDER" "$id" "$side" \
				"${learned_rc[$id-$side]}" "$(tail -n 1 "$work/learn/$side.out" | cut -c1-160)" >>"$results"
			   echo "   $side fails unfaulted (exit ${learned_rc[$id-$side]}):"; tail -n 5 "$work/learn/$side.out" ;;
			esac
		done
		cp "$work/calls" "$out/logs/$id.calls"
		while read -r side f n; do
			[ "${learned_rc[$id-$side]}" = 0 ] || continue
			# shellcheck disable=SC2053 # --functions: a pattern
			[[ $f == $fpat ]] || continue
			# the short sweep: the functions SHORT names (yes: all)
			[ $short = 1 ] && [ "$sh" != yes ] && [[ ,$sh, != *,$f,* ]] && continue
			local cases=() refused=0
			for when in first middle last; do
				case $when in
				first) pos=1 ;; middle) pos=$(((n + 1) / 2)) ;; last) pos=$n ;;
				esac
				[ $short = 1 ] && [ $when != first ] && continue
				[ "$phase" != errnos ] && cases+=("ENOMEM $when $pos")
				if [ "$phase" != enomem ]; then
					for e in $(errnos_of "$f"); do cases+=("$e $when $pos"); done
				fi
			done
			local seen=' ' c
			for c in "${cases[@]}"; do
				read -r e when pos <<<"$c"
				# one case per errno and call number (a function called
				# once has one first, middle and last)
				[[ $seen == *" $e:$pos "* ]] && continue
				seen+="$e:$pos "
				[ $refused = 1 ] && continue
				if [ $plan = 1 ]; then
					printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\tplanned\t-\n' "$VS_PROVIDER" "$id" "$side" "$f" "$e" "$when" "$pos" >>"$results"
					continue
				fi
				dir=$work/case
				rm -rf "$dir" && mkdir -p "$dir"
				run_case "$id" "$mode" "$t" "$side" "$f:$e:$pos" "$dir" "${cmd[@]}"
				local v
				v=$(verdict "$dir" "$id" "$side" "$f" "$e" "$when" "$pos")
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$VS_PROVIDER" "$id" "$side" "$f" "$e" "$when" "$pos" \
					"${v%% *}" "${v#* }" >>"$results"
				printf '   %-7s %-6s %s:%s:%s %s\n' "${v%% *}" "$side" "$f" "$e" "$pos" "${v#* }" | cut -c1-220
				case ${v%% *} in
				refused) refused=1 ;;
				clear | unreached) ;;
				*) # the evidence, for the report
				   local log=$out/logs/$id.$side.$f.$e.$pos
				   for s in single server client client2; do
					   [ -f "$dir/$s.out" ] && { echo "--- $s (exit $(<"$dir/$s.rc"))"; cat "$dir/$s.out"; }
				   done >"$log" ;;
				esac
			done
		done <"$work/calls"
	done < <(programs)
	rm -rf "$work"
}

# ---- the host: build, one VM per provider, the table -------------------------
host() {

	export VERBSHIM_CACHE=${VERBSHIM_CACHE:-$PWD/.cache}
	MAKE=${MAKE:-make}
	if [ $do_build = 1 ]; then
		echo "== building the ASan+UBSan programs ($build)"
		# the device tests faults.list names, besides make faults-asan's programs
		dev=$(awk '$1 == "program" {for (i = 6; i <= NF; i++) if ($i ~ /^\$B\/test\/device\//) print $i}' "$list" | sed "s|^\$B|$build|")
		# shellcheck disable=SC2086
		$MAKE -s -j"${CHECK_JOBS:-$(nproc)}" SAN=asan BUILD="$build" examples tools "$build/test/readme/hello" $dev >build/faults-build.log 2>&1 ||
			{ tail -n 30 build/faults-build.log; echo "faults: the build failed (build/faults-build.log)"; exit 1; }
	fi
	case $providers in both) providers='rxe siw' ;; rxe | siw) ;; *) echo "faults.sh: --provider rxe, siw or both" >&2; exit 2 ;; esac
	res=${VS_FAULTS_OUT:-build/faults}
	mkdir -p "$res"
	status=0
	t0=$SECONDS
	for p in $providers; do
		[ $report = 1 ] && continue
		rm -rf "${res:?}/$p"
		mkdir -p "$res/$p"
		args=(--guest "$res/$p" --build "$build" --phase "$phase")
		[ $plan = 1 ] && args+=(--plan)
		[ $short = 1 ] && args+=(--short)
		[ -n "$only" ] && args+=(--only "$only")
		args+=(--functions "$fpat")
		echo "== the sweep on $p"
		t1=$SECONDS
		scripts/vm-run.sh --provider "$p" --timeout "${VS_FAULTS_TIMEOUT:-14400}" -- scripts/check/faults.sh "${args[@]}" ||
			{ echo "faults: the VM on $p failed (exit $?)"; status=1; }
		echo "== $p: $((SECONDS - t1)) s"
	done
	# the providers of this run, not an older run's
	for p in $providers; do cat "$res/$p/results.tsv" 2>/dev/null; done >"$res/results.tsv"
	# the table: every case that is not clear, then the counts
	awk -F'\t' '$8 !~ /^(clear|unreached|refused|skip|planned)$/ {
			printf "%-4s %-18s %-6s %-26s %-13s %-6s %-3s %-7s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, substr($9, 1, 120) }' "$res/results.tsv"
	awk -F'\t' '{n[$8]++; t++}
		END {printf "faults: %d cases:", t; for (v in n) printf " %s %d", v, n[v]; printf "\n"}' "$res/results.tsv"
	awk -F'\t' '{k = $1 " " $2; n[k, $8]++; ids[k] = 1; vs[$8] = 1}
		END {printf "%-24s", "provider program"; for (v in vs) printf " %9s", v; printf "\n"
		     for (k in ids) {printf "%-24s", k; for (v in vs) printf " %9d", n[k, v]; printf "\n"}}' "$res/results.tsv" | sort
	echo "faults: results in $res/results.tsv, the evidence of each case in $res/PROVIDER/logs; $((SECONDS - t0)) s"
	bad=$(awk -F'\t' '$8 !~ /^(clear|unreached|refused|skip|planned)$/' "$res/results.tsv" | wc -l)
	[ -s "$res/results.tsv" ] || { echo "faults: no case ran"; exit 1; }
	[ "$bad" -eq 0 ] && [ $status -eq 0 ]
}

# one compound command, read whole before it runs: the script may change
# under a running sweep (the guest reads it over 9p)
{
	if [ -n "$guest_out" ]; then guest "$guest_out"; exit 0; fi
	host
	exit
}
