#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host tests of the report's one reader (tools/report.py) and of the boot
tests' judges built on it (tests/boot/lib.sh: fact, report_lines,
check_report, check_completed; mk/verdict.sh).

Every case feeds a report written here by hand, good or broken in one named
way, and compares what the reader or judge says with what that report must
give.  Prints TAP-style lines and "report: N passed, M failed"; exits 1 on
a failure.
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import report  # noqa: E402

REPORT_PY = os.path.join(ROOT, "tools", "report.py")
VIEW_PY = os.path.join(ROOT, "tools", "view.py")
LIB_SH = os.path.join(ROOT, "tests", "boot", "lib.sh")
VERDICT_SH = os.path.join(ROOT, "mk", "verdict.sh")

passed = failed = 0


def check(cond, name, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - report: " + name)
    else:
        failed += 1
        print("not ok - report: %s%s" % (name, (": " + detail) if detail else ""))


# A report as the application writes it (the file has CRLF line ends), and
# the same run on a serial port: ANSI sequences, NULs and firmware chatter.
REPORT = [
    "# ptlab: version=1 mode=firmware",
    "# tables: total=66 minimum=66 pml4=0x1",
    "ok 1 - plan: W^X",
    "ok 2 - live: translate # SKIP no 1 GiB pages",
    "# frames: leaked=0 peak=12",
    "ok 3 - teardown: faults",
    "# tables: total=7 minimum=7",
    "# cr3: firmware=0x7f801000 built=0x6e000000",
    "# cr3: restored=0x7f801000",
    "1..3",
    "ptlab: 2 passed, 0 failed, 1 skipped",
]


def serial_of(lines):
    out = ["BdsDxe: loading Boot0001 \"UEFI QEMU HARDDISK\"", "\x1b[2J\x1b[01;01H"]
    for i, l in enumerate(lines):
        out.append(("\x1b[0m\x1b[37m\x1b[40m" if i % 2 else "") + l + ("\x00" if i == 3 else ""))
    out.append("ptlab: press a key (or wait 5 s) to shut down")
    return "\r\n".join(out) + "\r\n"


def file_of(lines):
    return "\r\n".join(lines) + "\r\n"


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w", newline="") as f:
        f.write(text)
    return p


def cli(*args):
    r = run([sys.executable, REPORT_PY] + list(args))
    return r.returncode, r.stdout


def judge(d, call, extra=":"):
    """Run a lib.sh judge CALL in bash; its (passes, fails, output)."""
    script = ('PTLAB_BUILD=%s; . %s; BOOT_NAME=t; BOOT_DIR=%s; %s; %s; '
              'echo "counts $BOOT_PASS $BOOT_FAIL"' % (d, LIB_SH, d, extra, call))
    r = run(["bash", "-c", script])
    last = [l for l in r.stdout.splitlines() if l.startswith("counts ")]
    if not last:
        return -1, -1, r.stdout + r.stderr
    _, p, f = last[-1].split()
    return int(p), int(f), r.stdout


def main():
    d = tempfile.mkdtemp(prefix="report-test.")
    serial = write(d, "serial.log", serial_of(REPORT))
    rfile = write(d, "PTLAB.TXT", file_of(REPORT))

    # parse: the counts come from the test points, the closing and the plan
    r = report.parse_file(serial)
    check((r.passed, r.failed, r.skipped) == (2, 0, 1), "test points counted from a serial log",
          repr((r.passed, r.failed, r.skipped)))
    check(r.closing == (2, 0, 1) and r.plan == 3, "closing line and plan read",
          repr((r.closing, r.plan)))
    check(r.check() == [], "a consistent report has no problems", repr(r.check()))

    # lines: the serial log and the file give the same report lines
    rc1, a = cli("lines", serial)
    rc2, b = cli("lines", rfile)
    check(rc1 == rc2 == 0 and a == b and a.splitlines() == REPORT,
          "lines: serial log (ANSI, NUL, chatter) and file give the report's lines",
          "%r vs %r" % (a.splitlines()[:3], b.splitlines()[:3]))

    # clean: sequences, CRs, NULs gone; other bytes kept as they are
    raw = write(d, "raw.log", "a\x1b[1;2Hb\r\n\x00c\x1b(Bd\n")
    with open(raw, "ab") as f:
        f.write(b"\xff\xfe\n")
    r2 = subprocess.run([sys.executable, REPORT_PY, "clean", raw], capture_output=True)
    check(r2.stdout == b"ab\ncd\n\xff\xfe\n", "clean: ANSI, CR and NUL removed, bytes kept",
          repr(r2.stdout))

    # the check key: split off a test point's text, which stays as it was without one
    keyed = report.parse("\n".join([
        "ok 1 - tables: structural lint clean (5 tables) # check=lint-ps",
        "not ok 2 - tables: built pt=2 pd=1: minimum pt=1 # check=extra-table",
        "ok 3 - churn: 4 operations agree",
        "ok 4 - live: translate # SKIP no 1 GiB pages",
        "1..4", "ptlab: 2 passed, 1 failed, 1 skipped"]) + "\n")
    got = [(t["name"], t["reason"], t["check"]) for t in keyed.tests]
    check(got == [("tables: structural lint clean (5 tables)", "", "lint-ps"),
                  ("tables", "built pt=2 pd=1: minimum pt=1", "extra-table"),
                  ("churn: 4 operations agree", "", None),
                  ("live: translate", "no 1 GiB pages", None)] and keyed.check() == [],
          "a test point's '# check=KEY' is its check's key, not part of its name or reason",
          repr(got))
    keyed_log = write(d, "keyed.log", "\r\n".join([
        "ok 1 - tables: lint clean # check=lint-ps",
        "not ok 2 - linux: the entry reads 15 of 16 bytes # check=linux-entry",
        "not ok 3 - churn: 4 operations disagree",
        "not ok 4 - tables: built pt=2 # check=extra-table",
        "1..4", "ptlab: 1 passed, 3 failed, 0 skipped"]) + "\r\n")
    check(cli("failed", keyed_log) == (0, "linux-entry\n-\nextra-table\n"),
          "failed: each failing test point's check key in order, '-' without one, passes left out",
          repr(cli("failed", keyed_log)))
    check(judge(d, "failed_checks %s" % keyed_log)[2].startswith("- extra-table linux-entry \n"),
          "failed_checks: the failing checks' keys sorted on one line",
          repr(judge(d, "failed_checks %s" % keyed_log)))

    # TAP's TODO (a known deviation): reported as "not ok", counted as passed, never failed
    todo_log = write(d, "todo.log", "\r\n".join([
        "ok 1 - mmu: 12 cases agree # check=mmu-rsvd",
        "not ok 2 - mmu: 4 cases: P=0 # TODO known deviation rsvd-p0 # check=mmu-rsvd",
        "not ok 3 - mmu: 2 of 9 cases differ # check=mmu-perm",
        "1..3", "ptlab: 2 passed, 1 failed, 0 skipped"]) + "\r\n")
    tr = report.parse_file(todo_log)
    check([(t["todo"], t["reason"], t["check"]) for t in tr.tests][1] ==
          (True, "known deviation rsvd-p0", "mmu-rsvd") and tr.passed == 2 and tr.failed == 1 and
          tr.check() == [],
          "a '# TODO' test point is a known deviation: passed, not failed, its reason kept",
          repr(tr.tests))
    check(cli("failed", todo_log) == (0, "mmu-perm\n"),
          "failed: a TODO test point is no failure", repr(cli("failed", todo_log)))

    # fact: first vs last line, number vs raw text, absent key
    check(cli("fact", serial, "tables", "total") == (0, "7\n"), "fact: the last line by default")
    check(cli("fact", "--first", serial, "tables", "total") == (0, "66\n"),
          "fact --first: the first line")
    check(cli("fact", serial, "cr3", "built") == (0, "%d\n" % 0x6e000000),
          "fact: a hex value as a number")
    check(cli("fact", "--raw", serial, "cr3", "built") == (0, "0x6e000000\n"),
          "fact --raw: the value as written")
    check(cli("fact", "--first", serial, "cr3", "built") == (0, "%d\n" % 0x6e000000) and
          cli("fact", serial, "tables", "pml4") == (0, "1\n"),
          "fact: the line with KEY that has FIELD, first or last")
    check(cli("fact", serial, "tables", "nosuch")[0] == 1 and cli("fact", serial, "nokey", "x")[0] == 1,
          "fact: an absent key or field exits 1")
    check(cli("fact", "--raw", serial)[0] == 2, "fact: too few arguments are refused")

    # counts (what check_report evaluates)
    rc, out = cli("counts", serial)
    check(rc == 0 and out.split() == ["tests=3", "passed=2", "failed=0", "skipped=1", "plan=3",
                                      "closing_passed=2", "closing_failed=0",
                                      "closing_skipped=1", "closings=1", "serial_lost=0"],
          "counts: shell assignments of the counts", out)

    # a closing line that says COM1 lost bytes is still the closing line, with the loss read
    lost = write(d, "lost.log", serial_of(REPORT[:-1] + [REPORT[-1] + " (serial lost 1234 bytes)"]))
    rl = report.parse_file(lost)
    rc, out = cli("counts", lost)
    check(rl.closing == (2, 0, 1) and rl.serial_lost == 1234 and len(rl.closings) == 1 and
          rl.check() == [] and "serial_lost=1234" in out.split(),
          "a closing line with '(serial lost N bytes)' is read, N as serial_lost",
          repr((rl.closing, rl.serial_lost, rl.closings, out)))

    # closings: every run's closing line, and only those
    multi = write(d, "multi.log", "\r\n".join([
        "ptlab: halted", "ptlab: 3 passed, 1 failed, 0 skipped",
        "ptlab: nothing checked (0 passed, 0 failed, 4 skipped)",
        "ptlab: refused: the options were not accepted, nothing was run (\\PTLAB-3.TXT)",
        "ptlab: this was run 3 of this boot"]) + "\r\n")
    rc, out = cli("closings", multi)
    check(out.splitlines() == ["ptlab: 3 passed, 1 failed, 0 skipped",
                               "ptlab: nothing checked (0 passed, 0 failed, 4 skipped)",
                               "ptlab: refused: the options were not accepted, nothing was run (\\PTLAB-3.TXT)"],
          "closings: counted, nothing checked and refused; other ptlab: lines left out", out)
    rn = report.parse_file(multi)
    check(rn.closing == (0, 0, 4) and rn.nothing, "a nothing-checked closing is read as such",
          repr((rn.closing, rn.nothing)))

    # count and dump-end: a listing's closing facts, lines per key
    dump = write(d, "dump.log", file_of(REPORT[:2] + [
        "# ptdump: tables=ptlab format=leaves levels=4 cr3=0x1000",
        "# leaf: va=0x0 pa=0x0 size=0x1000 flags=RW cache=WB",
        "# ptdump-end: tables=ptlab lines=1 listed=1 leaves_4k=1 leaves_2m=0 leaves_1g=0 complete=1",
        "# ptdump: tables=firmware format=leaves levels=4 cr3=0x2000",
        "# firmware-leaf: va=0x0 pa=0x0 size=0x1000 flags=RW cache=WB",
        "# firmware-leaf: va=0x1000 pa=0x1000 size=0x1000 flags=RW cache=WB",
        "# ptdump-end: tables=firmware lines=2 listed=2 unlisted=5 leaves_4k=7 leaves_2m=0 leaves_1g=0 complete=1",
    ] + REPORT[2:]))
    check(cli("dump-end", dump, "firmware", "unlisted") == (0, "5\n") and
          cli("dump-end", dump, "ptlab", "listed") == (0, "1\n") and
          cli("dump-end", dump, "ptlab", "unlisted")[0] == 1,
          "dump-end: the field of the named listing's end line")
    check(cli("count", dump, "firmware-leaf") == (0, "2\n") and cli("count", dump, "leaf") == (0, "1\n")
          and cli("count", dump, "tables") == (0, "2\n"), "count: lines per key")

    # check(): a closing line that lies about the test points is found
    lie = write(d, "lie.log", file_of(REPORT[:-1] + ["ptlab: 3 passed, 0 failed, 0 skipped"]))
    rc, out = cli("check", lie)
    check(rc == 1 and "closing line" in out, "check: a closing line that disagrees is reported", out)

    # malformed lines: report.py check and view.py refuse them with the
    # line number and the field, exit 2, no traceback; view writes nothing
    good = REPORT[:2] + [
        "# ptdump: tables=ptlab format=ranges levels=4 cr3=0x1000",
        "# ---[ Identity map ]---",
        "# 0x0000000000001000-0x0000000000003000         8K     RW                 NX pte",
        "# ptdump-end: tables=ptlab lines=1 leaves_4k=2 leaves_2m=0 leaves_1g=0 complete=1",
        "# ptdump: tables=firmware format=leaves levels=4 cr3=0x2000",
        "# firmware-leaf: va=0x0 pa=0x0 size=0x1000 flags=rw-x cache=0",
        "# ptdump-end: tables=firmware lines=1 listed=1 leaves_4k=1 leaves_2m=0 leaves_1g=0 complete=1",
        "# plan-entry: va=0x1000 pa=0x1000 len=0x2000 kind=identity flags=w-- cache=0 max=4K type=7",
        "# memmap-raw: type=7 pa=0x1000 pages=0x2 attr=0xf",
    ] + REPORT[2:]
    goodp = write(d, "good-dump.txt", file_of(good))
    rc, out = cli("check", goodp)
    rv = run([sys.executable, VIEW_PY, goodp, os.path.join(d, "view-good")])
    check(rc == 0 and rv.returncode == 0, "check and view.py take the well-formed listing",
          out + rv.stderr)
    # (what, line index in good, the line, the field the message names)
    malformed = [
        ("non-numeric levels=", 2, "# ptdump: tables=ptlab format=ranges levels=four cr3=0x1000",
         "levels"),
        ("levels=6", 2, "# ptdump: tables=ptlab format=ranges levels=6 cr3=0x1000", "levels"),
        ("a ptdump line without levels=", 2, "# ptdump: tables=ptlab format=ranges cr3=0x1000",
         "levels"),
        ("non-numeric type= in a plan line", 9,
         "# plan-entry: va=0x1000 pa=0x1000 len=0x2000 kind=identity flags=w-- cache=0 max=4K "
         "type=RAM", "type"),
        ("non-numeric pa= in a plan line", 9,
         "# plan-entry: va=0x1000 pa=zz len=0x2000 kind=identity flags=w-- cache=0 max=4K type=7",
         "pa"),
        ("a plan line missing pa= and len=", 9, "# plan-entry: va=0x1000 kind=identity type=7",
         "pa"),
        ("non-numeric pa= in a memory descriptor", 10, "# memmap-raw: type=7 pa=0x1g00 pages=0x2",
         "pa"),
        ("a negative pages=", 10, "# memmap-raw: type=7 pa=0x1000 pages=-2", "pages"),
        ("a leaf of size 0x3000", 7, "# firmware-leaf: va=0x0 pa=0x0 size=0x3000 flags=rw cache=0",
         "size"),
        ("a leaf address beyond 64 bits", 7,
         "# firmware-leaf: va=0x10000000000000000 pa=0x0 size=0x1000 flags=rw cache=0", "va"),
        ("non-numeric leaves_4k= on a ptdump-end line", 5,
         "# ptdump-end: tables=ptlab lines=1 leaves_4k=two leaves_2m=0 leaves_1g=0 complete=1",
         "leaves_4k"),
    ]
    for what, idx, line, field in malformed:
        bad = list(good)
        bad[idx] = line
        path = write(d, "malformed.txt", file_of(bad))
        where = "%s:%d: " % (path, idx + 1)
        rc = run([sys.executable, REPORT_PY, "check", path])
        outdir = os.path.join(d, "view-bad")
        subprocess.run(["rm", "-rf", outdir])
        rv = run([sys.executable, VIEW_PY, path, outdir])
        msgs = rc.stdout + rc.stderr + rv.stdout + rv.stderr
        check(rc.returncode == 2 and where in rc.stderr and "field " + field in rc.stderr and
              rv.returncode == 2 and where in rv.stderr and "field " + field in rv.stderr and
              "Traceback" not in msgs and not os.path.exists(outdir),
              "check and view.py refuse %s: line %d, field %s named, exit 2, nothing written"
              % (what, idx + 1, field),
              "check %d, view %d: %s" % (rc.returncode, rv.returncode, msgs.strip()[-300:]))
    rr = run([sys.executable, REPORT_PY, "runs", path, "ptlab"])
    check(rr.returncode == 2 and where in rr.stderr, "runs refuses a malformed report too",
          rr.stderr)

    # files that are not there or no file, unknown commands: a message, exit 2
    for what, args in (("a missing file", ["check", os.path.join(d, "nosuch.txt")]),
                       ("a directory", ["check", d]),
                       ("a missing file for counts", ["counts", os.path.join(d, "nosuch.txt")]),
                       ("an unknown command", ["frobnicate", serial]),
                       ("an unknown command and a missing file",
                        ["frobnicate", os.path.join(d, "nosuch.txt")]),
                       ("a command without its file", ["check"]),
                       ("bench-summary without files", ["bench-summary"]),
                       ("bench-summary of a missing file",
                        ["bench-summary", os.path.join(d, "nosuch.txt")])):
        rr = run([sys.executable, REPORT_PY] + args)
        check(rr.returncode == 2 and "Traceback" not in rr.stderr and
              rr.stderr.startswith("report: "),
              "report.py refuses %s: exit 2, a message, no traceback" % what,
              "exit %d: %s" % (rr.returncode, rr.stderr.strip()[-200:]))
    for what, args in (("a missing file", [os.path.join(d, "nosuch.txt"), os.path.join(d, "v1")]),
                       ("a directory", [d, os.path.join(d, "v2")]),
                       ("an OUTDIR that is a file", [goodp, goodp]),
                       ("a missing OUTDIR argument", [goodp])):
        rv = run([sys.executable, VIEW_PY] + args)
        check(rv.returncode == 2 and "Traceback" not in rv.stderr and rv.stderr.strip() != "",
              "view.py refuses %s: exit 2, a message, no traceback" % what,
              "exit %d: %s" % (rv.returncode, rv.stderr.strip()[-200:]))

    # the lib.sh judges, on the good report and on one broken in each way
    p, f, out = judge(d, 'check_report "%s" x nofile' % serial)
    check(p == 6 and f == 0, "check_report passes a good run (6 checks)", "%d/%d %s" % (p, f, out))
    bad = {
        "a failing test point": REPORT[:2] + ["not ok 2 - live: translate: pa 0x1 != 0x2"] + REPORT[3:-1]
        + ["ptlab: 1 passed, 1 failed, 1 skipped"],
        "a plan that does not match": REPORT[:-2] + ["1..4", REPORT[-1]],
        "no closing line": REPORT[:-1],
        "tables above the minimum": [l.replace("total=66 ", "total=67 ") for l in REPORT],
        "a leaked frame": [l.replace("leaked=0", "leaked=1") for l in REPORT],
        "the firmware's CR3 kept": [l.replace("built=0x6e000000", "built=0x7f801000") for l in REPORT],
        "a closing line counting more passes": REPORT[:-1] + ["ptlab: 3 passed, 0 failed, 1 skipped"],
    }
    for what, lines in bad.items():
        log = write(d, "bad.log", serial_of(lines))
        p, f, out = judge(d, 'check_report "%s" x nofile' % log)
        check(f >= 1, "check_report fails a run with " + what, "%d/%d %s" % (p, f, out))

    # fact in lib.sh: the first line, as written
    r3 = run(["bash", "-c", ". %s; fact %s tables pml4; fact %s tables total" %
              (LIB_SH, serial, serial)])
    check(r3.stdout == "0x1\n66\n", "lib.sh fact: the first line's value as written", r3.stdout)

    # check_completed: a run that failed but closed, and one that did not
    failing = REPORT[:-1] + ["ptlab: 2 passed, 1 failed, 1 skipped"]
    for what, lines, want_fail in (("a closed failing run", failing, False),
                                   ("a passing run", REPORT, True)):
        log = write(d, "done.log", serial_of(lines))
        p, f, out = judge(d, "check_completed done",
                          "BOOT_LOG=%s; img_extract() { cp %s \"$3\"; }" %
                          (log, write(d, "f.txt", file_of(lines))))
        got_fail = f >= 1
        check(got_fail == want_fail, "check_completed on %s %s" %
              (what, "fails" if want_fail else "passes"), "%d/%d %s" % (p, f, out))

    # mk/verdict.sh: the verdict of make run from the closing lines
    for what, text, want in (("a pass", serial_of(REPORT), 0),
                             ("a failed run", serial_of(failing), 1),
                             ("nothing checked", "ptlab: nothing checked (0 passed, 0 failed, 1 skipped)\r\n", 1),
                             ("no closing line", "BdsDxe: failed\r\n", 2)):
        log = write(d, "v.log", text)
        rv = run([VERDICT_SH, log, "/nonexistent", "0"])
        check(rv.returncode == want, "mk/verdict.sh on %s exits %d" % (what, want),
              "exit %d: %s" % (rv.returncode, rv.stdout.strip()))

    # bench-summary: medians (odd and even), values in run order, runs met
    runs = []
    for k, (v, met) in enumerate((("1.37", "yes"), ("1.61", "no"), ("1.34", "yes"), ("1.59", "no"))):
        runs.append(write(d, "run-%d.txt" % (k + 1),
                          "noise\nbench: map4k_vs_memset value=%s goal=<=1.5 met=%s\n"
                          "bench: speed value=2%d.00 goal=>=10.0 met=yes\n" % (v, met, k)))
    rc, out = cli("bench-summary", *runs)
    check(out.splitlines() == [
        "bench-runs: map4k_vs_memset median=1.48 goal=<=1.5 met in 2 of 4 runs [ 1.37 1.61 1.34 1.59 ]",
        "bench-runs: speed median=21.50 goal=>=10.0 met in 4 of 4 runs [ 20.00 21.00 22.00 23.00 ]"],
        "bench-summary: median of an even count, runs met, values in order", out)
    rc, out = cli("bench-summary", *runs[:3])
    check(out.splitlines()[0].startswith("bench-runs: map4k_vs_memset median=1.37 "),
          "bench-summary: median of an odd count", out)

    subprocess.run(["rm", "-rf", d])
    print("report: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
