#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the fuzz targets into tests/fuzz/corpus/.

usage: tests/fuzz/mkcorpus.py   (from the top of the tree)

memmap/  the sample maps of tests/data/memmap in fuzz_memmap's format
         (u32 desc_size, u32 count, u8 maxphyaddr, u8 capacity mode, raw
         descriptors) and hand-made bad headers and irregular maps;
plan/    the same sample maps as fuzz_plan's 12-byte records with several
         capabilities and image placements, and edge cases;
ops/     operation sequences for fuzz_ops (setup byte, 8-byte operations).

Inputs the fuzzers found are kept next to these under their own names
(ops/sparse-unmap-empty-model); this script leaves them alone.
"""
import os
import struct

DATA = "tests/data/memmap"
OUT = "tests/fuzz/corpus"
SAMPLES = [("ovmf-q35-256m.bin", 48), ("ovmf-q35-256m-desc56.bin", 56), ("quirks.bin", 48)]


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def desc(typ, start, pages, attr=0xF, size=48):
    d = struct.pack("<IIQQQQ", typ & 0xFFFFFFFF, 0, start & (2**64 - 1), 0,
                    pages & (2**64 - 1), attr & (2**64 - 1))
    return d + bytes(size - len(d))


def memmap_input(desc_size, count, maxphy, mode, raw):
    return struct.pack("<IIBB", desc_size & 0xFFFFFFFF, count & 0xFFFFFFFF, maxphy, mode) + raw


def parse(raw, size):
    out = []
    for i in range(len(raw) // size):
        typ, _, start, _, pages, attr = struct.unpack_from("<IIQQQQ", raw, i * size)
        out.append((typ, start, pages, attr))
    return out


def memmap_corpus():
    for name, size in SAMPLES:
        raw = open(os.path.join(DATA, name), "rb").read()
        base = name[:-4]
        write("memmap", base, memmap_input(size, len(raw) // size, 46, 0, raw))
        write("memmap", base + "-maxphy32", memmap_input(size, len(raw) // size, 32, 0, raw))
        write("memmap", base + "-smallcap", memmap_input(size, len(raw) // size, 46, 0x0B, raw))
    two = desc(7, 0x100000, 16) + desc(4, 0x108000, 16)
    for ds in (0, 8, 39, 44, 4104, 0xFFFFFFF8, 0xFFFFFFFF):
        write("memmap", "bad-desc-size-%x" % ds, memmap_input(ds, 2, 46, 0, two))
    write("memmap", "bad-count-65537", memmap_input(48, 65537, 46, 0, two))
    write("memmap", "bad-count-max", memmap_input(48, 0xFFFFFFFF, 46, 0, two))
    write("memmap", "bad-raw-short", memmap_input(48, 3, 46, 0, two))
    write("memmap", "empty", memmap_input(48, 0, 46, 0, b""))
    # every type over one range, then a RAM range cut by a reserved page
    stack = b"".join(desc(t, 0x200000, 8) for t in range(17))
    write("memmap", "all-types-stacked", memmap_input(48, 17, 46, 0, stack))
    cut = desc(7, 0x0, 0x100) + desc(0, 0x80800, 1, 0) + desc(11, 0x90000, 1, 1) + \
        desc(9, 0xfffff000, 0x10) + desc(7, 0xffffffff000, 0x100000)
    write("memmap", "ram-cut-by-unaligned-reserved", memmap_input(48, 5, 40, 0, cut))
    edge = desc(7, 2**64 - 0x1000, 1) + desc(7, 2**64 - 0x2000, 2**52) + desc(7, 0xFFF, 2**63) + \
        desc(1, 2**52 - 0x1000, 2) + desc(2, 0x1001, 0)
    write("memmap", "edges", memmap_input(48, 5, 52, 0, edge))


def plan_record(typ, start, pages, attr):
    pfn = start >> 12
    a = (attr & 0x7FFF) | (0x8000 if attr >> 63 else 0)
    return struct.pack("<BBHII", typ & 0xFF, (pfn >> 32) & 0xFF, a, pfn & 0xFFFFFFFF,
                       min(pages, 0xFFFFFFFF))


def plan_input(caps, maxphy, img, recs):
    # caps, maxphyaddr byte, image: range, offset pages, size-1 pages,
    # sections-1, section sizes, section flags, 2 spare
    hdr = bytes([caps, (maxphy - 32) % 21]) + bytes(img) + bytes(8 - len(img))
    return hdr + b"".join(plan_record(*r) for r in recs)


def plan_corpus():
    for name, size in SAMPLES:
        recs = parse(open(os.path.join(DATA, name), "rb").read(), size)
        base = name[:-4]
        noimg = [0x80]
        write("plan", base + "-1g-4l", plan_input(1, 46, noimg, recs))
        write("plan", base + "-2m-4l", plan_input(0, 46, noimg, recs))
        write("plan", base + "-1g-5l", plan_input(3, 52, noimg, recs))
        write("plan", base + "-2m-5l-phys36", plan_input(2, 36, noimg, recs))
        # the image in the loader-code range (index 10 of the normalized map)
        img = [10, 1, 0x15, 2, 0b1011, 0b100001]
        write("plan", base + "-image", plan_input(1, 46, img, recs))
    high = [(7, 0x1000, 0x10, 0xF), (7, (1 << 47) - 0x200000, 0x400, 0xF),
            (5, 0x40000000, 0x40000, 0xF), (11, 0xFEC00000, 1, 1), (0, 0, 1, 0),
            (7, 1 << 39, 0x100000, 0xF)]
    write("plan", "across-2-47", plan_input(1, 48, [0x80], high))
    write("plan", "across-2-47-5l", plan_input(3, 52, [2, 0, 3, 1, 0, 0], high))
    write("plan", "page-zero-only", plan_input(0, 32, [0, 0, 0, 0], [(7, 0, 1, 0xF)]))


def op(call, maxs, flags, gran, va, n, pa=0, pahi=0, sel=0, nosplit=0, sparse=0, tail=0):
    b0 = call | (maxs << 2) | (0x10 if nosplit else 0) | (0x20 if sparse else 0) | \
        (0x80 if tail else 0)
    return bytes([b0, flags, gran, va, n, pa, pahi, sel])


def ops_corpus():
    W, X, U, G = 1, 2, 4, 8
    # 1G leaf, split by unmap, protect, remap; lower window top (8 GiB below the hole)
    seq = op(0, 2, W, 0b1010, 1, 1, 1) + op(1, 0, 0, 0b0000, 0, 3) + \
        op(2, 0, X, 0b0000, 0, 2) + op(3, 0, 0, 0b0000, 0, 1, 7) + \
        op(1, 0, 0, 0b0101, 0, 4, sparse=1)
    write("ops", "split-1g", bytes([0]) + seq)
    write("ops", "split-1g-5l-high", bytes([3]) + seq)
    # NOSPLIT refusals, W+X with and without ALLOW_WX, PAT types
    seq = op(0, 1, W, 0b0101, 3, 2, 3) + op(1, 0, 0, 0b0000, 0, 1, nosplit=1) + \
        op(2, 0, W | X, 0b0101, 3, 1) + op(2, 0, W | X | 0x80, 0b0101, 3, 1) + \
        op(2, 0, 0x40, 0b0101, 3, 1) + op(3, 0, 0, 0b0000, 0, 1, 5, nosplit=1)
    write("ops", "nosplit-wx-pat", bytes([8]) + seq)
    # ranges into the hole, wrapping and unaligned arguments
    seq = op(0, 0, W, 0b1010, 7, 2, 1) + op(0, 0, 0, 0b0000, 255, 255, sel=4) + \
        op(1, 0, 0, 0b0000, 3, 1, sel=0x09) + op(0, 0, 0, 0b0000, 4, 1, sel=0x0A) + \
        op(2, 0, U | G, 0b1010, 7, 1)
    write("ops", "hole-wrap-unaligned", bytes([0]) + seq)
    write("ops", "hole-wrap-unaligned-5l", bytes([1]) + seq)
    # no 1 GiB pages: 1G request falls back to 2M; full unmap frees tables
    seq = op(0, 2, W, 0b1010, 2, 2, 2) + op(3, 0, 0, 0b0101, 600 % 256, 3, 9) + \
        op(1, 0, 0, 0b1010, 2, 2)
    write("ops", "no-1g-fallback", bytes([4]) + seq)
    # 4 KiB mappings spread over several tables, then sparse unmap of all
    seq = b"".join(op(0, 0, W, 0b0101, i * 37 % 256, 1, i) for i in range(8)) + \
        op(1, 0, 0, 0b1010, 0, 8, sparse=1)
    write("ops", "spread-4k", bytes([0]) + seq)
    # 510 MiB of 4 KiB leaves needs more page tables than the arena has:
    # PT_ENOMEM and its rollback, then the same space still works
    seq = op(0, 0, W, 0b0101, 0, 255) + op(0, 0, W, 0b0101, 0, 8) + \
        op(2, 0, 0, 0b0101, 4, 2) + op(0, 0, W, 0b0101, 0, 255) + op(1, 0, 0, 0b0101, 0, 8)
    write("ops", "enomem-rollback", bytes([0]) + seq)


def main():
    memmap_corpus()
    plan_corpus()
    ops_corpus()


if __name__ == "__main__":
    main()
