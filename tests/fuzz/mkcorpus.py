#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the fuzz targets into tests/fuzz/corpus/.

usage: tests/fuzz/mkcorpus.py   (from the top of the tree)

memmap/  the sample maps of tests/data/memmap in fuzz_memmap's format
         (u32 desc_size, u32 count, u8 maxphyaddr, u8 capacity mode, raw
         descriptors) and hand-made bad headers and irregular maps;
plan/    the same sample maps as fuzz_plan's 12-byte records with several
         capabilities and image placements, and edge cases;
ops/     operation sequences for fuzz_ops (setup byte, 8-byte operations);
lmelf/   ELF64 Limine kernels for fuzz_lmelf (u64 kaslr, span selector,
         options byte, the file): static and position-independent ones with
         requests, relocations and internal modules, and near misses;
lmload/  the same kernels for fuzz_lmload's whole load plan (u8 map shape,
         u8 CPUs, u8 flags, u16 RAM scale, u64 slide, u16 per module, the
         file) on each map shape, 1 to 64 CPUs, 4 and 5 levels; a kernel
         with no request, one with only the base revision tag, one with an
         unknown request, and the stack size requests that wrapped
         (regress-*);
bzimage/ bzImage setup headers for fuzz_bzimage (run byte, u32 command line
         length, the file), valid and one field off;
lxload/  bzImages for fuzz_lxload's whole load plan (u8 map shape, u8 flags,
         u16 RAM scale, u16 command line length, u32 per initrd, the file)
         on each map shape, with initrds up to and past the bounds,
         relocatable or not, limits low and high;
opts/    option text for fuzz_opts (selector byte, the bytes): \ptlab.cfg
         lines as the documentation gives them, LoadOptions in UCS-2 from a
         shell and a boot manager, and malformed ones;
acpi/    physical memory from 0x1000 for fuzz_acpi, the RSDP first: ACPI
         1.0 and 2.0 sets (RSDP, RSDT or XSDT, FACP, a MADT of local APIC,
         x2APIC and I/O APIC entries) and one fault each.

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


MIN_VA = 0xFFFFFFFF80000000
R, W, X = 4, 2, 1
LM_MAGIC = (0xC7B1DD30DF4C8B88, 0x0A82E883A194F07B)
LM_IDS = {
    "hhdm": (0x48DCF1CB8AD2B852, 0x63984E959A98244B),
    "stack": (0x224EF0460A8E8926, 0xE1CB0FC25F46EA3D),
    "paging": (0x95C1A0EDAB0944CB, 0xA4E5CB3842F7488A),
    "module": (0x3E7E279702BE32AF, 0xCA1C4F3BD1280CEE),
    "entry": (0x13D86C035A1CD3E1, 0x2B0CAA89D8F3026A),
    "memmap": (0x67CF3D9D378A806F, 0xE304ACDFC50C3C62),
    "smp": (0x95A67B819A1B857E, 0xA0B61B723B6A73E0),
    "kaddr": (0x71BA76863CC55F63, 0xB2644A48C516A487),
}
LM_BASE_REV = (0xF9562B2D5C95A6C8, 0x6A7B384944536BDC)
LM_START = (0xF6B8F4B39DE7D1AE, 0xFAB91A6940FCB9CF, 0x785C6ED015D3E316, 0x181E920A7852B9D9)
LM_END = (0xADC0E0531BB10D03, 0x9572709F31764C62)


def words(*w):
    return b"".join(struct.pack("<Q", x & (2**64 - 1)) for x in w)


def request(name, rev=0, *extra):
    """A Limine request: its id, revision, an empty response pointer, its own words."""
    return words(*LM_MAGIC, *LM_IDS[name], rev, 0, *extra)


def put(buf, off, data):
    buf[off:off + len(data)] = data


