#!/usr/bin/env bash
# scripts/conformance-run.py seeds Python's random numbers before each
# test from VS_CONFORMANCE_SEED and the test's id: what a test draws does
# not depend on what the tests before it drew (a test that skips on one
# rdma-core release draws nothing, and runs on another draw some:
# newest on oldest compares one suite across runtimes), and another seed
# draws other numbers.  A fake suite whose second test reports its draw.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
[ -x /usr/bin/python3 ] || { echo "skip: no /usr/bin/python3 (the runner's interpreter)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

mkdir -p "$tmp/tests"
cat >"$tmp/tests/__init__.py" <<'EOF'
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
EOF

# draw NAME DRAWS [SEED]: the second test's draw after the first drew DRAWS
draw() {
	DRAWS=$2 VS_CONFORMANCE_SEED=${3:-1} /usr/bin/python3 scripts/conformance-run.py \
		"$tmp/tests" "$tmp/$1.verdicts" >"$tmp/$1.log" 2>&1 ||
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
[ "$fails" -eq 0 ] || exit 1
echo "the conformance runner seeds each test on its own"
