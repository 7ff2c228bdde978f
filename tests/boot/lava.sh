#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ptlab as a LAVA job ("make test-lava"; not in "make test": each job boots
# QEMU under TCG).  First without QEMU: the job templates render and pass
# lava-server's job schema (lava_common), the devices its device schema,
# both jobs carry the same monitor, the PC job validates in lava-run
# against a PC device of lava/device-types/ptlab-pc.jinja2, and the
# monitor's pattern, searched through sample serial output as pexpect
# searches it, finds the test points tools/report.py reads there.  Then
# three jobs, one at a time, each "make lava" as a user runs it:
#
#   good   every LAVA test case passed or skipped, the job complete; the
#          cases counted from LAVA's result records equal the TAP lines of
#          ptlab's own report, read by tools/report.py from the serial lines
#          LAVA logged (count, results, each line's text, the plan and the
#          closing line), and "make lava"'s line says those counts
#   fault  ARGS=--inject=$LAVA_FAULT (default pf-mapped: a fault of
#          docs/faults.md whose check keys its lines, " # check=FAULT",
#          and does not stop the run): the cases that failed are exactly the ones the
#          good job's records key with " # check=$LAVA_FAULT" (by number),
#          every other case passed or skipped, and the report says the same
#   hold   ARGS=--hold LAVA_TIMEOUT=$LAVA_HOLD_TIMEOUT (default 60): LAVA
#          ends the job as a timeout after that long (its records and
#          "make lava"'s line say so), the run had reached its hold, and the
#          cases before it are the report's TAP lines
#
# After each job its QEMU is gone and LAVA's scratch directory removed, and
# build/ptlab.img is what it was.  Needs root and lava-dispatcher.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init lava

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAVA=$ROOT/lava
FAULT=${LAVA_FAULT:-pf-mapped}
HOLD_TIMEOUT=${LAVA_HOLD_TIMEOUT:-60}
PY=${LAVA_PYTHON:-/usr/bin/python3}
REPORT_DIR=$(dirname "$BOOT_REPORT_PY")
DIR=$(cd "$BOOT_DIR" && pwd)

if [ "$(id -u)" -ne 0 ] || ! command -v lava-run >/dev/null 2>&1; then
	fail "lava-run as root is needed (run as root; mk/deps.sh lab)"
	boot_done
	exit
fi

# ---- without QEMU ----

render()
{
	python3 "$LAVA/render.py" "$@"
}

render job "$LAVA/jobs/qemu-ovmf.yaml" --image "$ROOT/README.md" --timeout 77 \
	--options='--seed=3 "x y"' >"$DIR/qemu-job.yaml" 2>"$DIR/render.err" &&
render job "$LAVA/jobs/pc-usb.yaml" --url http://lab.example/ptlab.img \
	>"$DIR/pc-job.yaml" 2>>"$DIR/render.err"
if [ $? -eq 0 ] && "$PY" "$LAVA/render.py" check job "$DIR/qemu-job.yaml" "$DIR/pc-job.yaml" \
		2>>"$DIR/render.err"; then
	pass "both job templates render and pass lava-server's job schema and the monitor check"
else
	fail "job templates: $(head -n 3 "$DIR/render.err" | tr '\n' ' ')"
fi

# the values went where the placeholders were, as YAML
got=$(python3 - "$DIR/qemu-job.yaml" "$ROOT/README.md" <<'EOF'
import sys, yaml
j = yaml.safe_load(open(sys.argv[1]))
imgs = j["actions"][0]["deploy"]["images"]
print(j["timeouts"]["job"]["seconds"] == 77 and j["timeouts"]["action"]["seconds"] == 77
      and imgs["ptlab"]["url"] == "file://" + sys.argv[2]
      and imgs["ovmf_vars"]["url"] == "file:///usr/share/OVMF/OVMF_VARS_4M.fd"
      and j["metadata"]["ptlab.options"] == '--seed=3 "x y"')
EOF
)
if [ "$got" = True ]; then
	pass "render.py put the image, OVMF, timeout and options where the template says"
else
	fail "render.py's job has other values than it was given ($got)"
fi

render device "$LAVA/devices/ptlab-pc-01.jinja2" >"$DIR/pc-01.yaml" 2>"$DIR/render.err"
if [ $? -eq 0 ] && "$PY" "$LAVA/render.py" check device "$LAVA/devices/qemu-ovmf.yaml" \
		"$DIR/pc-01.yaml" 2>>"$DIR/render.err"; then
	pass "lava/devices/qemu-ovmf.yaml and the rendered example PC pass lava-server's device schema"
