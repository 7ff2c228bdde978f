#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The address-space page: build/view/index.html and build/view/map.svg
from a ptlab report (\\PTLAB.TXT or a serial log), read by report.py.

    view.py REPORT OUTDIR

index.html is self-contained (inline CSS, JS and SVG; nothing fetched).
The picture shows the virtual address space of both halves on a
compressed scale (every interval between two run edges gets a width that
grows with the logarithm of its length, so 4 KiB runs, 512 GiB PML4 slots
and the non-canonical hole are all visible), runs coloured by permission
(R, RX, RW; RWX red and outlined as a violation) and patterned by leaf
size, the firmware's tables beside ptlab's, the audit's findings located
on them, and the physical memory map with identity and HHDM bands.
"""

import bisect
import math
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

try:
    import jinja2
    import markupsafe
except ImportError:
    print("view: Jinja2 is missing: install python3-jinja2 (mk/packages.txt, make deps)",
          file=sys.stderr)
    sys.exit(2)

TOP = 1 << 64
HHDM_BASE = 0xffff800000000000
SLOT = 1 << 39

EFI_TYPES = ["Reserved", "LoaderCode", "LoaderData", "BootServicesCode",
             "BootServicesData", "RuntimeServicesCode", "RuntimeServicesData",
             "Conventional", "Unusable", "ACPIReclaim", "ACPINVS", "MMIO",
             "MMIOPortSpace", "PalCode", "Persistent", "Unaccepted"]
TYPE_COLOUR = {0: "#9e9e9e", 1: "#f4b183", 2: "#f8cbad", 3: "#a9d18e", 4: "#c5e0b4",
               5: "#ff7f7f", 6: "#ffb3b3", 7: "#dae3f3", 8: "#404040", 9: "#ffe699",
               10: "#ffd966", 11: "#b4a7d6", 12: "#8e7cc3", 13: "#7f6000", 14: "#76d7c4",
               15: "#cccccc"}
PERM_COLOUR = {"R": "#4a90d9", "RX": "#e8a33d", "RW": "#5cb85c", "RWX": "#d9534f"}
LEVEL_NAMES = {"pte": "4K", "pmd": "2M", "pud": "1G"}

W = 1400            # drawing width of each half
LEFT = 110          # label column
ROW_H = 34


# ---- rendering ----
#
# The page and map.svg are Jinja2 templates (tools/templates/) rendered with
# autoescaping on: every value a template writes with {{ }} is escaped for
# markup text and attribute values (& < > " '), so a string that came from
# the report (table names, formats, regions, notes, facts, test names) cannot
# add an element or an attribute, and no call site has to remember to
# escape.  finalize() also turns what XML cannot hold into U+FFFD (map.svg
# is XML, and the page embeds it) and refuses a None (a field the code
# forgot, never the text "None").  The JSON the page's script reads goes
# through the |tojson filter, which leaves no "<", ">", "&" or "'" in it
# (so no "</script>" or "<!--").  Numbers are formatted by the templates'
# filters: |hx (0x%016x), |human (4K, 2M, ...), |f2 (%.2f).

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def finalize(v):
    """@v before it is escaped: text without what XML cannot hold."""
    if v is None:
        raise TypeError("view: a template was given None")
    if isinstance(v, str) and not isinstance(v, markupsafe.Markup):
        return XML_BAD.sub("\ufffd", v)
    return v


def environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, finalize=finalize,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(hx=hx, human=human, f2=lambda v: "%.2f" % v)
    # the data keeps the order it was built in (the page's script reads it)
    env.policies["json.dumps_kwargs"] = {}
    return env


def hx(v):
    return "0x%016x" % (v % TOP)


def human(n):
    for unit, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    for unit, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift:
            return "%.1f%s" % (n / (1 << shift), unit)
    return "%dB" % n


class Scale:
    """Piecewise scale of [lo, hi): each interval between breakpoints gets a
    width from the logarithm of its length (mapped intervals wider)."""

    def __init__(self, lo, hi, points, mapped, width):
        pts = sorted({p for p in points if lo < p < hi} | {lo, hi})
        weights = []
        for a, b in zip(pts, pts[1:]):
            lg = math.log2(max(b - a, 4096) / 4096.0)
            weights.append((1.0 + 0.6 * lg) if mapped(a, b) else (0.4 + 0.25 * lg))
        total = sum(weights) or 1.0
        self.pts = pts
        self.xs = [0.0]
        for w in weights:
            self.xs.append(self.xs[-1] + w * width / total)

    def x(self, v):
        pts, xs = self.pts, self.xs
        if v <= pts[0]:
            return xs[0]
        if v >= pts[-1]:
            return xs[-1]
        lo, hi = 0, len(pts) - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if pts[mid] <= v:
                lo = mid
            else:
                hi = mid
        a, b = pts[lo], pts[hi]
        return xs[lo] + (xs[hi] - xs[lo]) * (v - a) / (b - a)


def merge_plan(entries, kind):
    """Plan entries of @kind merged where both va and pa continue."""
    out = []
    for e in sorted((e for e in entries if e.get("kind") == kind), key=lambda e: e["pa"]):
        if out and out[-1]["pa"] + out[-1]["len"] == e["pa"] and \
                out[-1]["va"] + out[-1]["len"] == e["va"]:
            out[-1]["len"] += e["len"]
        else:
            out.append({"va": e["va"], "pa": e["pa"], "len": e["len"]})
    return out


def phys_ranges(r):
    """(pa, len, type) of the physical memory map: identity plan entries, or
    the raw descriptors when the report has them."""
    if r.memmap_raw:
        rs = [(d["pa"], d["pages"] << 12, d["type"]) for d in r.memmap_raw]
    else:
        rs = [(e["pa"], e["len"], e["type"]) for e in r.plan_entries
              if e.get("kind") == "identity"]
    rs.sort()
    merged = []
    for pa, ln, t in rs:
        if merged and merged[-1][2] == t and merged[-1][0] + merged[-1][1] == pa:
            merged[-1] = (merged[-1][0], merged[-1][1] + ln, t)
        else:
            merged.append((pa, ln, t))
    return merged


def findings(r, phys):
    """The audit's findings, each located on a run of the listing it concerns."""
    out = []
    mmio = [(pa, pa + ln) for pa, ln, t in phys if t in (11, 12)]
    for name, d in sorted(r.dumps.items()):
        if d.format != "ranges":
            continue
        for run in d.runs:
            if run.perm == "RWX":
                out.append({"tables": name, "kind": "W+X", "start": run.start, "end": run.end,
                            "text": "writable and executable"})
            if run.start == 0:
                out.append({"tables": name, "kind": "page 0", "start": 0, "end": run.end,
                            "text": "page 0 mapped (NULL dereferences do not fault)"})
            if run.execute and run.end <= HHDM_BASE:
                for a, b in mmio:
                    if run.start < b and a < run.end:
                        out.append({"tables": name, "kind": "exec MMIO",
                                    "start": max(a, run.start), "end": min(b, run.end),
                                    "text": "MMIO mapped executable (identity)"})
    fw = r.fact("firmware-tables")
    return out, fw


