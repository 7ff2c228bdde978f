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

import html
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

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


# ---- escaping ----
#
# Every string that came from the report (table names, formats, regions,
# notes, facts, test names) reaches the page and the SVG through one of two
# contexts, each with one helper:
#   - markup text and attribute values (HTML, and the XML of map.svg):
#     tag(), which escapes every string argument of its template (& < > "
#     ') and drops what XML cannot hold; a fragment tag() already built is
#     a Markup and goes in as it is;
#   - the JSON the page's script reads, inside <script>: script_json(),
#     which leaves no "<" (so no "</script>" or "<!--") in the script data.
# Numbers are formatted by the template (%d, %x, %.2f) and need nothing.

XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


class Markup(str):
    """Text that is already markup: tag() puts it in unescaped."""


def esc(v):
    """@v as markup text or an attribute value (quoted with " or ')."""
    if isinstance(v, Markup):
        return v
    if isinstance(v, str):
        return html.escape(XML_BAD.sub("\ufffd", v), quote=True)
    if isinstance(v, (int, float)):
        return v
    raise TypeError("tag(): %r is neither text nor a number" % (v,))


def tag(template, *args):
    """@template % @args with every string argument escaped: a Markup."""
    return Markup(template % tuple(esc(a) for a in args))


def script_json(data):
    """@data as JSON safe inside <script>...</script>."""
    return Markup(json.dumps(data).replace("&", "\\u0026").replace("<", "\\u003c")
                  .replace(">", "\\u003e"))


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

def svg_defs():
    out = ["<defs>"]
    for perm, c in PERM_COLOUR.items():
        out.append(tag('<pattern id="p-%s-pud" width="4" height="4" patternUnits="userSpaceOnUse">'
                       '<rect width="4" height="4" fill="%s"/></pattern>',
                       perm, c))
        out.append(tag('<pattern id="p-%s-pmd" width="6" height="6" patternUnits="userSpaceOnUse">'
                       '<rect width="6" height="6" fill="%s"/>'
                       '<circle cx="3" cy="3" r="1.2" fill="#ffffff" fill-opacity="0.55"/></pattern>',
                       perm, c))
        out.append(tag('<pattern id="p-%s-pte" width="5" height="5" patternUnits="userSpaceOnUse" '
                       'patternTransform="rotate(45)"><rect width="5" height="5" fill="%s"/>'
                       '<line x1="0" y1="0" x2="0" y2="5" stroke="#ffffff" stroke-opacity="0.6" '
                       'stroke-width="1.5"/></pattern>',
                       perm, c))
    out.append('<pattern id="hole" width="8" height="8" patternUnits="userSpaceOnUse" '
               'patternTransform="rotate(45)"><rect width="8" height="8" fill="#eeeeee"/>'
               '<line x1="0" y1="0" x2="0" y2="8" stroke="#bbbbbb" stroke-width="3"/></pattern>')
    out.append("</defs>")
    return out


