#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing of paging/: are the unit tests strong enough to notice a fault?

    tests/mutants/mutants.py [--build DIR] [--count N] [--seed S] [--list] [--only FILE]
                             [--since REF] [--key KEY]... [--part K/N]

Every candidate fault is one small edit of one line of paging/*.c or of
the inline helpers of paging/entry.h and paging/walk.h:

  CMP    a comparison flipped at its boundary or negated:
         <  <->  <=,   >  <->  >=,   ==  <->  !=
  CONST  an integer constant off by one (N -> N+1, and N -> N-1 for N > 0)
  DROP   an expression statement (assignment, call, increment) removed

The candidates are enumerated deterministically; N of them (--count, "all"
for every one) are drawn with the seed S.  Each mutant is built in a copy of
the tree under DIR (the working tree is never touched): the mutated source
replaces the original there, make rebuilds the host library and relinks the
unit binaries that exercise that file (those whose covers: line names it,
tests/covers.py), which then run with a
time limit.  A mutant is

  killed       a test failed, crashed, hit a sanitizer or ran out of time
  survived     every test passed, also the rest of the unit binaries
  equivalent   it survived and is listed in tests/mutants/equivalent.txt
               with the reason no test can tell it from the original
  stillborn    it does not compile (-Werror): not counted

--since REF keeps the candidates on lines that "git diff REF" adds to the
working tree (the faults of new code only).  An entry of equivalent.txt
whose key no candidate has any more (its line was changed or removed) is
stale: each is printed as "stale equivalent:", and --list exits 1 then.
--key KEY runs just the mutants with that key (to check that a new test
kills a survivor); --part K/N takes every N-th candidate from the K-th, so
N runs with their own --build share a long list on N cores.

The score is killed / (killed + survived).  Every survivor is printed with
its file, line and edit.  Exit status 1 when one survived.
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The unit binaries that exercise each paging/ file are the tests whose
# covers: line names it (tests/covers.py, smaller test files first), read
# from the tree being mutated.  A survivor is then run against every other
# unit binary before it is called one.
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "tests"))
import covers  # noqa: E402


def fast_map(top):
    """{paging/ file: [unit tests that cover it]} of the tree at @top."""
    return {f: t for f, t in covers.covers_map(top).items() if f.startswith("paging/")}


# Operation counts of the randomized tests while judging mutants: enough to
# reach every path, a fraction of the default run time.
TEST_ENV = {"PTLAB_OPS": "4000"}
RUN_TIMEOUT = 240

CMP_SWAPS = [
    (r"(?<![<>=!\-])<(?![<=])", "<", "<="),
    (r"(?<![<>])<=", "<=", "<"),
    (r"(?<![<>=\-])>(?![>=])", ">", ">="),
    (r"(?<![<>])>=(?!=)", ">=", ">"),
    (r"==", "==", "!="),
    (r"!=", "!=", "=="),
]
INT_RE = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])")
DECL_RE = re.compile(r"^\s*(?:const\s+|static\s+)*(?:u?int\d*_t|unsigned|int|bool|size_t|char|"
                     r"struct|enum|void|uint\w*|long)\b")
STMT_RE = re.compile(r"^\s+[A-Za-z_*(][^;{}]*;\s*$")
SKIP_STMT_RE = re.compile(r"^\s*(?:return|break|continue|goto|case|default|else)\b")


def code_part(line, in_comment):
    """The line with comments and string/char literals blanked; the comment state after it."""
    out = []
    i = 0
    n = len(line)
    while i < n:
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                out.append(" " * (n - i))
                return "".join(out), True
            out.append(" " * (end + 2 - i))
            i = end + 2
            in_comment = False
            continue
        if line.startswith("/*", i):
            in_comment = True
            continue
        if line.startswith("//", i):
            out.append(" " * (n - i))
            break
        c = line[i]
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(c + " " * (min(j, n - 1) - i - 1) + c if j < n else " " * (n - i))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment


def candidates(path, top):
    """(key, line number, column, old, new, op) for every fault in @path (below @top)."""
    rel = os.path.relpath(path, top)
    lines = open(path).read().split("\n")
    in_comment = False
    depth = 0
    out = []
    for no, line in enumerate(lines, 1):
        code, in_comment = code_part(line, in_comment)
        stripped = code.strip()
        inside_function = depth > 0
        depth += code.count("{") - code.count("}")
        if not stripped or stripped.startswith("#") or not inside_function:
            continue
        found = []
        for rx, old, new in CMP_SWAPS:
            for m in re.finditer(rx, code):
                found.append(("CMP", m.start(), old, new))
        if not DECL_RE.match(code) or "=" in code:
            for m in INT_RE.finditer(code):
                tok, suffix = m.group(1), m.group(2)
                val = int(tok, 0)
                base = "0x%x" if tok.lower().startswith("0x") else "%d"
                found.append(("CONST", m.start(), m.group(0), (base % (val + 1)) + suffix))
                if val > 0:
                    found.append(("CONST", m.start(), m.group(0), (base % (val - 1)) + suffix))
        if STMT_RE.match(code) and not SKIP_STMT_RE.match(code) and not DECL_RE.match(code):
            found.append(("DROP", len(line) - len(line.lstrip()), line.strip(), ";"))
        seen = {}
        for op, col, old, new in found:
            k = (op, old, new)
            seen[k] = seen.get(k, 0) + 1
            key = "%s | %s | %s -> %s | %d | %s" % (rel, op, old, new, seen[k] - 1, line.strip())
            out.append((key, rel, no, col, old, new, op))
    return out


def objects_of(rel, top):
    """The host objects a mutant of @rel (below @top) rebuilds: a source's
    own, a header's the sources beside it that include it."""
    if rel.endswith(".c"):
        return [rel + ".o"]
    d = os.path.dirname(rel)
    inc = '#include "%s"' % os.path.basename(rel)
    return sorted(os.path.join(d, f) + ".o" for f in os.listdir(os.path.join(top, d))
                  if f.endswith(".c") and inc in open(os.path.join(top, d, f)).read())


def sync_copy(dirs, files, dst):
    """Make @dst hold @dirs and @files as in the tree.  A file is rewritten
    (new mtime) only when its bytes differ, so make rebuilds exactly what
    changed since the last run, mutants' restored files included."""
    want = set(files)
    for d in dirs:
        for top, _, names in os.walk(os.path.join(ROOT, d)):
            want.update(os.path.relpath(os.path.join(top, n), ROOT) for n in names)
    for d in dirs:
        for top, _, names in os.walk(os.path.join(dst, d)):
            for n in names:
                rel = os.path.relpath(os.path.join(top, n), dst)
                if rel not in want:
                    os.remove(os.path.join(dst, rel))
    for rel in sorted(want):
        data = open(os.path.join(ROOT, rel), "rb").read()
        out = os.path.join(dst, rel)
        if os.path.exists(out) and open(out, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        shutil.copymode(os.path.join(ROOT, rel), out)


def mutate(text_lines, no, col, old, new, op):
    lines = list(text_lines)
    line = lines[no - 1]
    if op == "DROP":
        lines[no - 1] = line[:col] + ";"
    else:
        assert line[col:col + len(old)] == old, (line, col, old)
        lines[no - 1] = line[:col] + new + line[col + len(old):]
    return lines


def load_equivalent():
    eq = {}
    path = os.path.join(ROOT, "tests/mutants/equivalent.txt")
    for raw in open(path):
        raw = raw.rstrip("\n")
        if not raw.strip() or raw.startswith("#"):
            continue
        key, _, reason = raw.rpartition(" || ")
        eq[key.strip()] = reason.strip()
    return eq


def added_lines(ref, files):
    """{file: set of line numbers} that "git diff REF" adds to the working tree's @files."""
    p = subprocess.run(["git", "diff", "--no-ext-diff", "-U0", ref, "--"] + files, cwd=ROOT,
                       stdout=subprocess.PIPE, check=True)
    out = {}
    cur = None
    for line in p.stdout.decode(errors="replace").split("\n"):
        if line.startswith("+++ "):
            cur = line[6:] if line.startswith("+++ b/") else None
            continue
        m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
        if m and cur:
            first, n = int(m.group(1)), int(m.group(2) or "1")
            out.setdefault(cur, set()).update(range(first, first + n))
    return out


def stale_equivalents(equivalent, cands):
    """The keys of @equivalent that no candidate in @cands has."""
    have = set(c[0] for c in cands)
    return [k for k in equivalent if k not in have]


def sh(cmd, cwd, timeout=None, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timeout"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build/mutants"))
    ap.add_argument("--count", default="40")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="only mutants of this file (paging/x.c, paging/entry.h)")
    ap.add_argument("--list", action="store_true", help="list the candidates and exit")
    ap.add_argument("--part", default=None, metavar="K/N",
                    help="only every N-th candidate from the K-th (0-based): N runs in parallel, each with its own --build")
    ap.add_argument("--key", action="append", default=[], metavar="KEY",
                    help="only the mutant with this key (as printed after key:); repeatable")
    ap.add_argument("--since", default=None, metavar="REF",
                    help="only mutants of lines that git diff REF adds")
    a = ap.parse_args()

    # A private copy of what the unit tests are built from.
    src = os.path.join(a.build, "src")
    obj = os.path.join(a.build, "obj")
    os.makedirs(src, exist_ok=True)
    # test_plan reads the policy table of docs/architecture.md; tools/
    # generates the console font; test_catalog includes tests/seams.h
    sync_copy(["paging", "include", "tests/unit", "tests/data", "mk", "efi", "tools"],
              ["Makefile", "docs/architecture.md", "tests/seams.h", "tests/covers.py"], src)
    # Candidates and originals come from the copy, so that edits to the
    # working tree during a run cannot mix into it.
    fast = fast_map(src)
    files = sorted(f for f in fast if os.path.exists(os.path.join(src, f)))
    all_cands = []
    for f in files:
        all_cands += candidates(os.path.join(src, f), src)
    equivalent = load_equivalent()
    # Judged against every candidate of paging/, whatever --only/--since keep.
    stale = stale_equivalents(equivalent, all_cands)
    for k in stale:
        print("stale equivalent: %s" % k)
    cands = [c for c in all_cands if not a.only or c[1] == a.only]
    if a.since:
        added = added_lines(a.since, sorted(set(c[1] for c in cands)))
        cands = [c for c in cands if c[2] in added.get(c[1], ())]
    if a.key:
        cands = [c for c in cands if c[0] in a.key]
    if a.part:
        k, n = (int(x) for x in a.part.split("/"))
        cands = cands[k::n]
    if a.list:
        for c in cands:
            print("%s:%d: %s" % (c[1], c[2], c[0]))
        print("mutants: %d candidates%s" % (len(cands),
              ", %d stale equivalent entries" % len(stale) if stale else ""))
        return 1 if stale else 0
    pick = cands if a.count == "all" else random.Random(a.seed).sample(cands, min(int(a.count), len(cands)))
    pick.sort(key=lambda c: (c[1], c[2], c[3]))

    unit_bins = sorted(os.path.splitext(f)[0] for f in os.listdir(os.path.join(src, "tests/unit"))
                       if f.startswith("test_") and f.endswith(".c"))
    make = ["make", "-s", "BUILD=" + obj, "DEPS_CHECK=0"]
    bin_path = lambda b: os.path.join(obj, "host/tests", b)
    env = dict(os.environ, **TEST_ENV)

    def build(bins):
        return sh(make + [bin_path(b) for b in bins], src)

    def passes(bins):
        """(True, "") when every binary passes; (False, why) when one fails; None when they do not build."""
        st, log = build(bins)
        if st != 0:
            return None
        for b in bins:
            st, _ = sh([bin_path(b)], src, timeout=RUN_TIMEOUT, env=env)
            if st != 0:
                return False, b + (" timed out" if st is None else " failed")
        return True, ""

    print("mutants: %d of %d candidates (seed %d); baseline build" % (len(pick), len(cands), a.seed))
    res = passes(unit_bins)
    if not res or not res[0]:
        print("mutants: the unmutated tree does not pass (%s); nothing to judge" %
              (res[1] if res else "build failed"))
        return 2
    killed = survived = equiv = stillborn = 0
    survivors = []
    t0 = time.time()
    for i, (key, rel, no, col, old, new, op) in enumerate(pick, 1):
        path = os.path.join(src, rel)
        orig = open(path).read().split("\n")
        try:
            open(path, "w").write("\n".join(mutate(orig, no, col, old, new, op)))
            # The objects of the mutated file: make sees the newer source.
            st, log = sh(make + [os.path.join(obj, "host", o) for o in objects_of(rel, src)], src)
            if st != 0:
                stillborn += 1
                verdict = "stillborn"
            else:
                res = passes(fast[rel])
                if res and res[0]:
                    res = passes([b for b in unit_bins if b not in fast[rel]])
                ok, why = res if res else (None, "")
                if ok is None:
                    stillborn += 1
                    verdict = "stillborn (a test binary does not link)"
                elif not ok:
                    killed += 1
                    verdict = "killed (%s)" % why
                elif key in equivalent:
                    equiv += 1
                    verdict = "equivalent: " + equivalent[key]
                else:
                    survived += 1
                    survivors.append((rel, no, op, old, new, key))
                    verdict = "SURVIVED"
        finally:
            open(path, "w").write("\n".join(orig))
            os.utime(path, None)
        print("mutant %d/%d %s:%d %s %s -> %s: %s" % (i, len(pick), rel, no, op, old, new, verdict),
              flush=True)
    # leave the copy's objects unmutated for the next run
    build(unit_bins)
    judged = killed + survived
    print("mutants: %d killed, %d survived, %d equivalent, %d stillborn in %.0f s" %
          (killed, survived, equiv, stillborn, time.time() - t0))
    for rel, no, op, old, new, key in survivors:
        print("survivor: %s:%d %s %s -> %s" % (rel, no, op, old, new))
        print("  key: %s" % key)
    print("mutants: score %d/%d (%.0f%%)" % (killed, judged, 100.0 * killed / judged if judged else 100))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
