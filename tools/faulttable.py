#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The "Which fault proves which check" table of docs/faults.md, made from
the check registry and tests/boot/faults.tsv.

The registry's half, CHECKS, is $(BUILD)/gen/checks.tsv: the build prints
it from the compiled registry (tools/listchecks.c), one line per entry:
fault name, whole name, phase, when the fault is planted, what it breaks.
faults.tsv names entries by fault name only and adds what the registry
cannot say: which boots prove which fault and what the test points look
like.  Every row's fault must be an entry's and every entry must have a
row proving it, or this program refuses (exit 1) before making anything.

In the markdown file the table stands between the comment lines
"<!-- faults table: ... -->" and "<!-- end of the faults table -->";
--write replaces only what is between them.

  faulttable.py CHECKS TSV               print the table (markdown)
  faulttable.py --write CHECKS TSV DOC   replace the table in DOC between its markers
  faulttable.py --check CHECKS TSV DOC   exit 1 (with a diff) when DOC's table differs

CHECKS is build/gen/checks.tsv ("make faults-table" runs --write with it),
DOC is docs/faults.md.
"""

import difflib
import sys

BEGIN = ("<!-- faults table: tools/faulttable.py makes it from the check registry "
         "and tests/boot/faults.tsv -->")
END = "<!-- end of the faults table -->"

# fields of each kind of row, the kind included
CHECKS_FIELDS = 5
KINDS = {"run": 5, "point": 5, "suite": 3, "churn": 6, "record": 4}


def lines(path):
    """(line number, fields) of every row of a tab-separated file, '#' comments left out."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield n, line.split("\t")


def registry(path):
    """The registry's entries in order: dicts of fault, name, phase, when, breaks."""
    out = []
    for n, f in lines(path):
        if len(f) != CHECKS_FIELDS or any(not x for x in f):
            raise SystemExit(f"{path}:{n}: an entry needs {CHECKS_FIELDS} non-empty "
                             f"tab-separated fields: {f!r}")
        e = dict(zip(("fault", "name", "phase", "when", "breaks"), f))
        if any(e["fault"] == o["fault"] for o in out):
            raise SystemExit(f"{path}:{n}: fault '{e['fault']}' is a second entry's")
        out.append(e)
    if not out:
        raise SystemExit(f"{path}: no entry (is it the build's checks.tsv?)")
    return out


def rows(path):
    """faults.tsv's rows as (kind, fields after the kind)."""
    out = []
    for n, f in lines(path):
        want = KINDS.get(f[0])
        if want is None or len(f) != want or any(not x for x in f):
            raise SystemExit(f"{path}:{n}: a '{f[0]}' row needs {want} non-empty "
                             f"tab-separated fields: {f!r}")
        out.append((f[0], f[1:]))
    return out


def joined(checks_path, tsv_path):
    """The registry and the rows, refused unless each names only what the other has."""
    entries = registry(checks_path)
    rs = rows(tsv_path)
    faults = {e["fault"] for e in entries}
    runs = [f[0] for k, f in rs if k == "run"]
    bad = []
    for kind, f in rs:
        if kind in ("point", "suite") and f[0] not in faults:
            bad.append(f"a '{kind}' row names fault '{f[0]}', which no registry entry has")
        if kind == "point":
            bad += [f"a row of '{f[0]}' names no run '{r}'" for r in f[2].split(",")
                    if r not in runs]
    proven = {f[0] for k, f in rs if k in ("point", "suite")}
    bad += [f"the entry '{e['name']}' (fault '{e['fault']}') has no point or suite row"
            for e in entries if e["fault"] not in proven]
    if bad:
        raise SystemExit(f"{tsv_path} and {checks_path} disagree:\n  " + "\n  ".join(bad))
    return entries, rs


def cell(text):
    return text.replace("|", "\\|")


def table(checks_path, tsv_path):
    entries, rs = joined(checks_path, tsv_path)
    runs = {f[0]: f for k, f in rs if k == "run"}
    order = list(runs)
    lines_ = [
        "| check | phase | fault | what it breaks | shown by |",
        "|---|---|---|---|---|",
    ]
    for e in entries:
        mine = [f for k, f in rs if k == "point" and f[0] == e["fault"]]
        files = [f[1] for k, f in rs if k == "suite" and f[0] == e["fault"]]
        shown = []
        if mine:
            rl = {r for f in mine for r in f[2].split(",")}
            shown.append("faults.sh " + ", ".join(
                f"`{r}`" + (" (" + runs[r][1] + ")" if runs[r][1] != "-" else "")
                for r in order if r in rl))
        shown += [f"`{x}`" for x in dict.fromkeys(files)]
        lines_.append(f"| {cell(e['name'])} | {e['phase']} | `--inject={e['fault']}` | "
                      f"{cell(e['breaks'])} | {'; '.join(shown)} |")
    for kind, f in rs:
        if kind == "churn":
            name, _ere, file, needle, what = f
            lines_.append(f"| {cell(name)} | churn | `{cell(needle)}` | {cell(what)} | `{file}` |")
        elif kind == "record":
            name, _ere, why = f
            lines_.append(f"| {cell(name)} | - | none | {cell(why)} | - |")
    return "\n".join(lines_) + "\n"


def split_doc(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    a = text.find(BEGIN)
    b = text.find(END)
    if a < 0 or b < a:
        raise SystemExit(f"{path}: no faults table markers ({BEGIN} ... {END})")
    a += len(BEGIN) + 1
    return text[:a], text[a:b], text[b:]


def main(argv):
    if len(argv) == 3:
        sys.stdout.write(table(argv[1], argv[2]))
        return 0
    if len(argv) == 5 and argv[1] in ("--write", "--check"):
        want = table(argv[2], argv[3])
        head, got, tail = split_doc(argv[4])
        if argv[1] == "--write":
            with open(argv[4], "w", encoding="utf-8") as f:
                f.write(head + want + tail)
            return 0
        if got == want:
            return 0
        sys.stdout.writelines(difflib.unified_diff(got.splitlines(True), want.splitlines(True),
                                                   argv[4], "registry + " + argv[3]))
        return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
