#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert an 8x16 PCF bitmap font (X11 Portable Compiled Format, as
xfonts-terminus ships it) into the C tables efi/report/font8x16.c includes.

    pcf2c.py FONT.pcf[.gz] OUT.inc

Writes fbcon_font8x16[FBCON_LAST - FBCON_FIRST + 1][16] (bit 7 = leftmost
pixel) for the font's encodings FBCON_FIRST..FBCON_LAST, rows placed by
the font's ascent; codes without a glyph (and the C1 controls) get the
box.  Fails on a font whose cells are not 8x16, or that lacks a glyph for
a printable ASCII character.
"""

import gzip
import struct
import sys

FIRST, LAST = 0x20, 0xff
GAP = range(0x7f, 0xa0)            # DEL and the C1 controls: the box
BOX = [0x00, 0x00, 0x7e, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x7e, 0x00,
       0x00, 0x00]

PCF_PROPERTIES, PCF_ACCELERATORS, PCF_METRICS, PCF_BITMAPS = 1, 2, 4, 8
PCF_BDF_ENCODINGS, PCF_BDF_ACCELERATORS = 32, 256


class PcfError(Exception):
    pass


class Reader:
    def __init__(self, data, off, fmt):
        self.d, self.o = data, off
        self.be = bool(fmt & 4)      # PCF_BYTE_MASK: most significant byte first

    def get(self, code):
        fmt = (">" if self.be else "<") + code
        v = struct.unpack_from(fmt, self.d, self.o)
        self.o += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:4] != b"\x01fcp":
        raise PcfError("%s: not a PCF font" % path)
    n = struct.unpack_from("<I", data, 4)[0]
    tables = {}
    for i in range(n):
        typ, fmt, size, off = struct.unpack_from("<IIII", data, 8 + 16 * i)
        tables[typ] = (fmt, off)
    for need in (PCF_METRICS, PCF_BITMAPS, PCF_BDF_ENCODINGS):
        if need not in tables:
            raise PcfError("%s: no table %d" % (path, need))
    return data, tables


def table(data, tables, typ):
    fmt, off = tables[typ]
    f2 = struct.unpack_from("<I", data, off)[0]
    return f2, Reader(data, off + 4, f2)


def props(data, tables):
    if PCF_PROPERTIES not in tables:
        return {}
    fmt, r = table(data, tables, PCF_PROPERTIES)
    n = r.get("i")
    entries = [r.get("iBi") for _ in range(n)]
    r.o += (4 - (n & 3)) & 3
    size = r.get("i")
    strings = r.d[r.o:r.o + size]

    def s(o):
        return strings[o:strings.index(b"\0", o)].decode("latin-1")
    return {s(name): (s(val) if is_str else val) for name, is_str, val in entries}


def accel(data, tables):
    for typ in (PCF_BDF_ACCELERATORS, PCF_ACCELERATORS):
        if typ in tables:
            fmt, r = table(data, tables, typ)
            r.o += 8                              # eight flag bytes
            return r.get("i"), r.get("i")         # font ascent, descent
    raise PcfError("no accelerator table")


def metrics(data, tables):
    fmt, r = table(data, tables, PCF_METRICS)
    out = []
    if fmt & 0x100:                               # PCF_COMPRESSED_METRICS
        for _ in range(r.get("h")):
            left, right, width, asc, desc = (r.get("B") - 0x80 for _ in range(5))
            out.append((left, right, width, asc, desc))
    else:
        for _ in range(r.get("i")):
            left, right, width, asc, desc, _attr = r.get("hhhhhH")
            out.append((left, right, width, asc, desc))
    return out


def bitmaps(data, tables, mets):
    fmt, r = table(data, tables, PCF_BITMAPS)
    n = r.get("i")
    offs = [r.get("i") for _ in range(n)]
    sizes = [r.get("i") for _ in range(4)]
    base = r.o
    pad = 1 << (fmt & 3)
    unit = 1 << ((fmt >> 4) & 3)
    msbit = bool(fmt & 8)
    msbyte = bool(fmt & 4)
    del sizes
    glyphs = []
    for i, (left, right, width, asc, desc) in enumerate(mets[:n]):
        w = right - left
        stride = ((w + 7) // 8 + pad - 1) // pad * pad
        rows = []
        for y in range(asc + desc):
            raw = bytearray(data[base + offs[i] + y * stride: base + offs[i] + (y + 1) * stride])
            if msbyte != msbit and unit > 1:      # bytes within a scan unit are swapped
                for u in range(0, len(raw), unit):
                    raw[u:u + unit] = raw[u:u + unit][::-1]
            bits = []
            for x in range(w):
                b = raw[x // 8]
                bits.append((b >> (7 - x % 8)) & 1 if msbit else (b >> (x % 8)) & 1)
            rows.append(bits)
        glyphs.append((left, asc, rows))
    return glyphs


def encodings(data, tables):
    fmt, r = table(data, tables, PCF_BDF_ENCODINGS)
    min2, max2, min1, max1, default = (r.get("h") for _ in range(5))
    enc = {}
    for b1 in range(min1, max1 + 1):
        for b2 in range(min2, max2 + 1):
            g = r.get("H")
            if g != 0xffff:
                enc[(b1 << 8) | b2] = g
    return enc


def convert(path):
    data, tables = load(path)
    p = props(data, tables)
    ascent, descent = accel(data, tables)
    if ascent + descent != 16:
        raise PcfError("%s: cells %d high, not 16" % (path, ascent + descent))
    mets = metrics(data, tables)
    glyphs = bitmaps(data, tables, mets)
    enc = encodings(data, tables)
    out = {}
    for code in range(FIRST, LAST + 1):
        if code in GAP or code not in enc:
            if 0x20 <= code <= 0x7e:
                raise PcfError("%s: no glyph for 0x%02x" % (path, code))
            continue
        left, asc, rows = glyphs[enc[code]]
        cell = [0] * 16
        for gy, bits in enumerate(rows):
            y = ascent - asc + gy
            for gx, on in enumerate(bits):
                x = left + gx
                if on and 0 <= y < 16 and 0 <= x < 8:
                    cell[y] |= 0x80 >> x
                elif on:
                    raise PcfError("%s: glyph 0x%02x outside the 8x16 cell" % (path, code))
        out[code] = cell
    return out, p


def main(argv):
    if len(argv) != 3:
        print("usage: pcf2c.py FONT.pcf[.gz] OUT.inc", file=sys.stderr)
        return 2
    try:
        glyphs, p = convert(argv[1])
    except (OSError, PcfError, struct.error, IndexError, ValueError) as e:
        print("pcf2c: %s" % e, file=sys.stderr)
        return 1
    lines = ["/* Generated by tools/pcf2c.py from %s: do not edit. */" % argv[1].split("/")[-1],
             "/*",
             " * Font: %s" % p.get("FONT", "?"),
             " * %s" % p.get("COPYRIGHT", "").strip(),
             " * %s" % (p.get("NOTICE", "").strip() or
                        "Licensed under the SIL Open Font License, Version 1.1"),
             " */",
             "#if FBCON_FIRST != 0x%02xu || FBCON_LAST != 0x%02xu" % (FIRST, LAST),
             "#error font8x16.inc was generated for another range",
             "#endif",
             "",
             "const uint8_t fbcon_font8x16[FBCON_LAST - FBCON_FIRST + 1][FBCON_GLYPH_H] = {"]
    for code in range(FIRST, LAST + 1):
        cell = glyphs.get(code, BOX)
        lines.append("\t/* 0x%02x%s */ { %s }," % (
            code, "" if code in glyphs else " (box)", ", ".join("0x%02x" % b for b in cell)))
    lines.append("};")
    lines.append("")
    lines.append("const uint8_t fbcon_font8x16_box[FBCON_GLYPH_H] = {")
    lines.append("\t%s," % ", ".join("0x%02x" % b for b in BOX))
    lines.append("};")
    with open(argv[2], "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
