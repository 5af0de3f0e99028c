#!/usr/bin/env bash
# The test registry holds: every file under test/ is a test that
# test/tests.list names (where it runs, what it needs built) or under a
# @support path, every entry's file exists, every WHERE, NEEDS and boot
# word is known, and test/boots.list runs every VM set (scripts/check/tests.sh
# check).  A new test that no line names fails here, naming the file.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/check/tests.sh check
