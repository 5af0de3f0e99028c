#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The drop-in = stock on a release built from its tag (issue 49, item 3):
# that release's own example programs, linked stock and through verbshim
# from the same objects (test/shell/release_examples.sh, the product
# build/release-examples/VER/{stock,shim}), run on rxe with the same
# arguments, each stock run then its shim-built twin.  Each run's verdict
# is "pass", or "fail (client C, server S)" with the exit statuses (124:
# timed out); a pingpong's -c that finds other bytes than were sent is a
# failure whatever its exit.  The test fails when a program's two verdicts
# differ, and when the stock ibv_rc_pingpong or rping does not pass (the
# device itself would then be broken, and identical failures prove
# nothing).  A program that fails both ways is listed with the last line
# each printed and the cause where it is known (known_cause below).
#
#   test/vm/release_examples.sh                in a release boot (the root's
#                                              own release, /.verbshim-root)
#   VS_RELEASE_EXAMPLES="NAME..." runs only those programs (by hand)
#   test/vm/release_examples.sh --roots "VER..."  in any boot: each release
#                                              chrooted into its root
#                                              (release_chroot), one boot
#                                              for all
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/release-examples
tmo=${VS_RELEASE_EXAMPLES_TIMEOUT:-60}
skip_on_iwarp "the pingpongs exchange addresses by TCP and bring their QPs up themselves; iWARP QPs connect only through rdma_cm"

# known_cause VER NAME: why a program fails stock on that release, as
# measured (docs/testbed.md, "The drop-in = stock on the releases built
# from tags"); empty when nothing is known.
known_cause() {
	case $2 in
	ibv_ud_pingpong)
		case $1 in 17.1 | 22.4) echo "UD to self is lost: this release's rxe provider sets no destination MAC in its address handles (ibv_create_ah: no dmac), so the first SEND never arrives and both sides wait (test/vm/ud_pingpong.sh)" ;; esac ;;
	udaddy)
		case $1 in 17.1 | 22.4) echo "UD to self is lost, as ibv_ud_pingpong's: this release's rxe provider sets no destination MAC in its address handles" ;; esac ;;
	ibv_xsrq_pingpong)
		echo "XRC: rxe has no XRC domains or XRC SRQs" ;;
	esac
}