def elf(etype, entry, phdrs, size, fill=()):
    """An ELF64 x86-64 file of @size bytes: header, program headers, then @fill (offset, bytes)."""
    b = bytearray(size)
    put(b, 0, b"\x7fELF" + bytes([2, 1, 1]))
    put(b, 16, struct.pack("<HHIQQQIHHHHHH", etype, 62, 1, entry, 64, 0, 0, 64, 56,
                           len(phdrs), 0, 0, 0))
    for i, (typ, flags, off, va, filesz, memsz, align) in enumerate(phdrs):
        put(b, 64 + 56 * i, struct.pack("<IIQQQQQQ", typ, flags, off, va, va, filesz, memsz,
                                        align))
    for off, data in fill:
        put(b, off, data)
    return bytes(b)


def lmelf_input(kaslr, span_sel, opt, file):
    return struct.pack("<QBB", kaslr, span_sel, opt) + file


# the static kernel: headers and requests (R), code (RX), data and bss (RW)
EXEC_PH = [(1, R, 0, MIN_VA, 0x800, 0x800, 0x1000),
           (1, R | X, 0x1000, MIN_VA + 0x1000, 0x10, 0x10, 0x1000),
           (1, R | W, 0x2000, MIN_VA + 0x2000, 0x20, 0x1000, 0x1000)]
REQ_AT = 0x200


def exec_requests(paging=(1, 1, 0), tag_rev=2, extra=b""):
    """The requests' area at REQ_AT: markers, tag, HHDM, paging, stack, entry, module (1)."""
    strings = 0x600
    mod = 0x6C0
    arr = 0x6E0
    area = words(*LM_START) + words(*LM_BASE_REV, tag_rev) + request("hhdm") + \
        request("paging", 1, *paging) + request("stack", 0, 0x20000) + \
        request("entry", 0, MIN_VA + 0x1000) + request("module", 1, 1, MIN_VA + arr) + \
        extra + words(*LM_END)
    fill = [(REQ_AT, area), (strings, b"initrd.tar\0"), (strings + 0x20, b"initrd\0"),
            (mod, words(MIN_VA + strings, MIN_VA + strings + 0x20, 1)),
            (arr, words(MIN_VA + mod)), (0x1000, b"\xf4\xeb\xfd"), (0x2000, b"data")]
    return fill


def exec_kernel(ph=None, fill=None, size=0x2020, etype=2, entry=MIN_VA + 0x1000):
    return elf(etype, entry, EXEC_PH if ph is None else ph, size,
               exec_requests() if fill is None else fill)


# the position-independent kernel linked at 0: RELA and RELR relocations
PIE_DYN, PIE_RELA, PIE_RELR = 0x800, 0x900, 0x980
PIE_PH = [(1, R, 0, 0, 0xA00, 0xA00, 0x1000),
          (1, R | X, 0x1000, 0x1000, 0x10, 0x10, 0x1000),
          (1, R | W, 0x2000, 0x2000, 0x40, 0x2000, 0x1000),
          (2, R | W, PIE_DYN, PIE_DYN, 0x80, 0x80, 8)]


def pie_kernel(dyn=None, rela=None, relr=None, ph=None):
    dyn = [(7, PIE_RELA), (8, 2 * 24), (9, 24), (36, PIE_RELR), (35, 3 * 8), (37, 8),
           (0, 0)] if dyn is None else dyn
    rela = [(0x2000, 8, 0x1000), (0x2008, 8, 0x2010)] if rela is None else rela
    relr = [0x2018, 0b1011, (1 << 40) | 1] if relr is None else relr
    fill = [(REQ_AT, words(*LM_BASE_REV, 1) + request("hhdm") + request("memmap")),
            (PIE_DYN, b"".join(struct.pack("<qQ", t, v) for t, v in dyn)),
            (PIE_RELA, b"".join(struct.pack("<QQq", o, t, a) for o, t, a in rela)),
            (PIE_RELR, words(*relr)), (0x1000, b"\xf4"), (0x2000, bytes(range(0x40)))]
    return elf(3, 0x1000, PIE_PH if ph is None else ph, 0x2040, fill)


