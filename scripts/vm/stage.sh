#!/usr/bin/env bash
# The VM stage of `make check` (and of make check-siw, check-arm64):
# everything that needs an RDMA device, run on SoftRoCE (rxe) and
# soft-iWARP (siw) in qemu (scripts/vm-run.sh), x86-64 and arm64 guests,
# one boot per line of test/boots.list; in each, the tests of
# test/tests.list whose WHERE is one of the boot's sets
# (scripts/vm/guest.sh in the guest).
#
#   scripts/vm/stage.sh RESULTS_FILE
#   scripts/vm/stage.sh --fetch   only fetch and build what the boots
#                                 boot (kernels, siw.ko, release roots):
#                                 make check runs it beside its host
#                                 stage, where downloads cost no CPU
#
# Each boot appends "LABEL passed failed skipped" lines.  VS_VM_CONFIGS
# selects the boots (words: a label or a group of boots.list; default
# check, make check's).  Two builds: the host root runs today's
# toolchain's binaries (build/); the release roots, each on its own
# distribution's glibc, all run the one set built on the oldest supported
# distribution (`make oldest`: build/oldest).  The arm64 boots the same
# with build/arm64 and build/arm64/oldest (make ARCH=arm64 all tests
# oldest); their host root is the arm64 44.0 root (ARM64_HOST_ROOT).
set -euo pipefail
# shellcheck source=scripts/check/checked-runs.bash
. "$(dirname "$0")/../check/checked-runs.bash"

me=vm/stage.sh
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$repo"

fetch_only=
if [ "${1:-}" = --fetch ]; then
	fetch_only=1 results=/dev/null
else
	results=${1:?usage: $me RESULTS_FILE | --fetch}
	touch "$results"
fi
vmdir=build/vm
OLDEST=build/oldest
OLDEST_DIRS="bin test dropin stubs"
# arm64: the host's / holds x86-64 programs, so ROOT host is this arm64
# release root (Debian 12's, the host root's release) with build/arm64
ARM64_HOST_ROOT=44.0
mkdir -p "$vmdir"
status=0
summary=()
t_all=$SECONDS

# label arch kernel provider root guests sets, one boot a line
# shellcheck disable=SC2086
selected=$(scripts/check/tests.sh boots ${VS_VM_CONFIGS:-check}) || {
	echo "vm-setup 0 1 0" >>"$results"
	exit 1
}
mapfile -t boots < <(awk '{print $1, $3, $4, $5, $6, $7, $8}' <<<"$selected")

# arm64_build ROOT: the arm64 build a boot of that root runs
arm64_build() { if [ "$1" = host ]; then echo build/arm64; else echo build/arm64/oldest; fi; }
# arm64_release ROOT: the arm64 rdma-core root a boot of that root runs in
arm64_release() { if [ "$1" = host ]; then echo "$ARM64_HOST_ROOT"; else echo "$1"; fi; }

# Fetch and build everything up front: a network problem shows here, once,
# clearly; and what the selected boots' tests need (a product of a shell
# test, as the compat binaries under make check-rxe alone) is made now.
prep() {
	local b label arch kernel prov root guests sets all_sets='' p d done_=" "
	echo "== VM stage: preparing kernels, modules, rdma-core roots"
	scripts/deps.sh --vm || return 1
	for b in "${boots[@]}"; do
		read -r label arch kernel prov root guests sets <<<"$b"
		# (a mixed pair, arm64+x86_64, needs both)
		if [[ $arch == *arm64* ]]; then
			prep_arm64 "$kernel" "$prov" "$root" || return 1
		fi
		if variant=$(scripts/check/tests.sh variant "$sets"); then
			prep_checked "$arch" "$variant" || return 1
		fi
		[[ $arch == *x86_64* ]] || continue
		all_sets+="$sets,"
		[ "$kernel" = - ] && continue
		if [[ $done_ != *" $kernel "* ]]; then
			scripts/vm/kernel-fetch.sh "$kernel" >/dev/null || return 1
			done_+="$kernel "
		fi
		if [ "$prov" = siw ] && [[ $done_ != *" siw-$kernel "* ]]; then
			scripts/vm/siw-build.sh "$kernel" >/dev/null || return 1
			done_+="siw-$kernel "
		fi
		if [ "$root" != host ] && [[ $done_ != *" root-$root "* ]]; then
			scripts/rdma-core-root.sh "$root" >/dev/null || return 1
			done_+="root-$root "
			[ -z "$fetch_only" ] || continue
			for d in $OLDEST_DIRS; do
				{ [ -d "$OLDEST/$d" ] && [ -d "build/$d" ]; } ||
					{ echo "$me: error: the release roots run $OLDEST/$d over build/$d: run make all tests oldest" >&2; return 1; }
			done
		fi
	done
	[ -n "$all_sets" ] && [ -z "$fetch_only" ] || return 0
	for p in $(scripts/check/tests.sh products "${all_sets%,}"); do
		scripts/deps.sh || return 1
		scripts/check/tests.sh make-product "$p" || return 1
	done
}

