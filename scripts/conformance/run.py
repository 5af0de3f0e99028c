#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rdma-core's own test suite, loaded as its run_tests.py loads it, with
one line per test written to OUT as it ends: ID<TAB>VERDICT<TAB>REASON
(VERDICT: pass, fail, error, skip, xfail, xpass; REASON: the skip's reason,
else the exception's last line), so that two runs compare line by line;
Python's random numbers seeded before each test from VS_CONFORMANCE_SEED
(default 1) and the test's id.

    conformance/run.py TESTS_DIR OUT [run_tests.py's arguments] [NAME...]

NAME: as run_tests.py takes them (test_device, test_qp.QPTest,
test_mr.MWTest.test_mw_type1): only the tests under those names run.
A test that kills the interpreter (a segfault in a library under test)
leaves its ID in OUT.current; the caller records it as a crash and runs
this again, which appends to OUT and runs only the tests OUT lacks.

rdma-core's two-process tests (tests/base.py, passive and active side)
fail with "Exception in SIDE side occurred", naming the side it saw exit
first: a race.  Such a failure is recorded with what each side printed
("Player SIDE got: ..."), sorted, in place of the side named first; and
a skip, "SkipTest occurred on SIDE side", as "SkipTest occurred on a side"
(64.0's test_rdmacm_async_resolve_addrinfo on 44.0 named either).
"""
import faulthandler
import os
import random
import re
import sys
import tempfile
import unittest
import zlib
from importlib.machinery import SourceFileLoader


class Recording(unittest.TextTestResult):
    out = None
    seed = 1

    def startTest(self, test):
        # Each test draws from its own seed: what it draws does not depend
        # on how many numbers the tests before it drew (a test that skips
        # on one release and runs on another draws none or some).
        random.seed(Recording.seed ^ zlib.crc32(test.id().encode()))
        with open(Recording.out.name + '.current', 'w') as current:
            current.write(test.id() + '\n')
        super().startTest(test)
        # The test's standard output (its side processes' too) in a file,
        # read by _record and passed on to the log by stopTest.
        sys.stdout.flush()
        self._captured = tempfile.TemporaryFile()
        self._stdout = os.dup(1)
        os.dup2(self._captured.fileno(), 1)

    def stopTest(self, test):
        sys.stdout.flush()
        os.dup2(self._stdout, 1)
        os.close(self._stdout)
        self._captured.seek(0)
        os.write(1, self._captured.read())
        self._captured.close()
        super().stopTest(test)

    def _sides(self, reason):
        if re.fullmatch(r'SkipTest occurred on (passive|active) side', reason):
            return 'SkipTest occurred on a side'
        if not re.fullmatch(r'Exception: Exception in (passive|active) side occurred', reason):
            return reason
        sys.stdout.flush()
        self._captured.seek(0)
        said = re.findall(r'^Player (?:passive|active) got: .*$',
                          self._captured.read().decode(errors='replace'), re.M)
        return 'Exception: Exception in a side occurred: ' + ' | '.join(sorted(said))

    def _record(self, test, verdict, reason=''):
        reason = self._sides(' '.join(str(reason).split()))
        Recording.out.write('%s\t%s\t%s\n' % (test.id(), verdict, reason))
        Recording.out.flush()

    @staticmethod
    def _last_line(err):
        text = ''.join(str(err[1]).strip().splitlines()[-1:])
        return '%s: %s' % (err[0].__name__, text)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, 'fail', self._last_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, 'error', self._last_line(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, 'skip', reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, 'xfail')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, 'xpass')


def main():
    tests_dir, out = sys.argv[1], sys.argv[2]
    sys.path.insert(0, tests_dir)
    sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + sys.argv[3:]
    names = []
    if os.path.exists(os.path.join(tests_dir, 'args_parser.py')):
        from args_parser import parser
        parser.parse_args()
        names = sys.argv[1:]  # what it leaves: run_tests.py's test names
    # The tests draw random sizes and capabilities (33.2's test_qp: QP caps
    # that rxe refuses are a skip): both runs draw the same ones, test by
    # test (startTest above).
    Recording.seed = int(os.environ.get('VS_CONFORMANCE_SEED', '1'))
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    if names:
        prefixes = ['tests.' + n for n in names]
        suite = unittest.TestSuite(t for t in flatten(suite) if any(
            t.id() == p or t.id().startswith(p + '.') for p in prefixes))
        if not suite.countTestCases():
            sys.exit('no test is named %s' % ' '.join(names))
    done = set()
    if os.path.exists(out):
        with open(out) as previous:
            done = {line.split('\t', 1)[0] for line in previous}
    if done:
        suite = unittest.TestSuite(t for t in flatten(suite) if t.id() not in done)
    faulthandler.enable()	# a crash's Python stack, in the log
    with open(out, 'a') as Recording.out:
        unittest.TextTestRunner(verbosity=2, resultclass=Recording).run(suite)
    os.unlink(out + '.current')


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


if __name__ == '__main__':
    main()
