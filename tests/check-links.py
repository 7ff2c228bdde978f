#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The documentation's relative links resolve.

Every inline link and image of README.md and docs/*.md whose target is
not a URL (no scheme, not mailto:) must name a file that exists, relative
to the file that holds it; a "#anchor" (alone, or after a markdown file)
must be the anchor of a heading of that file, made as GitHub makes it
(lower case, punctuation dropped but for '-' and '_', spaces to '-', a
repeated heading gets -1, -2, ...).  Links and headings inside fenced code
blocks and code spans do not count.  Every docs/*.md must be linked from
README.md, so the index stays whole.  The module table of
docs/architecture.md names every source file of efi/ and paging/, and
nothing else: a row's first cell names a file by its path, and the files
after it in the same cell by name, in the same folder.  The churn's
default operation counts (firmware and hand-off mode) in the option
tables of README.md and docs/options.md are those --help says (the text
of opts_usage() in efi/opts/usage.c, which tests/unit/test_opts.c compares
with the code's defaults).  The suite table of docs/testing.md ("The
suites") has one row for every suite "make test" runs (the names of
TEST_SUITES in mk/suites.mk and every executable tests/boot/*.sh but
lib.sh and those the Makefile's BOOT_TESTS leaves out), and no other.
Every file name a code comment of efi/,
paging/, include/, mk/ or tests/ writes (NAME.c, dir/NAME.h, NAME.sh,
...) is a file of the tree - by its path from the top, from the
comment's folder, from efi/ or include/ (as #include names them), or by
its name alone anywhere - or a system header, or is listed with a reason
in tests/comment-names.txt (another project's file, a generated one); a
name in capitals (FILE.c, DIR/run-K.txt) is a placeholder.  The check is
shown to refuse a stale name on a copy of a source file.

  check-links.py [ROOT]    ROOT: the top of the tree (default: this file's ../)

Prints "ok - docs: ..." or "not ok - docs: ..." per link and per docs file,
then "docs: N passed, M failed"; exits 1 on a failure.
"""

import glob
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mk"))
from tapcheck import Checks  # noqa: E402

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)

CHECKS = Checks("docs", prefix="docs")


def check(cond, name, detail=""):
    return CHECKS.check(cond, name, detail=detail)


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1) == fence:
                    fence = None
                continue
            if fence is None:
                yield n, line.rstrip("\n")


def slug(text):
    """GitHub's anchor of a heading's text."""
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        out = set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            out.add(base if k == 0 else "%s-%d" % (base, k))
        _anchors[path] = out
    return _anchors[path]


def paragraphs(path):
    """(first line number, text) of each run of non-blank prose lines, so
    that a link whose text wraps is still one link."""
    start, buf, last = None, [], None
    for n, line in prose_lines(path):
        if not line.strip() or (last is not None and n != last + 1):
            if buf:
                yield start, "\n".join(buf)
            start, buf = None, []
        if line.strip():
            if start is None:
                start = n
            buf.append(line)
        last = n
    if buf:
        yield start, "\n".join(buf)


def links(path):
    """(line number, target) of every inline link and image outside code."""
    for n, text in paragraphs(path):
        text = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        for m in LINK.finditer(text):
            yield n + text.count("\n", 0, m.start()), m.group(1)


MODULE_ROW = re.compile(r"^\|\s*(`(?:efi|paging)/[^|]*)\|")


def module_table(root):
    """The files docs/architecture.md's module table names, as paths."""
    named = set()
    folder = None
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        for line in f:
            m = MODULE_ROW.match(line)
            if not m:
                continue
            for i, name in enumerate(re.findall(r"`([^`]+)`", m.group(1))):
                if name.endswith("/"):
                    break               # a folder's row (the layout), not a module's
                if i == 0:
                    folder = os.path.dirname(name)
                    named.add(name)
                else:
                    named.add(os.path.join(folder, name))
    return named


def sources(root):
    found = set()
    for top in ("efi", "paging"):
        for dirpath, _dirs, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith((".c", ".h", ".S")):
                    found.add(os.path.relpath(os.path.join(dirpath, name), root))
    return found


def usage_text(root):
    """The text of opts_usage() in efi/opts/usage.c: its string literals, joined."""
    with open(os.path.join(root, "efi", "opts", "usage.c")) as f:
        src = f.read()
    m = re.search(r"const char \*opts_usage\(void\)\s*\{\s*return(.*?);\s*\}", src, re.S)
    if not m:
        return ""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
    return "".join(p.encode().decode("unicode_escape") for p in parts)


ITER_DEFAULTS = re.compile(r"\(default (\d+);\s+(\d+) in hand-off mode\)")


def iteration_defaults(root):
    """(--help's (firmware, hand-off) defaults of --iterations, {doc: the
    same from its table row, or None})."""
    text = usage_text(root)
    i = text.find("--iterations=N")
    m = ITER_DEFAULTS.search(text[i:]) if i >= 0 else None
    helps = m.groups() if m else None
    docs = {}
    for rel in ("README.md", os.path.join("docs", "options.md")):
        docs[rel] = None
        with open(os.path.join(root, rel)) as f:
            for line in f:
                if line.startswith("|") and "`--iterations=N`" in line:
                    d = ITER_DEFAULTS.search(line)
                    docs[rel] = d.groups() if d else None
    return helps, docs


SUITE_ENTRY = re.compile(r"'([a-z0-9][a-z0-9-]*)(?:@[a-z-]+)?=")
SUITE_ROW = re.compile(r"^\|\s*`([a-z0-9][a-z0-9-]*)`\s*\|")


def suites(root):
    """The suites make test runs: mk/suites.mk's names and the boot tests
    (every executable tests/boot/*.sh but those the Makefile's BOOT_TESTS
    leaves out with "! -name X.sh")."""
    with open(os.path.join(root, "mk", "suites.mk"), encoding="utf-8") as f:
        names = set(SUITE_ENTRY.findall(f.read()))
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        left_out = set(re.findall(r"!\s+-name\s+([\w.-]+\.sh)", f.read()))
    for path in glob.glob(os.path.join(root, "tests", "boot", "*.sh")):
        name = os.path.basename(path)
        if name not in left_out and os.access(path, os.X_OK):
            names.add(name[:-3])
    return names


def suite_table(root):
    """The suite names of the rows of docs/testing.md's table under "## The suites"."""
    rows, inside = set(), False
    for _, line in prose_lines(os.path.join(root, "docs", "testing.md")):
        m = HEADING.match(line)
        if m:
            inside = m.group(2) == "The suites"
            continue
        r = SUITE_ROW.match(line)
        if inside and r:
            rows.add(r.group(1))
    return rows


def qemu_variables(root):
    """The QEMU_* variables mk/qemu.mk lets a user set (NAME ?= ...)."""
    with open(os.path.join(root, "mk", "qemu.mk"), encoding="utf-8") as f:
        return sorted(set(re.findall(r"^(QEMU_[A-Z0-9_]+)\s*\?=", f.read(), re.M)))


def lab_packages(root):
    """The packages of mk/packages.txt's lab group (what the first make lava installs)."""
    out = []
    with open(os.path.join(root, "mk", "packages.txt"), encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) >= 3 and words[0] == "lab:":
                out += words[2:]
    return out


# ---- file names in code comments ----------------------------------------------------

COMMENT_TOPS = ("efi", "paging", "include", "mk", "tests")
COMMENT_SKIP_DIRS = {"corpus", "data", "__pycache__"}
NAME_EXT = r"(?:c|h|S|sh|py|mk|txt|md|sed|tsv|inc|lds|nsh|ld)"
FILE_NAME = re.compile(r"(?<![\w./\\$-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\." + NAME_EXT +
                       r")(?![\w/])")
PLACEHOLDER = re.compile(r"[A-Z][A-Z_]{2,}|[A-Z]-|-[A-Z]\b|^[A-Z]\.")
SYSTEM_DIRS = ("/usr/include", "/usr/include/efi", "/usr/include/efi/x86_64", "/usr/lib")


def comments(rel, text):
    """(line, text) of each comment of a source file: C's /* */ and //, a script's '# '."""
    if rel.endswith((".c", ".h", ".S", ".inc", ".ld")):
        for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
            yield text.count("\n", 0, m.start()) + 1, m.group(0)
        return
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*(#(?:\s.*|$))", line)
        if m:
            yield n, m.group(1)


class TreeNames:
    """What a comment's file name may resolve to: the tree's files, system headers."""

    def __init__(self, root):
        self.root = root
        self.files = []
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".git", "build")]
            for name in files:
                self.files.append(os.path.relpath(os.path.join(dirpath, name), root))
        self.bases = {os.path.basename(f) for f in self.files}
        cc = os.popen("gcc -print-file-name=include 2>/dev/null").read().strip()
        self.system = SYSTEM_DIRS + ((cc,) if cc.startswith("/") else ())

    def resolves(self, name, rel):
        if "/" not in name and name in self.bases:
            return True
        for base in ("", os.path.dirname(rel), "efi", "include"):
            if os.path.exists(os.path.join(self.root, base, name)):
                return True
        if "/" in name and any(f.endswith("/" + name) for f in self.files):
            return True
        return any(os.path.exists(os.path.join(d, name)) for d in self.system)


