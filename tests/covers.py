#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which unit test tests which source: the covers: lines, checked against the tree.

    tests/covers.py [--units DIR] [--srcs "FILE ..."] [ROOT]
    tests/covers.py --map [ROOT]        the map, one "SOURCE: TEST ..." line each

Every host unit test tests/unit/test_*.c says in one line among its first
ten, "/* covers: FILE ... */", the sources of efi/ and paging/ (paths from
ROOT, headers with inline code included) it is written to test.  Checks:

  named     every test has one covers: line naming at least one file, and
            every file it names exists below ROOT
  covered   every C source of efi/ and paging/ (make's PAGING_SRCS and
            EFI_SRCS, or --srcs) is named by a test, or listed in
            tests/unit/elsewhere.txt ("FILE  reason": why no unit test, and
            the suites that prove it instead); a source the host build
            compiles (APP_HOST_SRCS, PAGING_SRCS: firmware-free, testable on
            the host) may not be listed there: a unit test must cover it
  elsewhere every entry of elsewhere.txt names a source that no test names
            (else it is stale), with a reason

make mutants reads the map from here (tests/mutants/mutants.py): the tests
that cover a file of paging/ are the ones each of its mutants is run
against first.  --units reads the tests from DIR instead of tests/unit (the
suite's controls run it on edited copies).  Prints "ok - covers: ..." /
"not ok - covers: ..." and "covers: N passed, M failed"; exits 1 on a
failure, 2 on bad arguments.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

COVERS = re.compile(r"^\s*(?:/\*|\*|//)\s*covers:\s*(.*?)\s*(?:\*/)?\s*$")
HEAD_LINES = 10


def covers_of(path):
    """The files a test's covers: lines name, and how many such lines it has."""
    names, lines = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            if i >= HEAD_LINES:
                break
            m = COVERS.match(line)
            if m:
                lines += 1
                names += m.group(1).split()
    return names, lines


def tests_in(units):
    """{test name: (files named, covers: lines)} of DIR's test_*.c."""
    out = {}
    for path in sorted(glob.glob(os.path.join(units, "test_*.c"))):
        out[os.path.basename(path)[:-2]] = covers_of(path)
    return out


def covers_map(root, units=None):
    """{source: [tests that name it]}, tests in the order of their files' sizes
    (smaller first: a quicker test first, for make mutants)."""
    units = units or os.path.join(root, "tests", "unit")
    size = lambda t: os.path.getsize(os.path.join(units, t + ".c"))
    out = {}
    for t, (names, _) in sorted(tests_in(units).items(), key=lambda kv: (size(kv[0]), kv[0])):
        for n in names:
            out.setdefault(n, []).append(t)
    return out


def make_list(root, names):
    """The words of make's variables NAMES (e.g. "PAGING_SRCS EFI_SRCS")."""
    p = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "DEPS_CHECK=0",
                        "--eval", "covers-srcs: ; @echo " +
                        " ".join("$(%s)" % n for n in names.split()),
                        "covers-srcs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("make cannot list %s: %s" % (names, p.stderr.strip()[:200]))
    return set(p.stdout.split())


def elsewhere(root):
    """{file: reason} of tests/unit/elsewhere.txt."""
    out = {}
    with open(os.path.join(root, "tests", "unit", "elsewhere.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            out[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return out


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=()):
        if ok:
            self.passed += 1
            print("ok - covers: " + what)
        else:
            self.failed += 1
            print("not ok - covers: " + what)
            for d in detail:
                print("#   " + d)


def main(argv):
    ap = argparse.ArgumentParser(usage=__doc__.strip().splitlines()[2].strip())
    ap.add_argument("--units")
    ap.add_argument("--srcs")
    ap.add_argument("--map", action="store_true")
    ap.add_argument("root", nargs="?",
                    default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    try:
        a = ap.parse_args(argv[1:])
    except SystemExit as e:
        return e.code
    root = os.path.abspath(a.root)
    units = a.units or os.path.join(root, "tests", "unit")
    if a.map:
        for src, tests in sorted(covers_map(root, units).items()):
            print("%s: %s" % (src, " ".join(tests)))
        return 0
    c = Checks()
    tests = tests_in(units)
    bad = ["%s: %d covers: lines" % (t, n) for t, (names, n) in tests.items() if n != 1 or not names]
    c.check(tests and not bad, "each of the %d unit tests has one covers: line naming a file"
            % len(tests), bad)
    missing = sorted("%s names %s" % (t, f) for t, (names, _) in tests.items() for f in names
                     if not os.path.isfile(os.path.join(root, f)))
    c.check(not missing, "every file a covers: line names exists", missing)
    named = {f for names, _ in tests.values() for f in names}
    try:
        if a.srcs is not None:
            srcs, host = set(a.srcs.split()), set()
        else:
            srcs = {f for f in make_list(root, "PAGING_SRCS EFI_SRCS") if f.endswith(".c")}
            host = make_list(root, "PAGING_SRCS APP_HOST_SRCS")
    except RuntimeError as e:
        c.check(False, str(e))
        srcs, host = set(), set()
    away = elsewhere(root)
    lost = sorted(srcs - named - set(away))
    c.check(srcs and not lost, "each of the %d C sources of efi/ and paging/ is covered by a "
            "unit test (%d) or listed in tests/unit/elsewhere.txt (%d)"
            % (len(srcs), len(srcs & named), len(srcs & set(away))), lost)
    stale = sorted("%s: %s" % (f, why or "no reason") for f, why in away.items()
                   if f not in srcs or f in named or not why)
    c.check(not stale, "every entry of tests/unit/elsewhere.txt is a source no test covers, "
            "with its reason", stale)
    hosted = sorted(host & set(away))
    c.check(not hosted, "no source the host build compiles (firmware-free) is left to the "
            "boot suites: each of the %d has a unit test" % len(host), hosted)
    print("covers: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