else
	fail "devices: $(head -n 3 "$DIR/render.err" | tr '\n' ' ')"
fi

# the checks refuse what lava-server or the dispatcher would
sed 's/SKIP: skip/SKIP: skipped/' "$DIR/qemu-job.yaml" >"$DIR/bad-fixup.yaml"
sed 's/(?P<result>/(?P<verdict>/' "$DIR/qemu-job.yaml" >"$DIR/bad-group.yaml"
n=0
for f in bad-fixup bad-group; do
	"$PY" "$LAVA/render.py" check job "$DIR/$f.yaml" 2>/dev/null || n=$((n + 1))
done
printf '{%% extends "ptlab-pc.jinja2" %%}\n' >"$DIR/no-commands.jinja2"
render device "$DIR/no-commands.jinja2" >/dev/null 2>&1 || n=$((n + 1))
if [ "$n" -eq 3 ]; then
	pass "render.py refuses a fixupdict to no result, a pattern without 'result', a PC without commands"
else
	fail "render.py accepted $((3 - n)) of 3 broken jobs and devices"
fi

same=$(python3 - "$DIR/qemu-job.yaml" "$DIR/pc-job.yaml" <<'EOF'
import sys, yaml
def mon(p):
    return [a["test"]["monitors"] for a in yaml.safe_load(open(p))["actions"] if "test" in a]
print(mon(sys.argv[1]) == mon(sys.argv[2]) and len(mon(sys.argv[1])) == 1)
EOF
)
if [ "$same" = True ]; then
	pass "the QEMU job and the PC job carry the same monitor"
else
	fail "the monitors of lava/jobs/qemu-ovmf.yaml and lava/jobs/pc-usb.yaml differ"
fi

# The PC job in lava-run, on a PC device whose commands are harmless here
cat >"$DIR/pc-test.jinja2" <<'EOF'
{% extends 'ptlab-pc.jinja2' %}
{% set connection_command = 'cat' %}
{% set hard_reset_command = 'true' %}
{% set power_off_command = 'true' %}
{% set flasher_deploy_commands = ['test -s {PTLAB}'] %}
EOF
render device "$DIR/pc-test.jinja2" >"$DIR/pc-test.yaml" 2>"$DIR/render.err"
render job "$LAVA/jobs/pc-usb.yaml" --url "file://$ROOT/README.md" >"$DIR/pc-file-job.yaml"
# (validating makes the job's scratch directory and leaves it: removed here)
lava-run --validate --job-id "$$" --output-dir "$DIR/pc-validate" --device "$DIR/pc-test.yaml" \
	--dispatcher "$LAVA/dispatcher.yaml" "$DIR/pc-file-job.yaml" >"$DIR/pc-validate.log" 2>&1
st=$?
rm -rf -- "/var/lib/lava/dispatcher/tmp/ptlab-$$"
if [ "$st" -eq 0 ] &&
   grep -q '"case": "validate", "definition": "lava", "result": "pass"' "$DIR/pc-validate.log" &&
   grep -q 'deploy-flasher' "$DIR/pc-validate/description.yaml" &&
   grep -q 'minimal-boot' "$DIR/pc-validate/description.yaml"; then
	pass "lava-run validates the PC job (flasher deploy, minimal boot, monitor) on a ptlab-pc device"
else
	fail "lava-run --validate of the PC job: $(grep -m 2 '"lvl": "error"\|error_msg' "$DIR/pc-validate.log" | cut -c 1-200)"
fi