def slots(d):
    """Per PML4 slot: bytes per permission, runs, regions."""
    out = {}
    for run in d.runs:
        a = run.start
        while a < run.end:
            s = (a >> 39) & 511
            b = min(run.end, (a | (SLOT - 1)) + 1)
            e = out.setdefault(s, {"bytes": {}, "runs": 0, "regions": [], "levels": {}})
            e["bytes"][run.perm] = e["bytes"].get(run.perm, 0) + (b - a)
            e["levels"][run.level_name] = e["levels"].get(run.level_name, 0) + (b - a)
            e["runs"] += 1
            if run.region and run.region not in e["regions"]:
                e["regions"].append(run.region)
            a = b
    for e in out.values():
        e["total"] = human(sum(e["bytes"].values()))
        e["main"] = "RWX" if "RWX" in e["bytes"] else max(e["bytes"], key=e["bytes"].get)
        e["bytes"] = {k: human(v) for k, v in e["bytes"].items()}
        e["levels"] = {k: human(v) for k, v in e["levels"].items()}
    return out


# ---- SVG ----
#
# build_svg() lays the picture out: it computes every shape's place and
# hands the template (templates/map.svg.j2) a list of (kind, fields) in
# drawing order; the template alone writes the markup of each kind.


def build_svg(env, r, phys, finds):
    dumps = [(n, d) for n, d in sorted(r.dumps.items(), key=lambda x: x[0] != "ptlab")
             if d.format == "ranges"]
    levels = max([d.levels for _, d in dumps] or [4])
    half = 1 << (12 + 9 * levels - 1)
    halves = [("Lower half", 0, half), ("Upper half", TOP - half, TOP)]
    body = []

    def put(kind, **fields):
        body.append((kind, fields))

    y = 10
    put("title", x=LEFT, y=y + 12)
    y += 30

    # the physical map on top
    phys_scale = None
    phys_y = None
    if phys:
        pts = set()
        for pa, ln, _ in phys:
            pts.update((pa, pa + ln))
        hi = max(pts)
        phys_scale = Scale(0, hi, pts, lambda a, b: any(pa <= a < pa + ln for pa, ln, _ in phys), W)
        phys_y = y
        put("label", x=4, y=y + 20, text="physical")
        for pa, ln, t in phys:
            x0, x1 = phys_scale.x(pa), phys_scale.x(pa + ln)
            put("phys", x=LEFT + x0, y=y, w=max(x1 - x0, 0.8), h=ROW_H - 6,
                fill=TYPE_COLOUR.get(t, "#000"), pa=pa, len=ln,
                type=EFI_TYPES[t] if t < len(EFI_TYPES) else "type %d" % t)
        put("tick", x=LEFT, y=y + ROW_H + 6, text="0", end=False)
        put("tick", x=LEFT + W, y=y + ROW_H + 6, text=hx(hi), end=True)
        y += ROW_H + 40
    band_at = len(body)

    rows = {}     # (half index, tables) -> (y, scale)
    for hi_idx, (hname, lo, hi) in enumerate(halves):
        pts = {lo, hi}
        spans = []
        for _, d in dumps:
            for run in d.runs:
                if lo <= run.start < hi:
                    pts.update((run.start, min(run.end, hi)))
                    spans.append((run.start, run.end))
                    s0 = run.start & ~(SLOT - 1)
                    pts.update((s0, s0 + SLOT))
        spans.sort()

        def mapped(a, b, spans=spans):
            i = bisect.bisect_right(spans, (a, TOP)) - 1
            return i >= 0 and spans[i][0] <= a < spans[i][1]

        sc = Scale(lo, hi, pts, mapped, W)
        put("half", x=4, y=y + 4, text=hname)
        put("tick", x=LEFT, y=y + 4, text=hx(lo), end=False)
        put("tick", x=LEFT + W, y=y + 4, text=hx(hi - 1), end=True)
        y += 10
        # PML4 slot boundaries that are on the scale
        for p in sorted(pts):
            if p % SLOT == 0 and lo < p < hi:
                put("slot", x=LEFT + sc.x(p), y1=y, y2=y + len(dumps) * (ROW_H + 4))
        for name, d in dumps:
            rows[(hi_idx, name)] = (y, sc)
            put("label", x=4, y=y + 20, text=name)
            put("empty", x=LEFT, y=y, w=W, h=ROW_H - 6)
            for run in d.runs:
                if not lo <= run.start < hi:
                    continue
                x0, x1 = sc.x(run.start), sc.x(min(run.end, hi))
                put("run", viol=run.perm == "RWX", tables=name, run=run, x=LEFT + x0, y=y,
                    w=max(x1 - x0, 0.8), h=ROW_H - 6,
                    leaf=run.level_name if run.level_name in ("pte", "pmd", "pud") else "pud",
                    flags=" ".join(sorted(run.flags)) or "ro")
            y += ROW_H + 4
        # region brackets of ptlab's listing
        for name, d in dumps[:1]:
            regs = {}
            for run in d.runs:
                if lo <= run.start < hi and run.region:
                    a, b = regs.get(run.region, (run.start, run.end))
                    regs[run.region] = (min(a, run.start), max(b, run.end))
            for reg, (a, b) in regs.items():
                put("region", x0=LEFT + sc.x(a), x1=LEFT + sc.x(min(b, hi)), y=y, text=reg)
        y += 30
        if hi_idx == 0:
            put("hole", x=LEFT, y=y, w=W, start=half, end=TOP - half - 1, len=TOP - 2 * half)
            y += 40

    # identity and HHDM bands from the physical map to the virtual rows
    bands = []
    if phys_scale is not None and ("ptlab" in r.dumps):
        for kind, hidx, colour in (("identity", 0, "#3366cc"), ("hhdm", 1, "#9933cc")):
            row = rows.get((hidx, "ptlab"))
            if not row:
                continue
            vy, sc = row
            for e in merge_plan(r.plan_entries, kind):
                px0, px1 = LEFT + phys_scale.x(e["pa"]), LEFT + phys_scale.x(e["pa"] + e["len"])
                vx0, vx1 = LEFT + sc.x(e["va"]), LEFT + sc.x(e["va"] + e["len"])
                bands.append(("band", {"kind": kind, "colour": colour, "e": e,
                                       "points": [(px0, phys_y + ROW_H - 6), (px1, phys_y + ROW_H - 6),
                                                  (vx1, vy), (vx0, vy)]}))
    body[band_at:band_at] = bands

    # findings: numbered pins above the row they concern
    for i, f in enumerate(finds, 1):
        hidx = 0 if f["start"] < (1 << 63) else 1
        row = rows.get((hidx, f["tables"]))
        if not row:
            continue
        fy, sc = row
        x = LEFT + sc.x(f["start"]) + 6 if f["kind"] == "page 0" else \
            LEFT + (sc.x(f["start"]) + sc.x(min(f["end"], TOP - 1))) / 2
        put("pin", n=i, x=x, y=fy, f=f)

    # legend
    lx = LEFT
    for perm in ("R", "RX", "RW", "RWX"):
        for lvl in ("pte", "pmd", "pud"):
            put("key", x=lx, y=y, perm=perm, leaf=lvl, text="%s %s" % (perm, LEVEL_NAMES[lvl]))
            lx += 80
    y += 24
    return env.get_template("map.svg.j2").render(
        width=LEFT + W + 20, height=y, colours=PERM_COLOUR, body=body)


