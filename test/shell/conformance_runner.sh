#!/usr/bin/env bash
# The conformance run's own machinery (scripts/conformance.sh --both and
# scripts/conformance-run.py) on a fake suite, with no pyverbs and no
# device: a test that kills the interpreter is recorded as a crash with its
# signal and the tests after it still run; a two-process test's failure is
# recorded with what each side said, not with the side that happened to
# exit first; two runs that agree pass and say "0 verdicts differ"; a
# verdict that differs fails the run and is named.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
[ -x /usr/bin/python3 ] || { echo "skip: no /usr/bin/python3 (the runner's interpreter)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

# A suite of four tests whose behaviour comes from a module each "pyverbs"
# tree provides, as rdma-core's tests/ import pyverbs.
d=$tmp/run
mkdir -p "$d/src/tests" "$d/stock/python" "$d/shim/python"
cat >"$d/src/tests/__init__.py" <<'EOF'
import os
import signal
import unittest

import fakeverbs


class Fake(unittest.TestCase):
    def test_1_pass(self):
        self.assertEqual(fakeverbs.answer(), 42)

    def test_2_segv(self):
        if fakeverbs.crash:
            os.kill(os.getpid(), signal.SIGSEGV)

    def test_3_abort(self):
        if fakeverbs.crash:
            os.abort()

    def test_4_skip(self):
        raise unittest.SkipTest('no such device')

    def test_5_sides(self):
        # as rdma-core's tests/base.py: each side a process; the side
        # that exits first is the one named
        for side in fakeverbs.sides:
            pid = os.fork()
            if pid == 0:
                print(f'Player {side} got: boom', flush=True)
                os._exit(2)
            os.waitpid(pid, 0)
        raise Exception(f'Exception in {fakeverbs.sides[0]} side occurred')
EOF
verbs() {
	printf 'crash = %s\nsides = %s\ndef answer():\n    return 42\n' "$2" "$3" >"$d/$1/python/fakeverbs.py"
}
verbs stock True "['passive', 'active']"
verbs shim True "['active', 'passive']"

run same 0 scripts/conformance.sh --both "$d" fake0
printf '%s\n' 'tests.Fake.test_1_pass	pass	' \
	'tests.Fake.test_2_segv	crash	killed by signal 11' \
	'tests.Fake.test_3_abort	crash	killed by signal 6' \
	'tests.Fake.test_4_skip	skip	no such device' \
	'tests.Fake.test_5_sides	error	Exception: Exception in a side occurred: Player active got: boom | Player passive got: boom' >"$tmp/want"
for way in stock shim; do
	if diff "$tmp/want" "$d/$way.verdicts" >"$tmp/diff"; then
		ok "$way: two crashes recorded with their signals, the tests after each ran, the sides' own words"
	else
		fail "$way verdicts"
		sed 's/^/    | /' "$tmp/diff"
	fi
	[ ! -e "$d/$way.verdicts.current" ] || fail "$way: the current test's marker left behind"
done
grep -q '^1 passed, 3 failed, 1 skipped; 0 verdicts differ from stock$' "$tmp/same.out" &&
	ok "counts: crashes are failures" || fail "counts line: $(tail -n 1 "$tmp/same.out")"
grep -q 'Fatal Python error: Segmentation fault' "$d/stock.log" &&
	ok "the crash's Python stack is in the log" || fail "no faulthandler stack in $d/stock.log"
[ "$(grep -c '^Player .* got: boom$' "$d/shim.log")" -eq 2 ] &&
	ok "what the tests print still reaches the log" || fail "the sides' lines are not in $d/shim.log"

# The verbshim tree crashes nowhere: two verdicts differ, and are named.
verbs shim False "['active', 'passive']"
run differ 1 scripts/conformance.sh --both "$d" fake0
grep -q '^> tests.Fake.test_3_abort	pass	$' "$tmp/differ.out" &&
	grep -q '^< tests.Fake.test_2_segv	crash	killed by signal 11$' "$tmp/differ.out" &&
	ok "each differing verdict named, both ways" || fail "differences not named: $(cat "$tmp/differ.out")"
grep -q '^3 passed, 1 failed, 1 skipped; 4 verdicts differ from stock$' "$tmp/differ.out" &&
	ok "4 differing lines counted" || fail "counts line: $(tail -n 1 "$tmp/differ.out")"

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "the conformance runner records crashes and differences"
