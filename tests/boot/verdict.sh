#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The verdict a user reads is the truth.  "make run" judges by the closing
# lines on the serial port and the report files, never by QEMU's exit status
# alone (a failed run ended with --end=shutdown exits QEMU with 0); a run
# that checked nothing has its own exit code and closing line; the hand-off
# report file holds the report up to ExitBootServices and says where the
# rest went; options are never silently lost (a long \ptlab.cfg, a huge
# --timeout, --fragment on a small machine, --dump-memmap after hand-off);
# a failed allocation is named as the cause.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fb.sh"

boot_init verdict
root=$(cd "$(dirname "$0")/../.." && pwd)

# ---- mk/verdict.sh on logs made by hand (no QEMU) ----
vlog()
{
	printf '%b' "$2" >"$BOOT_DIR/v-$1.log"
	"$root/mk/verdict.sh" "$BOOT_DIR/v-$1.log" /nonexistent "$3" >"$BOOT_DIR/v-$1.out" 2>&1
}
vcheck()
{
	local name=$1 want=$2 regex=$3 st=$4
	if [ "$st" -eq "$want" ] && tail -n 1 "$BOOT_DIR/v-$name.out" | grep -E -- "$regex" >/dev/null; then
		pass "verdict.sh $name: exit $want, $(tail -n 1 "$BOOT_DIR/v-$name.out")"
	else
		fail "verdict.sh $name: exit $st (want $want): $(tail -n 1 "$BOOT_DIR/v-$name.out")"
	fi
}
vlog pass '\e[0mok 1 - x\r\nptlab: 3 passed, 0 failed, 1 skipped\r\n' 0; vcheck pass 0 '^ptlab: verdict: pass' $?
vlog fail-status0 'ptlab: 31 passed, 1 failed, 2 skipped\n' 0; vcheck fail-status0 1 '^ptlab: verdict: fail' $?
vlog none 'BdsDxe: starting Boot0002\n' 33; vcheck none 2 '^ptlab: verdict: none' $?
vlog fail-then-pass 'ptlab: 1 passed, 1 failed, 0 skipped\nptlab: 32 passed, 0 failed, 2 skipped\n' 0
vcheck fail-then-pass 1 'first: 1 passed, 1 failed' $?
vlog refused-then-pass 'ptlab: refused: the options were not accepted, nothing was run\nptlab: 32 passed, 0 failed, 2 skipped\n' 0
vcheck refused-then-pass 1 'first: refused' $?
vlog nothing 'ptlab: nothing checked (0 passed, 0 failed, 1 skipped)\n' 39; vcheck nothing 1 'nothing checked' $?
# a report file on the image that failed, though the serial log passed
fimg=$BOOT_DIR/v-file.img
truncate -s 3M "$fimg" && mformat -i "$fimg@@$BOOT_ESP_OFFSET" -T 4096 -h 2 -s 32 :: &&
	printf 'ptlab: 5 passed, 2 failed, 0 skipped\r\n' >"$BOOT_DIR/v-file.txt" &&
	mcopy -i "$fimg@@$BOOT_ESP_OFFSET" "$BOOT_DIR/v-file.txt" ::/PTLAB-2.TXT
printf 'ptlab: 3 passed, 0 failed, 0 skipped\n' >"$BOOT_DIR/v-file.log"
"$root/mk/verdict.sh" "$BOOT_DIR/v-file.log" "$fimg" 0 >"$BOOT_DIR/v-file.out" 2>&1
vcheck file 1 '1 of 1 report file\(s\); first: 5 passed, 2 failed' $?

# ---- make run: the verdict of real boots ----
# make_run TAG ARGS...: make run with a private image and run directory
make_run()
{
	local tag=$1
	shift
	mkdir -p "$BOOT_DIR/$tag"
	(
		make -s -C "$root" run BUILD="$PTLAB_BUILD" DEPS_CHECK=0 IMAGE="$BOOT_DIR/$tag/ptlab.img" \
			RUN_DIR="$BOOT_DIR/$tag" QEMU_MEM=1G "$@" \
			QEMU="timeout -k 10 $BOOT_TIMEOUT $QEMU" </dev/null >"$BOOT_DIR/$tag/make.out" 2>&1
		echo $? >"$BOOT_DIR/$tag/make.status"
	) &
}

