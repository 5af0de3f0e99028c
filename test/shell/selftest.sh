#!/usr/bin/env bash
# verbshim-selftest on a host without RDMA in its kernel: exit 77 with the
# reason on the last line, a JSON report that says the same and is valid
# against docs/selftest.schema.json, --json - on stdout with the table on
# stderr; a device list that fails (VERBSHIM_FAULT) exits 1 with a row
# naming ibv_get_device_list; usage errors exit 2, --help 0; the man page
# names every option --help does.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
bin=${VERBSHIM_SELFTEST_BIN:-build/bin/verbshim-selftest}
man=tools/verbshim-selftest/verbshim-selftest.1
[ -x "$bin" ] || { echo "skip: $bin not built (run make)"; exit 77; }
py=$(command -v python3 || true)
[ -n "$py" ] || { echo "skip: python3 not installed"; exit 77; }
if [ -e /sys/class/infiniband ] && [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
	echo "skip: this host has RDMA devices ($(ls /sys/class/infiniband | tr '\n' ' ')): the VM tests cover them"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

if run nodev 77 "$bin" --json "$tmp/nodev.json"; then
	last=$(tail -n 1 "$tmp/nodev.out")
	case $last in
	*"0 passed, 0 failed, 0 skipped: nothing to test: no RDMA device"*) ok "no device: exit 77, '$last'" ;;
	*) fail "no device: last line '$last'" ;;
	esac
	if "$py" test/shell/lib/json_schema.py docs/selftest.schema.json "$tmp/nodev.json"; then
		"$py" - "$tmp/nodev.json" <<'PY' && ok "the JSON says nothing to test, and why" || fail "JSON facts"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["exit"] == 77 and s["passed"] == s["failed"] == s["skipped"] == 0, s
assert s["nothing_to_test"].startswith("no RDMA device"), s
assert d["tests"] == [] and d["devices"] == [] and d["mode"] == "loopback", d
assert d["rdma_core"][0]["library"] == "libibverbs", d["rdma_core"]
assert d["verbshim"]["nodes_in"].startswith("IBVERBS_1.0"), d["verbshim"]
PY
	else
		fail "the no-device report is not valid against the schema"
	fi
fi

# --json -: the report alone on stdout (it parses), the table on stderr
if run stdout 77 "$bin" --json -; then
	"$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/stdout.out" &&
		grep -q 'nothing to test' "$tmp/stdout.err" && ok "--json -: JSON on stdout, the table on stderr" ||
		fail "--json -: stdout is not the JSON alone, or the table is not on stderr"
fi
# VERBSHIM_STATS=1: the counters are in the report
if VERBSHIM_STATS=1 run stats 77 "$bin" --json "$tmp/stats.json"; then
	"$py" - "$tmp/stats.json" <<'PY' && ok "VERBSHIM_STATS=1: the counters in the report" || fail "counters"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c and any(x["function"] == "ibv_get_device_list" and x["calls"] >= 1 for x in c), c
PY
fi
run nosuchdev 77 "$bin" -d no-such-dev && grep -q 'nothing to test: no RDMA device' "$tmp/nosuchdev.out" &&
	ok "-d no-such-dev without RDMA: 77"
# a list that fails is a failed row naming the call, never "nothing to
# test" (issue 50; 77 on the code before), and the report stays valid
if VERBSHIM_FAULT=ibv_get_device_list:ENOMEM:1 run listfail 1 "$bin" --json "$tmp/listfail.json"; then
	grep -qE ' devices +fail .*ibv_get_device_list: Cannot allocate memory' "$tmp/listfail.out" &&
		! grep -q 'nothing to test' "$tmp/listfail.out" &&
		"$py" test/shell/lib/json_schema.py docs/selftest.schema.json "$tmp/listfail.json" &&
		ok "ibv_get_device_list failing: exit 1, the row names it" ||
		fail "ibv_get_device_list failing: $(tail -n 3 "$tmp/listfail.out")"
fi
run json_unwritable 1 "$bin" --json /nonexistent/dir/r.json &&
	grep -q -- '--json /nonexistent/dir/r.json' "$tmp/json_unwritable.err" && ok "an unwritable --json: exit 1, said"
run both 2 "$bin" --server --client x && ok "--server with --client: usage, 2"
run badtime 2 "$bin" --timeout 0 && ok "--timeout 0: usage, 2"
run extra 2 "$bin" extra && ok "an operand: usage, 2"
if run help 0 "$bin" --help; then
	missing=""
	for o in $(grep -oE -- '--[a-z]+' "$tmp/help.out" | sort -u); do
		grep -qF -- "\\-\\-${o#--}" "$man" || missing="$missing $o"
	done
	[ -z "$missing" ] && ok "the man page names every option of --help" || fail "$man lacks:$missing"
fi
if command -v groff >/dev/null; then
	warn=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
	[ -z "$warn" ] && ok "groff: the man page renders without warnings" || fail "groff: $warn"
fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "verbshim-selftest without a device: exit 77 and its reason, report valid"
