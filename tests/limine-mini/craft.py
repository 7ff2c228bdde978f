#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Crafted ELF files a Limine-protocol loader must refuse, one per case:
python3 craft.py CASE OUT.  Each is a small ELF64 file with exactly the
one defect its case names (tests/boot/limine-refuse.sh boots them)."""
import struct
import sys

BASE = 0xffffffff80000000
PF_X, PF_W, PF_R = 1, 2, 4
PT_LOAD, PT_DYNAMIC = 1, 2
MAGIC = struct.pack("<QQ", 0xc7b1dd30df4c8b88, 0x0a82e883a194f07b)      # a request's common magic
BASE_REV = struct.pack("<QQ", 0xf9562b2d5c95a6c8, 0x6a7b384944536bdc)   # the base revision tag's
STACK_ID = struct.pack("<QQ", 0x224ef0460a8e8926, 0xe1cb0fc25f46ea3d)   # the stack size request's
CODE = bytes([0xb0, 0x31, 0xe6, 0xf4, 0xfa, 0xf4, 0xeb, 0xfd])  # out 0x31 to 0xf4; cli; hlt


def elf(segs, machine=62, etype=2, entry=BASE, size=0x3000, extra=()):
    """segs: (type, flags, offset, vaddr, filesz, memsz, data) tuples."""
    out = bytearray(size)
    phnum = len(segs)
    out[0:64] = struct.pack("<4sBBBBB7xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, etype,
                            machine, 1, entry, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
    for i, (t, f, off, va, fs, ms, data) in enumerate(segs):
        out[64 + 56 * i:120 + 56 * i] = struct.pack("<IIQQQQQQ", t, f, off, va, va, fs, ms, 0x1000)
        if data and off + len(data) <= size:
            out[off:off + len(data)] = data
    for off, data in extra:
        out[off:off + len(data)] = data
    return bytes(out)


def text(va=BASE, off=0x1000, fs=0x1000, ms=0x1000, flags=PF_R | PF_X):
    return (PT_LOAD, flags, off, va, fs, ms, CODE)


def case(name):
    if name == "arm":        # built for AArch64 (EM_AARCH64 183)
        return elf([text()], machine=183)
    if name == "low":        # a segment 64 KiB below the kernel window
        return elf([text(va=BASE - 0x10000)], entry=BASE - 0x10000)
    if name == "overlap":    # a data segment over the text's second page
        return elf([text(fs=0x2000, ms=0x2000), (PT_LOAD, PF_R | PF_W, 0x2000, BASE + 0x1000,
                                                  0x1000, 0x1000, b"")], size=0x4000)
    if name == "pastfile":   # 64 KiB of file bytes in a 12 KiB file
        return elf([text(fs=0x10000, ms=0x10000)])
    if name == "huge":       # 768 MiB of memory (bss), more than a 512 MiB machine has free
        return elf([text(), (PT_LOAD, PF_R | PF_W, 0x2000, BASE + 0x1000, 0x1000, 0x30000000,
                             b"")])
    if name == "wx":         # one writable and executable segment
        return elf([text(flags=PF_R | PF_W | PF_X)])
    if name == "rel":        # position-independent, with an R_X86_64_64 relocation
        dyn = struct.pack("<QQQQQQQQ", 7, 0x1100, 8, 24, 9, 24, 0, 0)   # DT_RELA, RELASZ, RELAENT
        rela = struct.pack("<QQq", 0x1200, 1, 0)                        # r_info type 1
        return elf([text(va=0, off=0x1000), (PT_LOAD, PF_R | PF_W, 0x2000, 0x1000, 0x1000, 0x1000,
                                              b""), (PT_DYNAMIC, PF_R | PF_W, 0x2000, 0x1000,
                                                     len(dyn), len(dyn), b"")],
                   etype=3, entry=0, extra=((0x2000, dyn), (0x2100, rela)))
    # kernels ptlab must boot or refuse for what they ask (issue 45): one RX segment each,
    # their requests inside it after the code
    if name == "noreq":      # no request, no base revision tag: the smallest legal kernel
        return elf([text()])
    if name == "unknown":    # the base revision tag and a request of an identifier nobody knows
        return elf([text()], extra=((0x1100, BASE_REV + struct.pack("<Q", 2)),
                                    (0x1200, MAGIC + struct.pack("<QQQQ", 1, 2, 0, 0))))
    if name.startswith("stack-"):   # stack-HEX: a stack size request of 0xHEX bytes
        req = MAGIC + STACK_ID + struct.pack("<QQQ", 0, 0, int(name[6:], 16))
        return elf([text()], extra=((0x1100, req),))
    raise SystemExit("craft.py: unknown case " + name)


if __name__ == "__main__":
    open(sys.argv[2], "wb").write(case(sys.argv[1]))
