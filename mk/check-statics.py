#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that efi/ keeps no run state outside struct ptlab.

  mk/check-statics.py LIST SRC OBJ [OBJDUMP]

LIST     mk/statics.txt: the writable objects efi/ may define at file
         scope (or as static locals), one per line: "FILE SYMBOL KIND WHY"
SRC      the source tree (efi/)
OBJ      its firmware objects ($(BUILD)/efi/efi/), FILE.o beside FILE
OBJDUMP  the objdump program (default: objdump)

Every object of a writable section (.data, .bss and their relocated
variants; not .rodata, not .data.rel.ro) that a source of SRC defines must
be in LIST, and every line of LIST must name one (no stale line).  KIND
says why it may live outside the run's state, and only these kinds are
accepted:
  hardware  memory the CPU itself reads or that every CPU must reach at a
            fixed place whatever CR3 holds (GDT, IDT, TSS, stacks, the APs'
            shared page)
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
from tapcheck import Checks  # noqa: E402

KINDS = {"hardware", "device", "firmware", "run"}
WRITABLE = re.compile(r"^\.(bss|data|data\.rel|data\.rel\.local|tbss|tdata)(\..*)?$")
READ_ONLY = re.compile(r"^\.data\.rel\.ro(\..*)?$")

CHECKS = Checks('statics')
check = CHECKS.check


def writable_objects(objdump, path):
    """Names of the data objects @path defines in writable sections."""
    res = subprocess.run([objdump, "-t", path], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s -t %s: %s" % (objdump, path, res.stderr.strip()))
    names = set()
    for line in res.stdout.splitlines():
        # VALUE FLAGS(7 chars) SECTION SIZE NAME
        m = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+\s+(?:\.hidden\s+)?(\S+)$", line)
        if not m:
            continue
        flags, section, name = m.groups()
        if "O" not in flags and section != "*COM*":
            continue
        if section == "*COM*" or (WRITABLE.match(section) and not READ_ONLY.match(section)):
            names.add(re.sub(r"\.\d+$", "", name))
    return names


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    list_path, src, obj = argv[1:4]
    objdump = argv[4] if len(argv) == 5 else "objdump"

    allowed = {}
    errors = []
    with open(list_path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
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
            for sym in writable_objects(objdump, o):
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
