#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The UEFI shell path.  When the application returns an error, OVMF's boot
# manager goes on to its next boot option, the "EFI Internal Shell", whose
# \startup.nsh runs the application again (default options, --end=return).
# That later run must never pass for the earlier one: it takes the next
# report file (\PTLAB-2.TXT), names the earlier run and its verdict in its
# report and last on the console, and leaves \PTLAB.TXT as the earlier run
# wrote it.  OVMF mirrors the console to the serial port, so the serial log
# is what the user saw on the screen.  Three boots:
#   fail      --fail-alloc=1 --end=return: a failing run, then the shell's
#   bom       a \ptlab.cfg as an editor saves it: a UTF-8 byte-order mark
#             (skipped) and typographic quotes: refused naming the first
#             byte beyond ASCII, then the shell's run
#   handoff   --mode=handoff --end=return: refused; the shell then runs a
#             \startup.nsh whose command line holds a non-ASCII character,
#             refused naming it
# Each is stopped over QMP once the shell has its prompt back.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fb.sh"

boot_init shell
root=$(cd "$(dirname "$0")/../.." && pwd)

# start TAG CFG [NSH]: boot with \ptlab.cfg = CFG (and \startup.nsh = NSH)
start()
{
	local tag=$1 cfg=$2 nsh=${3:-} img=$PTLAB_IMG
	mkdir -p "$BOOT_DIR/$tag"
	if [ -z "$nsh" ] && [ -n "$BOOT_DEVIATIONS" ]; then
		# the image's \startup.nsh, with the known deviations (lib.sh) for the shell's run
		nsh=$BOOT_DIR/$tag/startup.nsh
		sed "s/--end=return/--end=return --known-deviation=$BOOT_DEVIATIONS/" "$root/startup.nsh" >"$nsh"
	fi
	if [ -n "$nsh" ]; then
		img=$BOOT_DIR/$tag/image.img
		cp -- "$PTLAB_IMG" "$img"
		mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$nsh" ::/startup.nsh
	fi
	boot_bg "$tag" --img "$img" --log "$BOOT_DIR/$tag/serial.log" --cfg "$cfg" --mem 1G \
		--timeout 400 -- -qmp "unix:$BOOT_DIR/$tag/qmp.sock,server=on,wait=off"
}

# settle TAG REGEX: wait for REGEX (the last thing the scenario prints), then quit
settle()
{
	local tag=$1
	if fb_wait_log "$2" "$BOOT_DIR/$tag/serial.log" 360 "$BOOT_DIR/$tag.status" &&
	   fb_wait_log '^(Shell> |FS[0-9]+:\\> )' "$BOOT_DIR/$tag/serial.log" 30 "$BOOT_DIR/$tag.status"; then
		pass "$tag: the scenario ran to the shell's prompt"
	else
		fail "$tag: the scenario did not reach its end"
	fi
	boot_quit "$tag" "$BOOT_DIR/$tag/qmp.sock"
}

# file TAG NAME: \NAME of that boot's image, CRs removed, on stdout
file()
{
	local out=$BOOT_DIR/$1/$2
	img_extract "$BOOT_IMG_COPY" "$2" "$out" 2>/dev/null || return 1
	tr -d '\r' <"$out"
}

has()
{
	local what=$1 re=$2 desc=$3
	if printf '%s\n' "$what" | grep -E -- "$re" >/dev/null; then pass "$desc"; else fail "$desc (no /$re/)"; fi
}

# the non-ASCII command line: a UCS-2 script (with its byte-order mark)
nsh=$BOOT_DIR/wide.nsh
{
	printf '\xff\xfe'
	printf '@echo -off\r\nfor %%i in 0 1 2 3 4 5 6 7 8 9\r\n  if exist fs%%i:\\EFI\\BOOT\\BOOTX64.EFI then\r\n    fs%%i:\r\n    \\EFI\\BOOT\\BOOTX64.EFI --seed=5 --end=return \xc3\xa9\r\n    exit /b\r\n  endif\r\nendfor\r\n' |
		iconv -f UTF-8 -t UTF-16LE
} >"$nsh"

start fail "--fail-alloc=1 --end=return --iterations=2000"
start bom "$(printf '\xef\xbb\xbf--end=qemu \xe2\x80\x9c--seed=5\xe2\x80\x9d')"
start handoff "--mode=handoff --end=return" "$nsh"
settle fail '^ptlab: an earlier run of this boot \(\\PTLAB\.TXT\) ended: '
settle bom '^ptlab: an earlier run of this boot \(\\PTLAB\.TXT\) ended: '
settle handoff '^ptlab: refused: the options were not accepted, nothing was run \(\\PTLAB-2\.TXT\)'
boot_wait

