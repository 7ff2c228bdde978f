#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a built Limine test kernel before anything boots it.

    check-elf.py pie|static KERNEL.elf [decoy]

- readelf: ELF64 x86-64, type DYN (pie, linked at 0) or EXEC (static,
  linked at 0xffffffff80000000); exactly 3 PT_LOAD segments, page aligned,
  with the flags R E, R, RW in that order, none writable and executable;
  the PIE's relocations are all R_X86_64_RELATIVE, the static one has none.
- the requests: a .limine_requests section that starts with the start
  marker and ends with the end marker, every request between them 8-byte
  aligned; a plain scan of the whole file (8-byte steps, as a loader
  without the section would scan) finds every request identifier exactly
  once, and only inside that section; the base revision tag too.  With
  "decoy", the firmware type request must be outside the section, after
  the end marker (a loader honouring the delimiters ignores it).

Prints what it checked; exits 1 on the first class of failure.
"""
import struct
import subprocess
import sys

COMMON = (0xc7b1dd30df4c8b88, 0x0a82e883a194f07b)
START = (0xf6b8f4b39de7d1ae, 0xfab91a6940fcb9cf, 0x785c6ed015d3e316, 0x181e920a7852b9d9)
END = (0xadc0e0531bb10d03, 0x9572709f31764c62)
BASE_REV = (0xf9562b2d5c95a6c8, 0x6a7b384944536bdc)
# the requests the kernel makes: its own words 3 and 4 of the identifier
REQUESTS = {
    "bootloader info": (0xf55038d8e2a1202f, 0x279426fcf5f59740),
    "firmware type": (0x8c2f75d90bef28a8, 0x7045a4688eac00c3),
    "stack size": (0x224ef0460a8e8926, 0xe1cb0fc25f46ea3d),
    "hhdm": (0x48dcf1cb8ad2b852, 0x63984e959a98244b),
    "framebuffer": (0x9d5827dcd881dd75, 0xa3148604f6fab11b),
    "paging mode": (0x95c1a0edab0944cb, 0xa4e5cb3842f7488a),
    "mp": (0x95a67b819a1b857e, 0xa0b61b723b6a73e0),
    "memmap": (0x67cf3d9d378a806f, 0xe304acdfc50c3c62),
    "entry point": (0x13d86c035a1cd3e1, 0x2b0caa89d8f3026a),
    "executable file": (0xad97e90e83f1ed67, 0x31eb5d1c5ff23b69),
    "module": (0x3e7e279702be32af, 0xca1c4f3bd1280cee),
    "rsdp": (0xc5e77b6b397e7b43, 0x27637845accdcf3c),
    "smbios": (0x9e9046f11e095391, 0xaa4a520fefbde5ee),
    "efi system table": (0x5ceba5163eaaf6d6, 0x0a6981610cf65fcc),
    "efi memmap": (0x7df62a431d6872d5, 0xa4fcdfb3e57306c8),
    "boot time": (0x502746e184c088aa, 0xfbc5ec83e6327893),
    "executable address": (0x71ba76863cc55f63, 0xb2644a48c516a487),
}


def fail(msg):
    print(f"check-elf: FAIL: {msg}")
    sys.exit(1)


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True, capture_output=True,
                          text=True).stdout


def words(data, off, n):
    return struct.unpack_from(f"<{n}Q", data, off) if off + 8 * n <= len(data) else ()


def find_all(data, seq):
    """file offsets, 8-byte steps, where the words of seq start"""
    return [off for off in range(0, len(data) - 8 * len(seq) + 1, 8)
            if words(data, off, len(seq)) == seq]


def main():
    kind, path = sys.argv[1], sys.argv[2]
    decoy = sys.argv[3:] == ["decoy"]
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or struct.unpack_from("<H", data, 18)[0] != 62:
        fail("not an ELF64 x86-64 file")

    hdr = readelf("-h", path)
    want_type = "DYN" if kind == "pie" else "EXEC"
    if f"Type:                              {want_type}" not in hdr:
        fail(f"ELF type is not {want_type}")

    loads = [l.split() for l in readelf("-l", path).splitlines() if l.strip().startswith("LOAD")]
    # LOAD Offset VirtAddr PhysAddr FileSiz MemSiz Flg... Align
    if len(loads) != 3:
        fail(f"{len(loads)} PT_LOAD segments, want 3")
    flags = [" ".join(l[6:-1]) for l in loads]
    if flags != ["R E", "R", "RW"]:
        fail(f"segment flags {flags}, want ['R E', 'R', 'RW']")
    base = int(loads[0][2], 16)
    want_base = 0 if kind == "pie" else 0xffffffff80000000
    if base != want_base:
        fail(f"first segment at {base:#x}, want {want_base:#x}")
    for l in loads:
        if int(l[2], 16) % 4096 or int(l[-1], 16) != 0x1000:
            fail(f"segment at {l[2]} not page aligned (align {l[-1]})")
    ends = [int(l[2], 16) + int(l[5], 16) for l in loads]
    for i in range(2):
        if ends[i] > int(loads[i + 1][2], 16):
            fail("segments share a page")
    dyn = [l for l in readelf("-l", path).splitlines() if l.strip().startswith("DYNAMIC")]
    if len(dyn) != (kind == "pie"):
        fail(f"{len(dyn)} PT_DYNAMIC segments")
    print(f"check-elf: {kind}: {want_type}, 3 segments {flags} page aligned from {base:#x}")

    relocs = [l.split()[2] for l in readelf("-r", path).splitlines()
              if l.strip()[:1] in "0123456789abcdef" and len(l.split()) >= 3 and
              l.split()[2].startswith("R_")]
    if kind == "pie":
        other = sorted(set(r for r in relocs if r != "R_X86_64_RELATIVE"))
        if other or not relocs:
            fail(f"relocations other than R_X86_64_RELATIVE: {other or 'none at all'}")
        print(f"check-elf: {len(relocs)} relocations, all R_X86_64_RELATIVE")
    elif relocs:
        fail(f"a static kernel with {len(relocs)} relocations")

    # the .limine_requests section
    sec = None
    for l in readelf("-S", path).splitlines():
        f = l.replace("[ ", "[").split()
        if len(f) > 5 and f[1] == ".limine_requests":
            sec = (int(f[4], 16), int(f[5], 16))  # file offset, size
    if not sec:
        fail("no .limine_requests section")
    off, size = sec
    if off % 8 or words(data, off, 4) != START or words(data, off + size - 16, 2) != END:
        fail(".limine_requests does not run from the start marker to the end marker")
    print(f"check-elf: .limine_requests at file offset {off:#x}, {size} bytes, "
          "start and end markers at its ends")
    tags = find_all(data, BASE_REV)
    if len(tags) != 1 or not off < tags[0] < off + size - 16:
        fail(f"base revision tag found at {[hex(t) for t in tags]}")
    rev = words(data, tags[0] + 16, 1)[0]
    for name, (a, b) in REQUESTS.items():
        hits = find_all(data, COMMON + (a, b))
        inside = not (name == "firmware type" and decoy)
        if len(hits) != 1 or (off < hits[0] < off + size - 16) != inside:
            fail(f"request '{name}' found {len(hits)} times at {[hex(h) for h in hits]} "
                 f"by the plain scan (want once, {'in' if inside else 'out'}side .limine_requests)")
    for seq in (START, END):
        if len(find_all(data, seq)) != 1:
            fail("a marker appears more than once")
    print(f"check-elf: {len(REQUESTS)} requests and the base revision tag (revision {rev}) "
          "found once each by the plain scan, between the markers"
          f"{' but the firmware type decoy after them' if decoy else ''}")


if __name__ == "__main__":
    main()