# ---- HTML ----

def page_data(r, finds):
    """What the page's script reads (as JSON): tests, facts, listings, findings."""
    dumps = {}
    for name, d in r.dumps.items():
        dumps[name] = {
            "format": d.format, "levels": d.levels, "cr3": hx(d.cr3) if isinstance(d.cr3, int) else d.cr3,
            "runs": [{"start": hx(x.start), "end": hx(x.end), "size_h": human(x.size),
                      "flags": sorted(x.flags), "level": x.level_name, "perm": x.perm,
                      "region": x.region} for x in d.runs],
            "leaves": [{"va": hx(l["va"]), "pa": hx(l["pa"]), "size": str(l["size"]),
                        "flags": l["flags"], "cache": l["cache"], "region": l["region"]}
                       for l in d.leaves],
            "slots": {str(k): v for k, v in slots(d).items()},
            "end": d.end or {},
            "notes": d.notes,
        }
    return {
        "tests": r.tests,
        "facts": [[k, t] for k, t, _ in r.facts],
        "dumps": dumps,
        "findings": [{"tables": f["tables"], "kind": f["kind"], "start": hx(f["start"]),
                      "end": hx(f["end"]), "text": f["text"]} for f in finds],
    }


def build_html(env, r, svg, phys, finds, fw):
    cpu = r.fact("cpu")
    fwraw = [t for k, t, _ in r.facts if k == "firmware-tables"]
    dumps = [(name, r.dumps[name]) for name in sorted(r.dumps, key=lambda n: n != "ptlab")]
    return env.get_template("view.html.j2").render(
        r=r, plan="" if r.plan is None else r.plan,
        cpu=" ".join("%s=%s" % kv for kv in cpu.items()) if cpu else "",
        ranges=any(d.format == "ranges" for d in r.dumps.values()),
        svg=markupsafe.Markup(svg), fw=fwraw[-1] if fw and fwraw else None, dumps=dumps,
        phys=[(pa, ln, TYPE_COLOUR.get(t, "#000"), EFI_TYPES[t] if t < len(EFI_TYPES) else t)
              for pa, ln, t in phys],
        data=page_data(r, finds))