# prep_arm64 KERNEL PROVIDER ROOT: the arm64 kernel, siw.ko (cross-built),
# root and build of one boot.  Their products are the x86-64 host's (none
# runs in an arm64 boot).
prep_arm64() {
	local kernel=$1 prov=$2 root=$3 b
	b=$(arm64_build "$root")
	root=$(arm64_release "$root")
	if [[ $done_ != *" arm64 "* ]]; then
		scripts/deps.sh --arm64 || return 1
		# what vm/guest.sh prints of the binaries (make oldest writes its own)
		mkdir -p build/arm64
		printf '%s; %s\n' "$(aarch64-linux-gnu-gcc --version | head -n 1)" \
			"$(qemu-aarch64 -L /usr/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib/libc.so.6 | head -n 1)" >build/arm64/toolchain
		# the guest binds the arm64 build over these
		for d in $OLDEST_DIRS; do mkdir -p "build/$d"; done
		done_+="arm64 "
	fi
	if [[ $done_ != *" arm64-$kernel "* ]]; then
		scripts/vm/kernel-fetch.sh --arch arm64 "$kernel" >/dev/null || return 1
		done_+="arm64-$kernel "
	fi
	if [ "$prov" = siw ] && [[ $done_ != *" arm64-siw-$kernel "* ]]; then
		scripts/vm/siw-build.sh --arch arm64 "$kernel" >/dev/null || return 1
		done_+="arm64-siw-$kernel "
	fi
	if [[ $done_ != *" arm64-root-$root "* ]]; then
		scripts/rdma-core-root.sh --arch arm64 "$root" >/dev/null || return 1
		done_+="arm64-root-$root "
	fi
	[ -z "$fetch_only" ] || return 0
	{ [ -x "$b/bin/loopback" ] && [ -d "$b/test/device" ] && [ -s "$b/toolchain" ]; } ||
		{ echo "$me: error: no $b/bin/loopback: run make ARCH=arm64 all tests oldest" >&2; return 1; }
}
# prep_checked ARCH VARIANT: what a boot's checked set runs
# (scripts/vm/guest.sh): the variant's build (asan, tsan: today's
# toolchain, ROOT host), and in an arm64 root, which has neither, the
# sanitizer runtimes or bookworm's arm64 valgrind.
prep_checked() {
	local b=build mk=make deb d f id libc root vg=build/arm64/valgrind
	[ "$1" = arm64 ] && b=$(arm64_build host) mk="make ARCH=arm64"
	case $2 in
	asan | tsan)
		[ -d "$b/$2/test/unit" ] ||
			{ echo "$me: error: no $b/$2/test/unit: run $mk BUILD=$b/$2 SAN=$2 tests" >&2; return 1; }
		if [ "$1" = arm64 ]; then arm64_sanlib "$b/$2" "$2" || return 1; fi ;;
	valgrind)
		[ "$1" = arm64 ] || return 0
		# Valgrind must redirect ld.so's strlen, whose symbol Debian
		# strips: libc6-dbg of the root's own libc, found by each
		# object's debuglink name (--extra-debuginfo-path=$vg/debuglink:
		# it looks build-ids up under /usr/lib/debug only, which the
		# root has not).  Without: "Fatal error at startup: a function
		# redirection which is mandatory ... strlen".
		root=$(scripts/rdma-core-root.sh --arch arm64 "$(arm64_release host)") || return 1
		libc=$(sed -n 's/^libc6_\([^_]*\)_arm64\.deb$/\1/p' "$root/.verbshim-root")
		deb=$(scripts/roots/apt-fetch.sh --arch arm64 bookworm valgrind "libc6-dbg=$libc") || return 1
		if [ ! -x "$vg/usr/bin/valgrind" ] || [ "$(cat "$vg.debs" 2>/dev/null)" != "$deb" ]; then
			rm -rf "$vg" && mkdir -p "$vg" || return 1
			for d in $deb; do dpkg-deb -x "$d" "$vg" || return 1; done
			for d in lib lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
				mkdir -p "$vg/debuglink/$d"
				for f in "$vg"/usr/lib/debug/.build-id/*/*.debug; do
					ln -sfr "$f" "$vg/debuglink/$d/${f##*/}"
				done
			done
			echo "$deb" >"$vg.debs"
		fi
		id=$(readelf -n "$root/lib/ld-linux-aarch64.so.1" | awk '/Build ID/ {print $3}')
		[ -e "$vg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
			{ echo "$me: error: libc6-dbg $libc has no symbols for $root's ld.so (build-id $id): valgrind cannot start there" >&2; return 1; } ;;
	esac
}
if ! prep; then
	echo "$me: error: cannot prepare the test bed (see above)" >&2
	echo "vm-setup 0 1 0" >>"$results"
	exit 1
