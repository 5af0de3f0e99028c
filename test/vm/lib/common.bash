# Helpers for test/vm/*.sh (sourced; bash).  Each test exits 0 pass, 1 fail,
# 77 skip (outside the VM, with the reason on the last line).

need_vm() {
	if [ "${VERBSHIM_IN_VM:-}" != 1 ]; then
		echo "needs the SoftRoCE VM (run it through scripts/vm-run.sh)"
		exit 77
	fi
	: "${VS_RXE_DEV:?}" "${VS_RXE_GID_INDEX:?}" "${VS_RXE_IP:?}"
}

# skip_on_iwarp WHY: on siw (VS_PROVIDER=siw), skip naming the device and why.
skip_on_iwarp() {
	if [ "${VS_PROVIDER:-rxe}" = siw ]; then
		echo "skip: $VS_RXE_DEV (iWARP): $*"
		exit 77
	fi
}

# ud_self_lost: prints why a datagram to this same machine is known lost
# on this device (rxe of rdma-core 17.1 and 22.4), or nothing.  The
# decision and its words are the self-test's typed ud row's
# (tools/verbshim-selftest/ud_self_lost.h: the release's rxe provider sets
# no destination MAC), which also saw the datagram lost; asked once a boot
# (the answer kept in /tmp), and only on a boot that allows the skip
# (VS_UD_SELF_LOST_OK=1: test/boots.list's word ud-self-lost).
ud_self_lost() {
	local f=/tmp/vs-ud-self-lost.$VS_RXE_DEV text
	[ "${VS_UD_SELF_LOST_OK:-0}" = 1 ] || return 0
	if [ ! -e "$f" ]; then
		text=$(sed -n 's/^#define VS_UD_SELF_LOST_TEXT "\(.*\)"$/\1/p' tools/verbshim-selftest/ud_self_lost.h)
		[ -n "$text" ] || { echo "ud_self_lost: no VS_UD_SELF_LOST_TEXT in tools/verbshim-selftest/ud_self_lost.h" >&2; return 1; }
		build/bin/verbshim-selftest -d "$VS_RXE_DEV" --timeout 5 --json "$f.json" >/dev/null 2>&1 || true
		grep -o "[^\"]*${text}[^\"]*" "$f.json" 2>/dev/null | head -n 1 >"$f.tmp" || true
		mv -f "$f.tmp" "$f"
	fi
	cat "$f"
}

