#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the app's leaf list with QEMU's own walk of the live tables.

    tlbcmp.py compare [--qmp SOCKET] LOG TLB
    tlbcmp.py translate LOG VA

LOG is the serial log of a run with --dump (its "# leaf: va=... pa=...
size=... flags=r[w-][x-][u-] cache=N" lines); TLB is the text of the HMP
command "info tlb" taken while the app held those tables.

compare: QEMU 7.2 prints one line per present leaf, in walk order,
"VA: PA XGPDACTUW" (VA sign-extended, PA masked to the leaf's size; X = NX,
G = global, P = bit 7, D, A, C = PCD, T = PWT, U = user, W = writable).
Bit 7 is PS in a 2M/1G entry but PAT in a 4K entry, so a line with P set
is a large leaf unless its alignment or the next line says otherwise;
when a 2M- (or 1G-) aligned line could still be either, --qmp asks QEMU
(gva2gpa of the next 4K or 2M page) and without it the larger size is
assumed (and counted).  Both sides become runs: sorted (va, end, pa,
attrs) with contiguous ranges of equal attributes merged, attrs being
writable, NX, user, PCD, PWT; the runs must be equal.  The leaf sets
(va, pa, size, attrs) are compared too, and the PAT bit of every 4K line
against the cache type of its leaf.  Accessed, dirty and global are not
in the dump and are only counted.  Prints "# tlb: ..." lines; exit status
0 when the runs and the leaves are equal, 1 when they differ, 2 when an
input cannot be read.

translate: the physical address the leaf list gives VA ("0x..."), or
"unmapped".
"""
import bisect
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import report  # noqa: E402

K4, M2, G1 = 0x1000, 0x200000, 0x40000000
TLB = re.compile(r"^([0-9a-f]{16}): ([0-9a-f]{16}) ([X-])([G-])([P-])([D-])([A-])"
                 r"([C-])([T-])([U-])([W-])$")
# cache type (enum pt_cache: WB WT UC- UC WC WP) -> PAT index bits PAT, PCD, PWT;
# the same low bits under the power-on layout and ptlab's (WC, WP above 4)
CACHE_BITS = {0: (0, 0, 0), 1: (0, 0, 1), 2: (0, 1, 0), 3: (0, 1, 1),
              4: (1, 1, 0), 5: (1, 1, 1)}


class Bad(Exception):
    pass


def leaves_from_log(path):
    """[(va, pa, size, attrs, pat)] from the dump, and the "# leaves:" total,
    read with the report's one reader (tools/report.py)."""
    out = []
    r = report.parse_file(path)
    for lf in r.leaves:
        flags, cache = lf["flags"], lf["cache"]
        if not isinstance(flags, str) or len(flags) != 4 or cache not in CACHE_BITS:
            raise Bad(f"{path}: unreadable leaf line: {lf}")
        pat, pcd, pwt = CACHE_BITS[cache]
        attrs = (flags[1] == "w", flags[2] == "-", flags[3] == "u", pcd, pwt)
        out.append((lf["va"], lf["pa"], lf["size"], attrs, pat))
    f = r.fact("leaves")
    total = sum(f.get(k, 0) for k in ("4k", "2m", "1g")) if f else None
    out.sort()
    return out, total


class Prober:
    """gva2gpa over QMP, for lines whose size the text alone does not tell."""

    def __init__(self, sock):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import qmon
        self.q = qmon.Qmp(qmon.connect(sock, 30))
        self.q.message()
        self.q.call("qmp_capabilities")
        self.asked = 0

    def gpa(self, va):
        self.asked += 1
        r = self.q.call("human-monitor-command", **{"command-line": f"gva2gpa 0x{va:x}"})
        m = re.match(r"gpa: 0x([0-9a-f]+)", r.get("return", ""))
        return int(m.group(1), 16) if m else None


def leaves_from_tlb(path, prober):
    """[(va, pa, size, attrs, pat or None)] from "info tlb", and counters."""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            m = TLB.match(line)
            if not m:
                raise Bad(f"{path}:{n}: not an info tlb line: {line}")
            rows.append((int(m.group(1), 16), int(m.group(2), 16), m.groups()[2:]))
    stats = {"global": 0, "accessed": 0, "dirty": 0, "probed": 0, "assumed": 0}
    out = []
    for i, (va, pa, f) in enumerate(rows):
        x, g, p, d, a, c, t, u, w = (ch != "-" for ch in f)
        stats["global"] += g
        stats["accessed"] += a
        stats["dirty"] += d
        nxt = rows[i + 1][0] if i + 1 < len(rows) else 1 << 64
        if nxt <= va:       # the walk goes up through PML4 slots 0..511
            raise Bad(f"{path}: lines out of order at 0x{va:x}")
        pat = None
        if not p:
            size, pat = K4, 0
        else:
            # bit 7: PS of a large leaf, or PAT of a 4K one
            sizes = [s for s in (G1, M2, K4)
                     if va % s == 0 and pa % s == 0 and va + s <= nxt]
            while len(sizes) > 1 and prober:
                small = sizes[-1]
                got = prober.gpa(va + small)
                stats["probed"] += 1
                if got == pa + small:
                    sizes.pop()          # the next page is in this leaf
                else:
                    sizes = [small]
            if len(sizes) > 1:
                stats["assumed"] += 1
            size = sizes[0]
            if size == K4:
                pat = 1
        out.append((va, pa, size, (w, x, u, c, t), pat))
    out.sort()
    return out, stats


def runs(leaves):
    """Contiguous ranges with contiguous physical addresses and equal attrs, merged."""
    out = []
    for va, pa, size, attrs, _ in leaves:
        if out and out[-1][1] == va and out[-1][2] + (va - out[-1][0]) == pa and out[-1][3] == attrs:
            out[-1][1] = va + size
        else:
            out.append([va, va + size, pa, attrs])
    return [tuple(r) for r in out]


def fmt_attrs(a):
    w, nx, u, pcd, pwt = a
    return f"r{'w' if w else '-'}{'-' if nx else 'x'}{'u' if u else '-'} pcd={int(pcd)} pwt={int(pwt)}"


def show(tag, items, is_run, limit=5):
    for r in items[:limit]:
        if is_run:
            print(f"#   only in {tag}: va=0x{r[0]:x}..0x{r[1]:x} pa=0x{r[2]:x} {fmt_attrs(r[3])}")
        else:
            print(f"#   only in {tag}: va=0x{r[0]:x} pa=0x{r[1]:x} size=0x{r[2]:x} {fmt_attrs(r[3])}")
    if len(items) > limit:
        print(f"#   ... and {len(items) - limit} more only in {tag}")


def compare(argv):
    sock = None
    if len(argv) >= 2 and argv[0] == "--qmp":
        sock, argv = argv[1], argv[2:]
    if len(argv) != 2:
        raise Bad("usage: compare [--qmp SOCKET] LOG TLB")
    dump, total = leaves_from_log(argv[0])
    if not dump:
        raise Bad(f"{argv[0]}: no '# leaf:' lines")
    tlb, st = leaves_from_tlb(argv[1], Prober(sock) if sock else None)
    ok = True
    if total is not None and total != len(dump):
        print(f"# tlb: the dump has {len(dump)} leaf lines, '# leaves:' says {total}")
        ok = False
    rd, rt = runs(dump), runs(tlb)
    sd, stl = set(rd), set(rt)
    if rd != rt:
        ok = False
        print(f"# tlb: runs differ: dump {len(rd)}, info tlb {len(rt)}")
        show("dump", sorted(sd - stl), True)
        show("info tlb", sorted(stl - sd), True)
    ld = {l[:4] for l in dump}
    lt = {l[:4] for l in tlb}
    if ld != lt:
        ok = False
        print(f"# tlb: leaves differ: dump {len(ld)}, info tlb {len(lt)}")
        show("dump", sorted(ld - lt), False)
        show("info tlb", sorted(lt - ld), False)
    # PAT bit of 4K lines against the dump's cache type at that address
    starts = [l[0] for l in dump]
    pat_bad = pat_n = 0
    for va, pa, size, attrs, pat in tlb:
        if size != K4 or pat is None:
            continue
        i = bisect.bisect_right(starts, va) - 1
        if i >= 0 and va < dump[i][0] + dump[i][2]:
            pat_n += 1
            if dump[i][4] != pat:
                pat_bad += 1
                if pat_bad <= 5:
                    print(f"# tlb: PAT bit {pat} at 0x{va:x}, the dump's cache type has {dump[i][4]}")
    if pat_bad:
        ok = False
    sizes = {K4: "4k", M2: "2m", G1: "1g"}
    count = {name: sum(1 for l in tlb if l[2] == s) for s, name in sizes.items()}
    print(f"# tlb: lines={len(tlb)} 4k={count['4k']} 2m={count['2m']} 1g={count['1g']} "
          f"global={st['global']} accessed={st['accessed']} dirty={st['dirty']} "
          f"pat_checked={pat_n} probed={st['probed']} assumed={st['assumed']}")
    print(f"# tlb: leaves={len(dump)} runs={len(rd)} {'equal' if ok else 'DIFFERENT'}")
    return 0 if ok else 1


def translate(argv):
    if len(argv) != 2:
        raise Bad("usage: translate LOG VA")
    dump, _ = leaves_from_log(argv[0])
    va = int(argv[1], 0)
    i = bisect.bisect_right([l[0] for l in dump], va) - 1
    if i >= 0 and va < dump[i][0] + dump[i][2]:
        print(f"0x{dump[i][1] + va - dump[i][0]:x}")
    else:
        print("unmapped")
    return 0


def main(argv):
    try:
        if len(argv) > 1 and argv[1] == "compare":
            return compare(argv[2:])
        if len(argv) > 1 and argv[1] == "translate":
            return translate(argv[2:])
        print(__doc__, file=sys.stderr)
        return 2
    except (OSError, Bad, EOFError) as e:
        print(f"# tlbcmp: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
