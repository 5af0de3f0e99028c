#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rdma-core's own test suite, loaded as its run_tests.py loads it, with
one line per test written to OUT as it ends: ID<TAB>VERDICT<TAB>REASON
(VERDICT: pass, fail, error, skip, xfail, xpass; REASON: the skip's reason,
else the exception's last line), so that two runs compare line by line;
Python's random numbers seeded (VS_CONFORMANCE_SEED, default 1).

    conformance-run.py TESTS_DIR OUT [run_tests.py's arguments] [NAME...]

NAME: as run_tests.py takes them (test_device, test_qp.QPTest,
test_mr.MRTest.test_reg_mr): only the tests under those names run.
"""
import os
import random
import sys
import unittest
from importlib.machinery import SourceFileLoader


class Recording(unittest.TextTestResult):
    out = None

    def _record(self, test, verdict, reason=''):
        reason = ' '.join(str(reason).split())
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


def selected(suite, names):
    """The tests of suite whose id is tests.NAME or under it."""
    prefixes = ['tests.' + n for n in names]
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from selected(test, names)
        elif any(test.id() == p or test.id().startswith(p + '.') for p in prefixes):
            yield test


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
    # that rxe refuses are a skip): both runs draw the same ones.
    random.seed(int(os.environ.get('VS_CONFORMANCE_SEED', '1')))
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    if names:
        suite = unittest.TestSuite(selected(suite, names))
        if not suite.countTestCases():
            sys.exit('no test is named %s' % ' '.join(names))
    with open(out, 'w') as Recording.out:
        unittest.TextTestRunner(verbosity=2, resultclass=Recording).run(suite)


if __name__ == '__main__':
    main()