# The monitor's pattern searched through sample output the way pexpect
# searches (each search from the end of the previous match, DOTALL), the
# lines coloured as OVMF sends them or plain as ptlab's COM1, a line
# arriving in two pieces, against tools/report.py's reading of the text.
got=$(python3 - "$DIR/qemu-job.yaml" "$REPORT_DIR" <<'EOF'
import re, sys, yaml
sys.path.insert(0, sys.argv[2])
import report
mon = [a["test"]["monitors"][0] for a in yaml.safe_load(open(sys.argv[1]))["actions"]
       if "test" in a][0]
col = lambda s: "\x1b[1m\x1b[32m\x1b[40m" + s + "\x1b[0m\x1b[37m\x1b[40m\r\n"
text = "".join([
    "# run: number=1 file=PTLAB.TXT\r\n",
    col("ok 1 - tables: lint clean # check=lint-ps"),
    "# note: ok 9 - is not a test point\r\n",
    col("not ok 2 - #PF read unmapped: did not fault # check=pf-mapped"),
    "ok 3 - A/D 1G leaf # SKIP no 1 GiB pages\r\n",
    "not ok 4 - smp # SKIP is no skip when it failed\r\n",
    col("ok 5"),
    "ok 6 - x # SKIP why # check=wx-page\r\n",
    col("not ok 7 - MMU reserved bits: 348 cases: P=0 # TODO known deviation rsvd-p0 # check=mmu-rsvd"),
    "not ok 8 - x: the TODO is in its reason, not a directive # check=mmu-rsvd\r\n",
    "1..8\r\nptlab: 3 passed, 3 failed, 2 skipped\r\n"])
rx, end, fix = (re.compile(mon["pattern"], re.DOTALL), re.compile(mon["end"], re.DOTALL),
                mon["fixupdict"])
# the "not ok 2" line arrives in two pieces; "end" is listed before the
# pattern, so it wins a tie
cut = text.index("did not fault")
got, pos, buf = [], 0, ""
for piece in (text[:cut], text[cut:]):
    buf += piece
    while True:
        m, e = rx.search(buf, pos), end.search(buf, pos)
        if e and (not m or e.start() <= m.start()):
            got.append("end")
            pos = e.end()
        elif m:
            got.append((fix[m.group("result")], m.group("test_case_id")))
            pos = m.end()
        else:
            break
r = report.parse(text)
texts = [re.sub(r"^(not )?ok ", "", l) for l in r.lines if report.TEST.match(l)]
# a TODO line (a known deviation: TAP's TODO, no failure) is pass, as
# report.py and the closing line count it
want = [("skip" if t["skip"] else "pass" if t["ok"] or t["todo"] else "fail", x)
        for t, x in zip(r.tests, texts)] + ["end"]
print("same" if got == want and len(r.tests) == 8 and r.passed == 3 and
      [t["todo"] for t in r.tests].count(True) == 1 else "got %r, report.py %r" % (got, want))
EOF
)
if [ "$got" = same ]; then
	pass "the monitor's pattern finds each test point report.py reads, with its result (TODO: pass) and text"
else
	fail "the monitor's pattern on sample output: $got"
fi

# ---- the jobs ----

stick=$PTLAB_BUILD/ptlab.img
stick_sum()
{
	if [ -f "$stick" ]; then sha256sum <"$stick"; else echo none; fi
}
stick_before=$(stick_sum)

# lava_job NAME [make variables...]: "make lava" into $DIR/NAME, its
# output in $DIR/NAME.out; sets ST, LINE (its last line), LOG, JOBID
lava_job()
{
	local name=$1
	shift
	make -C "$ROOT" -s BUILD="$PTLAB_BUILD" LAVA_DIR="$DIR/$name" "$@" lava \
		>"$DIR/$name.out" 2>&1 </dev/null
	ST=$?
	LINE=$(grep '^lava: ' "$DIR/$name.out" | tail -n 1)
	LOG=$DIR/$name/lava.log
	JOBID=$(sed -n 's/.*(job \([0-9]*\) \(in\)\{0,1\}complete)$/\1/p' <<<"$LINE")
	echo "# $name: $LINE"
}

# cases NAME: LAVA's test cases of job NAME (RESULT, CASE, TEXT, tab-separated)
# and the serial lines it logged, in $DIR/NAME.cases and $DIR/NAME.serial
cases()
{
	python3 "$LAVA/results.py" cases "$DIR/$1/lava.log" >"$DIR/$1.cases"
	python3 "$LAVA/results.py" serial "$DIR/$1/lava.log" >"$DIR/$1.serial"
}

# report_texts FILE: each test point's text after "ok " / "not ok ", in order
report_texts()
{
	report_lines "$1" | sed -nE 's/^(not )?ok ([0-9]+( - .*)?)$/\2/p'
}