fi
[ -z "$fetch_only" ] || exit 0

# Wrappers for the examples of test/vm/examples.list that are built.
# Rewritten in place (another checkout user's stage may be running them).
# The wrappers run build/bin/NAME: in an arm64 guest, the arm64 build's.
mkdir -p "$vmdir/examples"
keep=" "
ex_bins=build/bin
for b in "${boots[@]}"; do
	read -r _ arch _ _ root _ <<<"$b"
	[[ $arch == *arm64* ]] && ex_bins+=" $(arm64_build "$root")/bin"
done
while read -r id name mode args; do
	case $id in '' | '#'*) continue ;; esac
	for d in $ex_bins; do [ -x "$d/$name" ] && break; done
	[ -x "$d/$name" ] || continue
	w=$vmdir/examples/$id
	keep+="$id "
	{
		echo '#!/usr/bin/env bash'
		echo "# Generated by scripts/vm/stage.sh from test/vm/examples.list."
		echo "# binary: build/bin/$name"
		echo "cd '$repo' || exit 1"
		echo '. test/vm/lib/common.bash'
		echo 'need_vm'
		# MODE+ud: its datagrams go to this same machine
		# (test/vm/lib/common.bash: pair, VS_PAIR_UD)
		[[ $mode == *+ud ]] && { echo 'export VS_PAIR_UD=1'; mode=${mode%+ud}; }
		case $mode in
		single) echo "exec build/bin/$name $args" ;;
		pair) echo "pair build/bin/$name $args -- build/bin/$name $args \"\$VS_RXE_IP\"" ;;
		pair-ready) echo "VS_PAIR_READY=1 pair build/bin/$name $args -- build/bin/$name $args \"\$VS_RXE_IP\"" ;;
		*) echo "echo 'examples.list: unknown mode $mode'; exit 1" ;;
		esac
	} >"$w.$$"
	chmod +x "$w.$$"
	mv -f "$w.$$" "$w"
done <test/vm/examples.list
for w in "$vmdir"/examples/*; do
	[ -e "$w" ] || continue
	case $keep in *" ${w##*/} "*) ;; *) rm -f "$w" ;; esac
done

# vm_opts ARCH KERNEL PROVIDER ROOT: scripts/vm-run.sh's options for a boot
vm_opts() {
	echo "--kernel $2 --provider $3"
	if [ "$1" = arm64 ]; then
		echo "--arch arm64 --rdma-core $(arm64_release "$4")"
	elif [ "$4" != host ]; then
		echo "--rdma-core $4"
	fi
}

# boot_timeout ARCH X86_DEFAULT: the whole boot's limit.  TCG emulating
# aarch64 runs the same tests many times slower (measured: 14 device tests
# in ~800 s at load ~20; docs/testbed.md).
boot_timeout() {
	if [ "$1" = arm64 ]; then echo "${VS_ARM64_TIMEOUT:-7200}"; else echo "${VS_VM_TIMEOUT:-$2}"; fi
}

