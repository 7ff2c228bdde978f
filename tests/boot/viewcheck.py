#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the address-space page of a report in a real browser.

    viewcheck.py REPORT VIEWDIR [--shot OUT.png] [--expect-script-error]
    viewcheck.py --compare REF.html NEW.html [--expect-different]

Loads VIEWDIR/index.html in headless Chromium, with the browser's console
log on stderr, and checks:
  - no console message (script errors, failed loads) was logged;
  - the rendered DOM (--dump-dom, after the scripts ran) holds every run of
    every ranges listing of REPORT, in order, in its own table, and leaf
    counts per size equal the report's facts (# leaves: for ptlab's tables,
    # firmware-tables: for the firmware's), counted by the page's script
    from the runs;
  - the checks table has every test point, failures first;
  - a screenshot (--screenshot) is not blank;
  - VIEWDIR/map.svg rendered by rsvg-convert is not blank and has one
    run rectangle per run.
Prints "ok - ..." / "not ok - ..." lines.  --expect-script-error inverts the
console check (a control: a page with a broken script must be caught).

--compare: the same report's page as two renderers wrote it (REF.html, the
page as it looked, committed; NEW.html, today's tools/view.py), each
screenshot by Chromium at 1400x2400 (the summary, the picture, the
findings and both listings' tables), must look the same: at most
SAME_PIXELS (0.1 %) of the pixels differ by more than 24 in a colour
channel, and the new one is not blank (two blank pages are not a match).
--expect-different inverts it (a control: a page whose colours were
changed must be told apart).
"""

import html.parser
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import report  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "chromium")
TIMEOUT = int(os.environ.get("VIEW_BROWSER_TIMEOUT", "240"))
results = []


def check(ok, what):
    results.append(ok)
    print(("ok - " if ok else "not ok - ") + what)


def chromium(args, profile):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--user-data-dir=" + profile,
           "--enable-logging=stderr", "--v=0"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def png_pixels(path):
    """(width, height, rows of RGB tuples' bytes) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("PNG depth %d colour type %d not handled" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def not_blank(path, what):
    try:
        w, h, bpp, rows = png_pixels(path)
    except (OSError, ValueError, zlib.error) as e:
        check(False, "%s: cannot read %s: %s" % (what, path, e))
        return
    colours = set()
    inked = 0
    total = 0
    for row in rows[::4]:
        for x in range(0, w * bpp, 4 * bpp):
            px = row[x:x + 3]
            total += 1
            colours.add(px)
            if px != b"\xff\xff\xff":
                inked += 1
    frac = inked / max(total, 1)
    check(len(colours) >= 8 and frac > 0.02,
          "%s: not blank (%dx%d, %d colours sampled, %.1f%% not white)"
          % (what, w, h, len(colours), 100 * frac))


SHOT_SIZE = "1400,2400"
SAME_PIXELS = 0.001


def differing(a, b):
    """(pixels that differ by more than 24 in a channel, all pixels) of two PNGs."""
    wa, ha, ba, ra = png_pixels(a)
    wb, hb, bb, rb = png_pixels(b)
    if (wa, ha) != (wb, hb):
        return wa * ha, wa * ha
    n = 0
    for x, y in zip(ra, rb):
        if x == y and ba == bb:
            continue
        for i in range(wa):
            pa, pb = x[i * ba:i * ba + 3], y[i * bb:i * bb + 3]
            if any(abs(u - v) > 24 for u, v in zip(pa, pb)):
                n += 1
    return n, wa * ha


def compare(ref, new, expect_different):
    """Screenshots of REF and NEW in Chromium, compared pixel by pixel."""
    shots = []
    with tempfile.TemporaryDirectory(prefix="ptlab-chromium-") as prof:
        for page in (ref, new):
            out = os.path.join(prof, "shot%d.png" % len(shots))
            rc, _, _ = chromium(["--screenshot=" + out, "--window-size=" + SHOT_SIZE,
                                 "--hide-scrollbars", "file://" + os.path.abspath(page)], prof)
            check(rc == 0 and os.path.exists(out), "%s: screenshot written (exit %d)" % (page, rc))
            shots.append(out)
        if not all(os.path.exists(x) for x in shots):
            return 1
        if not expect_different:
            not_blank(shots[1], "%s's screenshot" % new)
        n, total = differing(shots[0], shots[1])
        same = n <= SAME_PIXELS * total
        what = "%d of %d pixels differ (at most %.1f %% may)" % (n, total, 100 * SAME_PIXELS)
        if expect_different:
            check(not same, "control: a page with changed colours is told apart: " + what)
        else:
            check(same, "%s looks as %s does: %s" % (new, ref, what))
    return 0 if all(results) else 1


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.section = None
        self.runs = {}         # tables -> [(start, end)]
        self.counts = {}       # (tables, size) -> text
        self.checks = []       # classes of the checks table rows
        self.in_checks = False
        self.capture = None
        self.rendered = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and a.get("data-rendered") == "yes":
            self.rendered = True
        if tag == "section" and (a.get("id") or "").startswith("dump-"):
            self.section = a["id"][5:]
        if tag == "table" and a.get("id") == "checks":
            self.in_checks = True
        if tag == "tr" and self.in_checks and a.get("class") in ("fail", "skip", "pass"):
            self.checks.append(a["class"])
        if tag == "tr" and "run" in (a.get("class") or "").split() and self.section:
            self.runs.setdefault(self.section, []).append((a.get("data-start"), a.get("data-end")))
        if tag == "td" and a.get("class") == "count":
            self.capture = (a.get("data-tables"), a.get("data-size"))
            self.counts[self.capture] = ""

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        if tag == "table":
            self.in_checks = False
        if tag == "td":
            self.capture = None

    def handle_data(self, data):
        if self.capture:
            self.counts[self.capture] += data


def main(argv):
    if len(argv) >= 4 and argv[1] == "--compare":
        return compare(argv[2], argv[3], "--expect-different" in argv[4:])
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rep_path, vdir = argv[1], argv[2]
    shot = argv[argv.index("--shot") + 1] if "--shot" in argv else None
    expect_err = "--expect-script-error" in argv
    r = report.parse_file(rep_path)
    page = "file://" + os.path.abspath(os.path.join(vdir, "index.html"))
    with tempfile.TemporaryDirectory(prefix="ptlab-chromium-") as prof:
        rc, dom, log = chromium(["--dump-dom", page], prof)
        console = [ln for ln in log.splitlines() if re.search(r":CONSOLE[(:]", ln) or "Uncaught" in ln]
        if expect_err:
            check(rc == 0 and bool(console), "control: the browser reported the broken script "
                  "(%s)" % (console[0][:100] if console else "nothing logged"))
            return 0 if all(results) else 1
        check(rc == 0 and not console, "page loaded with no console message (exit %d%s)"
              % (rc, "; " + console[0][:160] if console else ""))
        d = Dom()
        d.feed(dom)
        check(d.rendered, "the page's script ran to its end (body data-rendered)")
        for name, dm in sorted(r.dumps.items()):
            if dm.format != "ranges":
                continue
            want = [("0x%016x" % x.start, "0x%016x" % (x.end % (1 << 64))) for x in dm.runs]
            got = d.runs.get(name, [])
            check(got == want, "%s: all %d runs of the listing in the page, in order (page has %d)"
                  % (name, len(want), len(got)))
            if name == "ptlab":
                f = r.fact("leaves")
                ref = {"4k": f.get("4k"), "2m": f.get("2m"), "1g": f.get("1g")}
                src = "# leaves:"
            else:
                f = r.fact("firmware-tables")
                ref = {"4k": f.get("leaves_4k"), "2m": f.get("leaves_2m"), "1g": f.get("leaves_1g")}
                src = "# firmware-tables:"
            page_counts = {k: d.counts.get((name, k)) for k in ("4k", "2m", "1g")}
            check(all(ref[k] is not None and page_counts[k] == str(ref[k]) for k in ref),
                  "%s: leaf counts the page computed %s equal the report's %s %s"
                  % (name, page_counts, src, ref))
        rank = [0 if "fail" in c else 1 if "skip" in c else 2 for c in d.checks]
        check(len(d.checks) == len(r.tests) and rank == sorted(rank),
              "checks table: %d rows for %d test points, failures first"
              % (len(d.checks), len(r.tests)))
        out = shot or os.path.join(vdir, "screenshot.png")
        rc, _, _ = chromium(["--screenshot=" + os.path.abspath(out), "--window-size=1200,900",
                             "--hide-scrollbars", page], prof)
        check(rc == 0 and os.path.exists(out), "screenshot written (exit %d)" % rc)
        if os.path.exists(out):
            not_blank(out, "screenshot")
    svg = os.path.join(vdir, "map.svg")
    png = os.path.join(vdir, "map.png")
    p = subprocess.run(["rsvg-convert", "-o", png, svg], stderr=subprocess.PIPE, timeout=TIMEOUT)
    check(p.returncode == 0, "rsvg-convert rendered map.svg (exit %d %s)"
          % (p.returncode, p.stderr.decode(errors="replace").strip()[:100]))
    if p.returncode == 0:
        not_blank(png, "map.svg rendering")
    with open(svg) as f:
        nrect = len(re.findall(r'<rect class="run[ "]', f.read()))
    nruns = sum(len(x.runs) for x in r.dumps.values() if x.format == "ranges")
    check(nrect == nruns and nruns > 0, "map.svg: %d run rectangles for %d runs" % (nrect, nruns))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