# One run: run WAY LOG ARGS... where ARGS may hold BIN:NAME words (the
# program of that way), a ::: between server and client, AFTER:N (what
# follows starts N seconds later: mckey's sender, whose receiver must have
# joined) and, first, RUNS (a server that runs until it is stopped, as
# cmtime's: its end by the pair's kill, 143, once the client exited 0, is
# a pass).
run() {
	local way=$1 log=$2 w side=srv rc=0 runs=0 after=() cmd
	# shellcheck disable=SC2016 # (that shell's)
	local delay='sleep "$0" && exec "$@"'
	local srv=() cli=()
	shift 2
	for w in "$@"; do
		cmd=()
		case $w in
		:::) side=cli; continue ;;
		RUNS) runs=1; continue ;;
		AFTER:*) after=(sh -c "$delay" "${w#AFTER:}"); continue ;;
		BIN:*)
			w=${w#BIN:}
			if [ -n "$root" ]; then	# through the root's loader and libraries
				cmd=(release_chroot "$root" "$dir/$way" "${after[@]}" timeout "$tmo" "/tmp/bin/$w")
			else
				cmd=("${after[@]}" timeout "$tmo" "$dir/$way/$w")
			fi
			after=() ;;
		*) cmd=("$w") ;;
		esac
		if [ $side = srv ]; then srv+=("${cmd[@]}"); else cli+=("${cmd[@]}"); fi
	done
	if [ ${#cli[@]} -gt 0 ]; then
		pair "${srv[@]}" -- "${cli[@]}" >"$log" 2>&1 || rc=$?
		verdict=pass
		[ $rc -eq 0 ] || verdict="fail ($(sed -n 's/^FAILED: //p' "$log" | tail -n 1))"
		[ $runs -eq 0 ] || [ "$verdict" != "fail (client exit 0, server exit 143)" ] || verdict=pass
		[ $rc -ne 77 ] || verdict="skip ($(sed -n 's/^skip: //p' "$log"))"
	else
		"${srv[@]}" >"$log" 2>&1 || rc=$?
		verdict=pass
		[ $rc -eq 0 ] || verdict="fail (exit $rc)"
	fi
	if grep -qE 'invalid data|data mismatch' "$log"; then
		verdict="fail (other bytes than were sent)"
	fi
}

# The programs and their arguments ($pp, $ip, $port expanded here); :::
# splits server and client.  A program the release does not build is not
# run.  Each CM program listens on a port of its own, another for its
# shim-built run ($port): a server stopped by the pair leaves its
# accepted connections' ids to the kernel's CM time-wait, and its port
# bound for a while ("bind address failed: Address already in use", seen
# by the next run on that port).  Not udaddy's and mckey's: their -p is
# the port space (udaddy listens on its one port, mckey on none).
programs() {
	cat <<'EOF'
ibv_devices|BIN:ibv_devices
ibv_devinfo|BIN:ibv_devinfo -d $dev -v
ibv_rc_pingpong|BIN:ibv_rc_pingpong "${pp[@]}" ::: BIN:ibv_rc_pingpong "${pp[@]}" $ip
ibv_uc_pingpong|BIN:ibv_uc_pingpong "${pp[@]}" ::: BIN:ibv_uc_pingpong "${pp[@]}" $ip
ibv_ud_pingpong|BIN:ibv_ud_pingpong "${pp[@]}" -s 512 ::: BIN:ibv_ud_pingpong "${pp[@]}" -s 512 $ip
ibv_srq_pingpong|BIN:ibv_srq_pingpong "${pp[@]}" -q 4 ::: BIN:ibv_srq_pingpong "${pp[@]}" -q 4 $ip
ibv_xsrq_pingpong|BIN:ibv_xsrq_pingpong -d $dev -g $gid -n 20 ::: BIN:ibv_xsrq_pingpong -d $dev -g $gid -n 20 $ip
rping|BIN:rping -s -a $ip -p $port -C 20 -S 256 -V ::: BIN:rping -c -a $ip -p $port -C 20 -S 256 -V
udaddy|BIN:udaddy -b $ip ::: BIN:udaddy -s $ip
ucmatose|BIN:ucmatose -b $ip -p $port ::: BIN:ucmatose -s $ip -p $port
mckey|BIN:mckey -m 239.77.0.9 -b $ip -C 10 ::: AFTER:3 BIN:mckey -m 239.77.0.9 -b $ip -s -C 10
cmtime|RUNS BIN:cmtime -b $ip -p $port -c 10 ::: BIN:cmtime -s $ip -p $port -c 10
rdma_server|BIN:rdma_server -p $port ::: BIN:rdma_client -s $ip -p $port
rdma_xserver|BIN:rdma_xserver -p $port ::: BIN:rdma_xclient -s $ip -p $port
rstream|BIN:rstream -b $ip -p $port -S 4096 -C 100 ::: BIN:rstream -s $ip -p $port -S 4096 -C 100
riostream|BIN:riostream -b $ip -p $port -S 4096 -C 100 ::: BIN:riostream -s $ip -p $port -S 4096 -C 100
EOF
}

# release VER: every program both ways, the verdicts compared
release() {
	local v=$1 name line args prog stock shim t0 ts cause differ=0 same_fail=0 n=0
	# shellcheck disable=SC2034 # (in the table's words, eval'd)
	local dev=$VS_RXE_DEV gid=$VS_RXE_GID_INDEX ip=$VS_RXE_IP port
	# shellcheck disable=SC2034
	# (--chk, not -c: 17.1's uc and srq pingpongs take -c with an
	# argument, "c:" in their getopt string, though --chk takes none)
	local pp=(-d "$VS_RXE_DEV" -g "$VS_RXE_GID_INDEX" -n 100 --chk)
	dir=$repo/$out/$v
	[ -d "$dir/shim" ] || { echo "FAIL: rdma-core $v: no $out/$v/shim (test/shell/release_examples.sh makes it)"; status=1; return; }
	mkdir -p "$dir/logs"
	echo "== rdma-core $v: its own examples, stock (its libibverbs and librdmacm) and through verbshim, on $VS_RXE_DEV"
	while IFS='|' read -r name line; do
		prog=$(sed -n 's/^\(RUNS \)\{0,1\}BIN:\([^ ]*\).*/\2/p' <<<"$line")
		# VS_RELEASE_EXAMPLES="NAME...": only those (a rerun by hand)
		if [ -n "${VS_RELEASE_EXAMPLES:-}" ] && [[ " $VS_RELEASE_EXAMPLES " != *" $name "* ]]; then
			continue
		fi
		if [ ! -x "$dir/stock/$prog" ]; then
			echo "   $name: not in rdma-core $v"
			continue
		fi
		t0=$SECONDS
		# shellcheck disable=SC2034 # (in the table's words, eval'd)
		port=$((7600 + n))
		eval "args=($line)"
		run stock "$dir/logs/$name.stock" "${args[@]}"
		stock=$verdict ts=$((SECONDS - t0)) t0=$SECONDS
		# shellcheck disable=SC2034
		port=$((7700 + n))
		eval "args=($line)"
		run shim "$dir/logs/$name.shim" "${args[@]}"
		shim=$verdict
		n=$((n + 1))
		if [ "$stock" != "$shim" ]; then
			echo "FAIL: $name: stock $stock, through verbshim $shim"
			sed 's/^/   stock| /' "$dir/logs/$name.stock"
			sed 's/^/   shim| /' "$dir/logs/$name.shim"
			differ=$((differ + 1))
			status=1
		elif [ "$stock" = pass ]; then
			printf '   %-18s pass both ways (stock %d s, verbshim %d s)\n' "$name" "$ts" $((SECONDS - t0))
		else
			same_fail=$((same_fail + 1))
			cause=$(known_cause "$v" "$name")
			printf '   %-18s %s both ways (stock %d s, verbshim %d s): %s\n' "$name" "$stock" "$ts" $((SECONDS - t0)) \
				"${cause:-cause not named here}"
			echo "      stock's last line:    $(grep -vE '^ *$|^(server|client)( \(attempt [0-9]+\))?:|FAILED:' "$dir/logs/$name.stock" | tail -n 1)"
			echo "      verbshim's last line: $(grep -vE '^ *$|^(server|client)( \(attempt [0-9]+\))?:|FAILED:' "$dir/logs/$name.shim" | tail -n 1)"
			case $name in ibv_rc_pingpong | rping)
				echo "FAIL: the stock $name must pass on rxe: the device or the harness is broken"
				status=1 ;;
			esac
		fi
	done < <(programs)
	echo "rdma-core $v: $n programs, $((n - differ)) with the same verdict both ways ($same_fail of them failing both ways), $differ differ"
}

status=0 root=''
if [ "${1:-}" = --roots ]; then
	for v in $2; do
		root=$(cat "$out/$v/root" 2>/dev/null) || { echo "FAIL: rdma-core $v: no $out/$v/root"; status=1; continue; }
		release "$v"
	done
else
	v=$(sed -n '1s/^rdma-core \([0-9.]*\) .*/\1/p' /.verbshim-root 2>/dev/null || true)
	[ -n "$v" ] || { echo "FAIL: not in a release root (no /.verbshim-root): run with --roots"; exit 1; }
	release "$v"
fi
exit $status
