# SPDX-License-Identifier: MIT
"""The ok/not ok lines and the summary of ptlab's Python checks, and the
reading of their table files."""


def table_lines(path):
    """(line number, text, raw line) for each line of @path that holds more
    than a '#' comment and blanks; text is the line without its comment."""
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if line:
                yield n, line, raw


class Checks:
    """Counts checks; each prints 'ok - WHAT' or 'not ok - WHAT' and its details."""

    def __init__(self, suite):
        self.suite = suite
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, details=()):
        if ok:
            self.passed += 1
            print("ok - " + what)
        else:
            self.failed += 1
            print("not ok - " + what)
            for d in details:
                print("#   " + d)

    def summary(self):
        """Print 'SUITE: N passed, M failed'; the exit status: 1 on a failure."""
        print("%s: %d passed, %d failed" % (self.suite, self.passed, self.failed))
        return 1 if self.failed else 0