# judge_two_ways NAME: LAVA's cases of job NAME against the report's TAP
# lines read from the serial lines LAVA logged
judge_two_ways()
{
	local name=$1 n_lava p_lava f_lava s_lava
	local tests=0 passed=0 failed=0 skipped=0 plan= closing_passed= closing_failed=
	local closing_skipped= closings=0 serial_lost=0
	n_lava=$(grep -c . "$DIR/$name.cases")
	p_lava=$(grep -c '^pass	' "$DIR/$name.cases")
	f_lava=$(grep -c '^fail	' "$DIR/$name.cases")
	s_lava=$(grep -c '^skip	' "$DIR/$name.cases")
	eval "$(report_counts "$DIR/$name.serial")"
	if [ "$n_lava" -gt 0 ] && [ "$n_lava" -eq "$tests" ] && [ "$p_lava" -eq "$passed" ] &&
	   [ "$f_lava" -eq "$failed" ] && [ "$s_lava" -eq "$skipped" ]; then
		pass "$name: LAVA's $n_lava test cases ($p_lava pass, $f_lava fail, $s_lava skip) are the report's $tests TAP lines on the serial port"
	else
		fail "$name: LAVA has $n_lava cases ($p_lava pass, $f_lava fail, $s_lava skip), the serial report $tests test points ($passed passed, $failed failed, $skipped skipped)"
	fi
	if diff <(cut -f 3 "$DIR/$name.cases") <(report_texts "$DIR/$name.serial") >"$DIR/$name.diff"; then
		pass "$name: each case's text (extra.test_case_id) is its TAP line's, in order"
	else
		fail "$name: cases and TAP lines differ: $(head -n 4 "$DIR/$name.diff" | tr '\n' ' ')"
	fi
	# LAVA's case name: its own lower case, '_' for each run of other characters
	if diff <(cut -f 2 "$DIR/$name.cases") <(cut -f 3 "$DIR/$name.cases" |
			python3 -c 'import re,sys; [print(re.sub(r"\W+", "_", l.strip().lower())) for l in sys.stdin]') \
			>/dev/null; then
		pass "$name: each case is named by its line's text as docs/lab.md says"
	else
		fail "$name: case names are not the lines' texts in LAVA's form"
	fi
}

# judge_cleaned NAME: nothing of job NAME left running or on disk
judge_cleaned()
{
	local name=$1 left
	left=$(pgrep -f "dispatcher/tmp/ptlab-$JOBID/|lava-run \[job: $JOBID\]" 2>/dev/null | tr '\n' ' ')
	if [ -n "$JOBID" ] && [ -z "$left" ] && [ ! -e "/var/lib/lava/dispatcher/tmp/ptlab-$JOBID" ]; then
		pass "$name: job $JOBID left no process and no scratch directory"
	else
		fail "$name: job '$JOBID' left processes '$left' or /var/lib/lava/dispatcher/tmp/ptlab-$JOBID"
	fi
}

# show NAME: the end of job NAME's output when one of its checks failed
show()
{
	[ "$BOOT_FAIL" -eq "$failed_before" ] || tail -n 25 "$DIR/$1.out" | sed 's/^/# /'
}

# ---- good ----
failed_before=$BOOT_FAIL
lava_job good
cases good
if [ "$ST" -eq 0 ]; then pass "good: make lava succeeded"; else fail "good: make lava exit $ST"; fi
complete='^lava: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped \(job [0-9]+ complete\)$'
if [[ $LINE =~ $complete ]] && [ "${BASH_REMATCH[2]}" = 0 ]; then
	pass "good: the job completed with no failing case ($LINE)"
else
	fail "good: '$LINE'"
fi
bad=$(grep -v '^pass	\|^skip	' "$DIR/good.cases" | head -n 3)
if [ -s "$DIR/good.cases" ] && [ -z "$bad" ]; then
	pass "good: every LAVA result is pass or skip"
else
	fail "good: results other than pass and skip: $bad"
fi
judge_two_ways good
eval "$(report_counts "$DIR/good.serial")"
if [[ $LINE =~ $complete ]] && [ "${BASH_REMATCH[1]}" = "$passed" ] &&
   [ "${BASH_REMATCH[3]}" = "$skipped" ] && [ "$plan" = "$tests" ] && [ "$closings" = 1 ] &&
   [ "$closing_passed" = "$passed" ] && [ "$closing_skipped" = "$skipped" ]; then
	pass "good: make lava's line says the report's counts ($passed passed, $skipped skipped; plan 1..$plan, closing line)"
else
	fail "good: make lava's line '$LINE', the report $passed passed, $skipped skipped, plan '$plan' of $tests, $closings closing lines ($closing_passed passed)"
fi
if grep -qx 'result: pass' "$DIR/good/output/result.yaml" 2>/dev/null; then
	pass "good: lava-run's own result.yaml says the job passed"
else
	fail "good: lava-run's result.yaml: $(tr '\n' ' ' <"$DIR/good/output/result.yaml" 2>&1)"
fi
judge_cleaned good
show good

# ---- fault ----
failed_before=$BOOT_FAIL
if grep -qF -- "\`--inject=$FAULT\`" "$ROOT/docs/faults.md"; then
	pass "fault: docs/faults.md names --inject=$FAULT"
else
	fail "fault: docs/faults.md has no --inject=$FAULT"
fi
# the numbers of the good job's cases that are the check's
want=$(awk -F '\t' -v k=" # check=$FAULT" 'substr($3, length($3) - length(k) + 1) == k { split($3, w, " "); print w[1] }' \
	"$DIR/good.cases" | tr '\n' ' ')