def lmelf_corpus():
    def w(name, file, kaslr=0, span_sel=0, opt=0):
        write("lmelf", name, lmelf_input(kaslr, span_sel, opt, file))

    good = exec_kernel()
    w("exec", good)
    w("exec-modules-room-0", good, opt=0)
    w("exec-modules-room-16", good, opt=16)
    w("exec-why-1", good, opt=1 | 1 << 5)
    w("exec-span-3-pages", good, span_sel=3)
    w("exec-span-2-pages", good, span_sel=2)
    w("exec-span-max", good, span_sel=255)
    pie = pie_kernel()
    w("pie", pie, opt=4)
    w("pie-kaslr", pie, kaslr=0x40000000, opt=4)
    w("pie-kaslr-unaligned", pie, kaslr=0x3456789, opt=4)
    # the block ending at 2^64 exactly, and one page past it
    w("pie-kaslr-top", pie, kaslr=2**64 - MIN_VA - 0x4000, opt=4)
    w("pie-kaslr-past-top", pie, kaslr=2**64 - MIN_VA - 0x3000, opt=4)
    # the requests' area: refused or odd
    w("scan-two-hhdm", exec_kernel(fill=exec_requests(extra=request("hhdm"))))
    w("scan-two-tags", exec_kernel(fill=exec_requests(extra=words(*LM_BASE_REV, 0))))
    w("scan-tag-rev-7", exec_kernel(fill=exec_requests(tag_rev=7)))
    w("scan-unknown-request", exec_kernel(fill=exec_requests(extra=words(*LM_MAGIC, 1, 2))))
    w("paging-min-above-max", exec_kernel(fill=exec_requests(paging=(0, 0, 1))))
    w("paging-5-only", exec_kernel(fill=exec_requests(paging=(1, 1, 1))))
    w("paging-unknown-min", exec_kernel(fill=exec_requests(paging=(9, 9, 5))))
    cut = exec_requests()
    cut[0] = (REQ_AT, words(*LM_START) + request("stack", 0, 0x20000)[:40] + words(*LM_END))
    w("scan-request-cut", exec_kernel(fill=cut))
    w("modules-room-0-refused", good, opt=0x80)
    bad_mod = exec_requests()
    bad_mod[4] = (0x6E0, words(MIN_VA + 0x7F8))
    w("modules-path-null", exec_kernel(fill=bad_mod), opt=16)
    bad_mod[4] = (0x6E0, words(MIN_VA + 0x2FF0))
    w("modules-struct-outside", exec_kernel(fill=bad_mod), opt=16)
    bad_mod = exec_requests()
    bad_mod[0] = (REQ_AT, bad_mod[0][1].replace(words(1, MIN_VA + 0x6E0), words(1, MIN_VA + 0x5000)))
    w("modules-array-outside", exec_kernel(fill=bad_mod), opt=16)
    # the file: one thing wrong
    w("bad-magic", b"\x7fELG" + good[4:])
    w("bad-class", good[:4] + b"\x01" + good[5:])
    w("bad-endian", good[:5] + b"\x02" + good[6:])
    w("bad-machine", good[:18] + b"\x03\x00" + good[20:])
    w("bad-type-rel", good[:16] + b"\x01\x00" + good[18:])
    w("bad-phentsize", good[:54] + b"\x20\x00" + good[56:])
    w("short-header", good[:63])
    w("phdrs-past-end", good[:64 + 56 * 2])
    w("no-load", exec_kernel(ph=[(4, R, 0, MIN_VA, 0x10, 0x10, 4)]))
    ph = list(EXEC_PH)
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x2000, 0x1001, 0x1000, 0x1000)
    w("filesz-above-memsz", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x2000, 0x40, 0x1000, 0x1000)
    w("file-bytes-past-end", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x1008, 0x20, 0x1000, 8)
    w("overlapping", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2010, MIN_VA + 0x1010, 0x10, 0x1000, 0x10)
    w("rw-in-rx-page", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x2000, 0x20, 0x1000, 0x3000)
    w("align-not-power-of-2", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x40000000, 0x20, 0x1000, 2**31)
    w("align-above-1g", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x2100, 0x20, 0x1000, 0x1000)
    w("va-offset-differ", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, 2**64 - 0x1000, 0x20, 0x2000, 0x1000)
    w("va-wraps", exec_kernel(ph=ph))
    ph[2] = (1, R | W, 0x2000, MIN_VA + 0x2000, 0x20, 0x10000000, 0x1000)
    w("span-256m", exec_kernel(ph=ph))
    w("lower-half", exec_kernel(ph=[(1, R | X, 0x1000, 0x401000, 0x10, 0x10, 0x1000)]))
    w("seventeen-loads", exec_kernel(
        ph=[(1, R, 0, MIN_VA + 0x1000 * i, 0x10, 0x10, 0x1000) for i in range(17)], fill=[]))
    # relocations
    w("reloc-type-1", pie_kernel(rela=[(0x2000, 1, 0)]))
    w("reloc-target-outside", pie_kernel(rela=[(0x2000 + 0x1FFC, 8, 0)]))
    w("reloc-relaent-16", pie_kernel(dyn=[(7, PIE_RELA), (8, 48), (9, 16), (0, 0)]))
    w("reloc-relasz-odd", pie_kernel(dyn=[(7, PIE_RELA), (8, 40), (9, 24), (0, 0)]))
    w("reloc-rela-outside", pie_kernel(dyn=[(7, 0x9F0), (8, 48), (9, 24), (0, 0)]))
    w("reloc-rel", pie_kernel(dyn=[(17, PIE_RELA), (18, 16), (0, 0)]))
    w("reloc-jmprel", pie_kernel(dyn=[(23, PIE_RELA), (2, 24), (0, 0)]))
    w("reloc-relr-bitmap-first", pie_kernel(relr=[0b11, 0x2018, 1]))
    w("reloc-relr-target-outside", pie_kernel(relr=[0x3FF0, 0b101, 0x2000]))
    w("reloc-relrent-4", pie_kernel(dyn=[(36, PIE_RELR), (35, 8), (37, 4), (0, 0)]))
    w("reloc-dynamic-outside", pie_kernel(ph=PIE_PH[:3] + [(2, R | W, 0x2030, 0, 0x80, 0, 8)]))