def main(argv):
    """0: the page was written; 2: usage, a report that cannot be read or
    has a line the page cannot draw (named with its line number and
    field), an OUTDIR that cannot be written; 1: no report in the file."""
    if len(argv) != 3:
        print("usage: view.py REPORT OUTDIR", file=sys.stderr)
        return 2
    try:
        r = report.parse_file(argv[1])
    except OSError as e:
        print("view: cannot read the report %s: %s" % (argv[1], e.strerror or e), file=sys.stderr)
        return 2
    if r.errors:
        for e in r.errors:
            print("view: %s:%s" % (argv[1], e), file=sys.stderr)
        print("view: %s: %d line(s) the page cannot draw; nothing written"
              % (argv[1], len(r.errors)), file=sys.stderr)
        return 2
    if not r.tests and not r.dumps:
        print("view: %s holds no ptlab report (no test point, no listing)" % argv[1],
              file=sys.stderr)
        return 1
    probs = r.check()
    for p in probs:
        print("view: warning: " + p, file=sys.stderr)
    phys = phys_ranges(r)
    finds, fw = findings(r, phys)
    env = environment()
    svg = build_svg(env, r, phys, finds)
    page = build_html(env, r, svg, phys, finds, fw)
    try:
        os.makedirs(argv[2], exist_ok=True)
        with open(os.path.join(argv[2], "map.svg"), "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n")
        with open(os.path.join(argv[2], "index.html"), "w") as f:
            f.write(page + "\n")
    except OSError as e:
        print("view: cannot write %s: %s" % (e.filename or argv[2], e.strerror or e),
              file=sys.stderr)
        return 2
    n = sum(len(d.runs) for d in r.dumps.values())
    print("view: %s -> %s/index.html, %s/map.svg (%d runs, %d findings)"
          % (argv[1], argv[2], argv[2], n, len(finds)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
