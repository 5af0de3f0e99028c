#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# verbshim-selftest across two guests (a two-guest boot of test/boots.list
# runs it in each, after test/vm/two_vm.sh):
#
#   test/vm/selftest_two_vm.sh server
#   test/vm/selftest_two_vm.sh client SERVER_IP
#
# The server serves one client run (a typed and a drop-in connection) and
# must exit 0 with both served; the client runs the RC suite over the CM
# to the server's address, typed and drop-in, bytes checked on the other
# machine's memory (atomics where the provider has them), and its local
# tests.  Each guest runs its own architecture's build, so a mixed pair
# (arm64+x86_64) crosses architectures.  VS_TWO_VM_WAIT: seconds the
# client retries while the server is not up (default 120); the server
# waits that plus 300 for it (a TCG arm64 peer boots in minutes).
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
role=${1:?usage: selftest_two_vm.sh server | client SERVER_IP}
case $(uname -m) in aarch64) bin=build/arm64/bin/verbshim-selftest ;; *) bin=build/bin/verbshim-selftest ;; esac
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
wait_s=${VS_TWO_VM_WAIT:-120}
[[ $wait_s =~ ^[1-9][0-9]*$ ]] || { echo "selftest-two-vm: VS_TWO_VM_WAIT=$wait_s: seconds"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rc=0
if [ "$role" = server ]; then
	timeout $((wait_s + 400)) "$bin" --server -d "$VS_RXE_DEV" --wait $((wait_s + 300)) \
		--timeout 60 >"$tmp/table" 2>&1 || rc=$?
else
	server=${2:?usage: selftest_two_vm.sh client SERVER_IP}
	timeout $((wait_s + 400)) "$bin" --client "$server" -d "$VS_RXE_DEV" --wait "$wait_s" \
		--timeout 60 --json "$tmp/report.json" >"$tmp/table" 2>&1 || rc=$?
fi
cat "$tmp/table"
[ $rc -eq 0 ] || { echo "FAIL: $role: exit $rc, expected 0"; exit 1; }
if [ "$role" = server ]; then
	n=$(grep -cE "^$VS_RXE_DEV +1 +typed +serve +pass +[0-9.]+ +client " "$tmp/table" || true)
	[ "$n" -eq 2 ] || { echo "FAIL: $n clients served, expected 2 (typed and drop-in)"; exit 1; }
	echo "ok: server ($(uname -m)): both connections served, the message echoed"
	exit 0
fi
want=(send read write)
[ "${VS_PROVIDER:-rxe}" = siw ] || want+=(cas faa)
for api in typed dropin; do
	grep -qE "^$VS_RXE_DEV +1 +$api +cm-connect +pass .*$server" "$tmp/table" ||
		{ echo "FAIL: $api cm-connect to $server did not pass"; exit 1; }
	for t in "${want[@]}"; do
		grep -qE "^$VS_RXE_DEV +1 +$api +cm-rc-$t +pass " "$tmp/table" ||
			{ echo "FAIL: $api cm-rc-$t did not pass"; exit 1; }
	done
done
grep -qF '"mode": "client"' "$tmp/report.json" && grep -qF "\"peer\": \"$server\"" "$tmp/report.json" ||
	{ cat "$tmp/report.json"; echo "FAIL: the report does not say client of $server"; exit 1; }
if command -v python3 >/dev/null; then
	python3 test/shell/lib/json_schema.py docs/selftest.schema.json "$tmp/report.json"
fi
echo "ok: client ($(uname -m)) against $server: RC ${want[*]} over the CM, typed and drop-in"