def lmload_input(shape, cpus, flags, scale, rnd, mods, file):
    return struct.pack("<BBBHQ", shape, cpus - 1, flags, scale, rnd) + \
        b"".join(struct.pack("<H", m) for m in mods) + file


def stack_kernel(size):
    """The static kernel asking for HHDM, memory map, SMP and a stack of @size bytes."""
    area = words(*LM_BASE_REV, 2) + request("hhdm") + request("memmap") + \
        request("smp", 0, 0) + request("stack", 0, size)
    return exec_kernel(fill=[(REQ_AT, area), (0x1000, b"\xf4\xeb\xfd")])


def lmload_corpus():
    def w(name, file, shape=0, cpus=1, flags=0, scale=0x400 * 4 + 100, rnd=0, mods=()):
        flags |= len(mods) << 4
        write("lmload", name, lmload_input(shape, cpus, flags, scale, rnd, mods, file))

    good, pie = exec_kernel(), pie_kernel()
    for shape in range(4):
        w("exec-shape-%d" % shape, good, shape=shape, cpus=4)
        w("exec-shape-%d-5lvl" % shape, good, shape=shape, cpus=2, flags=1)
    w("exec-64-cpus", good, cpus=64, flags=4)
    w("exec-modules", good, cpus=2, flags=8, mods=(1, 300, 0xFFFF))
    w("pie-kaslr", pie, cpus=3, flags=2, rnd=0x123456789)
    w("pie-kaslr-top", pie, cpus=8, flags=2 | 4, rnd=2**64 - 1)
    code = b"\xb0\x31\xe6\xf4\xfa\xf4\xeb\xfd"
    one_rx = [(1, R | X, 0x1000, MIN_VA, 0x100, 0x100, 0x1000)]
    w("noreq", elf(2, MIN_VA, one_rx, 0x1100, [(0x1000, code)]), cpus=2)
    w("noreq-tag-only", elf(2, MIN_VA, one_rx, 0x1100,
                            [(0x1000, code), (0x1080, words(*LM_BASE_REV, 2))]), cpus=4)
    w("unknown-request", elf(2, MIN_VA, one_rx, 0x1100,
                             [(0x1000, code), (0x1080, words(*LM_MAGIC, 1, 2, 0, 0))]))
    w("smp-64-cpus", stack_kernel(0x20000), shape=3, cpus=64, flags=4 | 8, mods=(7,))
    # a 16 MiB machine: one stack just within a quarter of it, one just past
    w("stack-quarter-ram", stack_kernel(0x3FF000), shape=1, cpus=1, scale=14)
    w("stack-past-quarter-ram", stack_kernel(0x401000), shape=1, cpus=1, scale=14)
    # 31 MiB: 5 stacks within half of it, and 5 past it
    w("stack-half-ram-4cpus", stack_kernel(0x300000), shape=0, cpus=4, scale=0)
    w("stack-past-half-ram-4cpus", stack_kernel(0x600000), shape=0, cpus=4, scale=0)
    # the stack size requests whose product with the CPUs wrapped (issue 45)
    w("regress-stack-8000000000001000-1cpu", stack_kernel(0x8000000000001000), cpus=1)
    w("regress-stack-5555555555556000-2cpus", stack_kernel(0x5555555555556000), cpus=2)
    w("regress-stack-3333333333334000-4cpus", stack_kernel(0x3333333333334000), cpus=4)
    w("stack-ffffffffffffffff", stack_kernel(2**64 - 1), cpus=64)