def build_svg(r, phys, finds):
    dumps = [(n, d) for n, d in sorted(r.dumps.items(), key=lambda x: x[0] != "ptlab")
             if d.format == "ranges"]
    levels = max([d.levels for _, d in dumps] or [4])
    half = 1 << (12 + 9 * levels - 1)
    halves = [("Lower half", 0, half), ("Upper half", TOP - half, TOP)]
    body = []
    y = 10
    body.append(tag('<text x="%d" y="%d" class="title">ptlab: virtual address space '
                    '(compressed scale; colour = permission, pattern = leaf size)</text>',
                    LEFT, y + 12))
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
        body.append(tag('<text x="4" y="%d" class="lbl">physical</text>', y + 20))
        for pa, ln, t in phys:
            x0, x1 = phys_scale.x(pa), phys_scale.x(pa + ln)
            body.append(tag('<rect class="phys" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s">'
                            '<title>%s-%s %s %s</title></rect>',
                            LEFT + x0, y, max(x1 - x0, 0.8), ROW_H - 6, TYPE_COLOUR.get(t, "#000"),
                            hx(pa), hx(pa + ln), human(ln),
                            EFI_TYPES[t] if t < len(EFI_TYPES) else "type %d" % t))
        body.append(tag('<text x="%d" y="%d" class="tick">0</text>', LEFT, y + ROW_H + 6))
        body.append(tag('<text x="%d" y="%d" class="tick" text-anchor="end">%s</text>',
                        LEFT + W, y + ROW_H + 6, hx(hi)))
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
            import bisect
            i = bisect.bisect_right(spans, (a, TOP)) - 1
            return i >= 0 and spans[i][0] <= a < spans[i][1]

        sc = Scale(lo, hi, pts, mapped, W)
        body.append(tag('<text x="4" y="%d" class="half">%s</text>', y + 4, hname))
        body.append(tag('<text x="%d" y="%d" class="tick">%s</text>', LEFT, y + 4, hx(lo)))
        body.append(tag('<text x="%d" y="%d" class="tick" text-anchor="end">%s</text>',
                        LEFT + W, y + 4, hx(hi - 1)))
        y += 10
        # PML4 slot boundaries that are on the scale
        for p in sorted(pts):
            if p % SLOT == 0 and lo < p < hi:
                x = LEFT + sc.x(p)
                body.append(tag('<line class="slot" x1="%.2f" x2="%.2f" y1="%d" y2="%d"/>',
                                x, x, y, y + len(dumps) * (ROW_H + 4)))
        for name, d in dumps:
            rows[(hi_idx, name)] = (y, sc)
            body.append(tag('<text x="4" y="%d" class="lbl">%s</text>', y + 20, name))
            body.append(tag('<rect x="%d" y="%d" width="%d" height="%d" class="empty"/>',
                            LEFT, y, W, ROW_H - 6))
            for run in d.runs:
                if not lo <= run.start < hi:
                    continue
                x0, x1 = sc.x(run.start), sc.x(min(run.end, hi))
                lvl = run.level_name if run.level_name in ("pte", "pmd", "pud") else "pud"
                cls = "run viol" if run.perm == "RWX" else "run"
                body.append(tag('<rect class="%s" data-tables="%s" data-start="%s" x="%.2f" y="%d" '
                                'width="%.2f" height="%d" fill="url(#p-%s-%s)"><title>%s %s-%s %s %s %s'
                                '</title></rect>',
                                cls, name, hx(run.start), LEFT + x0, y, max(x1 - x0, 0.8),
                                ROW_H - 6, run.perm, lvl, name, hx(run.start), hx(run.end),
                                human(run.size), " ".join(sorted(run.flags)) or "ro",
                                run.level_name))
            y += ROW_H + 4
        # region brackets of ptlab's listing
        for name, d in dumps[:1]:
            regs = {}
            for run in d.runs:
                if lo <= run.start < hi and run.region:
                    a, b = regs.get(run.region, (run.start, run.end))
                    regs[run.region] = (min(a, run.start), max(b, run.end))
            for reg, (a, b) in regs.items():
                x0, x1 = LEFT + sc.x(a), LEFT + sc.x(min(b, hi))
                body.append(tag('<path class="region" d="M%.2f %d v6 H%.2f v-6"/>', x0, y, x1))
                body.append(tag('<text class="regionlbl" x="%.2f" y="%d">%s</text>',
                                x0, y + 18, reg))
        y += 30
        if hi_idx == 0:
            body.append(tag('<rect x="%d" y="%d" width="%d" height="22" fill="url(#hole)"/>',
                            LEFT, y, W))
            body.append(tag('<text x="%d" y="%d" class="holelbl" text-anchor="middle">'
                            'non-canonical hole %s-%s (%s)</text>',
                            LEFT + W // 2, y + 15, hx(half), hx(TOP - half - 1),
                            human(TOP - 2 * half)))
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
                bands.append(tag('<polygon class="band %s" points="%.2f,%d %.2f,%d %.2f,%d %.2f,%d" '
                                 'fill="%s"><title>%s: pa %s -> va %s (%s)</title></polygon>',
                                 kind, px0, phys_y + ROW_H - 6, px1, phys_y + ROW_H - 6, vx1, vy,
                                 vx0, vy, colour, kind, hx(e["pa"]), hx(e["va"]), human(e["len"])))

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
        body.append(tag('<g class="finding" data-n="%d"><circle cx="%.2f" cy="%d" r="7"/>'
                        '<text x="%.2f" y="%d" text-anchor="middle">%d</text><title>%d: %s %s-%s</title></g>',
                        i, x, fy - 2, x, fy + 2, i, i, f["kind"], hx(f["start"]), hx(f["end"])))

    # legend
    lx = LEFT
    for perm in ("R", "RX", "RW", "RWX"):
        for lvl in ("pte", "pmd", "pud"):
            body.append(tag('<rect x="%d" y="%d" width="22" height="12" fill="url(#p-%s-%s)"/>',
                            lx, y, perm, lvl))
            body.append(tag('<text x="%d" y="%d" class="tick">%s %s</text>',
                            lx + 25, y + 10, perm, LEVEL_NAMES[lvl]))
            lx += 80
    y += 24
    head = ['<svg xmlns="http://www.w3.org/2000/svg" id="map" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="sans-serif">' % (LEFT + W + 20, y, LEFT + W + 20, y),
            "<style>.title{font-size:15px;font-weight:bold}.lbl{font-size:12px}"
            ".half{font-size:13px;font-weight:bold}.tick{font-size:10px;fill:#555}"
            ".slot{stroke:#999;stroke-dasharray:2,2}.empty{fill:#f6f6f6;stroke:#ddd}"
            ".viol{stroke:#8b0000;stroke-width:2}.region{fill:none;stroke:#333}"
            ".regionlbl{font-size:10px}.holelbl{font-size:12px;fill:#555}"
            ".band{fill-opacity:0.10}.finding circle{fill:#fff;stroke:#d9534f;stroke-width:2}"
            ".finding text{font-size:9px;fill:#d9534f;font-weight:bold}</style>"]
    return Markup("\n".join(head + svg_defs() + body + ["</svg>"]))


