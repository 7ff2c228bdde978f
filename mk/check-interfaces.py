#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that efi/'s modules have small interfaces.

  mk/check-interfaces.py [--limit PERCENT] [--ctags PROG] SRC

SRC  the source tree (efi/)

The checks:
  share    of the functions defined in SRC's .c files, at most PERCENT
           (default 20) take the whole run state, a `struct ptlab *`
           parameter; a function that needs one part of the run takes that
           part.  The functions are found twice, independently: by
           Universal Ctags and by this script's own reading of the C (the
           top-level braces after a parameter list); the two must find the
           same functions with the same parameters, or the count is not
           trusted.  The share and the files with the most such functions
           are printed.
  types    state/state.h, the run's state, declares and defines no function:
           types and constants only.
  headers  every .c file but main.c (the entry point, which nothing calls)
           has a header of its own, FILE.h beside it, and every function it
           defines that is not static is declared there (a function the
           assembly calls too, so the compiler checks its definition
           against the declaration).
  checks   the shared checks (checks/*.c) test no mode and read no field of
           the kernel hand-off: what differs by mode reaches them as a fact
           of the machine's state, the kernel's ranges as W^X exemptions.

Prints "ok - ..." or "not ok - ..." per check and "interfaces: N passed,
M failed"; exits 1 when a check failed, 2 on bad arguments.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tapcheck import Checks  # noqa: E402

WHOLE_STATE = re.compile(r"\bstruct\s+ptlab\s*\*")
# What a shared check may not name: the mode table, the kernel's state.
MODE_OR_KERNEL = re.compile(r"->\s*mode\b|\bmode\s*->|->\s*kern\b|\.\s*kern\b|\bptlab_kernel\b")


def sources(src, ext):
    """Every file below SRC ending in EXT, sorted, as SRC-joined paths."""
    out = []
    for root, _, files in os.walk(src):
        for f in files:
            if f.endswith(ext):
                out.append(os.path.join(root, f))
    return sorted(out)


def strip_c(text):
    """TEXT with comments, string and character literals blanked and
    preprocessor lines emptied; newlines kept, so offsets keep their line."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        i += 1
    return "".join(out)


def read_functions(path):
    """{name: (params, static)} of the functions defined in PATH, read
    from the C: a brace at file scope whose declarator ends in a
    parameter list (after attributes) is a function's body."""
    text = strip_c(open(path, encoding="utf-8").read())
    found = {}
    depth = 0
    start = 0          # where the current file-scope declaration began
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            if depth == 0:
                decl = text[start:i]
                m = function_declarator(decl)
                if m:
                    found[m[0]] = (m[1], m[2])
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
        i += 1
    return found


ATTRIBUTE_TAIL = re.compile(r"(\s*__attribute__\s*\(\(.*?\)\))+\s*$", re.S)


def function_declarator(decl):
    """(name, params, static) when DECL (the text before a file-scope
    brace) declares a function, else None."""
    d = ATTRIBUTE_TAIL.sub("", decl).strip()
    if not d.endswith(")") or "=" in d:
        return None
    # the parameter list: from the ')' at the end back to its '('
    level = 0
    for k in range(len(d) - 1, -1, -1):
        if d[k] == ")":
            level += 1
        elif d[k] == "(":
            level -= 1
            if level == 0:
                break
    else:
        return None
    head, params = d[:k], d[k + 1:-1]
    m = re.search(r"([A-Za-z_]\w*)\s*$", head)
    if not m or m.group(1) in ("if", "while", "for", "switch", "return", "sizeof"):
        return None
    words = re.findall(r"[A-Za-z_]\w*", head)
    return m.group(1), " ".join(params.split()), "static" in words


def ctags_functions(ctags, src):
    """{(path, name): (params, static)} of the functions Universal Ctags
    finds defined in SRC's .c files, or raises RuntimeError."""
    cmd = [ctags, "--languages=C", "--kinds-C=f", "--fields=+S",
           "--fields-C=+{properties}", "--output-format=json", "-R", "-f", "-", src]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise RuntimeError("%s: %s (Debian package universal-ctags)" % (ctags, e))
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    found = {}
    for line in r.stdout.splitlines():
        t = json.loads(line)
        if t.get("_type") != "tag" or not t["path"].endswith(".c"):
            continue
        params = t.get("signature", "()")[1:-1]
        found[(t["path"], t["name"])] = (" ".join(params.split()),
                                         "static" in t.get("properties", ""))
    return found


def ctags_declarations(ctags, src):
    """{name: set of headers declaring it} from SRC's .h files."""
    cmd = [ctags, "--languages=C", "--langmap=C:.c.h", "--kinds-C=pf",
           "--output-format=json", "-R", "-f", "-", src]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    decl = collections.defaultdict(set)
    for line in r.stdout.splitlines():
        t = json.loads(line)
        if t.get("_type") == "tag" and t["path"].endswith(".h") and not t.get("scope"):
            decl[t["name"]].add(t["path"])
    return decl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--ctags", default=shutil.which("ctags-universal") or "ctags")
    ap.add_argument("src")
    a = ap.parse_args()
    if not os.path.isdir(a.src) or not 0 <= a.limit <= 100:
        print("usage: mk/check-interfaces.py [--limit PERCENT] [--ctags PROG] SRC",
              file=sys.stderr)
        return 2
    src = a.src.rstrip("/")
    t = Checks("interfaces")

    # share: two readings of the same functions, then their count
    ours = {}
    for path in sources(src, ".c"):
        for name, v in read_functions(path).items():
            ours[(path, name)] = v
    try:
        theirs = ctags_functions(a.ctags, src)
    except RuntimeError as e:
        t.check(False, "share: Universal Ctags reads %s" % src, [str(e)])
        return t.summary()
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    differ = sorted(k for k in set(ours) & set(theirs)
                    if bool(WHOLE_STATE.search(ours[k][0])) !=
                    bool(WHOLE_STATE.search(theirs[k][0])))
    t.check(not (only_ours or only_theirs or differ),
            "share: Universal Ctags and the C reading find the same %d functions in %s"
            % (len(theirs), src),
            ["only the C reading: %s:%s" % k for k in only_ours[:10]] +
            ["only Universal Ctags: %s:%s" % k for k in only_theirs[:10]] +
            ["whole state per one, not the other: %s:%s" % k for k in differ[:10]])
    whole = sorted(k for k, v in theirs.items() if WHOLE_STATE.search(v[0]))
    total = len(theirs)
    pct = 100.0 * len(whole) / total if total else 0.0
    by_file = collections.Counter(path for path, _ in whole)
    t.check(total > 0 and pct <= a.limit,
            "share: %d of the %d functions defined in %s/*.c take struct ptlab * "
            "(%.1f %%, at most %g %%)" % (len(whole), total, src, pct, a.limit))
    for f, n in by_file.most_common(8):
        print("#   %3d in %s" % (n, f))

    # types: state.h declares no function
    state = os.path.join(src, "state", "state.h")
    decl = ctags_declarations(a.ctags, src)
    in_state = sorted(n for n, hs in decl.items() if state in hs)
    t.check(os.path.exists(state) and not in_state,
            "types: %s declares no function" % state,
            ["declares %s" % n for n in in_state] or ["missing"])

    # headers: FILE.h beside FILE.c, declaring its external functions
    missing, undeclared = [], []
    for path in sources(src, ".c"):
        if os.path.relpath(path, src) == "main.c":
            continue
        own = path[:-2] + ".h"
        if not os.path.exists(own):
            missing.append(path)
            continue
        for (p, name), (_, static) in sorted(theirs.items()):
            if p == path and not static and own not in decl.get(name, ()):
                undeclared.append("%s: %s (declared in %s)" % (
                    path, name, ", ".join(sorted(decl.get(name, ()))) or "no header"))
    t.check(not missing, "headers: every .c of %s but main.c has its own header" % src,
            ["no %s.h for %s" % (m[:-2], m) for m in missing])
    t.check(not undeclared,
            "headers: every function a .c of %s exports is declared in its own header" % src,
            undeclared)

    # checks: no mode test, no kernel field
    named = []
    for path in sources(os.path.join(src, "checks"), ".c"):
        text = strip_c(open(path, encoding="utf-8").read())
        for no, line in enumerate(text.splitlines(), 1):
            if MODE_OR_KERNEL.search(line):
                named.append("%s:%d: %s" % (path, no, line.strip()))
    t.check(not named, "checks: %s/checks/*.c test no mode and read no kernel field" % src,
            named)
    return t.summary()


if __name__ == "__main__":
    sys.exit(main())
