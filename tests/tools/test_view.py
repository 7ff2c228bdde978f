#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile report through "make view", judged in headless Chromium.

The report below carries markup and script in every text field the page
and the SVG show: the table names (a "><svg onload=...> that closes an
attribute), the listing's format (a <script> element), a region marker, a
note, the cpu and firmware-tables facts, a firmware leaf's flags, test
names and reasons (a "</script>" that would end the page's data).  Every
payload sets document.title to "pwned-...".  "make view REPORT=..." must
write both files; Chromium loads index.html and map.svg (--dump-dom, after
the scripts ran), and in neither document may there be an element the
report added (script, svg, img, iframe, b beyond the page's own), an
on* attribute, or a text that a payload set (the title changed).  The
payloads must be on the page as text, so the test cannot pass by the
page leaving them out; map.svg must parse as XML.

Prints "ok - ..." / "not ok - ..." and "view-hostile: N passed, M failed".
"""

import html.parser
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CHROMIUM = os.environ.get("CHROMIUM", "chromium")
TIMEOUT = int(os.environ.get("VIEW_BROWSER_TIMEOUT", "240"))
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "mk"))
from tapcheck import Checks  # noqa: E402

TABLES = "\"><svg/onload=document.title='pwned-tables'>"
PAYLOADS = [
    TABLES,
    "<script>document.title='pwned-format'</script>",
    "<img src=x onerror=document.title='pwned-region'>",
    "<iframe srcdoc=\"<script>parent.document.title='pwned-note'</script>\"></iframe>",
]

REPORT = """\
# ptlab: version=1 mode=firmware
# cpu: vendor=<script>document.title='pwned-cpu'</script> family=6
# ptdump: tables={t} format=ranges levels=4 cr3=0x1000
# ---[ {p[2]} ]---
# 0x0000000000001000-0x00000000000a0000       636K     RW                 NX pte
# 0x0000000000200000-0x0000000000400000         2M     RW                 NX pmd
# note {p[3]}
# ptdump-end: tables={t} lines=2 leaves_4k=159 leaves_2m=1 leaves_1g=0 complete=1
# ptdump: tables=firmware format={p[1]} levels=4 cr3=0x2000
# firmware-leaf: va=0x0 pa=0x0 size=0x1000 flags=<svg/onload=document.title='pwned-flags'> cache=0
# ptdump-end: tables=firmware lines=1 listed=1 leaves_4k=1 leaves_2m=0 leaves_1g=0 complete=1
# leaves: 4k=159 2m=1 1g=0
# plan-entry: va=0x1000 pa=0x1000 len=0x9f000 kind=identity flags=w-- cache=0 max=4K type=7
# firmware-tables: leaves_4k=1 leaves_2m=0 leaves_1g=0 note=<b/onclick=document.title='pwned-b'>
ok 1 - plan: <script>document.title='pwned-test'</script>
not ok 2 - live: x: </script><script>document.title='pwned-reason'</script>
1..2
ptlab: 1 passed, 1 failed, 0 skipped
""".format(t=TABLES, p=PAYLOADS)

CHECKS = Checks("view-hostile", prefix="view-hostile")


def check(cond, name, detail=""):
    return CHECKS.check(cond, name, detail=detail)


class Dom(html.parser.HTMLParser):
    """Elements (tag, attributes) and the text of a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.text = []
        self.title = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_title = tag == "title" and self.title is None

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.title = (self.title or "") + data


def dump_dom(path, profile):
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-extensions", "--user-data-dir=" + profile,
                        "--dump-dom", "file://" + os.path.abspath(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def judge(what, path, profile, allowed):
    """The DOM Chromium built from @path holds only @allowed elements (tag ->
    how many at most) of those a payload would add, no on* attribute, no
    text a payload set, and every payload as text."""
    rc, dom = dump_dom(path, profile)
    check(rc == 0 and dom.strip() != "", "%s: Chromium dumped its DOM (exit %d)" % (what, rc))
    d = Dom()
    d.feed(dom)
    counts = {}
    for tag, _ in d.elements:
        counts[tag] = counts.get(tag, 0) + 1
    extra = {t: n for t, n in counts.items()
             if t in ("script", "svg", "img", "iframe", "b", "foreignobject") and
             n > allowed.get(t, 0)}
    check(not extra, "%s: no element from the report (script, svg, img, iframe, b)" % what,
          repr(extra))
    handlers = sorted({k for _, a in d.elements for k in a if k.startswith("on")})
    check(not handlers, "%s: no on* attribute on any element" % what, " ".join(handlers))
    text = "".join(d.text)
    set_by = [t.strip() for t in d.text if t.strip().startswith("pwned-")]
    check(not set_by and not (d.title or "").startswith("pwned"),
          "%s: no payload ran (title %r)" % (what, d.title), repr(set_by[:3]))
    return text


def main():
    work = tempfile.mkdtemp(prefix="view-hostile.")
    rep = os.path.join(work, "hostile's report.txt")
    with open(rep, "w") as f:
        f.write(REPORT)
    build = os.path.join(work, "build")
    p = subprocess.run(["make", "-s", "-C", ROOT, "view", "DEPS_CHECK=0", "BUILD=" + build,
                        "REPORT=" + rep], capture_output=True, text=True)
    out = os.path.join(build, "view")
    page, svg = os.path.join(out, "index.html"), os.path.join(out, "map.svg")
    check(p.returncode == 0 and os.path.exists(page) and os.path.exists(svg),
          "make view REPORT=<hostile report> wrote index.html and map.svg",
          (p.stdout + p.stderr).strip()[:300])
    if not os.path.exists(page) or not os.path.exists(svg):
        return CHECKS.summary()
    try:
        ET.parse(svg)
        check(True, "map.svg is well-formed XML")
    except ET.ParseError as e:
        check(False, "map.svg is well-formed XML", str(e))
    with tempfile.TemporaryDirectory(prefix="ptlab-chromium-") as prof:
        # the page's own: its data and its script, the map, no img/iframe/b
        text = judge("index.html", page, prof, {"script": 2, "svg": 1})
        check(all(x in text for x in PAYLOADS),
              "index.html: every payload is on the page as text",
              repr([x for x in PAYLOADS if x not in text]))
        check("ptlab report" in text and "1 failed" in text,
              "index.html: the page itself was drawn (summary)")
        stext = judge("map.svg", svg, prof, {"svg": 1})
        check(TABLES in stext and PAYLOADS[2] in stext,
              "map.svg: the table name and the region are in it as text")
    subprocess.run(["rm", "-rf", work])
    return CHECKS.summary()


if __name__ == "__main__":
    sys.exit(main())