# ---- HTML ----

CSS = """
body{font-family:sans-serif;margin:16px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
th{background:#f0f0f0}.mono,td.mono{font-family:monospace}
.fail{background:#fbe3e3}.skip{background:#fff6d6}.pass{background:#fff}
.summary span{margin-right:18px;font-weight:bold}
.grid{display:grid;grid-template-columns:repeat(32,18px);gap:1px;margin:6px 0 14px 0}
.cell{width:18px;height:18px;background:#f2f2f2;font-size:7px;text-align:center;line-height:18px;color:#fff}
.cell.R{background:#4a90d9}.cell.RX{background:#e8a33d}.cell.RW{background:#5cb85c}
.cell.RWX{background:#d9534f;outline:2px solid #8b0000}
.perm-RWX{background:#fbe3e3}.scroll{max-height:420px;overflow:auto;display:inline-block}
#mapbox{overflow-x:auto;border:1px solid #ddd}
#map{width:100%;height:auto}
"""

JS = r"""
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const SIZE = {pte: 1n << 12n, pmd: 1n << 21n, pud: 1n << 30n};
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in (attrs || {})) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function row(tbody, cells, attrs) {
  const tr = el('tr', attrs || {});
  for (const c of cells) tr.appendChild(el('td', {}, String(c)));
  tbody.appendChild(tr);
  return tr;
}
// checks: failures first, then skips and known deviations (TODO), then passes
(function () {
  const tb = document.querySelector('#checks tbody');
  const rank = t => (t.todo ? 1 : !t.ok ? 0 : t.skip ? 1 : 2);
  const tests = D.tests.slice().sort((a, b) => rank(a) - rank(b) || a.n - b.n);
  for (const t of tests)
    row(tb, [t.n, t.todo ? 'todo' : !t.ok ? 'not ok' : t.skip ? 'skip' : 'ok', t.name, t.reason],
        {class: t.todo ? 'skip' : !t.ok ? 'fail' : t.skip ? 'skip' : 'pass'});
})();
// facts
(function () {
  const tb = document.querySelector('#facts tbody');
  for (const f of D.facts) row(tb, [f[0], f[1]]);
})();
// per listing: counts from the runs, the PML4 grid, every run
for (const name of Object.keys(D.dumps)) {
  const d = D.dumps[name];
  const sec = document.getElementById('dump-' + name);
  const counts = {pte: 0n, pmd: 0n, pud: 0n};
  let bytes = 0n;
  for (const r of d.runs) {
    const size = BigInt(r.end) - BigInt(r.start);
    bytes += size;
    if (r.level in SIZE) counts[r.level] += size / SIZE[r.level];
  }
  for (const l of d.leaves) {
    const s = BigInt(l.size);
    for (const k in SIZE) if (SIZE[k] === s) counts[k] += 1n;
  }
  const ct = sec.querySelector('table.counts tbody');
  const tr = el('tr', {});
  for (const [k, v] of [['4k', counts.pte], ['2m', counts.pmd], ['1g', counts.pud]])
    tr.appendChild(el('td', {class: 'count', 'data-tables': name, 'data-size': k}, v.toString()));
  tr.appendChild(el('td', {class: 'bytes'}, bytes.toString()));
  tr.appendChild(el('td', {class: 'nruns'}, String(d.runs.length)));
  ct.appendChild(tr);
  const grid = sec.querySelector('.grid');
  for (let s = 0; s < 512; s++) {
    const info = d.slots[s];
    const c = el('div', {class: 'cell' + (info ? ' ' + info.main : ''), 'data-slot': String(s)});
    if (info) {
      c.title = 'slot ' + s + ': ' + info.total + ' mapped in ' + info.runs + ' run(s); ' +
        Object.entries(info.bytes).map(e => e[0] + ' ' + e[1]).join(', ') + '; leaves ' +
        Object.entries(info.levels).map(e => e[0] + ' ' + e[1]).join(', ') +
        (info.regions.length ? '; ' + info.regions.join(', ') : '');
      c.textContent = String(s);
    } else {
      c.title = 'slot ' + s + ': nothing mapped';
    }
    grid.appendChild(c);
  }
  const rb = sec.querySelector('table.runs tbody');
  for (const r of d.runs) {
    const tr = row(rb, [r.region || '', r.start, r.end, r.size_h, r.flags.join(' '), r.level, r.perm],
                   {class: 'run perm-' + r.perm, 'data-start': r.start, 'data-end': r.end});
    tr.addEventListener('click', () => {
      for (const rect of document.querySelectorAll('#map rect.run'))
        rect.style.opacity = rect.getAttribute('data-start') === r.start ? '1' : '0.25';
    });
  }
  const lb = sec.querySelector('table.leaflist tbody');
  if (lb) for (const l of d.leaves) row(lb, [l.region || '', l.va, l.pa, l.size, l.flags, l.cache]);
}
// findings
(function () {
  const tb = document.querySelector('#findings tbody');
  D.findings.forEach((f, i) =>
    row(tb, [i + 1, f.tables, f.kind, f.start, f.end, f.text], {class: 'finding'}));
})();
document.body.setAttribute('data-rendered', 'yes');
"""


