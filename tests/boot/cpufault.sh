#!/bin/bash
# SPDX-License-Identifier: MIT
#
# An exception after ExitBootServices, on any CPU, ends in a written
# verdict (docs/handoff.md, "Exceptions after ExitBootServices"): the
# exception's line names the CPU that took it (vector, RIP, CR2, error
# code, RSP), it is a failing test point keyed by its check, the closing
# line follows and the --end action runs (--end=qemu: QEMU's status is the
# aborted run's 37, not the 0 of a triple fault under -no-reboot).
#
# Boots (two at a time):
#  park  -smp 2, the minimal Limine kernel of limine-refuse.sh,
#        --inject=park-stack: the AP's stack pointer is the non-canonical
#        one a wrapped stack size gave (0xaaaaaaab2888efc0 after the
#        trampoline's 64 bytes); its first push, in the trampoline, is a
#        #SS (QEMU's TCG raises #GP), which the park IDT takes on the AP's
#        IST stack; the AP stops the BSP and writes the verdict
#  bsp   -smp 2, --mode=handoff --inject=bsp-fatal: the BSP reads an
#        unmapped page right after ExitBootServices, outside every guard
#  bsp-off  the same with --end=shutdown: the BSP's fatal path runs the end
#        action too (ResetSystem powers QEMU off, status 0), where it used
#        to halt until the test's timeout killed QEMU
#
# About a minute on an idle 2-core machine.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init cpufault

HERE=$(cd "$(dirname "$0")" && pwd)
MINI=$HERE/../limine-mini
T=${CPUFAULT_TIMEOUT:-300}
CLOSING='^ptlab: [0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$'

k=$BOOT_DIR/k
mkdir -p "$k"
if ! as --64 -o "$k/mini.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/mini.elf" "$k/mini.o"; then
	fail "the minimal kernel could not be assembled and linked (binutils)"
	boot_done
	exit
fi
img=$BOOT_DIR/cpufault.img
cp -- "$PTLAB_IMG" "$img"
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$k/mini.elf" ::/boot/mini.elf

boot_bg park --img "$img" --smp 2 --timeout "$T" \
	--cfg "--mode=handoff --end=qemu --iterations=200 --inject=park-stack --kernel=\\boot\\mini.elf"
boot_bg bsp --img "$img" --smp 2 --timeout "$T" \
	--cfg "--mode=handoff --end=qemu --iterations=200 --inject=bsp-fatal"
boot_wait
boot_bg bsp-off --img "$img" --smp 2 --timeout 150 \
	--cfg "--mode=handoff --end=shutdown --iterations=200 --inject=bsp-fatal"
boot_wait

# closed LOG NAME: the last closing line counts the failure, after the exception's line
closed()
{
	local last
	last=$(python3 "$BOOT_REPORT_PY" closings "$1" | tail -n 1)
	if [[ $last =~ $CLOSING ]]; then
		pass "$2: the closing line follows, the failure counted ($last)"
	else
		fail "$2: last closing line '$last' counts no failure"
	fi
}

boot_result park
st=$?
check_status "$st" 37 "park: --end=qemu ran: the aborted run's status 0x12, not a triple fault's 0"
check_log '^not ok [0-9]+ - handoff cpu 1 \(apic 1\): unexpected exception after ExitBootServices vector=(12 \(#SS\)|13 \(#GP\)) rip=0x[0-9a-f]+ cr2=0x0 error=0x0 rsp=0xaaaaaaab2888efc0; the BSP stopped, this AP closes the report # check=park-stack$' \
	"$BOOT_LOG" "park: the AP's #SS (#GP) on its non-canonical stack, with its CPU, keyed by its check"
closed "$BOOT_LOG" park
failed=$(failed_checks "$BOOT_LOG")
if [ "$failed" = "park-stack " ]; then
	pass "park: the exception is the one failing test point"
else
	fail "park: the failing test points' checks are '$failed', not park-stack alone"
fi
check_no_log '^ptlab: handing over' "$BOOT_LOG" "park: nothing handed over"

boot_result bsp
st=$?
check_status "$st" 37 "bsp: --end=qemu ran: the aborted run's status 0x12"
check_log '^not ok [0-9]+ - handoff cpu [0-9]+ \(apic 0\), the BSP: unexpected exception outside the checks vector=14 \(#PF\) rip=0x[0-9a-f]+ cr2=0x400000000000 error=0x0 rsp=0x[0-9a-f]+ # check=bsp-fatal$' \
	"$BOOT_LOG" "bsp: the BSP's #PF outside the guards, with its CPU, keyed by its check"
closed "$BOOT_LOG" bsp

boot_result bsp-off
st=$?
check_status "$st" 0 "bsp-off: --end=shutdown ran: QEMU powered off (status 0), not killed on its timeout"
check_log '^not ok [0-9]+ - handoff cpu [0-9]+ \(apic 0\), the BSP: unexpected exception outside the checks vector=14 \(#PF\) .* # check=bsp-fatal$' \
	"$BOOT_LOG" "bsp-off: the BSP's #PF reported"
closed "$BOOT_LOG" bsp-off

boot_done
