#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare what two boots of one kernel say about the firmware.

    klogcmp.py DOC REFERENCE_LOG PTLAB_LOG

Takes the kernel's log lines (those with a "[ seconds ]" stamp) of two
serial logs that speak of the firmware - matching efi:, DMI:, ACPI:,
SMBIOS, "Secure boot" or secureboot: - without their stamps; the line
listing the EFI configuration tables ("efi: ACPI=0x... SMBIOS=0x...")
counts as one line per table.  Every such line of REFERENCE_LOG (the
kernel booted through its own EFI stub) must be in PTLAB_LOG too, unless
it matches a row of DOC's table of allowed differences: the first table
after the heading "Allowed differences from the EFI stub", whose first
column is a Python regular expression in backticks (searched in the line)
and whose second says why.  A row without a group lets ptlab's boot lack
the line; a row with a group (parentheses) lets only the group's text
differ: ptlab's boot must have a line the row matches too.

Prints every line of the reference that ptlab's boot lacks or has with
another value, with its row, a note for each row that allowed nothing, and
a summary line; exits 0 when nothing is missing but what a row allows, 1
when a line is missing or the reference has no such line at all (it did
not boot as it should), 2 when DOC has no such table or a row's expression
does not compile.
"""

import re
import sys

STAMP = re.compile(r"^\[ *\d+\.\d+\] (.*)$")
ABOUT_FIRMWARE = re.compile(r"efi:|DMI:|ACPI:|SMBIOS|Secure boot|secureboot:")
ANSI = re.compile(r"\x1b\[[0-9;?=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]")
# "efi: ACPI=0x7f77d000 ACPI 2.0=0x7f77d014 SMBIOS=0x7f520000 ..."
TABLES = re.compile(r"^efi: ((?:[A-Za-z0-9. ]+=0x[0-9a-f]+ *)+)$")
TABLE = re.compile(r"([A-Za-z0-9. ]+?)=(0x[0-9a-f]+)")
HEADING = "Allowed differences from the EFI stub"


def firmware_lines(path):
    """The kernel's lines about the firmware in a serial log, in order, once each."""
    with open(path, "rb") as f:
        text = f.read().decode("latin-1")
    out = []
    for raw in ANSI.sub("", text).replace("\0", "").replace("\r", "").split("\n"):
        m = STAMP.match(raw)
        if not m:
            continue
        line = m.group(1).rstrip()
        if not ABOUT_FIRMWARE.search(line):
            continue
        t = TABLES.match(line)
        items = [f"efi: {k.strip()}={v}" for k, v in TABLE.findall(t.group(1))] if t else [line]
        for item in items:
            if item not in out:
                out.append(item)
    return out


def allowed_rows(path):
    """(regex, reason) for each row of DOC's table; exits 2 if there is none."""
    rows = []
    state = "before"
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if state == "before":
                if line.startswith("#") and HEADING in line:
                    state = "heading"
                continue
            if not line.startswith("|"):
                if state == "table":
                    break
                continue
            state = "table"
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2 or set(cells[0]) <= set("-: "):
                continue
            m = re.fullmatch(r"`(.+)`", cells[0])
            if not m:
                continue        # the header row
            try:
                rows.append((re.compile(m.group(1)), cells[1]))
            except re.error as e:
                print(f"klogcmp: {path}: row `{m.group(1)}`: {e}")
                sys.exit(2)
    if state != "table":
        print(f"klogcmp: {path}: no table after a heading '{HEADING}'")
        sys.exit(2)
    return rows


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = allowed_rows(argv[1])
    ref = firmware_lines(argv[2])
    ours = firmware_lines(argv[3])
    have = set(ours)
    used = [0] * len(rows)
    missing = allowed = 0
    for line in ref:
        if line in have:
            continue
        row = next((i for i, (rx, _) in enumerate(rows) if rx.search(line)), None)
        if row is None:
            missing += 1
            print(f"klogcmp: missing under ptlab: {line}")
            continue
        rx, why = rows[row]
        if rx.groups:
            # only the group's text may differ: the line must be there
            other = next((o for o in ours if rx.search(o)), None)
            if other is None:
                missing += 1
                print(f"klogcmp: missing under ptlab (its value may differ, "
                      f"not the line): {line}  ({why})")
                continue
            allowed += 1
            used[row] += 1
            print(f"klogcmp: differs: {line} -> {other}  ({why})")
            continue
        allowed += 1
        used[row] += 1
        print(f"klogcmp: allowed: {line}  ({why})")
    for i, (rx, _) in enumerate(rows):
        if not used[i]:
            print(f"klogcmp: note: the row `{rx.pattern}` allowed nothing in this boot")
    print(f"klogcmp: {len(ref)} lines of the reference about the firmware: "
          f"{len(ref) - missing - allowed} under ptlab too, {allowed} allowed, {missing} missing")
    return 1 if missing or not ref else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
