#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/pe.py [--nx 0|1] [--root DIR] IMAGE...

Reads each built UEFI image (PE32+) with a reader of its own, not the
build's (mk/pe.py), and checks what firmware and shim judge it by:

  - SectionAlignment is the 4 KiB page; every section starts on a page
    and on a FileAlignment boundary in the file, the sections in address
    order without overlap, SizeOfImage the end of the last one's pages;
  - no section is both writable and executable (IMAGE_SCN_MEM_WRITE and
    IMAGE_SCN_MEM_EXECUTE);
  - exactly one ".sbat", read-only and not executable, in pages no other
    section shares; its contents, read as CSV (shim's SBAT.md), are the
    "sbat,1,..." line and a "ptlab" line whose generation is the one of
    mk/sbat.csv and whose version is PTLAB_VERSION of mk/install.mk,
    every line six fields, each component once;
  - DllCharacteristics has NX_COMPAT (0x0100) exactly when --nx says the
    build declares it (make's NX_COMPAT);
  - the header checksum is PE/COFF's (unsigned images: sbsign writes its
    own over the signed one, which is checked the same way);
  - objdump -p and -h, read separately, agree on DllCharacteristics,
    SectionAlignment and the section names.

Then it proves that every check can fail: copies of the first image, each
broken in one way in memory (a W+X section, a section off its page, a
512-byte SectionAlignment, a writable .sbat, no .sbat, a wrong generation,
a wrong first SBAT line, the NX bit flipped, a wrong checksum, a .sbat
sharing its page), must each be refused with the expected reason.

Prints "ok - pe: ..." / "not ok - pe: ..." lines and "pe: N passed, M failed".
"""
import csv
import io
import os
import re
import struct
import subprocess
import sys

PAGE = 0x1000
SCN_EXECUTE = 0x20000000
SCN_READ = 0x40000000
SCN_WRITE = 0x80000000
NX_COMPAT = 0x0100
SBAT_HEAD = ["sbat", "1", "SBAT Version", "sbat", "1",
             "https://github.com/rhboot/shim/blob/main/SBAT.md"]


class Pe:
    """The headers and section table of a PE32+ image in bytes."""

    def __init__(self, data):
        self.data = data
        if data[:2] != b"MZ":
            raise ValueError("no MZ header")
        self.pe, = struct.unpack_from("<I", data, 0x3c)
        if data[self.pe:self.pe + 4] != b"PE\0\0":
            raise ValueError("no PE signature")
        self.nsec, = struct.unpack_from("<H", data, self.pe + 6)
        optsize, = struct.unpack_from("<H", data, self.pe + 20)
        self.opt = self.pe + 24
        if struct.unpack_from("<H", data, self.opt)[0] != 0x20b:
            raise ValueError("not PE32+")
        self.sect_align, self.file_align = struct.unpack_from("<II", data, self.opt + 32)
        self.size_image, self.size_headers, self.checksum = \
            struct.unpack_from("<III", data, self.opt + 56)
        self.dllchar, = struct.unpack_from("<H", data, self.opt + 70)
        self.sections = []
        at = self.opt + optsize
        for i in range(self.nsec):
            name, vsize, va, rawsize, rawptr = struct.unpack_from("<8sIIII", data, at + 40 * i)
            flags, = struct.unpack_from("<I", data, at + 40 * i + 36)
            self.sections.append({"name": name.rstrip(b"\0").decode("latin-1"), "vsize": vsize,
                                  "va": va, "rawsize": rawsize, "rawptr": rawptr,
                                  "flags": flags, "hdr": at + 40 * i})


def checksum(data, at):
    """PE/COFF's image checksum, the 4 bytes at @at taken as zero."""
    total = 0
    for off in range(0, len(data) - len(data) % 2, 2):
        word = 0 if at <= off < at + 4 else data[off] | data[off + 1] << 8
        total += word
        total = (total & 0xffff) + (total >> 16)
    if len(data) % 2:
        total += data[-1]
        total = (total & 0xffff) + (total >> 16)
    return (total + len(data)) & 0xffffffff


def up(x, a):
    return (x + a - 1) // a * a


def sbat_rows(pe, sec):
    """The CSV rows of .sbat: its bytes up to VirtualSize, NULs at the end dropped."""
    raw = pe.data[sec["rawptr"]:sec["rawptr"] + min(sec["vsize"], sec["rawsize"])]
    text = raw.rstrip(b"\0").decode("ascii")
    return [r for r in csv.reader(io.StringIO(text)) if r]


def judge(pe, nx, gen, version, signed):
    """The reasons the image is wrong (empty when it is right), each 'KIND: text'."""
    bad = []
    if pe.sect_align != PAGE:
        bad.append("align: SectionAlignment 0x%x, not 0x%x" % (pe.sect_align, PAGE))
    if pe.file_align < 512 or pe.file_align & (pe.file_align - 1):
        bad.append("align: FileAlignment 0x%x" % pe.file_align)
    end = 0
    for s in pe.sections:
        if s["va"] % PAGE:
            bad.append("align: %s at 0x%x is not on a page" % (s["name"], s["va"]))
        if s["rawsize"] and s["rawptr"] % pe.file_align:
            bad.append("align: %s at file offset 0x%x is not on FileAlignment" %
                       (s["name"], s["rawptr"]))
        if s["va"] < end:
            bad.append("align: %s at 0x%x overlaps or precedes the section before (end 0x%x)" %
                       (s["name"], s["va"], end))
        end = max(end, s["va"] + max(s["vsize"], 1))
        if s["flags"] & SCN_WRITE and s["flags"] & SCN_EXECUTE:
            bad.append("wx: %s is writable and executable (0x%08x)" % (s["name"], s["flags"]))
    if pe.size_image != up(end, PAGE):
        bad.append("align: SizeOfImage 0x%x, the sections end at 0x%x" % (pe.size_image, end))
    sbats = [s for s in pe.sections if s["name"] == ".sbat"]
    if len(sbats) != 1:
        bad.append("sbat: %d .sbat sections" % len(sbats))
    else:
        s = sbats[0]
        if s["flags"] & (SCN_WRITE | SCN_EXECUTE) or not s["flags"] & SCN_READ:
            bad.append("sbat: .sbat is not read-only data (0x%08x)" % s["flags"])
        lo, hi = s["va"] // PAGE, up(s["va"] + s["vsize"], PAGE) // PAGE
        for o in pe.sections:
            if o is not s and o["va"] // PAGE < hi and up(o["va"] + o["vsize"], PAGE) // PAGE > lo:
                bad.append("sbat: %s shares a page with .sbat" % o["name"])
        try:
            rows = sbat_rows(pe, s)
        except (UnicodeDecodeError, csv.Error) as e:
            rows = None
            bad.append("sbat: .sbat is no ASCII CSV: %s" % e)
        if rows is not None:
            if not rows or rows[0] != SBAT_HEAD:
                bad.append("sbat: first line %s, not %s" % (rows[:1], SBAT_HEAD))
            names = [r[0] for r in rows]
            for r in rows:
                if len(r) != 6 or not r[1].isdigit() or int(r[1]) < 1:
                    bad.append("sbat: line %s: not six fields with a generation >= 1" % r)
            if len(set(names)) != len(names):
                bad.append("sbat: a component twice: %s" % names)
            mine = [r for r in rows if r[0] == "ptlab"]
            if len(mine) != 1:
                bad.append("sbat: %d ptlab lines" % len(mine))
            elif mine[0][1] != gen or mine[0][4] != version:
                bad.append("sbat: ptlab line %s: generation %s version %s expected" %
                           (mine[0], gen, version))
    has_nx = bool(pe.dllchar & NX_COMPAT)
    if has_nx != nx:
        bad.append("nx: DllCharacteristics 0x%04x: NX_COMPAT %s, the build says NX_COMPAT=%d" %
                   (pe.dllchar, "set" if has_nx else "clear", nx))
    want = checksum(pe.data, pe.opt + 64)
    if pe.checksum != want:
        bad.append("checksum: header 0x%x, the image's 0x%x%s" %
                   (pe.checksum, want, " (signed)" if signed else ""))
    return bad


def objdump_view(path):
    """DllCharacteristics, SectionAlignment and the section names as objdump reads them."""
    p = subprocess.run(["objdump", "-p", "-h", path], capture_output=True, text=True)
    if p.returncode:
        return None
    dll = re.search(r"^DllCharacteristics\s+([0-9a-f]+)", p.stdout, re.M)
    sal = re.search(r"^SectionAlignment\s+([0-9a-f]+)", p.stdout, re.M)
    names = re.findall(r"^\s+\d+ (\.\S+)\s+[0-9a-f]{8} ", p.stdout, re.M)
    if not dll or not sal:
        return None
    return int(dll.group(1), 16), int(sal.group(1), 16), names


def project_values(root):
    """(generation, version): mk/sbat.csv's ptlab line and mk/install.mk's PTLAB_VERSION."""
    gen = None
    with open(os.path.join(root, "mk/sbat.csv"), encoding="ascii") as f:
        for r in csv.reader(f):
            if r and r[0] == "ptlab":
                gen = r[1]
    with open(os.path.join(root, "mk/install.mk"), encoding="ascii") as f:
        m = re.search(r"^PTLAB_VERSION\s*:?=\s*(\S+)", f.read(), re.M)
    return gen, m.group(1) if m else None


def breakages(data):
    """(name, reason kind, broken copy of data): one fault each."""
    pe = Pe(data)
    out = []

    def copy():
        return bytearray(data)

    def fix_sum(b):
        p = Pe(bytes(b))
        struct.pack_into("<I", b, p.opt + 64, checksum(bytes(b), p.opt + 64))
        return b

    text = next(s for s in pe.sections if s["flags"] & SCN_EXECUTE)
    b = copy()
    struct.pack_into("<I", b, text["hdr"] + 36, text["flags"] | SCN_WRITE)
    out.append(("a writable %s" % text["name"], "wx", fix_sum(b)))
    b = copy()
    struct.pack_into("<I", b, pe.sections[-1]["hdr"] + 12, pe.sections[-1]["va"] + 0x200)
    out.append(("the last section 0x200 off its page", "align", fix_sum(b)))
    b = copy()
    struct.pack_into("<I", b, pe.opt + 32, 0x200)
    out.append(("SectionAlignment 0x200", "align", fix_sum(b)))
    sbat = next((s for s in pe.sections if s["name"] == ".sbat"), None)
    if sbat is None:
        return out
    b = copy()
    struct.pack_into("<I", b, sbat["hdr"] + 36, sbat["flags"] | SCN_WRITE)
    out.append(("a writable .sbat", "sbat", fix_sum(b)))
    b = copy()
    b[sbat["hdr"]:sbat["hdr"] + 8] = b".sbax\0\0\0"
    out.append(("no .sbat (renamed)", "sbat", fix_sum(b)))
    raw = bytes(data[sbat["rawptr"]:sbat["rawptr"] + sbat["vsize"]])
    m = re.search(rb"\nptlab,([0-9]+),", raw)
    if m:
        b = copy()
        wrong = str(int(m.group(1)) + 1).encode()
        new = raw[:m.start(1)] + wrong + raw[m.end(1):]
        b[sbat["rawptr"]:sbat["rawptr"] + len(new)] = new
        if len(new) != len(raw):
            struct.pack_into("<I", b, sbat["hdr"] + 8, len(new))
        out.append(("generation %s in .sbat" % wrong.decode(), "sbat", fix_sum(b)))
    b = copy()
    b[sbat["rawptr"]:sbat["rawptr"] + 4] = b"sbaT"
    out.append(("a wrong first SBAT line", "sbat", fix_sum(b)))
    b = copy()
    prev = max((s for s in pe.sections if s["va"] < sbat["va"]), key=lambda s: s["va"])
    struct.pack_into("<I", b, prev["hdr"] + 8, sbat["va"] - prev["va"] + 8)
    out.append(("%s reaching into .sbat's page" % prev["name"], "sbat", fix_sum(b)))
    b = copy()
    dll, = struct.unpack_from("<H", b, pe.opt + 70)
    struct.pack_into("<H", b, pe.opt + 70, dll ^ NX_COMPAT)
    out.append(("the NX_COMPAT bit flipped", "nx", fix_sum(b)))
    b = copy()
    struct.pack_into("<I", b, pe.opt + 64, pe.checksum ^ 0x10)
    out.append(("a wrong checksum", "checksum", b))
    return out


def main(argv):
    nx, root, images = 0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."), []
    args = argv[1:]
    while args:
        if args[0] == "--nx" and len(args) > 1 and args[1] in ("0", "1"):
            nx, args = int(args[1]), args[2:]
        elif args[0] == "--root" and len(args) > 1:
            root, args = args[1], args[2:]
        elif args[0].startswith("-"):
            print(__doc__.strip(), file=sys.stderr)
            return 2
        else:
            images.append(args[0])
            args = args[1:]
    if not images:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    passed = failed = 0

    def result(good, text):
        nonlocal passed, failed
        if good:
            passed += 1
            print("ok - pe: " + text)
        else:
            failed += 1
            print("not ok - pe: " + text)

    gen, version = project_values(root)
    result(gen is not None and gen.isdigit() and version is not None,
           "mk/sbat.csv's generation %s, mk/install.mk's version %s" % (gen, version))
    first = None
    for path in images:
        name = os.path.basename(path)
        try:
            data = open(path, "rb").read()
            pe = Pe(data)
        except (OSError, ValueError, struct.error) as e:
            result(False, "%s: not a PE32+ image: %s" % (path, e))
            continue
        first = first or data
        signed = "signed" in name
        bad = judge(pe, bool(nx), gen, version, signed)
        kinds = ("align", "wx", "sbat", "nx", "checksum")
        what = {"align": "SectionAlignment 4 KiB, every section on a page and FileAlignment",
                "wx": "no section writable and executable",
                "sbat": ".sbat read-only in its own page: sbat,1 and ptlab,%s,...,%s" % (gen, version),
                "nx": "NX_COMPAT %s as the build says (NX_COMPAT=%d)" % ("set" if nx else "clear", nx),
                "checksum": "the header checksum is the image's"}
        for k in kinds:
            mine = [b for b in bad if b.startswith(k + ":")]
            result(not mine, "%s: %s%s" % (name, what[k], "".join("; " + m for m in mine)))
        od = objdump_view(path)
        ours = (pe.dllchar, pe.sect_align, [s["name"] for s in pe.sections])
        result(od == ours, "%s: objdump reads DllCharacteristics 0x%04x, SectionAlignment 0x%x "
               "and sections %s alike%s" % (name, pe.dllchar, pe.sect_align, " ".join(ours[2]),
                                           "" if od == ours else " (objdump: %s)" % (od,)))
    if first is None:
        result(False, "no image to break")
    else:
        good = judge(Pe(first), bool(nx), gen, version, False)
        for what, kind, broken in breakages(first):
            bad = judge(Pe(bytes(broken)), bool(nx), gen, version, False)
            new = [b for b in bad if b not in good]
            hit = [b for b in new if b.startswith(kind + ":")]
            result(bool(hit), "refused: %s (%s)" % (what, hit[0] if hit else "not caught: %s" % new))
    print("pe: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