def build_html(r, svg, phys, finds, fw):
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
    data = {
        "tests": r.tests,
        "facts": [[k, t] for k, t, _ in r.facts],
        "dumps": dumps,
        "findings": [{"tables": f["tables"], "kind": f["kind"], "start": hx(f["start"]),
                      "end": hx(f["end"]), "text": f["text"]} for f in finds],
    }
    js_data = script_json(data)
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<title>ptlab report</title><style>%s</style></head><body>' % CSS,
           '<h1>ptlab report</h1>',
           tag('<p class="summary"><span id="passed">%d passed</span><span id="failed">%d failed'
               '</span><span id="skipped">%d skipped</span><span>plan 1..%s</span></p>',
               r.passed, r.failed, r.skipped, "" if r.plan is None else r.plan)]
    cpu = r.fact("cpu")
    if cpu:
        out.append(tag('<p class="mono">cpu: %s</p>',
                       " ".join("%s=%s" % kv for kv in cpu.items())))
    out.append('<h2>Address space</h2>')
    if not any(d.format == "ranges" for d in r.dumps.values()):
        out.append('<p>No ranges listing in this report: run with '
                   '<code>--dump=ranges</code> (and <code>--dump-firmware=ranges</code>).</p>')
    out.append(tag('<div id="mapbox">%s</div>', svg))
    out.append('<p>R blue, RX orange, RW green, RWX red (a W^X violation, outlined); '
               'hatched = 4 KiB leaves, dotted = 2 MiB, solid = 1 GiB. Dashed lines: '
               '512 GiB PML4 slot boundaries. Bands: identity (blue) and HHDM (purple) '
               'from the physical map. Numbered pins: findings below.</p>')
    out.append('<h2>Findings</h2>')
    if fw:
        raw = [t for k, t, _ in r.facts if k == "firmware-tables"]
        out.append(tag('<p class="mono" id="fwaudit">firmware-tables: %s</p>', raw[-1]))
    out.append('<table id="findings"><thead><tr><th>#</th><th>tables</th><th>finding</th>'
               '<th>start</th><th>end</th><th>what</th></tr></thead><tbody></tbody></table>')
    for name in sorted(r.dumps, key=lambda n: n != "ptlab"):
        d = r.dumps[name]
        out.append(tag('<section id="dump-%s"><h2>%s tables (%s, %d-level, CR3 %s)</h2>',
                       name, name, d.format, d.levels,
                       hx(d.cr3) if isinstance(d.cr3, int) else str(d.cr3)))
        for note in d.notes:
            out.append(tag('<p class="note">%s</p>', note))
        out.append('<table class="counts"><thead><tr><th>4K leaves</th><th>2M leaves</th>'
                   '<th>1G leaves</th><th>bytes</th><th>runs</th></tr></thead><tbody></tbody>'
                   '</table>')
        out.append('<p>PML4 slots (32 per row; slot = bits 47:39 of the address; colour = '
                   'the permission mapping most bytes, red when any RWX):</p><div class="grid">'
                   '</div>')
        if d.format == "ranges":
            out.append('<div class="scroll"><table class="runs"><thead><tr><th>region</th>'
                       '<th>start</th><th>end</th><th>size</th><th>flags</th><th>level</th>'
                       '<th>perm</th></tr></thead><tbody></tbody></table></div>')
        else:
            out.append('<div class="scroll"><table class="leaflist"><thead><tr><th>region</th>'
                       '<th>va</th><th>pa</th><th>size</th><th>flags</th><th>cache</th></tr>'
                       '</thead><tbody></tbody></table></div>')
        out.append('</section>')
    if phys:
        out.append('<h2>Physical memory map</h2><div class="scroll"><table id="physmap"><thead><tr><th>start</th>'
                   '<th>end</th><th>size</th><th>type</th></tr></thead><tbody>')
        for pa, ln, t in phys:
            out.append(tag('<tr><td class="mono">%s</td><td class="mono">%s</td><td>%s</td>'
                           '<td><span style="background:%s">&nbsp;&nbsp;&nbsp;</span> %s</td></tr>',
                           hx(pa), hx(pa + ln), human(ln), TYPE_COLOUR.get(t, "#000"),
                           EFI_TYPES[t] if t < len(EFI_TYPES) else t))
        out.append('</tbody></table></div>')
    out.append('<h2>Checks</h2><table id="checks"><thead><tr><th>#</th><th>result</th>'
               '<th>check</th><th>reason</th></tr></thead><tbody></tbody></table>')
    out.append('<h2>Facts</h2><table id="facts"><thead><tr><th>key</th><th>values</th></tr>'
               '</thead><tbody></tbody></table>')
    out.append(tag('<script type="application/json" id="data">%s</script>', js_data))
    out.append(tag('<script>%s</script></body></html>', Markup(JS)))
    return "\n".join(out)


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
    svg = build_svg(r, phys, finds)
    page = build_html(r, svg, phys, finds, fw)
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
