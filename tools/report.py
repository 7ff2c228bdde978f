#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The one reader of ptlab's report (TAP with "# key: k=v" facts).

Reads \\PTLAB.TXT, or a serial log of a run (firmware mode mirrors the
console there with ANSI sequences; hand-off mode writes plain lines).

    import report
    r = report.parse_file("build/serial.log")
    r.tests, r.failed, r.fact("leaves"), r.dumps["ptlab"].runs

Command line (for shell scripts: the boot tests' judges, mk/verdict.sh and
tests/bench/runs.sh read reports only through these):

    report.py summary FILE           passed/failed/skipped, plan, closing line
    report.py counts FILE            the same as shell assignments: tests= passed=
                                     failed= skipped= plan= closing_passed=
                                     closing_failed= closing_skipped= closings=
                                     serial_lost= (bytes the closing line says
                                     COM1 lost, 0 when it says nothing)
    report.py fact [--first] [--raw] FILE KEY FIELD
                                     one fact's value: of the last line with KEY
                                     that has FIELD (--first: the first), as a
                                     number (decimal; --raw: the text as
                                     written); exit 1 if absent
    report.py clean FILE             the log without ANSI sequences, CRs and NULs
    report.py lines FILE             the report's own lines (test points, facts,
                                     notes, plan, closing lines), firmware chatter
                                     left out: a serial log and the report file of
                                     the same run give the same lines
    report.py closings FILE          every closing line, one per run ("P passed,
                                     F failed, S skipped", "nothing checked ...",
                                     "refused: ...")
    report.py count FILE KEY         how many "# KEY:" lines the report has
    report.py failed FILE            the check of each failing test point, one
                                     a line in the report's order: the registry
                                     key its line ends in (" # check=KEY"), "-"
                                     for one without
    report.py dump-end FILE TABLES FIELD
                                     a field of the ptdump-end line closing the
                                     listing of TABLES (ptlab|firmware); exit 1
                                     if absent
    report.py runs FILE TABLES       the ranges listing of TABLES (ptlab|firmware)
    report.py check FILE             consistency of the dumps with the facts;
                                     exit 1 and a reason per problem; exit 2
                                     when a line the page draws from is
                                     malformed (see FIELDS)
    report.py bench-summary FILE...  the goal lines ("bench: NAME value=X goal=G
                                     met=yes|no") of several `make bench` outputs:
                                     per goal the median, the values in order and
                                     in how many runs it was met

A file that cannot be read, an unknown command, and for check, runs and
dump-end a malformed line (a listing's, a plan entry's or a raw memory
descriptor's field missing or not a number in range, a leaf size that is
no page size, paging levels other than 4 or 5) end the command with exit
status 2 and "report: FILE:LINE: ..." naming the line and the field.
"""

import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;?=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]")
TEST = re.compile(r"^(ok|not ok) (\d+)(?: - (.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
# a closing line may end in " (serial lost N bytes)": COM1 could not send all
# of the report (that many bytes are missing from a serial log)
LOST = r"(?: \(serial lost (\d+) bytes\))?"
CLOSING = re.compile(r"^ptlab: (\d+) passed, (\d+) failed, (\d+) skipped" + LOST + "$")
# every way a run can close: counted, checked nothing, or refused its options
CLOSING_ANY = re.compile(r"^ptlab: (?:\d+ passed, \d+ failed, \d+ skipped" + LOST +
                         r"|nothing checked .*|refused: .*)$")
NOTHING = re.compile(r"^ptlab: nothing checked \((\d+) passed, (\d+) failed, (\d+) skipped\)" +
                     LOST + "$")
# what the application writes as its report: everything else on a serial log
# is the firmware's
REPORT_LINE = re.compile(r"^(?:ok \d|not ok \d|# |1\.\.\d+$|ptlab: \d+ passed, |ptlab: nothing checked \()")
BENCH_GOAL = re.compile(r"^bench: ([a-z0-9_]+) value=(\S+) goal=(\S+) met=(yes|no)$")
# the key of the check registry entry a test point belongs to, at its end
CHECK_KEY = re.compile(r"^(.*) # check=([a-z0-9][a-z0-9-]*)$")
FACT = re.compile(r"^# ([a-z][a-z0-9_-]*): (.*)$")
MARKER = re.compile(r"^# ---\[ (.*) \]---$")
RANGE = re.compile(
    r"^# 0x([0-9a-f]{16})-0x([0-9a-f]{16}) +(\d+)([KMGT]) (USR|   ) (RW|ro) (PWT|   ) "
    r"(PCD|   ) (PAT|   ) (GLB|   ) (NX|x ) (pte|pmd|pud|p4d|pgd)$")
KV = re.compile(r"([A-Za-z0-9_]+)=(\S*)")

# The fields the readers compute with, per line kind: those named here must
# be numbers in [0, 2^64) (decimal or 0x hex); "need" ones must be present.
# A line that breaks this is not used and is an error naming its line.
FIELDS = {
    "ptdump": {"need": ("tables", "format", "levels"), "num": ("levels", "cr3"),
               "choices": {"levels": (4, 5)}},
    "ptdump-end": {"need": ("tables",), "num": ("lines", "leaves_4k", "leaves_2m", "leaves_1g",
                                                "listed", "unlisted", "complete")},
    "leaf": {"need": ("va", "pa", "size"), "num": ("va", "pa", "size"),
             "choices": {"size": (1 << 12, 1 << 21, 1 << 30)}},
    "plan-entry": {"need": ("va", "pa", "len", "kind", "type"), "num": ("va", "pa", "len", "type")},
    "memmap-raw": {"need": ("type", "pa", "pages"), "num": ("type", "pa", "pages")},
}
FIELDS["firmware-leaf"] = FIELDS["leaf"]


def malformed(key, d, raw):
    """Why the fields @d (read from the text @raw) of a "# @key:" line
    cannot be used, naming the field; None when they can."""
    spec = FIELDS.get(key)
    if not spec:
        return None
    given = dict(KV.findall(raw))
    for f in spec["need"]:
        if f not in given:
            return "field %s missing" % f
    for f in spec["num"]:
        if f not in given:
            continue
        v = d[f]
        if not isinstance(v, int) or not 0 <= v < 1 << 64:
            return "field %s=%s is not a number in [0, 2^64)" % (f, given[f][:40])
    for f, ok in spec.get("choices", {}).items():
        if d[f] not in ok:
            return "field %s=%s is none of %s" % (f, given[f][:40],
                                                   ", ".join(hex(x) if x > 9 else str(x) for x in ok))
    return None

LEVEL_OF = {"pte": 0, "pmd": 1, "pud": 2}
LEVEL_SIZE = {0: 1 << 12, 1: 1 << 21, 2: 1 << 30}
UNIT = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def num(v):
    """A fact value as an int (decimal or 0x hex), or the string itself."""
    try:
        return int(v, 0)
    except (TypeError, ValueError):
        return v


def kv(text):
    return {k: num(v) for k, v in KV.findall(text)}


class Run:
    """One line of a ranges listing: [start, end) of leaves of one level."""

    __slots__ = ("start", "end", "size", "flags", "level", "level_name", "region")

    def __init__(self, start, end, size, flags, level_name, region):
        self.start, self.end, self.size = start, end, size
        self.flags = flags
        self.level_name = level_name
        self.level = LEVEL_OF.get(level_name, 3)
        self.region = region

    @property
    def write(self):
        return "RW" in self.flags

    @property
    def execute(self):
        return "NX" not in self.flags

    @property
    def user(self):
        return "USR" in self.flags

    @property
    def perm(self):
        """RX, R, RW or RWX."""
        return "R" + ("W" if self.write else "") + ("X" if self.execute else "")

    @property
    def leaves(self):
        return self.size // LEVEL_SIZE.get(self.level, 1 << 39)

    def as_dict(self):
        return {"start": self.start, "end": self.end, "size": self.size,
                "flags": sorted(self.flags), "level": self.level_name,
                "perm": self.perm, "region": self.region}


class Dump:
    """One "# ptdump:" ... "# ptdump-end:" block."""

    def __init__(self, head):
        self.tables = head.get("tables", "?")
        self.format = head.get("format", "?")
        self.levels = head.get("levels", 4)
        self.cr3 = head.get("cr3", 0)
        self.regions = []     # names in order
        self.runs = []
        self.leaves = []      # (va, pa, size, flags, cache) for format=leaves
        self.end = None       # the ptdump-end fact
        self.notes = []

    def leaf_counts(self):
        """Leaves per level (0, 1, 2) counted from the listing itself."""
        c = [0, 0, 0]
        if self.format == "ranges":
            for r in self.runs:
                if r.level < 3:
                    c[r.level] += r.leaves
        else:
            for lf in self.leaves:
                c[{1 << 12: 0, 1 << 21: 1, 1 << 30: 2}[lf["size"]]] += 1
        return c


class Report:
    def __init__(self):
        self.lines = []
        self.tests = []           # dicts: n, ok, name, reason, skip, check (key or None)
        self.plan = None
        self.closing = None       # (passed, failed, skipped) of the last run
        self.nothing = False      # ... which closed with "nothing checked"
        self.closings = []        # every closing line, one per run, in order
        self.serial_lost = 0      # bytes the last closing line says COM1 lost
        self.report_lines = []    # the application's own lines (REPORT_LINE)
        self.key_lines = {}       # "# key:" lines per key, of every kind
        self.facts = []           # (key, text, dict) in order
        self.notes = []
        self.dumps = {}           # "ptlab"/"firmware" -> Dump
        self.plan_entries = []
        self.leaves = []          # "# leaf:" lines (--dump=leaves of ptlab's tables)
        self.memmap_raw = []
        self.problems = []        # inconsistent lines seen
        self.errors = []          # "LINE: why" of lines not used (FIELDS)

    # facts
    def fact(self, key):
        """The last fact line with @key as a dict (empty when absent)."""
        for k, _, d in reversed(self.facts):
            if k == key:
                return d
        return {}

    def value(self, key, field, first=False, raw=False):
        """@field of the last (@first: the first) "# @key:" line that has
        it (a key's lines may carry different fields); None when none has."""
        for k, rest, d in (self.facts if first else reversed(self.facts)):
            if k == key and field in d:
                return dict(KV.findall(rest))[field] if raw else d[field]
        return None

    def facts_all(self, key):
        return [d for k, _, d in self.facts if k == key]

    @property
    def passed(self):
        return sum(1 for t in self.tests if (t["ok"] and not t["skip"]) or t["todo"])

    @property
    def failed(self):
        return sum(1 for t in self.tests if not t["ok"] and not t["todo"])

    @property
    def skipped(self):
        return sum(1 for t in self.tests if t["skip"])

    def check(self):
        """Consistency of dumps with the facts; a list of problems (empty: fine)."""
        out = list(self.problems)
        if self.closing and self.closing != (self.passed, self.failed, self.skipped):
            out.append("closing line %r but the test points count %r" %
                       (self.closing, (self.passed, self.failed, self.skipped)))
        if self.plan is not None and self.plan != len(self.tests):
            out.append("plan 1..%d but %d test points" % (self.plan, len(self.tests)))
        for name, d in self.dumps.items():
            if d.end is None:
                out.append("%s: listing without its ptdump-end line" % name)
                continue
            got = d.leaf_counts()
            want = [d.end.get("leaves_4k"), d.end.get("leaves_2m"), d.end.get("leaves_1g")]
            if d.format == "ranges" and got != want:
                out.append("%s: runs hold %r leaves, ptdump-end says %r" % (name, got, want))
            if d.format == "leaves" and sum(got) != d.end.get("listed"):
                out.append("%s: %d leaf lines, ptdump-end says listed=%s" %
                           (name, sum(got), d.end.get("listed")))
            if d.format == "ranges" and len(d.runs) != d.end.get("lines"):
                out.append("%s: %d runs, ptdump-end says lines=%s" %
                           (name, len(d.runs), d.end.get("lines")))
            ref = self.fact("leaves") if name == "ptlab" else self.fact("firmware-tables")
            if name == "ptlab" and ref:
                ref3 = [ref.get("4k"), ref.get("2m"), ref.get("1g")]
            else:
                ref3 = [ref.get("leaves_4k"), ref.get("leaves_2m"), ref.get("leaves_1g")]
            if ref and d.end.get("complete") == 1 and ref3 != want:
                out.append("%s: ptdump-end counts %r differ from the report's %r" %
                           (name, want, ref3))
            prev = 0
            for r in d.runs:
                if r.start < prev:
                    out.append("%s: run 0x%x out of order" % (name, r.start))
                prev = r.end if r.end else 1 << 64
        return out


def clean(text):
    text = ANSI.sub("", text).replace("\r", "").replace("\x00", "")
    return text.split("\n")


def parse(text):
    r = Report()
    dump = None
    region = None
    for lineno, line in enumerate(clean(text), 1):
        line = line.rstrip()
        r.lines.append(line)
        if REPORT_LINE.match(line):
            r.report_lines.append(line)
        if CLOSING_ANY.match(line):
            r.closings.append(line)
        m = TEST.match(line)
        if m:
            ok = m.group(1) == "ok"
            name = m.group(3) or ""
            skip = todo = False
            reason = ""
            key = CHECK_KEY.match(name)
            if key:
                name, key = key.group(1), key.group(2)
            if ok and " # SKIP" in name:
                name, reason = name.split(" # SKIP", 1)
                skip, reason = True, reason.strip()
            elif not ok and " # TODO" in name:
                # TAP's TODO (a known deviation): reported, not a failure
                name, reason = name.split(" # TODO", 1)
                todo, reason = True, reason.strip()
            elif not ok and ": " in name:
                name, reason = name.split(": ", 1)
            r.tests.append({"n": int(m.group(2)), "ok": ok, "name": name,
                            "reason": reason, "skip": skip, "check": key, "todo": todo})
            continue
        m = PLAN.match(line)
        if m:
            r.plan = int(m.group(1))
            continue
        m = CLOSING.match(line) or NOTHING.match(line)
        if m:
            r.closing = tuple(int(x) for x in m.groups()[:3])
            r.serial_lost = int(m.group(4) or 0)
            r.nothing = line.startswith("ptlab: nothing")
            continue
        if not line.startswith("# "):
            continue
        m = RANGE.match(line)
        if m:
            if dump is None:
                r.problems.append("range line outside a listing: " + line)
                continue
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            size = int(m.group(3)) * UNIT[m.group(4)]
            if (start + size) % (1 << 64) != end:
                r.problems.append("range size does not match its ends: " + line)
            flags = {f for f in m.groups()[4:11] if f.strip() and f not in ("ro", "x ")}
            dump.runs.append(Run(start, start + size, size, flags, m.group(12), region))
            continue
        m = MARKER.match(line)
        if m:
            region = m.group(1)
            if dump is not None:
                dump.regions.append(region)
            continue
        m = FACT.match(line)
        if not m:
            r.notes.append(line[2:])
            if dump is not None:
                dump.notes.append(line[2:])
            continue
        key, rest = m.groups()
        r.key_lines[key] = r.key_lines.get(key, 0) + 1
        d = kv(rest)
        why = malformed(key, d, rest)
        if why:
            r.errors.append("%d: # %s: %s" % (lineno, key, why))
            if key == "ptdump":
                dump = None     # its lines belong to no listing the page can draw
            continue
        if key in ("leaf", "firmware-leaf"):
            lf = {"va": d.get("va"), "pa": d.get("pa"), "size": d.get("size"),
                  "flags": d.get("flags"), "cache": d.get("cache"), "region": region}
            if dump is not None:
                dump.leaves.append(lf)
            else:
                r.leaves.append(lf)
            continue
        if key == "plan-entry":
            r.plan_entries.append(d)
            continue
        if key == "memmap-raw":
            r.memmap_raw.append(d)
            continue
        if key == "ptdump":
            dump = Dump(d)
            region = None
            r.dumps[dump.tables] = dump
        elif key == "ptdump-end":
            if dump is not None:
                dump.end = d
            dump = None
        r.facts.append((key, rest, d))
    return r


def parse_file(path):
    with open(path, "rb") as f:
        return parse(f.read().decode("utf-8", "replace"))


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def bench_goals(texts):
    """The goal lines of several benchmark outputs: a list of (name, goal,
    [values as written], runs met), goals in the order of their first
    appearance."""
    goals = {}
    for text in texts:
        for line in clean(text):
            m = BENCH_GOAL.match(line.rstrip())
            if not m:
                continue
            name, value, goal, met = m.groups()
            g = goals.setdefault(name, [goal, [], 0])
            g[1].append(value)
            g[2] += met == "yes"
    return [(name, g[0], g[1], g[2]) for name, g in goals.items()]


def bench_summary(paths):
    texts = []
    for path in paths:
        with open(path, "rb") as f:
            texts.append(f.read().decode("utf-8", "replace"))
    out = []
    for name, goal, values, met in bench_goals(texts):
        out.append("bench-runs: %s median=%.2f goal=%s met in %d of %d runs [ %s ]" %
                   (name, median([float(v) for v in values]), goal, met, len(paths),
                    " ".join(values)))
    return out


# command -> the number of arguments after it, FILE included
COMMANDS = {"summary": 1, "counts": 1, "fact": 3, "clean": 1, "lines": 1, "closings": 1,
            "count": 2, "dump-end": 3, "runs": 2, "check": 1, "failed": 1}
# the commands that read the listings, and so refuse a report with errors
STRICT = ("check", "runs", "dump-end")


def usage(why):
    print("report: %s\n%s" % (why, __doc__.strip()), file=sys.stderr)
    return 2


def main(argv):
    try:
        return command(argv)
    except OSError as e:
        print("report: cannot read %s: %s" % (e.filename, e.strerror or e), file=sys.stderr)
        return 2


def command(argv):
    if len(argv) >= 2 and argv[1] == "bench-summary":
        if len(argv) < 3:
            return usage("bench-summary needs at least one FILE")
        for line in bench_summary(argv[2:]):
            print(line)
        return 0
    first = raw = False
    args = []
    for a in argv[1:]:
        if a == "--first":
            first = True
        elif a == "--raw":
            raw = True
        else:
            args.append(a)
    if not args:
        return usage("no command")
    cmd = args[0]
    if cmd not in COMMANDS:
        return usage("unknown command %r" % cmd[:40])
    if len(args) - 1 != COMMANDS[cmd]:
        return usage("%s takes %d argument(s), not %d" % (cmd, COMMANDS[cmd], len(args) - 1))
    if (first or raw) and cmd != "fact":
        return usage("--first and --raw go with fact only")
    path = args[1]
    if cmd == "clean":
        # bytes in, the same bytes out (but the sequences removed), whatever
        # the encoding of the firmware's chatter
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
        sys.stdout.buffer.write("\n".join(clean(text)).encode("utf-8", "surrogateescape"))
        return 0
    r = parse_file(path)
    if cmd in STRICT and r.errors:
        for e in r.errors:
            print("report: %s:%s" % (path, e), file=sys.stderr)
        return 2
    if cmd == "lines":
        for line in r.report_lines:
            print(line)
        return 0
    if cmd == "closings":
        for line in r.closings:
            print(line)
        return 0
    if cmd == "counts":
        c = r.closing or ("", "", "")
        print("tests=%d passed=%d failed=%d skipped=%d plan=%s closing_passed=%s "
              "closing_failed=%s closing_skipped=%s closings=%d serial_lost=%d" %
              (len(r.tests), r.passed, r.failed, r.skipped,
               "" if r.plan is None else r.plan, c[0], c[1], c[2], len(r.closings),
               r.serial_lost))
        return 0
    if cmd == "summary":
        print("passed=%d failed=%d skipped=%d plan=%s closing=%s" %
              (r.passed, r.failed, r.skipped, r.plan, r.closing))
        return 0
    if cmd == "fact":
        v = r.value(args[2], args[3], first=first, raw=raw)
        if v is None:
            return 1
        print(v)
        return 0
    if cmd == "count":
        print(r.key_lines.get(args[2], 0))
        return 0
    if cmd == "failed":
        for t in r.tests:
            if not t["ok"] and not t["todo"]:
                print(t["check"] or "-")
        return 0
    if cmd == "dump-end":
        d = r.dumps.get(args[2])
        v = d.end.get(args[3]) if d is not None and d.end else None
        if v is None:
            return 1
        print(v)
        return 0
    if cmd == "runs":
        d = r.dumps.get(args[2])
        if d is None:
            return 1
        for run in d.runs:
            print("0x%016x-0x%016x %s %s %s" % (run.start, run.end % (1 << 64),
                                                run.perm, run.level_name, run.region))
        return 0
    probs = r.check()
    for p in probs:
        print("report: " + p)
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