lava_job fault ARGS="--inject=$FAULT"
cases fault
if [ "$ST" -ne 0 ] && [[ $LINE =~ $complete ]] && [ "${BASH_REMATCH[2]}" -gt 0 ]; then
	pass "fault: make lava failed, the job complete with ${BASH_REMATCH[2]} failing case(s)"
else
	fail "fault: make lava exit $ST, '$LINE'"
fi
got=$(awk -F '\t' '$1 == "fail" { split($3, w, " "); print w[1] }' "$DIR/fault.cases" | tr '\n' ' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	pass "fault: LAVA failed exactly the cases of check $FAULT (numbers $got)"
else
	fail "fault: LAVA failed cases '$got', the check's cases are '$want'"
fi
bad=$(awk -F '\t' -v k=" # check=$FAULT" '$1 == "fail" && substr($3, length($3) - length(k) + 1) != k' \
	"$DIR/fault.cases" | head -n 3)
other=$(awk -F '\t' '$1 != "fail" && $1 != "pass" && $1 != "skip"' "$DIR/fault.cases" | head -n 3)
if [ -z "$bad" ] && [ -z "$other" ] &&
   [ "$(grep -c . "$DIR/fault.cases")" -eq "$(grep -c . "$DIR/good.cases")" ]; then
	pass "fault: every failing record is keyed check=$FAULT, every other case passed or skipped, as many cases as the good job"
else
	fail "fault: failing cases not keyed $FAULT: '$bad'; other results: '$other'"
fi
keys=$(failed_checks "$DIR/fault.serial")
if [ -n "$got" ] && [ "$keys" = "$(for n in $got; do printf '%s ' "$FAULT"; done)" ]; then
	pass "fault: the report on the serial port fails the same, check $FAULT alone ($keys)"
else
	fail "fault: the report's failing checks are '$keys'"
fi
judge_two_ways fault
judge_cleaned fault
show fault

# ---- hold ----
failed_before=$BOOT_FAIL
lava_job hold ARGS=--hold LAVA_TIMEOUT="$HOLD_TIMEOUT"
cases hold
timeout_line='^lava: timeout in ([a-z-]+): (.* timed out after ([0-9]+) seconds); .* \(job [0-9]+ incomplete\)$'
if [ "$ST" -ne 0 ] && [[ $LINE =~ $timeout_line ]]; then
	where=${BASH_REMATCH[1]} secs=${BASH_REMATCH[3]}
	pass "hold: make lava failed with a LAVA timeout in $where (${BASH_REMATCH[2]})"
else
	where= secs=
	fail "hold: make lava exit $ST, '$LINE'"
fi
job_secs=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["timeouts"]["job"]["seconds"])' \
	"$DIR/hold/job.yaml" 2>/dev/null)
if [ "$job_secs" = "$HOLD_TIMEOUT" ] && [ -n "$secs" ] && [ "$secs" -le $((HOLD_TIMEOUT + 5)) ] &&
   [ "$secs" -ge $((HOLD_TIMEOUT / 2)) ]; then
	pass "hold: the job's timeout is LAVA_TIMEOUT=$HOLD_TIMEOUT s and it ended the job ($where after $secs s)"
else
	fail "hold: job timeout '$job_secs' s, LAVA_TIMEOUT $HOLD_TIMEOUT, timed out after '$secs' s"
fi
if grep -q '^error_msg: .*timed out' "$DIR/hold/output/result.yaml" 2>/dev/null &&
   grep -qx 'result: fail' "$DIR/hold/output/result.yaml"; then
	pass "hold: lava-run's own result.yaml says the job failed on a timeout"
else
	fail "hold: lava-run's result.yaml: $(tr '\n' ' ' <"$DIR/hold/output/result.yaml" 2>&1)"
fi
eval "$(report_counts "$DIR/hold.serial")"
if log_has '^# hold: cr3=0x[0-9a-f]+' "$DIR/hold.serial" && [ "$closings" = 0 ]; then
	pass "hold: the run reached its hold and never closed its report"
else
	fail "hold: no '# hold:' line on the serial port, or $closings closing line(s)"
fi
bad=$(grep -v '^pass	\|^skip	' "$DIR/hold.cases" | head -n 3)
if [ -z "$bad" ]; then
	pass "hold: every case before the hold passed or skipped"
else
	fail "hold: cases before the hold: $bad"
fi
judge_two_ways hold
judge_cleaned hold
show hold

if [ "$(stick_sum)" = "$stick_before" ]; then
	pass "build/ptlab.img is what it was before the jobs"
else
	fail "make lava changed $stick"
fi

boot_done