def comment_names(root, allowed, tree, only=None):
    """(file:line: name) of each unresolved file name in a comment, and the allowed names used."""
    bad, used = [], set()
    for top in COMMENT_TOPS:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in COMMENT_SKIP_DIRS]
            for fname in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, fname), root)
                if only is not None:
                    if rel not in only:
                        continue
                    text = only[rel]
                elif re.search(r"\.(c|h|S|sh|py|mk|inc|sed|txt|ld)$", fname) or fname == "Makefile":
                    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                        text = f.read()
                else:
                    continue
                for n, c in comments(rel, text):
                    for m in FILE_NAME.finditer(c):
                        name = m.group(1)
                        if PLACEHOLDER.search(name.rsplit(".", 1)[0]):
                            continue
                        if name in allowed:
                            used.add(name)
                        elif not tree.resolves(name, rel):
                            bad.append("%s:%d: %s" % (rel, n + c.count("\n", 0, m.start()), name))
    return bad, used


def check_comment_names(root):
    listing = os.path.join(root, "tests", "comment-names.txt")
    allowed = {}
    with open(listing, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            word = line.split("#", 1)[0].split()
            if word:
                allowed[word[0]] = n
    tree = TreeNames(root)
    bad, used = comment_names(root, allowed, tree)
    check(not bad, "every file name a code comment of %s/ writes is a file of the tree "
          "(or tests/comment-names.txt says whose)" % "/, ".join(COMMENT_TOPS), " ".join(bad))
    unused = sorted(set(allowed) - used)
    check(not unused, "every name tests/comment-names.txt lists is still written in a comment",
          " ".join("%s (line %d)" % (u, allowed[u]) for u in unused))
    # the check on a copy: efi/core/kernel.c with a comment naming the Limine
    # hand-over's file of an earlier tree, and names that resolve beside it
    rel = os.path.join("efi", "core", "kernel.c")
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read()
    gone = "limine" + ".c"
    copy = text + "\n/* the hand-over: %s, beside lmhandoff.c and core/run.h */\n" % gone
    bad, _ = comment_names(root, allowed, tree, only={rel: copy})
    want = ["%s:%d: %s" % (rel, copy.count("\n"), gone)]
    check(bad == want, "a stale file name in a comment is refused (on a copy of %s: %s)"
          % (rel, " ".join(want)), "found %s" % (bad,))


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    readme = os.path.join(root, "README.md")
    docs = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    linked = set()
    for path in [readme] + docs:
        rel = os.path.relpath(path, root)
        if not os.path.isfile(path):
            check(False, rel, "no such file")
            continue
        for n, target in links(path):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue            # a URL: not ours to check
            name = "%s:%d: %s" % (rel, n, target)
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                check(False, name, "no file %s" % os.path.relpath(dest, root))
                continue
            if path == readme:
                linked.add(dest)
            if not anchor:
                check(True, name)
            elif not dest.endswith(".md") or not os.path.isfile(dest):
                check(False, name, "an anchor into a file that is not markdown")
            elif anchor in anchors(dest):
                check(True, name)
            else:
                check(False, name, "no heading of %s has the anchor #%s"
                      % (os.path.relpath(dest, root), anchor))
    for path in docs:
        rel = os.path.relpath(path, root)
        check(path in linked, "README.md links %s" % rel, "not in README's index")
    named, found = module_table(root), sources(root)
    missing = sorted(found - named)
    check(not missing, "docs/architecture.md's module table names every source of efi/ and paging/",
          " ".join(missing))
    stale = sorted(named - found)
    check(not stale, "every file docs/architecture.md's module table names exists", " ".join(stale))
    run, rows = suites(root), suite_table(root)
    check(not run - rows, "docs/testing.md's suite table has a row for each of the %d suites "
          "make test runs" % len(run), " ".join(sorted(run - rows)))
    check(not rows - run, "docs/testing.md's suite table names no suite make test does not run",
          " ".join(sorted(rows - run)))
    helps, docs = iteration_defaults(root)
    check(helps is not None, "--help (opts_usage) gives --iterations' defaults as "
          "(default N; M in hand-off mode)")
    for rel, got in docs.items():
        check(helps is not None and got == helps,
              "%s's --iterations row says the defaults --help says" % rel,
              "%s says %r, --help %r" % (rel, got, helps))
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    for var in qemu_variables(root):
        check(re.search(r"`[^`]*\b%s=" % var, text) is not None,
              "README.md's variables table shows %s (mk/qemu.mk)" % var)
    with open(os.path.join(root, "docs", "lab.md"), encoding="utf-8") as f:
        text = f.read()
    unnamed = [p for p in lab_packages(root) if "`%s" % p not in text]
    check(not unnamed and re.search(r"first `make lava` installs", text) is not None,
          "docs/lab.md says what the first make lava installs, each package of the lab group",
          " ".join(unnamed))
    check_comment_names(root)
    return CHECKS.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
