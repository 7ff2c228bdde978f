# SPDX-License-Identifier: MIT
"""The ok/not ok lines and the summary of ptlab's Python checks."""


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
