#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The "Which fault proves which check" table of docs/faults.md, made from
tests/boot/faults.tsv.  In the markdown file the table stands between the
comment lines "<!-- faults table: ... -->" and "<!-- end of the faults
table -->"; --write replaces only what is between them.

  faulttable.py TSV               print the table (markdown)
  faulttable.py --write TSV DOC   replace the table in DOC between its markers
  faulttable.py --check TSV DOC   exit 1 (with a diff) when DOC's table differs

DOC is docs/faults.md.
"""

import difflib
import sys

BEGIN = "<!-- faults table: tools/faulttable.py makes it from tests/boot/faults.tsv -->"
END = "<!-- end of the faults table -->"


def rows(path):
    """The table's rows as (kind, fields), comments and blank lines left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            want = {"run": 5, "check": 7, "suite": 6, "record": 4}.get(fields[0])
            if want is None or len(fields) != want or any(not x for x in fields):
                raise SystemExit(f"{path}:{n}: a '{fields[0]}' row needs {want} non-empty "
                                 f"tab-separated fields: {line!r}")
            out.append((fields[0], fields[1:]))
    return out


def cell(text):
    return text.replace("|", "\\|")


def table(path):
    rs = rows(path)
    runs = {f[0]: f for k, f in rs if k == "run"}
    lines = [
        "| check | fault | what it breaks | shown by |",
        "|---|---|---|---|",
    ]
    for kind, f in rs:
        if kind == "check":
            name, _ere, rl, inject, _as, what = f
            where = ", ".join(
                f"`{r}`" + (" (" + runs[r][1] + ")" if r in runs and runs[r][1] != "-" else "")
                for r in rl.split(","))
            lines.append(f"| {cell(name)} | `--inject={inject}` | {cell(what)} | "
                         f"faults.sh {where} |")
        elif kind == "suite":
            name, _ere, file, needle, what = f
            lines.append(f"| {cell(name)} | `{cell(needle)}` | {cell(what)} | `{file}` |")
        elif kind == "record":
            name, _ere, why = f
            lines.append(f"| {cell(name)} | none | {cell(why)} | - |")
    return "\n".join(lines) + "\n"


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
    if len(argv) == 2:
        sys.stdout.write(table(argv[1]))
        return 0
    if len(argv) == 4 and argv[1] in ("--write", "--check"):
        want = table(argv[2])
        head, got, tail = split_doc(argv[3])
        if argv[1] == "--write":
            with open(argv[3], "w", encoding="utf-8") as f:
                f.write(head + want + tail)
            return 0
        if got == want:
            return 0
        sys.stdout.writelines(difflib.unified_diff(got.splitlines(True), want.splitlines(True),
                                                   argv[3], argv[2]))
        return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
