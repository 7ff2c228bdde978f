#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What some make goals need, read from make's own plan.

  make-needs.py [--build DIR] GOAL...

Runs "make -pn BUILD=DIR GOAL..." in the tree above this file (-n: no
recipe runs; the goals this is meant for start no sub-make) and prints,
one line each:

  target T            every target the goals reach through prerequisites,
                      normal and order-only (T as make names it)
  uses PATH PKG...    every file they use: an absolute path among those
                      targets, a program or absolute path a recipe names,
                      and the same, transitively, in the tree's scripts a
                      recipe runs (mk/*.sh, tools/*.py, ...; comments
                      skipped); PKG: the Debian packages that own PATH
                      (dpkg-query -S), "-" for none
  script S            every script of the tree so read
  test-only-packages N  how many installed packages only the test group
                      brings (its own, what they depend on, less what the
                      run group brings and Debian's essential and required
                      packages)
  test-only PATH PKG  each used file that such a package owns

Exits 2 when make fails to plan the goals, else 0: the judging is the
caller's (tests/packages.sh).
"""

import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# a recipe's words: split where the shell or an option would split them
SPLIT = re.compile(r"[\s'\"`;|&()<>=,$\\{}\[\]]+")
ASSIGN = re.compile(r"^\s*(export\s+|override\s+|private\s+)*[A-Za-z_][A-Za-z0-9_.]*\s*(\?|:|::|\+|!)?=")


def plan(build, goals):
    """(commands text, {target: [prerequisites]}) from make -pn."""
    p = subprocess.run(["make", "-pn", "BUILD=" + build] + goals, cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        sys.exit(2)
    out = p.stdout
    at = out.find("\n# Make data base")
    cmds, db = out[:at], out[at:]
    deps = {}
    files = db.split("\n# Files\n", 1)[1].split("\n# files hash-table stats", 1)[0]
    for para in files.split("\n\n"):
        for line in para.split("\n"):
            if not line or line[0] in "#\t":
                continue
            m = re.match(r"^(.+?)::?(?:\s|$)(.*)$", line)
            if not m or ASSIGN.match(m.group(2)):
                continue
            deps.setdefault(m.group(1), []).extend(
                w for w in m.group(2).split() if w != "|")
            break
    return cmds, deps


def reach(deps, goals):
    seen, todo = set(), list(goals)
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo += deps.get(t, [])
    return seen


def comment_free(path):
    """The text of a script of the tree without its comment lines."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return "\n".join(l for l in f.read().split("\n") if not l.lstrip().startswith("#"))


def commands(text):
    """The programs TEXT (shell: a recipe, a script) runs: the first word of
    each simple command, after assignments and exec/env/sudo/nice/timeout.
    Single-quoted text is data and skipped; a double-quoted one is read, for
    its command substitutions."""
    text = re.sub(r"\\\n", " ", text)
    progs = set()
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            continue
        line = re.sub(r"'[^']*'", " ", line).replace('"', " ")
        for seg in re.split(r"\$\(|[;|&(){}`!]|\b(?:then|do|else|elif|if|while|until)\b", line):
            for w in seg.split():
                if ASSIGN.match(w) or w in ("exec", "env", "sudo", "nice", "timeout", "command"):
                    continue
                if re.match(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$", w) and shutil.which(w):
                    progs.add(shutil.which(w))
                break
    return progs


def tree_file(word, here):
    """The file of the tree WORD names ("mk/x.sh", "../tools/x.py", or a
    bare name beside the script HERE or in tools/ or mk/), or None."""
    rel = re.sub(r"^(\.{0,2}/)+", "", word)
    tries = [rel] if "/" in rel else [os.path.join(here, rel), "tools/" + rel, "mk/" + rel]
    for t in tries:
        t = os.path.normpath(t)
        if os.path.isfile(os.path.join(ROOT, t)):
            return t
    return None


def words_used(text, kind, here, scripts, todo):
    """The absolute paths TEXT names, the programs it runs (KIND "sh": a
    recipe or a shell script; "py": a python script, its subprocess calls
    with a literal program), and the tree's scripts it names, queued in
    TODO."""
    used = set()
    for w in SPLIT.split(text):
        w = w.strip(".:")
        if w.startswith("/") and os.path.exists(w):
            used.add(w)
        if kind != "sh" or not re.search(r"\.(sh|py|sed)$", w):
            continue
        rel = tree_file(w, here)
        if rel and rel not in scripts:
            scripts.add(rel)
            todo.append(rel)
    if kind == "sh":
        used |= commands(text)
    elif kind == "py":
        for prog in re.findall(r"subprocess\.\w+\(\s*\[\s*[\"']([A-Za-z0-9][\w.+-]*)[\"']", text):
            if shutil.which(prog):
                used.add(shutil.which(prog))
    return used


def owners(paths):
    """{path: [packages]} by dpkg-query -S, trying each path as named,
    resolved, and with or without /usr (merged /usr)."""
    alias = {}
    for p in paths:
        for q in {p, os.path.realpath(p)}:
            for r in {q, q[4:] if q.startswith("/usr/") else "/usr" + q}:
                alias.setdefault(r, set()).add(p)
    got = {p: set() for p in paths}
    if not shutil.which("dpkg-query") or not alias:
        return got
    r = subprocess.run(["dpkg-query", "-S"] + sorted(alias), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    for line in r.stdout.split("\n"):
        if ": " not in line or line.startswith("diversion "):
            continue
        pkgs, path = line.split(": ", 1)
        for p in alias.get(path.strip(), ()):
            got[p] |= {x.strip().split(":")[0] for x in pkgs.split(",")}
    return got


def closure(names, db, provides):
    """NAMES and every installed package they depend on (Depends,
    Pre-Depends; each installed alternative; virtual names through
    Provides)."""
    seen, todo = set(), list(names)
    while todo:
        n = todo.pop()
        for pkg in [n] + provides.get(n, []):
            if pkg in db and pkg not in seen:
                seen.add(pkg)
                for alt in re.split(r"[,|]", db[pkg]):
                    alt = re.sub(r"\(.*?\)|:\w+", "", alt).strip()
                    if alt:
                        todo.append(alt)
    return seen


def test_only():
    """The packages only the test group brings: the test group's own
    (mk/packages.txt) and what they depend on, less what the run group
    brings and less Debian's essential and required packages."""
    group = lambda g: subprocess.run([os.path.join(ROOT, "mk/deps.sh"), "--list", g],
                                     stdout=subprocess.PIPE, universal_newlines=True,
                                     check=True).stdout.split()
    run, test = group("run"), group("test")
    fmt = "${Package}\t${db:Status-Status}\t${Essential}\t${Priority}\t${Provides}\t${Depends},${Pre-Depends}\n"
    r = subprocess.run(["dpkg-query", "-W", "-f=" + fmt], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    db, provides, base = {}, {}, set()
    for line in r.stdout.split("\n"):
        f = line.split("\t")
        if len(f) != 6 or f[1] != "installed":
            continue
        db[f[0]] = f[5]
        if f[2] == "yes" or f[3] == "required":
            base.add(f[0])
        for v in f[4].split(","):
            v = re.sub(r"\(.*?\)", "", v).strip()
            if v:
                provides.setdefault(v, []).append(f[0])
    only = closure([p for p in test if p not in run], db, provides)
    return only - closure(run, db, provides) - base


def main():
    args = sys.argv[1:]
    build = os.path.join(ROOT, "build")
    if args[:1] == ["--build"]:
        build, args = args[1], args[2:]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    cmds, deps = plan(build, args)
    targets = reach(deps, args)
    scripts, todo = set(), []
    used = {t for t in targets if t.startswith("/") and os.path.exists(t)}
    used |= words_used(cmds, "sh", ".", scripts, todo)
    while todo:
        s = todo.pop()
        used |= words_used(comment_free(os.path.join(ROOT, s)), s.rsplit(".", 1)[1],
                           os.path.dirname(s), scripts, todo)
    for t in sorted(targets):
        print("target", t)
    for s in sorted(scripts):
        print("script", s)
    only = test_only() if shutil.which("dpkg-query") else set()
    print("test-only-packages", len(only))
    for p, pk in sorted(owners(sorted(used)).items()):
        print("uses", p, " ".join(sorted(pk)) or "-")
        for k in sorted(pk & only):
            print("test-only", p, k)
    return 0


if __name__ == "__main__":
    sys.exit(main())
