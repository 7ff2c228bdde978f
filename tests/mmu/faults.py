#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fault list of "make mmu-faults" (tests/mmu/faults.txt) and its table.

  faults.py list FAULTS              NAME<TAB>RUNS<TAB>RULE, one fault a line
  faults.py files FAULTS             every file some fault patches, one a line
  faults.py check FAULTS SRC         every hunk of every fault matches SRC
                                     (exit 1, naming the hunk, when one does not)
  faults.py apply FAULTS NAME SRC    patch fault NAME into the tree SRC
  faults.py table RESULTS [DOC]      the markdown table of a run's RESULTS
                                     (tests/mmu/run.sh's results.tsv); with
                                     DOC, replace the table between DOC's
                                     markers instead of printing it

A hunk's "-" lines must be the file's lines from the hunk's line on,
exactly: a fault whose text is not there is refused, never run as if it
were (it would "survive" without having been planted).
"""

import os
import re
import sys

BEGIN = "<!-- mmu-faults table: tests/mmu/faults.py table build/mmu/results.tsv -->"
END = "<!-- end of the mmu-faults table -->"
CONFS = ("base", "la57", "qemu64", "smp", "handoff")


def parse(path):
    """[{name, rule, runs, hunks: [(file, line, old, new)]}] in file order."""
    faults = []
    cur = None
    hunk = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (path, n)
            if not line or line.startswith("#"):
                hunk = None
                continue
            word, _, rest = line.partition(" ")
            if word == "fault":
                if not rest or " " in rest or any(x["name"] == rest for x in faults):
                    raise SystemExit("%s: a fault needs one new name: %r" % (where, line))
                cur = {"name": rest, "rule": None, "runs": None, "hunks": []}
                faults.append(cur)
                hunk = None
            elif cur is None:
                raise SystemExit("%s: %r before the first 'fault'" % (where, line))
            elif word == "rule" and rest:
                cur["rule"] = rest
            elif word == "runs" and rest:
                runs = rest.split(",")
                bad = [r for r in runs if r not in CONFS]
                if bad:
                    raise SystemExit("%s: unknown configuration %s (%s)" % (where, bad, ", ".join(CONFS)))
                cur["runs"] = runs
            elif word == "at":
                fname, _, num = rest.rpartition(":")
                if not fname or not num.isdigit():
                    raise SystemExit("%s: 'at FILE:LINE' expected: %r" % (where, line))
                hunk = (fname, int(num), [], [])
                cur["hunks"].append(hunk)
            elif word in ("-", "+") and hunk is not None:
                (hunk[2] if word == "-" else hunk[3]).append(rest)
                if word == "-" and hunk[3]:
                    raise SystemExit("%s: a '-' line after a '+' line" % where)
            else:
                raise SystemExit("%s: not understood: %r" % (where, line))
    for x in faults:
        if not x["rule"] or not x["runs"] or not x["hunks"] or any(not h[2] for h in x["hunks"]):
            raise SystemExit("%s: fault %s needs a rule, runs and hunks with '-' lines"
                             % (path, x["name"]))
    return faults


def patched(src, hunks):
    """{file: new text} of applying hunks to the tree src; SystemExit naming
    the first hunk that does not match."""
    out = {}
    for fname, num, old, new in hunks:
        path = os.path.join(src, fname)
        if fname not in out:
            with open(path, encoding="utf-8") as f:
                out[fname] = f.read().split("\n")
        lines = out[fname]
        got = lines[num - 1:num - 1 + len(old)]
        if got != old:
            raise SystemExit("%s:%d: expected %r, found %r" % (fname, num, old, got))
        # hunks of one file are applied bottom-up so line numbers hold
    for fname in out:
        with open(os.path.join(src, fname), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for _, num, old, new in sorted((h for h in hunks if h[0] == fname),
                                       key=lambda h: -h[1]):
            lines[num - 1:num - 1 + len(old)] = new
        out[fname] = "\n".join(lines)
    return out


def find(faults, name):
    for x in faults:
        if x["name"] == name:
            return x
    raise SystemExit("no fault %r (faults.py list)" % name)


def by_check(by):
    """Whether a "caught by" cell names a failing check in some run: one of
    its "CONF: KEYS" parts is a list of check keys, not how the boot ended
    (tests/mmu/run.sh's ended(): a triple fault, a hang ...)."""
    for part in by.split("; "):
        _, _, keys = part.partition(": ")
        if re.fullmatch(r"[a-z0-9-]+(,[a-z0-9-]+)*", keys):
            return True
    return False


def table(results):
    """The markdown table of results.tsv: NAME RULE RUNS VERDICT CAUGHT-BY."""
    rows = []
    with open(results, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                raise SystemExit("%s: 5 tab-separated fields expected: %r" % (results, line))
            rows.append(fields)
    caught = sum(1 for r in rows if r[3] == "caught")
    named = sum(1 for r in rows if r[3] == "caught" and by_check(r[4]))
    out = ["| fault | SDM rule it breaks | runs | caught by |", "|---|---|---|---|"]
    for name, rule, runs, verdict, by in rows:
        cell = by if verdict == "caught" else "**%s**%s" % (verdict, (": " + by) if by != "-" else "")
        out.append("| `%s` | %s | %s | %s |" % (name, rule.replace("|", "\\|"), runs, cell))
    out.append("")
    line = "%d of %d faults caught" % (caught, len(rows))
    if named != caught:
        line += " (%d by a check that names the rule, %d only by how the run ended)" % (
            named, caught - named)
    out.append(line + ".")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    cmd = argv[1]
    if cmd == "table":
        text = table(argv[2])
        if len(argv) == 3:
            sys.stdout.write(text)
            return 0
        with open(argv[3], encoding="utf-8") as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            raise SystemExit("%s: no markers %r ... %r" % (argv[3], BEGIN, END))
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(argv[3], "w", encoding="utf-8") as f:
            f.write(head + BEGIN + "\n\n" + text + "\n" + END + tail)
        return 0
    faults = parse(argv[2])
    if cmd == "list":
        for x in faults:
            print("%s\t%s\t%s" % (x["name"], ",".join(x["runs"]), x["rule"]))
    elif cmd == "files":
        seen = []
        for x in faults:
            for h in x["hunks"]:
                if h[0] not in seen:
                    seen.append(h[0])
        print("\n".join(seen))
    elif cmd == "check" and len(argv) == 4:
        bad = 0
        for x in faults:
            try:
                patched(argv[3], x["hunks"])
            except SystemExit as e:
                print("fault %s: %s" % (x["name"], e), file=sys.stderr)
                bad += 1
        print("faults: %d, %d do not match the source" % (len(faults), bad))
        return 1 if bad else 0
    elif cmd == "apply" and len(argv) == 5:
        for fname, text in patched(argv[4], find(faults, argv[3])["hunks"]).items():
            with open(os.path.join(argv[4], fname), "w", encoding="utf-8") as f:
                f.write(text)
            print(fname)
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
