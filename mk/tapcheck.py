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
    """Counts checks; each prints 'ok - WHAT' or 'not ok - WHAT' and its details
    (with @prefix: 'ok - PREFIX: WHAT'; @detail, on a failure: after a colon)."""

    def __init__(self, suite, prefix=None):
        self.suite = suite
        self.lead = prefix + ": " if prefix else ""
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, details=(), detail=""):
        if ok:
            self.passed += 1
            print("ok - " + self.lead + what)
        else:
            self.failed += 1
            print("not ok - " + self.lead + what + (": " + detail if detail else ""))
            for d in details:
                print("#   " + d)
        return ok

    def summary(self):
        """Print 'SUITE: N passed, M failed'; the exit status: 1 on a failure."""
        print("%s: %d passed, %d failed" % (self.suite, self.passed, self.failed))
        return 1 if self.failed else 0