make_run inject ARGS="--end=shutdown --inject=wrong-frame --iterations=2000"
make_run reboot ARGS="--end=reboot --iterations=2000"
make_run refused ARGS="--iterations=2000 --bogus"
boot_wait
# a refused option: the run returns, the shell's \startup.nsh finds this
# boot's \PTLAB.TXT and shuts down without a second, default run
st=$(cat "$BOOT_DIR/refused/make.status")
rlog=$BOOT_DIR/refused/serial.log
closings=$(python3 "$BOOT_REPORT_PY" closings "$rlog" 2>/dev/null)
if [ "$st" -ne 0 ] && [ "$closings" = "ptlab: refused: the options were not accepted, nothing was run (\PTLAB.TXT)" ] &&
   tail -n 3 "$BOOT_DIR/refused/make.out" | grep '^ptlab: verdict: fail .*refused' >/dev/null; then
	pass "make run ARGS=--bogus: refused, one closing line, make fails on it"
else
	fail "make run ARGS=--bogus: make status $st, closing lines: $(tr '\n' '|' <<<"$closings")"
	sed 's/^/# /' "$BOOT_DIR/refused/make.out" | tail -n 5
fi
check_log "^ptlab: .PTLAB.TXT is there: this boot's run has ended, not run again" "$rlog" \
	"make run ARGS=--bogus: the shell's startup.nsh saw this boot's report and ran nothing"
check_no_log '^# options: ' "$rlog" "make run ARGS=--bogus: no run at all (no # options: line)"
st=$(cat "$BOOT_DIR/inject/make.status")
if [ "$st" -ne 0 ] && tail -n 3 "$BOOT_DIR/inject/make.out" | grep '^ptlab: verdict: fail - 1 of 1 run(s) did not pass, 1 of 1 report file(s); first: [0-9]* passed, 1 failed, [0-9]* skipped (qemu exit status 0)' >/dev/null; then
	pass "make run --end=shutdown --inject=wrong-frame: QEMU exit 0, make fails on the serial verdict"
else
	fail "make run --inject=wrong-frame: make status $st"
	sed 's/^/# /' "$BOOT_DIR/inject/make.out" | tail -n 5
fi
check_log '^ptlab: report file \\PTLAB.TXT: ptlab: [0-9]+ passed, 1 failed' "$BOOT_DIR/inject/make.out" \
	"make run names the report file and its failing closing line"
st=$(cat "$BOOT_DIR/reboot/make.status")
if [ "$st" -eq 0 ] && tail -n 1 "$BOOT_DIR/reboot/make.out" | grep '^ptlab: verdict: pass - [1-9][0-9]* passed, 0 failed' >/dev/null; then
	pass "make run --end=reboot (-no-reboot: QEMU exits 0): a passing run passes"
else
	fail "make run --end=reboot: make status $st"
	sed 's/^/# /' "$BOOT_DIR/reboot/make.out" | tail -n 5
fi

# ---- nothing checked; the hand-off report file; --dump-memmap after hand-off ----
boot_bg nonx --cfg "--end=qemu" --cpu qemu64,-nx --mem 512M
boot_bg handoff --cfg "--mode=handoff --end=qemu --iterations=2000 --dump-memmap" --mem 1G
boot_wait
boot_result nonx
st=$?
check_status "$st" 39 "no NX: exit code 0x13, nothing checked"
check_log '^ptlab: nothing checked \(0 passed, 0 failed, 1 skipped\)$' "$BOOT_LOG" "no NX: its own closing line"
check_no_log '^ptlab: [0-9]+ passed' "$BOOT_LOG" "no NX: no pass line"
if img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$BOOT_DIR/nonx.txt" &&
   tr -d '\r' <"$BOOT_DIR/nonx.txt" | grep '^ptlab: nothing checked' >/dev/null; then
	pass "no NX: \\PTLAB.TXT closes with 'nothing checked'"
else
	fail "no NX: \\PTLAB.TXT without the closing line"
fi

boot_result handoff
st=$?
check_status "$st" 33 "hand-off: passed"
file=$BOOT_DIR/handoff.txt
if img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$file" 2>/dev/null && [ -s "$file" ]; then
	pass "hand-off: \\PTLAB.TXT written ($(wc -l <"$file") lines)"
else
	fail "hand-off: \\PTLAB.TXT missing or empty"
	: >"$file"
fi
# the file is the serial report up to the note that ends it, line for line
n=$(tr -d '\r' <"$file" | wc -l)
if [ "$n" -gt 3 ] && tr -d '\r' <"$file" | tail -n 1 | grep '^# report-file: ends here, before ExitBootServices; the rest of this run.s report and its verdict go to COM1 and the screen only$' >/dev/null &&
   diff <(tr -d '\r' <"$file") <(report_lines "$BOOT_LOG" | head -n "$n") >/dev/null; then
	pass "hand-off: the file is the serial report up to ExitBootServices and says where the rest went"
else
	fail "hand-off: the file is not the serial report's first $n lines with the closing note"
