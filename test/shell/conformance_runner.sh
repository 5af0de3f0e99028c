#!/usr/bin/env bash
# The conformance run's own machinery (scripts/conformance.sh --both and
# scripts/conformance/run.py) on a fake suite, with no pyverbs and no
# device: a test that kills the interpreter is recorded as a crash with its
# signal and the tests after it still run; a two-process test's failure is
# recorded with what each side said, not with the side that happened to
# exit first; two runs that agree pass and say "0 verdicts differ"; a
# verdict that differs fails the run and is named; a test's random draws
# do not depend on the tests before it.
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

# Each test draws from its own seed (VS_CONFORMANCE_SEED and its id): what
# it draws does not depend on what the tests before it drew (one that
# skips on one release draws nothing, and runs on another: newest on
# oldest compares one suite across runtimes); another seed draws others.
mkdir -p "$tmp/seeded"
cat >"$tmp/seeded/__init__.py" <<'EOF'
import os
import random
import unittest


class Fake(unittest.TestCase):
    def test_1_draws(self):
        for _ in range(int(os.environ['DRAWS'])):
            random.random()
        self.skipTest('drew')

    def test_2_reports(self):
        self.skipTest('%.17f' % random.random())

    def test_3_side(self):
        self.skipTest('SkipTest occurred on %s side' % os.environ['SIDE'])
EOF

# draw NAME DRAWS [SEED]: the second test's draw after the first drew DRAWS
draw() {
	DRAWS=$2 VS_CONFORMANCE_SEED=${3:-1} SIDE=${4:-active} /usr/bin/python3 scripts/conformance/run.py \
		"$tmp/seeded" "$tmp/$1.verdicts" >"$tmp/$1.log" 2>&1 ||
		{ fail "$1: the runner failed"; sed 's/^/    | /' "$tmp/$1.log" | tail -n 5; }
	awk -F'\t' '$1 ~ /test_2_reports$/ {print $3}' "$tmp/$1.verdicts"
}
none=$(draw none 0) some=$(draw some 7) other=$(draw other 0 2)
if [ -n "$none" ] && [ "$none" = "$some" ]; then
	ok "a test's draw does not depend on the test before it ($none)"
else
	fail "the second test drew '$none' after no draws, '$some' after seven"
fi
if [ -n "$other" ] && [ "$other" != "$none" ]; then
	ok "another VS_CONFORMANCE_SEED draws another number ($other)"
else
	fail "seeds 1 and 2 drew '$none' and '$other'"
fi
# A two-process test's skip names the side tests/base.py saw exit first: a
# race, so neither is recorded.
draw active 0 1 active >/dev/null
draw passive 0 1 passive >/dev/null
if grep -q 'test_3_side	skip	SkipTest occurred on a side$' "$tmp/active.verdicts" &&
	cmp -s "$tmp/active.verdicts" "$tmp/passive.verdicts"; then
	ok "a two-process skip is recorded without the side that exited first"
else
	fail "skips by side: $(grep test_3 "$tmp/active.verdicts" "$tmp/passive.verdicts")"
fi
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "the conformance runner records crashes and differences, and seeds each test"
