#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that efi/ keeps no run state outside struct ptlab.

  mk/check-statics.py LIST SRC OBJ [READELF]

LIST     mk/statics.txt: the writable objects efi/ may define at file
         scope (or as static locals), one per line: "FILE SYMBOL KIND WHY"
SRC      the source tree (efi/)
OBJ      its firmware objects ($(BUILD)/efi/efi/), FILE.o beside FILE
READELF  the readelf program (default: readelf)

Every symbol a source of SRC defines in a section the program may write
(allocated and writable by the section's flags, whatever its name; not
.data.rel.ro, which holds const data the loader relocates), a label of an
assembly file included, must be in LIST, and every line of LIST must name one (no stale line).  KIND
says why it may live outside the run's state, and only these kinds are
accepted:
  hardware  memory the CPU itself reads (GDT, IDT, TSS, IST stacks)
  fixed     run state that must sit at one place because code that has no
            pointer to the run reaches it: the exception handler, the APs
            under any CR3 (the fatal path's record, the SMP shared page)
  device    what is known of a device (the serial port, the consoles)
  firmware  handles and data the firmware gave or owns (system table,
            image handle, open files, its allocations, its variables)
  run       the run's state itself: the one struct ptlab and its report
Run state in any other object is refused.  A static local (NAME.N) is
listed by NAME.

Prints "ok - ..." / "not ok - ..." lines and "statics: N passed, M failed".
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tapcheck import Checks, table_lines  # noqa: E402

KINDS = {"hardware", "fixed", "device", "firmware", "run"}

CHECKS = Checks('statics')
check = CHECKS.check


def writable_objects(readelf, path):
    """Names of the symbols @path defines in sections the program may write."""
    def run(opt):
        res = subprocess.run([readelf, opt, path], capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError("%s %s %s: %s" % (readelf, opt, path, res.stderr.strip()))
        return res.stdout.splitlines()

    # by the section's flags, not its name: any allocated, writable section
    # but .data.rel.ro (const data the loader relocates)
    writable = set()
    for line in run("-SW"):
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+([A-Za-z]*)\s", line)
        if m and "W" in m.group(3) and "A" in m.group(3) and \
                not m.group(2).startswith(".data.rel.ro"):
            writable.add(m.group(1))
    names = set()
    for line in run("-sW"):
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name; labels of .S files too (NOTYPE)
        if len(f) < 8 or not f[0].endswith(":") or f[3] in ("SECTION", "FILE"):
            continue
        if (f[6] in writable or f[6] == "COM") and not f[7].startswith(".L"):
            names.add(re.sub(r"\.\d+$", "", f[7]))
    return names


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    list_path, src, obj = argv[1:4]
    readelf = argv[4] if len(argv) == 5 else "readelf"

    allowed = {}
    errors = []
    for n, line, _raw in table_lines(list_path):
        fields = line.split(None, 3)
        if len(fields) < 4:
            errors.append("%s:%d: not 'FILE SYMBOL KIND WHY'" % (list_path, n))
            continue
        fname, sym, kind, _why = fields
        if kind not in KINDS:
            errors.append("%s:%d: %s %s: kind '%s' is none of %s"
                          % (list_path, n, fname, sym, kind, ", ".join(sorted(KINDS))))
        if (fname, sym) in allowed:
            errors.append("%s:%d: %s %s listed twice" % (list_path, n, fname, sym))
        allowed[(fname, sym)] = kind
    check(not errors, "%s parses, every kind is one of %s" % (list_path, ", ".join(sorted(KINDS))),
          errors)

    found = set()
    missing = []
    for root, _dirs, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".S")):
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            o = os.path.join(obj, rel + ".o")
            if not os.path.exists(o):
                missing.append(o)
                continue
            for sym in writable_objects(readelf, o):
                found.add((rel, sym))
    check(not missing, "every source of %s has its object" % src, missing)

    unlisted = sorted(found - set(allowed))
    check(not unlisted, "no writable object outside struct ptlab but those %s lists" % list_path,
          ["%s: %s (run state belongs in struct ptlab or a context passed down)" % fs
           for fs in unlisted])
    stale = sorted(set(allowed) - found)
    check(not stale, "every line of %s names a writable object that exists" % list_path,
          ["%s %s" % fs for fs in stale])

    return CHECKS.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