def bz_header(setup_sects=1, syssize=0x10, version=0x020F, jump=0x6A, xlf=0x23, align=0x200000,
              init_size=0x1000, cmdline_size=2047, extra=0):
    pm = ((setup_sects or 4) + 1) * 512
    b = bytearray(pm + syssize * 16 - extra)
    for i in range(0x1F1):
        b[i] = (i * 7 + 3) & 0xFF
    b[0x1F1] = setup_sects
    put(b, 0x1F4, struct.pack("<I", syssize))
    put(b, 0x1FE, struct.pack("<H", 0xAA55))
    b[0x200], b[0x201] = 0xEB, jump
    put(b, 0x202, b"HdrS" + struct.pack("<H", version))
    b[0x211] = 1                                    # loadflags: LOADED_HIGH
    put(b, 0x22C, struct.pack("<I", 0x7FFFFFFF))    # initrd_addr_max
    put(b, 0x230, struct.pack("<I", align))
    b[0x234] = 1                                    # relocatable_kernel
    put(b, 0x236, struct.pack("<H", xlf))
    put(b, 0x238, struct.pack("<I", cmdline_size))
    put(b, 0x258, struct.pack("<Q", 0x1000000))     # pref_address
    put(b, 0x260, struct.pack("<I", init_size))
    return b


