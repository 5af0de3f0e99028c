# verbshim-selftest across the two guests (sourced by test/vm/two_vm.sh,
# run after its own checks in the same boots: no boot of its own).
#
#   selftest_two_vm server
#   selftest_two_vm client SERVER_IP
#
# The server serves one client run (three connections: the typed RC
# suite's, the drop-in's, the SRQ-and-events one) and must exit 0 with all
# served; the client runs the RC suite over the CM
# to the server's address, typed and drop-in, bytes checked in the other
# machine's memory (atomics where the provider has them), and its local
# tests.  Each guest runs its own architecture's build, so a mixed pair
# (arm64+x86_64) crosses architectures.  The client retries while the
# server is not up for VS_TWO_VM_WAIT s (wait_s of two_vm.sh); the server
# waits that plus 300 for it.  0 pass, 1 fail.
selftest_two_vm() {
	local role=$1 server=${2:-} st rc=0 tmp api t want=(send read write)
	case $(uname -m) in aarch64) st=build/arm64/bin/verbshim-selftest ;; *) st=build/bin/verbshim-selftest ;; esac
	[ -x "$st" ] || { echo "FAIL: $st not built"; return 1; }
	tmp=$(mktemp -d)
	if [ "$role" = server ]; then
		timeout $((wait_s + 400)) "$st" --server -d "$VS_RXE_DEV" --wait $((wait_s + 300)) \
			--timeout 60 >"$tmp/table" 2>&1 || rc=$?
	else
		timeout $((wait_s + 400)) "$st" --client "$server" -d "$VS_RXE_DEV" --wait "$wait_s" \
			--timeout 60 --json "$tmp/report.json" >"$tmp/table" 2>&1 || rc=$?
	fi
	echo "two-vm: verbshim-selftest $role ($(uname -m), $st), exit $rc:"
	cat "$tmp/table"
	[ $rc -eq 0 ] || { echo "FAIL: verbshim-selftest $role: exit $rc, expected 0"; rm -rf "$tmp"; return 1; }
	if [ "$role" = server ]; then
		rc=$(grep -cE "^$VS_RXE_DEV +1 +typed +serve +pass +[0-9.]+ +client " "$tmp/table" || true)
		rm -rf "$tmp"
		[ "$rc" -eq 3 ] || { echo "FAIL: $rc connections served, expected 3 (typed, drop-in, SRQ and events)"; return 1; }
		echo "ok: verbshim-selftest server: the three connections served, the message echoed"
		return 0
	fi
	[ "${VS_PROVIDER:-rxe}" = siw ] || want+=(cas faa)
	for api in typed dropin; do
		grep -qE "^$VS_RXE_DEV +1 +$api +cm-connect +pass .*$server" "$tmp/table" ||
			{ echo "FAIL: $api cm-connect to $server did not pass"; rm -rf "$tmp"; return 1; }
		for t in "${want[@]}"; do
			grep -qE "^$VS_RXE_DEV +1 +$api +cm-rc-$t +pass " "$tmp/table" ||
				{ echo "FAIL: $api cm-rc-$t did not pass"; rm -rf "$tmp"; return 1; }
		done
	done
	grep -qE "^$VS_RXE_DEV +1 +typed +cm-srq-events +pass " "$tmp/table" ||
		{ echo "FAIL: cm-srq-events did not pass"; rm -rf "$tmp"; return 1; }
	grep -qF '"mode": "client"' "$tmp/report.json" && grep -qF "\"peer\": \"$server\"" "$tmp/report.json" ||
		{ cat "$tmp/report.json"; echo "FAIL: the report does not say client of $server"; rm -rf "$tmp"; return 1; }
	if command -v python3 >/dev/null; then
		python3 test/shell/lib/json_schema.py docs/selftest.schema.json "$tmp/report.json" ||
			{ rm -rf "$tmp"; return 1; }
	fi
	rm -rf "$tmp"
	echo "ok: verbshim-selftest client against $server: RC ${want[*]} over the CM, typed and drop-in"
}