# One guest: its tests report to a results file of their own.
one_guest() {
	local label=$1 arch=$2 kernel=$3 prov=$4 root=$5 out rc=0
	out=$vmdir/results-$label.$$
	: >"$out"
	# The whole boot's limit guards against a hung guest only (each test
	# has its own in vm/guest.sh): a boot of ~5 minutes on a quiet host
	# took over 15 with the host's two cores loaded (load 15-19).
	# shellcheck disable=SC2046
	scripts/vm-run.sh --timeout "$(boot_timeout "$arch" 2400)" $(vm_opts "$arch" "$kernel" "$prov" "$root") \
		-- scripts/vm/guest.sh "$label" "$out" || rc=$?
	if [ -s "$out.running" ]; then
		# Killed in the middle of its tests: those that had reported
		# count, and the kill is one failure more.
		cat "$out.running" >>"$out"
		echo "$label-vm 0 1 0" >>"$out"
	elif [ ! -s "$out" ]; then
		# The VM never got to run the tests: count it as one failure.
		echo "$label 0 1 0" >"$out"
	elif [ $rc -eq 124 ] || [ $rc -eq 125 ]; then
		# It died (timeout, crash) after some tests had reported.
		echo "$label-vm 0 1 0" >>"$out"
	fi
	[ $rc -eq 0 ] || status=1
	cat "$out" >>"$results"
	summary+=("$(printf '%-16s %4ss  %s' "$label" $((SECONDS - t0)) "$(awk '{p+=$2; f+=$3; s+=$4} END {printf "%d passed, %d failed, %d skipped", p, f, s}' "$out")")")
	rm -f "$out" "$out.running"
}

# Two guests over a qemu socket network on 127.0.0.1, for each test of the
# boot's sets: TEST server in one, TEST client 10.77.0.1 in the other.
# ARCH SERVER+CLIENT (arm64+x86_64) gives each guest its own; an arm64
# guest runs build/arm64 in the arm64 44.0 root (test/vm/two_vm.sh picks
# the build by the machine), and a pair with one boots in minutes under
# TCG: its peer waits VS_TWO_VM_WAIT s for it (default 600 there).
two_guests() {
	local label=$1 arch=$2 kernel=$3 prov=$4 root=$5 sets=$6 t spid cpid src crc p1 p2
	local net1 net2 mode=${VS_TWO_VM_NET:-udp} passed=0 failed=0 opts1 opts2 a1 a2 common
	a1=${arch%%+*} a2=${arch##*+}
	common=(--smp "${VS_TWO_VM_SMP:-1}")
	[[ $arch == *arm64* ]] && common+=(--env "VS_TWO_VM_WAIT=${VS_TWO_VM_WAIT:-600}")
	# shellcheck disable=SC2207
	opts1=(--timeout "$(boot_timeout "$a1" 1200)" "${common[@]}" $(vm_opts "$a1" "$kernel" "$prov" "$root"))
	# shellcheck disable=SC2207
	opts2=(--timeout "$(boot_timeout "$a2" 1200)" "${common[@]}" $(vm_opts "$a2" "$kernel" "$prov" "$root"))
	for t in $(scripts/check/tests.sh list "$sets"); do
		echo "   $t: qemu socket network ($mode) on 127.0.0.1"
		# Free loopback ports for the socket netdev.
		for _ in $(seq 1 50); do
			p1=$((20000 + RANDOM % 20000))
			p2=$((p1 + 1))
			ss -Htuln "( sport = :$p1 or sport = :$p2 )" | grep -q . || break
		done
		# UDP by default: qemu's TCP socket netdev leaves Nagle on, which
		# costs ~50 ms per round trip (1.9 ms over UDP).  tcp: listen/connect.
		if [ "$mode" = tcp ]; then
			net1=listen:$p1 net2=connect:$p1
		else
			net1=udp:$p1:$p2 net2=udp:$p2:$p1
		fi
		src=0 crc=0
		scripts/vm-run.sh "${opts1[@]}" --name vm1 --netdev-socket "$net1" --ip 10.77.0.1/24 \
			-- "$t" server &
		spid=$!
		if [ "$mode" = tcp ]; then
			# The client's qemu needs the listener up.
			for _ in $(seq 1 300); do
				ss -Htln "sport = :$p1" | grep -q . && break
				kill -0 "$spid" 2>/dev/null || break
				sleep 0.1
			done
		fi
		scripts/vm-run.sh "${opts2[@]}" --name vm2 --netdev-socket "$net2" --ip 10.77.0.2/24 \
			-- "$t" client 10.77.0.1 &
		cpid=$!
		wait "$cpid" || crc=$?
		wait "$spid" || src=$?
		if [ $src -eq 0 ] && [ $crc -eq 0 ]; then
			passed=$((passed + 1))
		else
			echo "$me: $label: $t: server VM exit $src, client VM exit $crc" >&2
			failed=$((failed + 1))
			status=1
		fi
	done
	echo "$label $passed $failed 0" >>"$results"
	summary+=("$(printf '%-16s %4ss  %s' "$label" $((SECONDS - t0)) "$passed passed, $failed failed (server exit $src, client exit $crc)")")
}

# No guest: tests on the host that boot VMs themselves.
no_guest() {
	local label=$1 sets=$2 tests
	mapfile -t tests < <(scripts/check/tests.sh list "$sets")
	test/run.sh --stage "$label" --no-skip --timeout 600 --results "$results" "${tests[@]}" || status=1
	summary+=("$(printf '%-16s %4ss' "$label" $((SECONDS - t0)))")
}

for b in "${boots[@]}"; do
	read -r label arch kernel prov root guests sets <<<"$b"
	t0=$SECONDS
	rm -f "$vmdir/verdicts-$label"	# its guest writes them again
	what="rdma-core $root"
	[ "$arch" = arm64 ] && what="$(arm64_build "$root") in the arm64 rdma-core $(arm64_release "$root") root"
	echo "== VM: $label ($arch, kernel $kernel, $prov, $what, $guests guest(s): $sets)"
	case $guests in
	0) no_guest "$label" "$sets" ;;
	1) one_guest "$label" "$arch" "$kernel" "$prov" "$root" ;;
	2) two_guests "$label" "$arch" "$kernel" "$prov" "$root" "$sets" ;;
	esac
