#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that the product's files and functions stay small enough to read.

  mk/check-size.py [--profile product|tests] [--max-file LINES] [--max-function LINES] ROOT

ROOT  the top of the tree; its efi/, paging/ and include/ are read (the
      product profile, the default), or its tests/ (--profile tests: the
      tests are kept like the product, with a looser budget)

The checks:
  files      no .c, .h or .S file has more than LINES lines (default 800;
             tests: also .sh and .py files, default 1200)
  functions  no function has more than LINES lines of body (default 100;
             tests: 150)
  registry   every check registry entry ("const struct ptlab_check NAME =")
             that names its run function is within SCREEN lines (default
             50) of that function's definition, in the same file: from the
             function's last line to the entry, or from the entry to the
             function's first
  (the tests profile checks files and functions only; a file or function
  over its budget but listed in tests/sizes-allowed.txt, "PATH LINES" or
  "PATH:FUNCTION LINES" with the reason it waits, may have up to LINES and
  no more: it can shrink, not grow, and an entry it no longer needs fails)
  page       one page-size constant: no #define but include/ptlab/pte.h's
             gives a name ending in PAGE, PAGE_SIZE or PAGE_BYTES the value
             4096 (4096u, 0x1000, UINT64_C(4096), 1 << 12, ...); code says
             PT_PAGE_SIZE

