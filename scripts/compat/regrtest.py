"""python3 -m test, with two gaps of its JUnit output filled.

  python3 regrtest.py [python3 -m test's options] MODULE...

CPython's regrtest (test.support.testresult) names a <testcase> only
when the test itself reports, so its output loses:
  - a test whose subtests failed (unittest reports no outcome for the
    test itself): the element is left without a name;
  - a setUpClass or setUpModule that failed or skipped (reported
    without startTest): no element at all, and the class's tests are
    missing without a word.
Both are recorded here, the first under the test's own id, the second
under unittest's "setUpClass (test.test_x.Class)".  Nothing else of
regrtest changes: this runs test/__main__.py itself, in this process.
"""
import runpy
import sys

from test.support import testresult

Result = testresult.RegressionTestResult
base = Result.__mro__[1]
orig_add_error = Result.addError
orig_add_skip = Result.addSkip
orig_stop = Result.stopTest


def element(self):
    return self._RegressionTestResult__e


def open_element(self):
    """A result that arrives outside startTest/stopTest gets its own."""
    if self.USE_XML and element(self) is None:
        suite = self._RegressionTestResult__suite
        ET = self._RegressionTestResult__ET
        self._RegressionTestResult__e = ET.SubElement(suite, 'testcase')


def add_error(self, test, err):
    open_element(self)
    orig_add_error(self, test, err)


def add_skip(self, test, reason):
    open_element(self)
    orig_add_skip(self, test, reason)


def add_subtest(self, test, subtest, err):
    if err is not None and getattr(self, 'compat_sub', None) != 'error':
        failed = issubclass(err[0], test.failureException)
        self.compat_sub = 'failure' if failed else 'error'
    base.addSubTest(self, test, subtest, err)


def stop_test(self, test):
    kind = getattr(self, 'compat_sub', None)
    self.compat_sub = None
    if kind and self.USE_XML and element(self) is not None:
        self._add_result(test, **{kind: {'type': 'subtest',
                                         'message': 'a subtest failed'}})
    orig_stop(self, test)


Result.addError = add_error
Result.addSkip = add_skip
Result.addSubTest = add_subtest
Result.stopTest = stop_test
sys.argv[0] = 'regrtest'
runpy.run_module('test', run_name='__main__', alter_sys=True)
