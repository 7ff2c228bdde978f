#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mk/pe.py OBJCOPY SO EFI SBAT_CSV VERSION NX_COMPAT SECTION...

The UEFI application EFI (PE32+) from the linked SO: objcopy keeps the
sections named (objcopy -j patterns) and adds ".sbat", the SBAT data of
shim's SBAT.md (SBAT_CSV with @VERSION@ replaced), in a page of its own
after the last kept section: read-only, not executable.  Then the PE
header's DllCharacteristics gets IMAGE_DLLCHARACTERISTICS_NX_COMPAT
(0x0100) when NX_COMPAT is 1 and loses it when 0, and the header checksum
is computed again (PE/COFF's: 16-bit sums with the carry folded, plus the
file's length).  tests/pe.py reads the result.
"""
import fnmatch
import os
import struct
import subprocess
import sys

PAGE = 0x1000
NX_COMPAT = 0x0100


def die(msg):
    sys.stderr.write("ptlab: pe: %s\n" % msg)
    sys.exit(1)


def elf_sections(path):
    """(name, address, size, alloc) of each section of an ELF64 file."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        die("%s is no ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = []
    for h in hdrs:
        end = data.index(b"\0", stroff + h[0])
        name = data[stroff + h[0]:end].decode()
        out.append((name, h[3], h[5], bool(h[2] & 0x2)))
    return out


def pe_checksum(data, at):
    """PE/COFF's image checksum of data, the 4 bytes at @at counted as 0."""
    buf = bytearray(data)
    buf[at:at + 4] = b"\0\0\0\0"
    if len(buf) % 2:
        buf.append(0)
    s = 0
    for (w,) in struct.iter_unpack("<H", bytes(buf)):
        s += w
        s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (s + len(data)) & 0xffffffff


def main(argv):
    if len(argv) < 7:
        die("usage: mk/pe.py OBJCOPY SO EFI SBAT_CSV VERSION NX_COMPAT SECTION...")
    objcopy, so, efi, csv, version, nx = argv[1:7]
    keep = argv[7:]
    if nx not in ("0", "1"):
        die("NX_COMPAT must be 0 or 1, not '%s'" % nx)
    text = open(csv, encoding="ascii").read().replace("@VERSION@", version)
    end = 0
    for name, addr, size, alloc in elf_sections(so):
        if alloc and any(fnmatch.fnmatchcase(name, p) for p in keep):
            end = max(end, addr + size)
    if end == 0:
        die("%s has none of the sections %s" % (so, " ".join(keep)))
    sbat_addr = (end + PAGE - 1) // PAGE * PAGE
    sbat = efi + ".sbat.csv"
    tmp = efi + ".tmp"
    with open(sbat, "w", encoding="ascii") as f:
        f.write(text)
    cmd = [objcopy]
    for p in keep:
        cmd += ["-j", p]
    cmd += ["--add-section", ".sbat=" + sbat,
            "--set-section-flags", ".sbat=contents,alloc,load,readonly,data",
            "--change-section-address", ".sbat=0x%x" % sbat_addr,
            "--target", "efi-app-x86_64", "--subsystem=10", so, tmp]
    r = subprocess.run(cmd)
    os.unlink(sbat)
    if r.returncode:
        die("objcopy failed")
    data = bytearray(open(tmp, "rb").read())
    pe, = struct.unpack_from("<I", data, 0x3c)
    if data[pe:pe + 4] != b"PE\0\0" or struct.unpack_from("<H", data, pe + 24)[0] != 0x20b:
        die("%s: objcopy wrote no PE32+ image" % tmp)
    opt = pe + 24
    dllc, = struct.unpack_from("<H", data, opt + 70)
    dllc = dllc | NX_COMPAT if nx == "1" else dllc & ~NX_COMPAT
    struct.pack_into("<H", data, opt + 70, dllc)
    struct.pack_into("<I", data, opt + 64, pe_checksum(data, opt + 64))
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, efi)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (OSError, UnicodeError, struct.error, ValueError) as e:
        die(str(e))