done

# A traced boot (the set word trace) against the plain boots of this run
# on the same provider: each test both ran has the same verdict (build/vm/verdicts-LABEL, one
# line a test, written in the guest by test/run.sh).  Its own results line,
# LABEL-verdicts: passed when none differs.
compare_traced() {
	local b b2 label arch kernel prov root guests sets l2 p2 s2 g2 p n diff t v pv plain
	for b in "${boots[@]}"; do
		read -r label arch kernel prov root guests sets <<<"$b"
		[[ ",$sets," == *,trace,* ]] || continue
		plain=()
		for b2 in "${boots[@]}"; do
			read -r l2 _ _ p2 _ g2 s2 <<<"$b2"
			[ "$g2" = 1 ] && [ "$p2" = "$prov" ] && [[ ",$s2," != *,trace,* ]] &&
				[ -f "$vmdir/verdicts-$l2" ] && plain+=("$vmdir/verdicts-$l2")
		done
		if [ ! -s "$vmdir/verdicts-$label" ]; then
			echo "$me: $label: no verdicts (build/vm/verdicts-$label)" >&2
			echo "$label-verdicts 0 1 0" >>"$results"
			status=1
			continue
		fi
		if [ ${#plain[@]} -eq 0 ]; then
			echo "$label: no plain $prov boot in this run to compare its verdicts with (make check pairs it with rxe-6.1)"
			continue
		fi
		# TEST VERDICT of the traced boot against each plain boot's line
		# for the same test
		n=0 diff=0
		while read -r t v; do
			for p in "${plain[@]}"; do
				pv=$(awk -v t="$t" '$1 == t {print $2; exit}' "$p")
				[ -n "$pv" ] || continue
				n=$((n + 1))
				[ "$pv" = "$v" ] && continue
				diff=$((diff + 1))
				echo "$me: $label: $t: $v with the trace on, $pv in ${p##*/verdicts-}" >&2
			done
		done <"$vmdir/verdicts-$label"
		echo "$label: $n verdicts compared with the plain boots (${plain[*]##*/verdicts-}), $diff differ"
		if [ "$n" -gt 0 ] && [ $diff -eq 0 ]; then
			echo "$label-verdicts 1 0 0" >>"$results"
		else
			echo "$label-verdicts 0 1 0" >>"$results"
			status=1
		fi
	done
}
compare_traced

echo "== VM stage summary ($((SECONDS - t_all))s)"
printf '  %s\n' "${summary[@]}"
exit $status
