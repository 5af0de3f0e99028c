#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rdma-core's own test suite, loaded as its run_tests.py loads it, with
one line per test written to OUT as it ends: ID<TAB>VERDICT<TAB>REASON
(VERDICT: pass, fail, error, skip, xfail, xpass; REASON: the skip's reason,
else the exception's last line), so that two runs compare line by line;
Python's random numbers seeded before each test from VS_CONFORMANCE_SEED
(default 1) and the test's id.

    conformance-run.py TESTS_DIR OUT [run_tests.py's arguments]
"""
import faulthandler
import os
import random
import sys
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
        super().startTest(test)

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


def main():
    tests_dir, out = sys.argv[1], sys.argv[2]
    # A crash (segfault, abort) names the test it happened in.
    faulthandler.enable()
    sys.path.insert(0, tests_dir)
    sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + sys.argv[3:]
    if os.path.exists(os.path.join(tests_dir, 'args_parser.py')):
        from args_parser import parser
        parser.parse_args()
    # The tests draw random sizes and capabilities (33.2's test_qp: QP caps
    # that rxe refuses are a skip): both runs draw the same ones, test by
    # test (startTest above).
    Recording.seed = int(os.environ.get('VS_CONFORMANCE_SEED', '1'))
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    with open(out, 'w') as Recording.out:
        unittest.TextTestRunner(verbosity=2, resultclass=Recording).run(suite)


if __name__ == '__main__':
    main()
