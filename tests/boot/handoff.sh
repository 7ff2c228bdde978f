#!/bin/bash
# SPDX-License-Identifier: MIT
#
# --mode=handoff: ExitBootServices, all of RAM ours, the full check suite,
# the report on COM1 and the framebuffer.  On qemu64 with 256 MiB, on max
# with 8 GiB (frames above 4 GiB must be exercised), as a USB stick, and a
# screenshot of the framebuffer compared pixel for pixel with the same
# report rendered on the host by the same font code.  Options that cannot
# work after ExitBootServices are refused before anything happens.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fb.sh"

boot_init handoff

handed_off()
{
	local name=$1
	judge_passed "$name" nofile
	check_log '^# handoff-exit: ExitBootServices on try [0-9]+' "$BOOT_LOG" \
		"$name: left boot services"
	check_log '^# handoff-ram: the frame allocator owns all free RAM' "$BOOT_LOG" \
		"$name: frame allocator over all free RAM"
	check_log '^ok [0-9]+ - ram sweep: ' "$BOOT_LOG" "$name: every usable RAM range touched"
	check_log '^ok [0-9]+ - churn: ' "$BOOT_LOG" "$name: churn passed on all-RAM frames"
}

boot_bg qemu64-256M --cfg "--mode=handoff --end=qemu" --cpu qemu64 --mem 256M
boot_bg max-8G --cfg "--mode=handoff --end=qemu" --cpu max --mem 8G
boot_wait
handed_off qemu64-256M
handed_off max-8G
if [ "$(fact "$BOOT_LOG" churn ops)" -ge 50000 ] 2>/dev/null; then
	pass "max-8G: the longer default churn after hand-off ($(fact "$BOOT_LOG" churn ops) operations)"
else
	fail "max-8G: churn ops '$(fact "$BOOT_LOG" churn ops)' below the hand-off default"
fi
above=$(log_clean "$BOOT_LOG" | sed -n 's/.*ram sweep: .*(\([0-9]*\) above 4 GiB).*/\1/p')
if [ "${above:-0}" -gt 0 ]; then
	pass "max-8G: $above frames above 4 GiB written and read back"
else
	fail "max-8G: no frame above 4 GiB exercised ('$above')"
fi

boot_bg usb-stick --cfg "--mode=handoff --end=qemu --iterations=20000" --cpu max --mem 2G --usb
# refused before anything happens: the app returns to the boot manager,
# which says it failed to start the option and goes on to the shell; QEMU is
# stopped over QMP once the firmware has taken over again
refuse=$BOOT_DIR/refuse
mkdir -p "$refuse"
boot_bg refuse-return --log "$refuse/serial.log" --cfg "--mode=handoff --end=return" \
	--cpu max --mem 1G --timeout 150 -- -qmp "unix:$refuse/qmp.sock,server=on,wait=off"
refusal='^ptlab: --end=wait and --end=return cannot work after ExitBootServices'
if fb_wait_log "$refusal" "$refuse/serial.log" 90 "$BOOT_DIR/refuse-return.status" &&
   fb_wait_log '^(BdsDxe: failed to start Boot|UEFI Interactive Shell)' "$refuse/serial.log" 30 \
	"$BOOT_DIR/refuse-return.status"; then
	pass "--end=return: the app returned to the boot manager"
else
	fail "--end=return: no refusal followed by the firmware taking over (boot manager or shell)"
fi
boot_quit refuse-return "$refuse/qmp.sock"
boot_wait
handed_off usb-stick
boot_result refuse-return
st=$?
check_status "$st" 0 "--end=return: QEMU quit over QMP"
check_log "$refusal" "$BOOT_LOG" "--end=return refused with a clear message"
check_no_log 'handoff: leaving boot services' "$BOOT_LOG" "--end=return: nothing was started"

# the default end after hand-off: the runtime ResetSystem, called through
# our own tables, powers the machine off (QEMU exits with 0)
boot_bg shutdown --cfg "--mode=handoff --iterations=2000" --cpu max --mem 1G
boot_wait
boot_result shutdown
st=$?
check_status "$st" 0 "shutdown: runtime ResetSystem after ExitBootServices powered off"
check_log '^ptlab: [0-9]+ passed, 0 failed' "$BOOT_LOG" "shutdown: the report was complete first"
check_log '^# options: .*end=shutdown' "$BOOT_LOG" "shutdown: the default end after hand-off"

# the screenshot: halt after the report, screendump over QMP, compare
shot=$BOOT_DIR/shot
mkdir -p "$shot"
boot_bg screen --log "$shot/serial.log" --cfg "--mode=handoff --end=halt" --cpu max --mem 2G --timeout 180 \
	-- -qmp "unix:$shot/qmp.sock,server=on,wait=off"
if fb_wait_log '^ptlab: [0-9]+ passed, [0-9]+ failed' "$shot/serial.log" 110 "$BOOT_DIR/screen.status" &&
   fb_wait_log '^ptlab: halted' "$shot/serial.log" 30 "$BOOT_DIR/screen.status" &&
   fb_screendump "$shot/qmp.sock" "$shot/got.ppm"; then
	pass "screen: closing line on serial, framebuffer captured"
	width=$(fact "$shot/serial.log" handoff fb | cut -dx -f1)
	height=$(fact "$shot/serial.log" handoff fb | cut -dx -f2)
	stride=$(fact "$shot/serial.log" handoff stride)
	format=$(fact "$shot/serial.log" handoff format)
	[ "$format" = 1 ] && format=bgrx || format=rgbx
	report_lines "$shot/serial.log" >"$shot/lines.txt"
	if fb_render "$width" "$height" "$shot/want.ppm" "$format" "$stride" <"$shot/lines.txt" &&
	   fb_compare "$shot/got.ppm" "$shot/want.ppm"; then
		pass "screen: the framebuffer equals the host rendering of the report (${width}x${height})"
	else
		fail "screen: the framebuffer differs from the host rendering of the report"
	fi
else
	fail "screen: no closing line or no screendump"
fi
boot_quit screen "$shot/qmp.sock"
boot_wait
boot_result screen >/dev/null

boot_done