def lxload_corpus():
    def w(name, file, shape=0, flags=0, scale=0x400 * 4 + 100, cmdline=11, initrds=()):
        flags |= len(initrds) << 2
        write("lxload", name, struct.pack("<BBHH", shape, flags, scale, cmdline) +
              b"".join(struct.pack("<I", v) for v in initrds) + bytes(file))

    good = bz_header()
    for shape in range(4):
        w("valid-shape-%d" % shape, good, shape=shape)
        w("valid-shape-%d-initrds" % shape, good, shape=shape, initrds=(1, 0x1000, 0x123457))
    w("valid-5-levels", good, flags=3, initrds=(0x10000,))
    w("eight-initrds", good, initrds=(3, 5, 7, 9, 11, 13, 15, 17))
    w("nine-initrds", good, initrds=(1,) * 9)
    w("initrd-empty", good, initrds=(10, 0))
    # two initrds of 2^40 - 1 KiB each (the top bit scales by 1 KiB): past 2^40 together
    w("initrds-past-2-40", good, initrds=(0xC0000000 - 1, 0xC0000000 - 1))
    w("initrd-one-2-40", good, initrds=(0xC0000000,))
    low = bz_header()
    put(low, 0x22C, struct.pack("<I", 0x1FFFFF))    # initrd_addr_max 2 MiB
    w("initrd-addr-max-2m", low, initrds=(0x100000,))
    below = bz_header(xlf=0x21)                     # no CAN_BE_LOADED_ABOVE_4G
    w("below-4g-only-shape-3", below, shape=3)
    fixed = bz_header()
    fixed[0x234] = 0                                # not relocatable
    w("not-relocatable-shape-3", fixed, shape=3)
    w("not-relocatable", fixed)
    w("init-size-3g", bz_header(init_size=0xC0000000), scale=0x400 * 8)
    w("align-1g", bz_header(align=0x40000000), shape=3, scale=0x400 * 8)
    w("fragmented-small-ram", good, shape=2, scale=7, initrds=(0x20000, 0x20000))


def bzimage_corpus():
    def w(name, file, run=0, cmdline=0):
        write("bzimage", name, struct.pack("<BI", run, cmdline) + bytes(file))

    good = bz_header()
    w("valid", good, cmdline=11)
    w("valid-5-levels-la57", good, run=3)
    w("valid-5-levels-no-la57", good, run=1)
    w("no-xlf-5level-5-levels", bz_header(xlf=0x03), run=3)
    w("cmdline-at-limit", good, cmdline=2047)
    w("cmdline-over-limit", good, cmdline=2048)
    w("why-1", bz_header(version=0x020B), run=1 << 2)
    w("setup-sects-0", bz_header(setup_sects=0))
    w("version-2-12", bz_header(version=0x020C))
    w("version-2-13", bz_header(version=0x020D))
    w("version-2-14", bz_header(version=0x020E))
    w("header-ends-at-0x290", bz_header(jump=0x8E))
    w("memtest-15-short", bz_header(extra=15))
    w("short-16", bz_header(extra=16))
    w("short-header", good[:0x26F])
    w("no-boot-flag", good[:0x1FE] + b"\0\0" + good[0x200:])
    w("no-hdrs", good[:0x202] + b"HdrT" + good[0x206:])
    w("version-2-11", bz_header(version=0x020B))
    w("header-past-zero-page", bz_header(jump=0x8F))
    w("syssize-0", bz_header(syssize=0))
    w("32-bit-only", bz_header(xlf=0x02))
    w("init-size-small", bz_header(init_size=0xFF))
    w("align-2k", bz_header(align=0x800))
    w("align-not-power-of-2", bz_header(align=0x3000))


def ucs2(text, nul=True):
    return text.encode("utf-16-le") + (b"\0\0" if nul else b"")


