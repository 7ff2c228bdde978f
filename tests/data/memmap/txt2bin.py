#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn a memory-map text file into raw UEFI memory descriptors.

usage: txt2bin.py IN.txt OUT.bin [DESC_SIZE]

Each non-comment line of IN.txt is "TYPE PHYSICAL_START PAGES ATTRIBUTE",
numbers in C notation (0x... for hex).  The output holds one descriptor per
line, DESC_SIZE bytes apart (default 48, as OVMF), laid out as in UEFI 2.10:
u32 Type at 0, u64 PhysicalStart at 8, u64 VirtualStart at 16 (0),
u64 NumberOfPages at 24, u64 Attribute at 32, the rest zero.  Values are
written modulo 2^64, so a line may describe a wrapping range on purpose.
"""
import struct
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    desc_size = int(sys.argv[3], 0) if len(sys.argv) == 4 else 48
    if desc_size < 40:
        sys.exit("descriptor size must be at least 40")
    out = bytearray()
    with open(sys.argv[1]) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) != 4:
                sys.exit("%s:%d: want TYPE START PAGES ATTRIBUTE" % (sys.argv[1], lineno))
            typ, start, pages, attr = (int(x, 0) for x in fields)
            d = struct.pack("<IIQQQQ", typ & 0xffffffff, 0, start & (2**64 - 1), 0,
                            pages & (2**64 - 1), attr & (2**64 - 1))
            out += d + bytes(desc_size - len(d))
    with open(sys.argv[2], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
