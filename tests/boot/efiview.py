#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judge what a kernel booted by ptlab says of the firmware's tables and
boot-services memory against what ptlab passed it.

    efiview.py LOG              judge one hand-off's serial log
    efiview.py tables LOG       only its tables (a kernel booted with
                                efi=noruntime frees no boot-services memory)
    efiview.py memattr LOG      print the kernel's MEMATTR address (exit 1
                                when its list has none)

For LOG, two judgements, each a line "ok: ..." or "FAIL: ..." (exit 1 when
one fails):

- tables: the kernel's list of EFI configuration tables ("efi: ACPI=0x...
  MEMATTR=0x...") against ptlab's "# linux-tables:" fact, read from the
  system table after ExitBootServices: every table ptlab names is in the
  kernel's list at the same address, and every table of the kernel's list
  that ptlab has a name for is one of ptlab's.
- freed: the kernel's "efi: Freeing EFI boot services memory: NK" against
  ptlab's "# linux-bootsvc:" fact: the boot-services code and data of the
  final map at or above 1 MiB, less the part of the descriptor holding the
  Memory Attributes Table at or above 1 MiB.  The kernel reserves the table
  (boot-services data) before it decides what to free, and a descriptor
  with a reservation in it is kept whole (arch/x86/platform/efi/quirks.c:
  efi_reserve_boot_services tags it EFI_MEMORY_RUNTIME).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

import klogcmp  # noqa: E402
import report   # noqa: E402

# the kernel's names of the tables ptlab names (drivers/firmware/efi/efi.c)
KERNEL_NAME = {
    "acpi20": "ACPI 2.0",
    "acpi": "ACPI",
    "smbios": "SMBIOS",
    "smbios3": "SMBIOS 3.0",
    "mat": "MEMATTR",
    "rt_properties": "RTPROP",
}
FREED = re.compile(r"^efi: Freeing EFI boot services memory: (\d+)K$")
BS_TYPES = (3, 4)       # EfiBootServicesCode, EfiBootServicesData
LOW = 1 << 20


def kernel_tables(lines):
    """name -> address of the kernel's list of configuration tables."""
    out = {}
    for line in lines:
        m = re.fullmatch(r"efi: ([A-Za-z0-9. ]+)=(0x[0-9a-f]+)", line)
        if m:
            out[m.group(1)] = int(m.group(2), 16)
    return out


def judge_tables(r, kt):
    fact = r.facts_all("linux-tables")
    if not fact:
        return False, "no '# linux-tables:' fact"
    ours = {KERNEL_NAME[k]: v for k, v in fact[-1].items() if k in KERNEL_NAME}
    bad = [f"{n}: ptlab 0x{v:x}, kernel {hex(kt[n]) if n in kt else 'none'}"
           for n, v in ours.items() if kt.get(n) != v]
    bad += [f"{n}=0x{v:x} in the kernel's list, not ptlab's" for n, v in kt.items()
            if n in KERNEL_NAME.values() and n not in ours]
    listed = " ".join(f"{n}=0x{v:x}" for n, v in ours.items())
    if bad or not ours:
        return False, f"tables: {'; '.join(bad) or 'ptlab named none'}"
    return True, (f"tables: the kernel's configuration tables are those ptlab read from the "
                  f"system table ({listed}; {fact[-1].get('other', '?')} others)")


def judge_freed(r, lines):
    bs = r.fact("linux-bootsvc")
    if "above_1m_kib" not in bs:
        return False, "no '# linux-bootsvc:' fact"
    kept = 0
    if "mat_desc" in bs:
        m = re.fullmatch(r"(0x[0-9a-f]+)-(0x[0-9a-f]+)", str(r.value("linux-bootsvc", "mat_desc",
                                                                     raw=True)))
        if not m:
            return False, "a '# linux-bootsvc:' mat_desc that is no range"
        start, end = int(m.group(1), 16), int(m.group(2), 16) + 1
        if bs.get("mat_desc_type") in BS_TYPES and end > LOW:
            kept = (end - max(start, LOW)) >> 10
    want = bs["above_1m_kib"] - kept
    got = [int(m.group(1)) for m in (FREED.match(x) for x in lines) if m]
    if got != [want]:
        return False, (f"freed: the kernel freed {got or 'nothing'} KiB, expected {want} KiB "
                       f"(boot-services memory above 1 MiB {bs['above_1m_kib']} KiB less the "
                       f"MAT's descriptor {kept} KiB)")
    return True, (f"freed: the kernel freed {want} KiB of boot-services memory: the "
                  f"{bs['above_1m_kib']} KiB above 1 MiB of the map ptlab passed, less the "
                  f"{kept} KiB of the descriptor holding the Memory Attributes Table")


def main(argv):
    if len(argv) == 3 and argv[1] == "memattr":
        kt = kernel_tables(klogcmp.firmware_lines(argv[2]))
        if "MEMATTR" not in kt:
            return 1
        print(f"0x{kt['MEMATTR']:x}")
        return 0
    only_tables = len(argv) == 3 and argv[1] == "tables"
    if len(argv) != 2 and not only_tables:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    lines = klogcmp.firmware_lines(argv[-1])
    r = report.parse_file(argv[-1])
    judged = [judge_tables(r, kernel_tables(lines))]
    if not only_tables:
        judged.append(judge_freed(r, lines))
    bad = 0
    for ok, what in judged:
        print(("ok: " if ok else "FAIL: ") + what)
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