def opts_corpus():
    def w(name, sel, data):
        write("opts", name, bytes([sel]) + data)

    ascii_cfgs = {
        "cfg-handoff-limine": "--mode=handoff --kernel=\\boot\\kernel.elf "
                              "--module=\\boot\\initrd.tar,initrd --cmdline=quiet\n",
        "cfg-handoff-linux": "--mode=handoff --kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img "
                             "\"--cmdline=console=ttyS0\"\n",
        "cfg-linux-quoted": "--mode=handoff --kernel=\\boot\\vmlinuz --initrd=\\boot\\ucode.img "
                            "--initrd=\\boot\\initrd.img\n"
                            "\"--cmdline=console=ttyS0 acpi_osi=\\\"!Windows 2015\\\"\"\n",
        "cfg-comments": "# ptlab.cfg\n--seed=0x2a   # the seed\n\t--iterations=2000\r\n"
                        "--end=qemu #--bogus\n",
        "cfg-dump": "--dump=ranges --dump-firmware=ranges",
        "cfg-dump-bare": "--dump --dump-memmap --hold",
        "cfg-inject": "--end=shutdown --inject=wrong-frame --iterations=2000",
        "cfg-inject-faults": "--inject=limine-digest,linux-digest --inject=nx-cleared",
        "cfg-levels": "--levels=5 --mode=handoff --end=qemu",
        "cfg-all": "--help --seed=18446744073709551615 --timeout=30 --fail-alloc=3 --fragment "
                   "--raise=la57-window --serial=off --wrong-restore --levels=4 --end=halt",
        "cfg-kaslr": "--mode=handoff --kernel=\\k.elf --kaslr --module=\\m1 --module=\\m2,s",
        "cfg-empty": "  \n# nothing\n\"\"\n",
        "cfg-bogus": "--iterations=2000 --bogus",
        "cfg-typo-quote": "--seed=\"5 \\\"x\" --end=return",
        "cfg-unterminated": "--cmdline=\"a b",
        "cfg-bad-number": "--seed=0x --iterations=12a",
        "cfg-overflow": "--seed=18446744073709551616",
        "cfg-inject-none": "--inject=none",
        "cfg-inject-bad-name": "--inject=Wrong_Frame",
        "cfg-nine-initrds": " ".join("--initrd=\\i%d" % i for i in range(9)),
        "cfg-path-128": "--kernel=\\" + "k" * 127,
        "cfg-path-127": "--kernel=\\" + "k" * 126 + " --mode=handoff",
        "cfg-flag-value": "--hold=1",
        "cfg-no-dashes": "seed=1",
        "cfg-single-dash": "-seed=1",
        "cfg-validate-refused": "--mode=handoff --end=wait --fragment",
    }
    for name, text in ascii_cfgs.items():
        w(name, 0, text.encode())
    w("cfg-utf8-bom", 0, b"\xef\xbb\xbf--seed=3 --end=reboot\n")
    w("cfg-utf16le-bom", 0, b"\xff\xfe" + ucs2("--seed=3 --end=reboot\n", nul=False))
    w("cfg-utf16le-odd", 0, b"\xff\xfe" + ucs2("--seed=3", nul=False) + b"\n")
    w("cfg-utf16be-bom", 0, b"\xfe\xff" + "--seed=3".encode("utf-16-be"))
    w("cfg-utf16-no-bom", 0, ucs2("--seed=3", nul=False))
    w("cfg-latin1", 0, "--cmdline=caf\xe9".encode("latin-1"))
    w("cfg-long-cmdline", 0, ("--cmdline=" + "x" * 4095).encode())
    # LoadOptions from the shell (argv[0] first) and from a boot manager
    shell = "BOOTX64.EFI --seed=7 --end=qemu --levels=4"
    for sel, kind in ((1, "load"), (3, "shell")):
        w(kind + "-argv0", sel, ucs2(shell))
        w(kind + "-argv0-odd", sel | 4, ucs2(shell))
        w(kind + "-trailing-nuls", sel, ucs2(shell) + bytes(8))
        w(kind + "-wide-char", sel, ucs2("ptlab.efi --cmdline=caf\xe9"))
        w(kind + "-odd-bytes", sel, ucs2(shell) + b"\0")
        w(kind + "-empty", sel, b"")
    w("boot-options", 2, ucs2("--mode=handoff --end=halt"))
    w("boot-foreign", 2, ucs2("  root=/dev/sda1   ro \"quiet splash\"  "))
    w("boot-foreign-long", 2 | 6 << 5, ucs2("console=ttyS0 " * 12))
    w("boot-foreign-small-err", 2 | 4 << 5, ucs2("quiet"))
    w("boot-mixed", 2, ucs2("root=/dev/sda1 --seed=1"))
    w("boot-blank", 2, ucs2(" \t "))
    w("boot-binary", 2, bytes([1, 0, 0, 0, 0x2a, 0, 0x10, 0x80]))
    w("boot-grub-quoted", 2, ucs2("'\"--cmdline=a b\"' --seed=1"))
    w("err-none", 1 | 1 << 5, ucs2("x --bogus"))
    w("err-1", 1 | 2 << 5, ucs2("x --bogus"))
    w("err-2", 1 | 3 << 5, ucs2("x --bogus"))