# ---- a failing run, then the shell's run ----
boot_result fail >/dev/null
log=$BOOT_LOG
closings=$(log_clean "$log" | grep -E '^ptlab: ([0-9]+ passed|nothing checked|refused)')
has "$closings" '^ptlab: [0-9]+ passed, [1-9][0-9]* failed' "fail: the first run failed"
has "$(printf '%s\n' "$closings" | tail -n 1)" '^ptlab: [0-9]+ passed, 0 failed' "fail: the shell's run passed"
check_log 'UEFI Interactive Shell|Shell>|startup.nsh' "$log" "fail: the firmware went on to the shell"
last=$(log_clean "$log" | grep -E '^ptlab: ' | tail -n 2)
has "$last" '^ptlab: this was run 2 of this boot; its report is \\PTLAB-2\.TXT$' \
	"fail: last on screen: this was run 2, its report file"
has "$last" '^ptlab: an earlier run of this boot \(\\PTLAB\.TXT\) ended: fail \([0-9]+ passed, [1-9][0-9]* failed' \
	"fail: last on screen: the earlier run's failure"
one=$(file fail PTLAB.TXT)
has "$one" '^ptlab: [0-9]+ passed, [1-9][0-9]* failed' "fail: \\PTLAB.TXT keeps the failing report"
has "$one" '^# options: .*fail-alloc=1' "fail: \\PTLAB.TXT is the first run's"
two=$(file fail PTLAB-2.TXT)
has "$two" '^# earlier-run: run=1 file=PTLAB\.TXT verdict=fail \(' "fail: \\PTLAB-2.TXT names the earlier failed run"
has "$two" '^ptlab: [0-9]+ passed, 0 failed' "fail: \\PTLAB-2.TXT holds the shell run's pass"
if "$root/mk/verdict.sh" "$log" "$BOOT_IMG_COPY" 0 >"$BOOT_DIR/fail/verdict.out"; then
	fail "fail: mk/verdict.sh calls the boot a pass"
else
	pass "fail: mk/verdict.sh: $(tail -n 1 "$BOOT_DIR/fail/verdict.out")"
fi

# ---- a rejected \ptlab.cfg, then the shell's run ----
boot_result bom >/dev/null
log=$BOOT_LOG
check_log '^ptlab: bad byte 0xe2 at offset 14 in config: not ASCII' "$log" "bom: the config was refused with the reason"
one=$(file bom PTLAB.TXT)
has "$one" '^ptlab: refused: the options were not accepted, nothing was run$' "bom: \\PTLAB.TXT says the run was refused"
has "$one" '^ptlab: bad byte 0xe2 at offset 14 in config: not ASCII' "bom: \\PTLAB.TXT names the reason"
two=$(file bom PTLAB-2.TXT)
has "$two" '^# earlier-run: run=1 file=PTLAB\.TXT verdict=refused: bad byte 0xe2' \
	"bom: \\PTLAB-2.TXT names the refused run"
last=$(log_clean "$log" | grep -E '^ptlab: ' | tail -n 1)
has "$last" '^ptlab: an earlier run of this boot \(\\PTLAB\.TXT\) ended: refused: bad byte 0xe2' \
	"bom: last on screen: the earlier run was refused"

# ---- hand-off with a refused end action, then a non-ASCII shell line ----
boot_result handoff >/dev/null
log=$BOOT_LOG
check_log '^ptlab: --end=wait and --end=return cannot work after ExitBootServices' "$log" \
	"handoff: --end=return refused"
check_log '^ptlab: character U\+00E9 at position [0-9]+ of the command line is not ASCII' "$log" \
	"handoff: the shell line with U+00E9 refused, naming the character"
check_no_log '^# options: seed=0x1 ' "$log" "handoff: no run with default options"
check_no_log '^ptlab: [0-9]+ passed' "$log" "handoff: no pass line at all"
one=$(file handoff PTLAB.TXT)
has "$one" 'cannot work after ExitBootServices' "handoff: \\PTLAB.TXT names the refused end action"
two=$(file handoff PTLAB-2.TXT)
has "$two" 'U\+00E9' "handoff: \\PTLAB-2.TXT names the refused character"
last=$(log_clean "$log" | grep -E '^ptlab: ' | tail -n 2)
has "$last" '^ptlab: an earlier run of this boot \(\\PTLAB\.TXT\) ended: refused: --end=wait and --end=return' \
	"handoff: last on screen: the earlier refusal"

boot_done