A function is a top-level definition in a .c or .h file: its body is the
lines between its opening brace and the closing '}' at column 0.  The
opening brace is a '{' alone at column 0 (the tree's style), or the '{'
that ends a line at column 0 whose text before it ends a parameter list,
"int f(void) {", with no '=' (no initializer); a '{' alone after a
declarator with no parameter list (a struct's) opens no function.  The
name is the identifier before the parameter list, attributes skipped.

Prints every file and every function over its limit with its size, and,
even when none is, the largest file and the longest function; then
"size: N passed, M failed".  Exits 1 when a check failed, 2 on bad
arguments.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tapcheck import Checks  # noqa: E402

TOPS = ("efi", "paging", "include")
# profile: (folders read, file endings, max file lines, max function lines)
PROFILES = {
    "product": (TOPS, (".c", ".h", ".S"), 800, 100),
    "tests": (("tests",), (".c", ".h", ".S", ".sh", ".py"), 1200, 150),
}
ALLOWED = {"tests": os.path.join("tests", "sizes-allowed.txt")}


def allowed(root, profile):
    """{"PATH" or "PATH:FUNCTION": lines} of the profile's allowance file."""
    out = {}
    rel = ALLOWED.get(profile)
    if not rel or not os.path.exists(os.path.join(root, rel)):
        return out
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        for line in f:
            parts = line.split("#", 1)[0].split()
            if len(parts) >= 2 and parts[1].isdigit():
                out[parts[0]] = int(parts[1])
    return out
PAGE_HOME = os.path.join("include", "ptlab", "pte.h")
PAGE_DEFINE = re.compile(r"^\s*#\s*define\s+(\w*PAGE(?:_SIZE|_BYTES)?)\s+(.+?)\s*(?:/\*.*)?$")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)")
NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def sources(root, tops=TOPS, ends=(".c", ".h", ".S")):
    """Every file of ROOT's folders TOPS ending in ENDS, as ROOT-relative paths."""
    out = []
    for top in tops:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(ends):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out


def code_of(line):
    """LINE without a trailing // or one-line /* */ comment and blanks."""
    line = re.sub(r"/\*.*?\*/", "", line)
    return line.split("//", 1)[0].rstrip()


def declarator(lines, i):
    """The text of the declarator that ends on line I: that line and the
    indented continuation lines above it, back to its line at column 0."""
    j = i
    while j > 0 and lines[j][:1] in (" ", "\t") and lines[j].strip():
        j -= 1
    return " ".join(code_of(l).strip() for l in lines[j:i + 1])


def function_name(decl):
    """The identifier before DECL's parameter list, or None when it has none."""
    m = NAME.search(ATTRIBUTE.sub("", decl))
    return m.group(1) if m else None


def functions(lines):
    """(name, first line of the body (1-based), body lines) of each function."""
    out = []
    i = 0
    while i < len(lines):
        code = code_of(lines[i])
        name = None
        if code == "{" and i > 0:
            # the tree's style: the brace alone, the declarator above it
            decl = declarator(lines, i - 1)
            if decl.rstrip().endswith(")") and "=" not in decl:
                name = function_name(decl)
        elif code.endswith("{") and lines[i][:1] not in ("", " ", "\t", "#", "}", "/", "*"):
            # "int f(void) {": the brace ends the declarator's last line
            decl = declarator(lines, i)[:-1].rstrip()
            if decl.endswith(")") and "=" not in decl:
                name = function_name(decl)
        if name is None:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("}"):
            end += 1
        out.append((name, i + 2, end - i - 1))
        i = end + 1
    return out


def is_4096(value):
    """Whether the #define VALUE spells 4096: 4096[u][l], 0x1000, UINT64_C(...), 1 << 12."""
    v = re.sub(r"\bU?INT(?:64|32)_C\s*\(([^()]*)\)", r"\1", value)
    v = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", v).replace("(", "").replace(")", "")
    v = v.replace(" ", "")
    return v.lower() in ("4096", "0x1000", "1<<12", "0x1<<12")


def page_defines(rel, lines):
    """'FILE:LINE NAME VALUE' of each page-size #define of LINES but pte.h's."""
    if rel == PAGE_HOME:
        return []
    out = []
    for i, line in enumerate(lines):
        m = PAGE_DEFINE.match(line)
        if m and is_4096(m.group(2)):
            out.append("%s:%d %s %s" % (rel, i + 1, m.group(1), m.group(2)))
    return out


ENTRY = re.compile(r"^(?:static\s+)?const\s+struct\s+ptlab_check\s+(\w+)\s*=\s*\{")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def entry_run(lines, i):
    """The run function named by the registry entry that opens on line I, or None."""
    text = []
    for line in lines[i:i + 12]:
        text.append(code_of(line))
        if line.startswith("};"):
            break
    body = STRING.sub('""', " ".join(text).split("{", 1)[1])
    parts = [p.strip() for p in body.split(",")]
    if len(parts) > 2 and re.fullmatch(r"[A-Za-z_]\w*", parts[2]) and parts[2] != "NULL":
        return parts[2]
    return None


def far_entries(rel, lines, funcs, screen):
    """'FILE:LINE NAME: RUN N lines away' of each entry farther than SCREEN from its
    run function, and how many entries name a run function of the file."""
    spans = {}
    for name, body_line, n in funcs:
        # body_line is the body's first line (1-based); the function starts above its brace
        spans[name] = (body_line - 2, body_line + n)
    out, seen = [], 0
    for i, line in enumerate(lines):
        m = ENTRY.match(line)
        if not m:
            continue
        run = entry_run(lines, i)
        if run is None or run not in spans:
            continue
        seen += 1
        first, last = spans[run]
        at = i + 1
        gap = at - last if at > last else first - at
        if gap > screen:
            out.append("%s:%d %s: %s is %d lines away" % (rel, at, m.group(1), run, gap))
    return out, seen


def main(argv):
    ap = argparse.ArgumentParser(add_help=True, usage=__doc__.strip().splitlines()[2].strip())
    ap.add_argument("--profile", choices=sorted(PROFILES), default="product")
    ap.add_argument("--max-file", type=int, default=None)
    ap.add_argument("--max-function", type=int, default=None)
    ap.add_argument("--screen", type=int, default=50)
    ap.add_argument("root")
    try:
        args = ap.parse_args(argv[1:])
    except SystemExit as e:
        return e.code
    tops, ends, max_file, max_function = PROFILES[args.profile]
    if args.max_file is None:
        args.max_file = max_file
    if args.max_function is None:
        args.max_function = max_function
    product = args.profile == "product"
    checks = Checks("size" if product else "size-tests")
    files, funcs, pages, far = [], [], [], []
    entries = 0
    for rel in sources(args.root, tops, ends):
        with open(os.path.join(args.root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        files.append((len(lines), rel))
        pages += page_defines(rel, lines)
        if rel.endswith((".c", ".h")):
            found = functions(lines)
            for name, line, n in found:
                funcs.append((n, "%s (%s:%d)" % (name, rel, line), "%s:%s" % (rel, name)))
            f, n = far_entries(rel, lines, found, args.screen)
            far += f
            entries += n
    if not files:
        checks.check(False, "%s has sources in %s" % (args.root, ", ".join(tops)))
        return checks.summary()

    allow = allowed(args.root, args.profile)
    used = set()

    def over(n, key, limit):
        """Whether @n lines of @key break @limit (or its allowance)."""
        if key in allow and n > limit:
            used.add(key)
            return n > allow[key]
        return n > limit

    big = sorted((f for f in files if over(f[0], f[1], args.max_file)), key=lambda f: (-f[0], f[1]))
    n, rel = max(files, key=lambda f: (f[0], f[1]))
    but = " but those %s allows" % ALLOWED[args.profile] if allow else ""
    checks.check(not big, "no file over %d lines of %d files%s (largest: %s, %d lines)"
                 % (args.max_file, len(files), but, rel, n),
                 ["%s: %d lines" % (r, k) for k, r in big])

    long_ = sorted((f for f in funcs if over(f[0], f[2], args.max_function)),
                   key=lambda f: (-f[0], f[1]))
    if funcs:
        n, what, _ = max(funcs, key=lambda f: (f[0], f[1]))
        longest = "longest: %s, %d lines" % (what, n)
    else:
        longest = "none found"
    checks.check(not long_, "no function over %d lines of %d functions%s (%s)"
                 % (args.max_function, len(funcs), but, longest),
                 ["%s: %d lines" % (w, k) for k, w, _ in long_])
    if allow:
        stale = sorted(k for k in allow if k not in used)
        checks.check(not stale, "every allowance of %s is still needed (%d: %s)"
                     % (ALLOWED[args.profile], len(allow),
                        ", ".join("%s %d" % (k, v) for k, v in sorted(allow.items()))),
                     ["%s: within the budget now, or gone: remove it" % k for k in stale])
    if not product:
        return checks.summary()
    checks.check(not far, "every registry entry within %d lines of its check function "
                 "(%d entries name one)" % (args.screen, entries), far)
    checks.check(not pages, "one page-size constant: PT_PAGE_SIZE (%s), no other #define of "
                 "4096 named for a page" % PAGE_HOME, pages)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