ACPI_PHYS = 0x1000


def acpi_sum(b, at, n, where):
    """Set byte at+where so the n bytes from at sum to zero."""
    b[at + where] = 0
    b[at + where] = (0x100 - sum(b[at:at + n]) % 256) % 256


def acpi_sdt(b, at, sig, body):
    n = 36 + len(body)
    b[at:at + n] = sig + struct.pack("<IBB6s8sI4sI", n, 1, 0, b"PTLAB ", b"PTLABFZ ", 1,
                                     b"PTLB", 1) + body
    acpi_sum(b, at, n, 9)


def acpi_set(rev, cpus=((0, 0, 1), (1, 1, 1), (2, 2, 0)), x2=((7, 300, 1),)):
    b = bytearray(0x600)
    rsdt, xsdt, facp, madt = 0x40, 0x80, 0x100, 0x200
    b[0:20] = b"RSD PTR " + b"\0" + b"PTLAB " + bytes([rev]) + struct.pack(
        "<I", ACPI_PHYS + rsdt)
    acpi_sum(b, 0, 20, 8)
    if rev >= 2:
        b[20:36] = struct.pack("<IQ4s", 36, ACPI_PHYS + xsdt, bytes(4))
        acpi_sum(b, 0, 36, 32)
    acpi_sdt(b, rsdt, b"RSDT", struct.pack("<II", ACPI_PHYS + facp, ACPI_PHYS + madt))
    acpi_sdt(b, xsdt, b"XSDT", struct.pack("<QQ", ACPI_PHYS + facp, ACPI_PHYS + madt))
    acpi_sdt(b, facp, b"FACP", bytes(80))
    ent = b"".join(struct.pack("<BBBBI", 0, 8, u, a, f) for u, a, f in cpus)
    ent += struct.pack("<BBBBII", 1, 12, 2, 0, 0xFEC00000, 0)
    ent += b"".join(struct.pack("<BBHIII", 9, 16, 0, a, f, u) for u, a, f in x2)
    acpi_sdt(b, madt, b"APIC", struct.pack("<II", 0xFEE00000, 1) + ent)
    return b


def acpi_corpus():
    write("acpi", "acpi2-xsdt", bytes(acpi_set(2)))
    write("acpi", "acpi1-rsdt", bytes(acpi_set(0)))
    write("acpi", "repeated-apic-id", bytes(acpi_set(2, x2=((7, 1, 1), (8, 400, 1)))))
    bad = acpi_set(2)
    bad[0x200 + 9] ^= 1
    write("acpi", "madt-bad-checksum", bytes(bad))
    bad = acpi_set(2)
    bad[0x200 + 44 + 1] = 1
    acpi_sum(bad, 0x200, bad[0x204] | bad[0x205] << 8, 9)
    write("acpi", "madt-entry-length-1", bytes(bad))
    write("acpi", "rsdp-truncated", bytes(acpi_set(2)[:30]))
    write("acpi", "xsdt-past-end", bytes(acpi_set(2)[:0xa0]))


def main():
    memmap_corpus()
    plan_corpus()
    ops_corpus()
    lmelf_corpus()
    lmload_corpus()
    bzimage_corpus()
    lxload_corpus()
    opts_corpus()
    acpi_corpus()


if __name__ == "__main__":
    main()