fi
if log_clean "$BOOT_LOG" | sed -n '/handoff-exit: ExitBootServices on try/,$p' | grep '^# memmap-raw: type=' >/dev/null; then
	pass "hand-off: --dump-memmap dumps the final map after ExitBootServices"
else
	fail "hand-off: no '# memmap-raw:' line after ExitBootServices"
fi

# ---- a long \ptlab.cfg, a token across 4096 bytes, a huge --timeout ----
long=$BOOT_DIR/long.cfg
{
	printf '# %s\n' "$(head -c 3000 /dev/zero | tr '\0' 'x')"
	printf '# %s\n' "$(head -c 1080 /dev/zero | tr '\0' 'y')"
	printf -- '--iterations=2000 --seed=77\n'
	printf -- '--timeout=18446744073709551615 --end=qemu\n'
	printf '# %s\n' "$(head -c 2000 /dev/zero | tr '\0' 'z')"
} >"$long"
off=$(grep -bo -- '--iterations' "$long" | cut -d: -f1)
boot_bg longcfg --cfg "$(cat "$long")" --mem 1G
boot_bg fragment --cfg "--end=qemu --fragment --iterations=2000" --cpu qemu64 --mem 200M
boot_wait
boot_result longcfg
st=$?
check_status "$st" 33 "long config ($(wc -c <"$long") bytes, --iterations at byte $off of 4096): passed"
check_log '^# options: seed=0x4d iterations=2000 end=qemu .*timeout=18446744073709551615' "$BOOT_LOG" \
	"long config: every option after 4096 bytes applied, --timeout saturated"
tables=$(fact "$BOOT_LOG" tables total)
# the churn's memory types: UC/WT only on the typed window, audited on the CPU's machine
check_log '^ok [0-9]+ - memory types: [0-9]+ scratch leaves, [0-9]+ of them not write-back, all on the 16 frames of the typed window' \
	"$BOOT_LOG" "churn: the memory-type rule audited"
if [ "$(fact "$BOOT_LOG" churn typed_maps)" -gt 0 ] 2>/dev/null; then
	pass "churn: $(fact "$BOOT_LOG" churn typed_maps) maps with UC/WT, all on the typed window"
else
	fail "churn: typed_maps='$(fact "$BOOT_LOG" churn typed_maps)'"
fi
boot_result fragment
st=$?
check_status "$st" 33 "--fragment with 200 MiB: passed"
if [ "$(fact "$BOOT_LOG" fragment pages)" -ge 200 ] 2>/dev/null; then
	pass "--fragment with 200 MiB: $(fact "$BOOT_LOG" fragment pages) pages scattered"
else
	fail "--fragment with 200 MiB: pages='$(fact "$BOOT_LOG" fragment pages)'"
fi

# ---- --fail-alloc on the first allocation after the build: the alias check ----
if [ -n "$tables" ]; then
	n=$((tables + 1))
	boot_bg alias --cfg "--end=qemu --iterations=2000 --fail-alloc=$n" --mem 1G
	# meanwhile: a \ptlab.cfg over 1 MiB is refused, never cut (then QMP quit:
	# the refused run returns to the boot manager and the shell)
	huge=$BOOT_DIR/huge
	mkdir -p "$huge"
	boot_bg huge --log "$huge/serial.log" --mem 1G --timeout 300 \
		--cfg "$(printf -- '--end=qemu\n'; head -c 1100000 /dev/zero | tr '\0' '#')" \
		-- -qmp "unix:$huge/qmp.sock,server=on,wait=off"
	fb_wait_log '^ptlab: refused: ' "$huge/serial.log" 240 "$BOOT_DIR/huge.status"
	boot_quit huge "$huge/qmp.sock"
	boot_wait
	judge_ended alias 35 "^not ok [0-9]+ - alias: frame allocation failed: PT_ENOMEM \\(the failure --fail-alloc=$n injected" \
		"the failed allocation is the message"
	check_no_log '^not ok [0-9]+ - alias: [0-9]+ mismatches' "$BOOT_LOG" "no 'mismatches' line"
	boot_result huge >/dev/null
	# the file's size named: "--end=qemu", a newline, 1100000 bytes, a newline
	check_log "^ptlab: \\\\ptlab\\.cfg is larger than 1048576 bytes \\($((10 + 1 + 1100000 + 1))\\): refused rather than cut\$" "$BOOT_LOG" \
		"a 1.1 MB \\ptlab.cfg refused with the reason and its size"
	check_no_log '^# options: ' "$BOOT_LOG" "the huge config ran nothing"
else
	fail "--fail-alloc: no table count from the long-config run"
fi

boot_done
