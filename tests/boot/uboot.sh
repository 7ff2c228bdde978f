#!/bin/bash
# SPDX-License-Identifier: MIT
#
# U-Boot's UEFI (Debian's u-boot-qemu, qemu-x86_64 build) as the second
# firmware: it boots \EFI\BOOT\BOOTX64.EFI from the q35 SATA disk by itself
# and passes its "bootargs" (a Linux command line) as LoadOptions.  Its GDT
# is in flash, it loads no TSS, enters with CR4=0x20 and interrupts off.
# Firmware mode and hand-off mode, with -cpu max and -cpu qemu64: the
# bootargs are named and ignored, \ptlab.cfg is honoured, every check
# passes, each report line reaches the serial port once, and the hand-off
# end is the runtime ResetSystem U-Boot offers.  The -cpu max runs use
# --levels=5: the switch to 5-level paging and back (CR0.PG off in a
# trampoline, segment registers reloaded there) must hold with U-Boot's
# selectors and read-only GDT as well as with OVMF's.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

UBOOT_ROM=${UBOOT_ROM:-/usr/lib/u-boot/qemu-x86_64/u-boot.rom}

boot_init uboot

if [ ! -f "$UBOOT_ROM" ]; then
	fail "no U-Boot ROM at $UBOOT_ROM (package u-boot-qemu)"
	boot_done
	exit
fi

# at_five NAME: the run switched to 5-level paging and every live phase
# found the CPU there
at_five()
{
	local name=$1 phases at5
	phases=$(fact "$BOOT_LOG" la57 live_phases)
	at5=$(fact "$BOOT_LOG" la57 at_5_levels)
	if [ "$(fact "$BOOT_LOG" paging levels)" = 5 ] && [ -n "$phases" ] && [ "$phases" -gt 0 ] &&
	   [ "$phases" = "$at5" ]; then
		pass "$name: switched to 5 levels under U-Boot, $at5 of $phases live phases at 5 levels"
	else
		fail "$name: paging levels='$(fact "$BOOT_LOG" paging levels)' live_phases='$phases' at_5_levels='$at5'"
	fi
}

# once: the closing line and the options note appear exactly once on the serial port
check_once()
{
	local name=$1 n
	n=$(log_clean "$BOOT_LOG" | grep -cE '^ptlab: [0-9]+ passed, ')
	check_num "$n" 1 "$name: the closing line reached the serial port once"
}

check_uboot_facts()
{
	local name=$1
	check_log '^# options: the boot manager'"'"'s LoadOptions "[^"]*root=[^"]*" hold no --option: ignored, options from \\ptlab\.cfg$' \
		"$BOOT_LOG" "$name: U-Boot's bootargs named and ignored, \\ptlab.cfg read"
	check_log '^# firmware: vendor="Das U-Boot" .* secure_boot=off .* tss=0 gdt_writable=0 ' \
		"$BOOT_LOG" "$name: firmware line: U-Boot, no TSS, GDT not writable"
}

# fw-qemu64 ends with --end=return: U-Boot must go on with its next boot
# target (its boot script says "EFI LOAD FAILED: continuing..." whatever the
# status), and the test stops QEMU once it has.
sock=$BOOT_DIR/ret.qmp
boot_bg fw-max --bios "$UBOOT_ROM" --cpu max --mem 1G --cfg "--end=qemu --levels=5 --iterations=5000"
boot_bg fw-qemu64 --bios "$UBOOT_ROM" --cpu qemu64 --mem 1G \
	--cfg "--end=return --iterations=5000" -- -qmp unix:"$sock",server=on,wait=off
for _ in $(seq 1 "$BOOT_TIMEOUT"); do
	sleep 1
	[ -e "$BOOT_DIR/fw-qemu64.status" ] && break
	for l in "$BOOT_DIR"/run.*/serial.log; do
		if log_clean "$l" | sed -n '/^ptlab: [0-9]* passed/,$p' |
		   grep -q '^Device 0:'; then
			boot_quit fw-qemu64 "$sock"
			break 2
		fi
	done
done
boot_wait
for n in fw-max fw-qemu64; do
	if [ "$n" = fw-qemu64 ]; then
		boot_result "$n"
		check_status $? 0 "$n: QEMU stopped by the test after U-Boot went on"
		check_report "$BOOT_LOG" "$n"
		if log_clean "$BOOT_LOG" | sed -n '/^ptlab: [0-9]* passed/,$p' |
		   grep -q 'EFI LOAD FAILED: continuing'; then
			pass "$n: after --end=return U-Boot went on to its next boot target"
		else
			fail "$n: U-Boot did not go on after --end=return"
		fi
	else
		judge_passed "$n"
		at_five "$n"
	fi
	check_once "$n"
	check_uboot_facts "$n"
	check_log '^# tss: the firmware had no TSS; ours stays loaded at 0x[0-9a-f]+ \(page kept allocated\)$' \
		"$BOOT_LOG" "$n: our TSS stays loaded, said so"
done

boot_bg handoff-max --bios "$UBOOT_ROM" --cpu max --mem 1G \
	--cfg "--mode=handoff --end=qemu --levels=5 --iterations=5000"
# -no-reboot makes a reset exit QEMU with 0 as well: the CPU log tells them apart
boot_bg handoff-qemu64 --bios "$UBOOT_ROM" --cpu qemu64 --mem 1G \
	--cfg "--mode=handoff --end=shutdown --iterations=5000" \
	-- -d cpu_reset -D "$BOOT_DIR/handoff-qemu64.cpu.log"
boot_wait
judge_passed handoff-max nofile
at_five handoff-max
check_once handoff-max
check_uboot_facts handoff-max
# shutdown through the runtime ResetSystem U-Boot declares: QEMU exits with 0
boot_result handoff-qemu64
st=$?
check_status "$st" 0 "handoff-qemu64: --end=shutdown powered the machine off"
check_report "$BOOT_LOG" handoff-qemu64 nofile
if grep -q 'Triple fault' "$BOOT_DIR/handoff-qemu64.cpu.log" 2>/dev/null; then
	fail "handoff-qemu64: the machine triple-faulted"
else
	pass "handoff-qemu64: no triple fault"
fi
check_once handoff-qemu64
if [ "$(fact "$BOOT_LOG" firmware rt_supported)" != none ] &&
   [ $(( $(fact "$BOOT_LOG" firmware rt_supported) & 0x400 )) -ne 0 ]; then
	pass "handoff-qemu64: EFI_RT_PROPERTIES_TABLE offers ResetSystem"
else
	fail "handoff-qemu64: rt_supported='$(fact "$BOOT_LOG" firmware rt_supported)'"
fi
check_no_log '^ptlab: (ResetSystem returned|the firmware does not support)' "$BOOT_LOG" \
	"handoff-qemu64: ResetSystem did not return"

boot_done
