"""Print one line per test case of a regrtest JUnit file: ID OUTCOME.

  python3 outcomes.py FILE.xml

ID drops regrtest's "test." package prefix (test_os.TestX.test_y);
OUTCOME is passed, failed, errored, skipped, xfailed (an expected
failure) or xpassed (an unexpected success).  A file that cannot be
parsed, or a test case without a name, is an error (exit 1).
"""
import sys
from xml.etree import ElementTree as ET


def outcome(case):
    if case.find('error') is not None:
        return 'errored'
    if case.find('failure') is not None:
        return 'failed'
    if case.find('skipped') is not None:
        return 'skipped'
    if case.find('output') is not None:
        return 'xfailed'
    if case.find('outcome') is not None:
        return 'xpassed'
    return 'passed'


def main(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f'outcomes.py: {path}: {e}')
    for case in root.iter('testcase'):
        name = case.get('name')
        if not name:
            sys.exit(f'outcomes.py: {path}: a test case without a name')
        name = name.removeprefix('test.')
        # ids carry no spaces but a subtest's or class fixture's
        name = name.replace(' ', '_')
        print(name, outcome(case))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: outcomes.py FILE.xml')
    main(sys.argv[1])
