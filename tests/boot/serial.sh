#!/bin/bash
# SPDX-License-Identifier: MIT
#
# COM1 after ExitBootServices, where the report has only the port and the
# screen: a slow line is waited out, a stalled one costs what it stalls and
# no more, and the closing line always comes and says what was lost.
#
# COM1 is QEMU's 16550 on a unix socket read by tests/boot/slowserial.py:
# while the reader does not read, the socket fills after a few hundred
# bytes and the UART keeps its transmitter busy (LSR.THRE clear), as a slow
# or stalled line would.  The reader reads freely until the report says
# "handoff: leaving boot services", then
#   slow:  pauses 1 s after every KiB: each stall is shorter than a line's
#          budget (3 s), so nothing is lost and the report is whole;
#   stall: stops for 20 s once, after 1 KiB: the line it stops in waits its
#          budget out and is lost, later ones are lost after a short probe
#          while the stall lasts, the closing line is sent again with the
#          full budget (up to ten times), gets through, and says "(serial
#          lost N bytes)".  20 s is more than a budget even when the TSC
#          was calibrated on a loaded host (a budget of 3 s then lasts up
#          to 5 times longer), and less than ten of them.
# Both runs pass (isa-debug-exit 0x10): what the serial line lost is no
# check of the tables.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init serial
here=$(cd "$(dirname "$0")" && pwd)
MARKER='handoff: leaving boot services'

# slow_boot TAG CHUNK PAUSE [STOP_AFTER STOP_FOR]: a hand-off with COM1 on a
# slowserial.py reader (in the background; its log is $BOOT_DIR/TAG.log)
slow_boot()
{
	local tag=$1 sock=$BOOT_DIR/$1.sock log=$BOOT_DIR/$1.log tries
	shift
	python3 "$here/slowserial.py" "$sock" "$log" "$MARKER" "$@" >"$BOOT_DIR/$tag.reader" 2>&1 &
	for tries in $(seq 100); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	boot_bg "$tag" --log "$log" --serial "unix:$sock" --cpu max --smp 2 --mem 1G \
		--cfg "--mode=handoff --end=qemu"
}

# closing LOG: the last closing line of LOG
closing()
{
	python3 "$here/../../tools/report.py" closings "$1" | tail -n 1
}

slow_boot slow 1024 1.0
slow_boot stall 1024 0 1024 20
boot_wait

boot_result slow
st=$?
check_status "$st" 33 "slow: passed (status 0x10)"
check_report "$BOOT_LOG" slow nofile
pauses=$(sed -n 's/^slowserial: [0-9]* bytes, \([0-9]*\) pauses$/\1/p' "$BOOT_DIR/slow.reader")
if [ "${pauses:-0}" -ge 2 ]; then
	pass "slow: the reader paused $pauses times for 1 s after the hand-off"
else
	fail "slow: the reader paused '${pauses}' times ($(cat "$BOOT_DIR/slow.reader"))"
fi
check_log '^ptlab: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' "$BOOT_LOG" \
	"slow: the closing line came, and says nothing was lost"
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 20

boot_result stall
st=$?
check_status "$st" 33 "stall: passed (status 0x10)"
last=$(closing "$BOOT_LOG")
if [[ $last =~ ^ptlab:\ [1-9][0-9]*\ passed,\ 0\ failed,\ [0-9]+\ skipped\ \(serial\ lost\ ([1-9][0-9]*)\ bytes\)$ ]]; then
	pass "stall: the closing line came and says what was lost: '$last'"
else
	fail "stall: closing line '$last', not one saying the serial port lost bytes"
fi
check_log "$MARKER" "$BOOT_LOG" "stall: the report up to the hand-off came whole"
# the lines lost: the report's test points are fewer than its closing line counts
eval "$(report_counts "$BOOT_LOG")"
if [ -n "${closing_passed:-}" ] && [ "$passed" -lt "$closing_passed" ]; then
	pass "stall: $passed of $closing_passed passing test points reached the log (the rest were lost)"
else
	fail "stall: $passed passing test points in the log, closing line counts '${closing_passed:-}'"
fi
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 20

boot_done