# pair SERVER_CMD... -- CLIENT_CMD...
# Starts the server, then runs the client until it gets through (a client
# that comes too early fails to connect; the server is not affected), then
# waits for the server.  Both must exit 0; when the client says it cannot
# run on this device (77, as an example's ex_die does for EOPNOTSUPP: UD on
# iWARP, ...), the pair skips with the client's reason, whatever became of
# the server waiting for it.  VS_PAIR_WAIT: seconds to retry.
# VS_PAIR_UD=1: the pair's datagrams go to this same machine; where they
# are known lost (ud_self_lost) both run 60 s at most and a failure is a
# skip naming the cause (a pass stays a pass).
pair() {
	local srv=() cli=() deadline spid rc src try=0 out lost='' refused
	if [ "${VS_PAIR_UD:-0}" = 1 ]; then
		lost=$(ud_self_lost) || return 1
		[ -z "$lost" ] || { srv=(timeout 60); cli=(timeout 60); }
	fi
	local s=() c=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	c=("$@")
	# A side that is a shell function (release_examples.sh --roots:
	# release_chroot) runs in a bash of its own, the function exported to
	# it: timeout(1), around the client always and around both sides of a
	# lost UD pair, runs programs only ("failed to run command
	# 'release_chroot'", exit 127, both ways alike).
	if declare -F "${s[0]:-}" >/dev/null; then
		export -f "${s[0]}"
		s=(bash -c '"$@"' pair "${s[@]}")
	fi
	if declare -F "${c[0]:-}" >/dev/null; then
		export -f "${c[0]}"
		c=(bash -c '"$@"' pair "${c[@]}")
	fi
	srv+=("${s[@]}")
	set -- "${c[@]}"
	# A client that hangs (seen once: stock rping on siw0, make check,
	# 2026-12-02) ends here with 124, its output and the server's printed,
	# rather than the whole test killed at its limit with nothing said.
	local limit=${VS_PAIR_CLIENT_LIMIT:-$([ "$(uname -m)" = aarch64 ] && echo 800 || echo 300)}
	[[ $limit =~ ^[1-9][0-9]*$ ]] ||
		{ echo "FAILED: VS_PAIR_CLIENT_LIMIT=$limit: give whole seconds, 1 or more"; return 1; }
	cli=(timeout -k 5 "$limit" "${cli[@]}" "$@")
	out=$(mktemp -d)
	echo "server: ${srv[*]}"
	"${srv[@]}" >"$out/server" 2>&1 &
	spid=$!
	# VS_PAIR_READY=1: the server's first line says it is ready (listening,
	# joined): the client starts after it.  Under TCG (the arm64 guest) a
	# cm_* server takes 4-10 s to listen, and a client whose connects
	# overlap (cm_time -P) then fails in part, rejected where nobody
	# listens yet; its exit fails the connections the server did accept,
	# the server exits, and no retry can follow.
	if [ "${VS_PAIR_READY:-0}" = 1 ]; then
		deadline=$((SECONDS + ${VS_PAIR_WAIT:-60}))
		while [ ! -s "$out/server" ] && [ $SECONDS -lt $deadline ] && kill -0 "$spid" 2>/dev/null; do
			sleep 0.1
		done
	fi
	deadline=$((SECONDS + ${VS_PAIR_WAIT:-60}))
	while :; do
		try=$((try + 1))
		sleep 0.5
		rc=0
		"${cli[@]}" >"$out/client" 2>&1 || rc=$?
		[ $rc -eq 0 ] && break
		if ! kill -0 "$spid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
			break
		fi
		# Retry only while the server is not up yet (UNREACHABLE: a UD
		# client's SIDR request that no listener answered).  "rpoll: ":
		# rdma-core's rstream and riostream connect without blocking, and
		# a connect refused after rconnect returned is reported by the
		# rpoll that waits for it (exit 8, POLLERR), the one rpoll their
		# client prints; from 28.0 on (not 22.4), rsocket's own thread
		# (connect_svc) may drive that connect: the refusal's errno is
		# then that thread's, and rpoll says whatever errno was left
		# ("Success"; ENOTCONN when rpoll's own connect step came after).  rstream's client
		# with no server on 32.0's root, 20 tries in two boots, stock and
		# shim-built alike: "rconnect: Connection refused" (exit 255) 6,
		# "rpoll: Connection refused" 10, "rpoll: Transport endpoint is
		# not connected" 4 (exit 8); a shim-built one 0.5 s after its
		# server started printed "rpoll: Success", and the server then
		# waited for a client until the pair stopped it.
		refused=$(grep -m 1 -iE "couldn't connect|connection refused|unable to connect|REJECTED|UNREACHABLE|connect error|rdma_connect|^rpoll: " "$out/client") || break
		# What was retried stays in the log (only the last attempt's
		# output is printed in full below): the line that said refused.
		echo "client (attempt $try): exit $rc, retried: $refused"
	done
	echo "client (attempt $try): ${cli[*]}"
	sed 's/^/  client| /' "$out/client"
	# The server ends by itself once the client is done (a client that
	# cannot run here leaves it waiting: no need to wait for it).
	[ $rc -eq 77 ] ||
		for _ in $(seq 1 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.2; done
	kill "$spid" 2>/dev/null || true
	src=0
	wait "$spid" || src=$?
	sed 's/^/  server| /' "$out/server"
	if [ $rc -eq 77 ]; then
		echo "skip: the client cannot run here: $(grep -v '^[[:space:]]*$' "$out/client" | tail -n 1)"
		rm -rf "$out"
		return 77
	fi
	rm -rf "$out"
	if { [ $rc -ne 0 ] || [ $src -ne 0 ]; } && [ -n "$lost" ]; then
		echo "client exit $rc, server exit $src"
		echo "skip: $VS_RXE_DEV: $lost"
		return 77
	fi
	if [ $rc -ne 0 ] || [ $src -ne 0 ]; then
		[ $rc -eq 124 ] && echo "FAILED: the client did not end within ${limit}s (VS_PAIR_CLIENT_LIMIT)"
		echo "FAILED: client exit $rc, server exit $src"
		return 1
	fi
	echo "ok: client and server exited 0"
}

# release_chroot ROOT BINDIR CMD...: CMD chrooted into ROOT (a release root
# or a copy of one; it may be read-only) with the guest's /proc, /sys and
# /dev, a fresh tmpfs /tmp and BINDIR's files at /tmp/bin, in a private
# mount namespace (nothing stays mounted).  What vm-run.sh --rdma-core does
# for a whole run, for one command, so one boot serves several roots.
release_chroot() {
	local root=$1 bindir=$2
	shift 2
	# shellcheck disable=SC2016 # (expanded by that shell)
	unshare -m --propagation private -- sh -c '
		root=$1 bindir=$2
		shift 2
		mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" &&
			mount --rbind /dev "$root/dev" && mount -t tmpfs tmp "$root/tmp" &&
			mkdir "$root/tmp/bin" && mount --bind "$bindir" "$root/tmp/bin" ||
			{ echo "release_chroot: cannot set up $root"; exit 125; }
		exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin "$@"
	' release_chroot "$root" "$bindir" "$@"
}

# installed_runs LABEL ROOT BINDIR LOG: what a root with verbshim's
# packages installed runs on the device (test/shell/deb.sh, deb_arm64.sh
# and rpm.sh): the packaged verbshim-info and the three programs built
# against the installed files (BINDIR, /tmp/bin inside).  Each must exit
# 0; the last lines of each are shown, all of a failure's.
installed_runs() {
	local label=$1 root=$2 bindir=$3 log=$4 cmd rc status=0
	for cmd in "/usr/bin/verbshim-info -d $VS_RXE_DEV" "/tmp/bin/loopback -d $VS_RXE_DEV" \
		"/tmp/bin/cxx_loopback -d $VS_RXE_DEV" "/tmp/bin/verbs_loopback -d $VS_RXE_DEV -g $VS_RXE_GID_INDEX"; do
		echo "== $label: $cmd"
		rc=0
		# shellcheck disable=SC2086 # (words)
		release_chroot "$root" "$bindir" $cmd >"$log" 2>&1 || rc=$?
		tail -n 4 "$log"
		[ $rc -eq 0 ] || { cat "$log"; echo "FAIL: $cmd in $label: exit $rc"; status=1; }
	done
	return $status
}

# releases_installed_runs WHAT ROOTS BINDIR LOG RELEASE...: installed_runs
# in each ROOTS/RELEASE, a copy of that release root with verbshim's WHAT
# (packages) installed (test/shell/deb.sh, rpm.sh).
releases_installed_runs() {
	local what=$1 roots=$2 bindir=$3 log=$4 v status=0
	shift 4
	for v; do
		installed_runs "the rdma-core $v root with the $what" "$roots/$v" "$bindir" "$log" || status=1
	done
	return $status
}
