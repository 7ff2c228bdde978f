#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a LAVA job said, read from lava-run's log.

lava-run without a server logs every record to stderr as one YAML line:
{"dt": ..., "lvl": LEVEL, "msg": ...}.  "results" records are LAVA's own
result records ({"definition": SUITE, "case": NAME, "result": pass|fail|
skip|unknown, "extra": {...}}; the suite "lava" holds the dispatcher's own:
one per action and "job", the job's outcome), "target" and "feedback"
records the lines the device wrote on the serial connection (feedback:
those read while the job was ending, after the test action).

    results.py follow LOG     copy stdin (lava-run's log) to LOG, showing
                              the device's lines (and lava-run's errors)
                              as they come
    results.py summary LOG    one line and the exit status (below)
    results.py cases LOG      the test cases of the suite, one a line:
                              RESULT<tab>CASE<tab>TEST_CASE_ID (the text the
                              monitor matched, extra.test_case_id)
    results.py serial LOG     the device's lines as LAVA logged them (target
                              and feedback records), with
                              what its logger did to them undone where it
                              can be: the remnants of escape sequences (it
                              drops ESC and keeps the rest) at a line's
                              start and end removed, \\" back to "
    --suite NAME              the suite of the test cases (default ptlab)
    --job-id ID               the job's id, for the summary line

summary prints, counting the test cases of the suite by their result:

    lava: P passed, F failed, S skipped (job ID complete)
    lava: timeout in ACTION: MESSAGE; P passed, F failed, S skipped before it (job ID incomplete)
    lava: job ID incomplete (TYPE: MESSAGE); P passed, F failed, S skipped
    lava: no job record in LOG (lava-run did not finish)

The job is complete when its "job" record passed and every monitor found
its end string (its record's extra.status is "passed": a monitor that
timed out on its own ends without failing the job).  A timeout is a
record of the suite "lava" that failed with "... timed out ..."; ACTION
is the first such record's case (the innermost action: the records of
actions are written as they end).  Exit status 0 when the job is complete,
at least one test case passed, none failed and none is unknown; 1
otherwise; 2 when there is no job record.
"""

import re
import signal
import sys

import yaml

try:
    Loader = yaml.CSafeLoader
except AttributeError:
    Loader = yaml.SafeLoader

# what lava's ShellLogger leaves of an escape sequence once ESC is gone
REMNANT = r"(?:\[[0-9;=?]*[A-Za-z])+"
LEAD = re.compile("^" + REMNANT)
TRAIL = re.compile(REMNANT + "$")
TIMED_OUT = re.compile(r"timed out")
# the levels of the records that hold the device's lines
DEVICE = ("target", "feedback")


def record(line):
    """The record (a dict) of one log line, None for anything else."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        rec = yaml.load(line, Loader=Loader)
    except yaml.YAMLError:
        return None
    return rec if isinstance(rec, dict) and "lvl" in rec else None


def records(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            rec = record(line)
            if rec is not None:
                yield rec


def target_text(msg):
    """A target record's line as the device wrote it, as far as it can be."""
    text = str(msg)
    text = LEAD.sub("", text)
    text = TRAIL.sub("", text)
    return text.replace('\\"', '"')


class Job:
    def __init__(self, path, suite):
        self.suite = suite
        self.cases = []        # (result, case, test_case_id) of the suite
        self.lava = []         # the dispatcher's own result records
        self.job = None        # its "job" record
        for rec in records(path):
            if rec["lvl"] != "results" or not isinstance(rec.get("msg"), dict):
                continue
            msg = rec["msg"]
            if msg.get("definition") == suite:
                extra = msg.get("extra") or {}
                self.cases.append((str(msg.get("result")), str(msg.get("case")),
                                   str(extra.get("test_case_id", ""))))
            elif msg.get("definition") == "lava":
                self.lava.append(msg)
                if msg.get("case") == "job":
                    self.job = msg

    def count(self, result):
        return sum(1 for c in self.cases if c[0] == result)

    def counts(self):
        return "%d passed, %d failed, %d skipped" % (
            self.count("pass"), self.count("fail"), self.count("skip"))

    def monitors_ended(self):
        mons = [m for m in self.lava if m.get("case") == "lava-test-monitor"]
        return bool(mons) and all((m.get("extra") or {}).get("status") == "passed"
                                  for m in mons)

    def timeout(self):
        """(action, message) of the first record that timed out, or None."""
        for m in self.lava:
            why = (m.get("extra") or {}).get("fail") or m.get("error_msg") or ""
            if m.get("result") == "fail" and TIMED_OUT.search(str(why)):
                return str(m.get("case")), str(why)
        return None


def summary(path, suite, job_id):
    job = Job(path, suite)
    if job.job is None:
        print("lava: no job record in %s (lava-run did not finish)" % path)
        return 2
    jid = "job %s" % job_id if job_id else "job"
    complete = job.job.get("result") == "pass" and job.monitors_ended()
    if complete:
        print("lava: %s (%s complete)" % (job.counts(), jid))
    else:
        t = job.timeout()
        if t:
            print("lava: timeout in %s: %s; %s before it (%s incomplete)"
                  % (t[0], t[1], job.counts(), jid))
        elif job.job.get("result") != "pass":
            print("lava: %s incomplete (%s: %s); %s" % (
                jid, job.job.get("error_type", "?"), job.job.get("error_msg", "?"),
                job.counts()))
        else:
            print("lava: %s incomplete (a monitor did not find its end); %s"
                  % (jid, job.counts()))
    good = (complete and job.count("pass") > 0 and job.count("fail") == 0
            and job.count("unknown") == 0)
    return 0 if good else 1


def follow(path):
    # lava-run handles a Ctrl-C by cancelling the job and cleaning up: keep
    # reading until it has closed the pipe
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(path, "w", encoding="utf-8") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            rec = record(line)
            if rec is None:
                if line.strip():
                    print("lava-run: " + line.rstrip(), flush=True)
                continue
            if rec["lvl"] in DEVICE:
                print(target_text(rec.get("msg", "")), flush=True)
            elif rec["lvl"] in ("error", "exception"):
                print("lava-run: %s: %s" % (rec["lvl"], rec.get("msg")), flush=True)
    return 0


def main(argv):
    args = argv[1:]
    suite = "ptlab"
    job_id = None
    while len(args) > 1 and args[0] in ("--suite", "--job-id"):
        if args[0] == "--suite":
            suite = args[1]
        else:
            job_id = args[1]
        args = args[2:]
    if len(args) != 2 or args[0] not in ("follow", "summary", "cases", "serial"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = args
    try:
        if cmd == "follow":
            return follow(path)
        if cmd == "summary":
            return summary(path, suite, job_id)
        if cmd == "cases":
            for c in Job(path, suite).cases:
                print("\t".join(c))
            return 0
        for rec in records(path):
            if rec["lvl"] in DEVICE:
                print(target_text(rec.get("msg", "")))
        return 0
    except OSError as exc:
        print("results: %s" % exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
