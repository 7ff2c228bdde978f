#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Reliability on the machine: exceptions raised on purpose (#GP, a #PF on a
# bad stack, a run past --timeout) are caught and reported while the run
# still writes its report; the frame pool failing its Nth allocation at
# several points is reported cleanly with nothing leaked; a fragmented
# memory map still gets exactly the minimum tables; and hostile machine
# shapes (RAM holes below 4 GiB, 16 GiB, 4 CPUs, an EPYC CPU model) pass
# the full default run; --iterations=0 makes the churn a skip, not a pass.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init hostile

boot_bg gp --cfg "--end=qemu --raise=gp" --mem 1G
boot_bg badstack --cfg "--end=qemu --raise=badstack" --mem 1G
boot_wait
judge_ended gp 37 '^not ok [0-9]+ - raise: unexpected exception vector=13 \(#GP\) rip=0x[0-9a-f]+ ' "reported as expected"
judge_ended badstack 37 '^not ok [0-9]+ - raise: unexpected exception vector=14 \(#PF\) .*cr2=0x400000000ff8 error=0x2 rsp=0x400000001000' "reported as expected"

boot_bg timeout --cfg "--end=qemu --raise=timeout --timeout=3" --mem 1G
boot_bg fail-alloc-1 --cfg "--end=qemu --fail-alloc=1" --mem 1G
boot_wait
judge_ended timeout 37 '^not ok [0-9]+ - timeout: the run passed --timeout=3 s' "reported as expected"
judge_ended fail-alloc-1 35 '^not ok [0-9]+ - build: the plan could not be applied: PT_ENOMEM' "names the allocation failure"

boot_bg fail-alloc-7 --cfg "--end=qemu --fail-alloc=7" --mem 1G
boot_bg fail-alloc-45 --cfg "--end=qemu --fail-alloc=45" --mem 1G
boot_wait
judge_ended fail-alloc-7 35 '^not ok [0-9]+ - build: the plan could not be applied: PT_ENOMEM' "names the allocation failure"
judge_ended fail-alloc-45 35 '^not ok [0-9]+ - .*(no frame left|PT_ENOMEM)' "names the allocation failure"

boot_bg fragment --cfg "--end=qemu --fragment" --mem 1G
boot_bg mem-3584M --cfg "--end=qemu" --mem 3584M
boot_wait
judge_passed fragment
if [ "$(fact "$BOOT_LOG" fragment pages)" -ge 100 ] 2>/dev/null &&
   [ "$(fact "$BOOT_LOG" tables pt)" -gt 20 ] 2>/dev/null; then
	pass "fragment: $(fact "$BOOT_LOG" fragment pages) scattered pages, $(fact "$BOOT_LOG" tables pt) PTs, exactly the minimum"
else
	fail "fragment: pages='$(fact "$BOOT_LOG" fragment pages)' pt='$(fact "$BOOT_LOG" tables pt)'"
fi
judge_passed mem-3584M

boot_bg mem-16G --cfg "--end=qemu" --mem 16G
boot_bg smp-4 --cfg "--end=qemu" --mem 2G --smp 4
boot_wait
judge_passed mem-16G
judge_passed smp-4

boot_bg epyc --cfg "--end=qemu" --cpu EPYC --mem 2G
boot_bg zero --cfg "--end=qemu --iterations=0" --mem 1G
boot_wait
# --iterations=0: the churn compared nothing, so it is a skip with its reason, never a pass
judge_passed zero
check_log '^ok [0-9]+ - churn # SKIP --iterations=0: no operation ran, nothing was compared with the model and the CPU' \
	"$BOOT_LOG" "zero: the churn that ran no operation is skipped, with the reason"
check_no_log '^ok [0-9]+ - churn: 0 operations agree' "$BOOT_LOG" "zero: no passing churn of 0 operations"
judge_passed epyc
if [ "$(fact "$BOOT_LOG" cpu pdpe1gb)" = 1 ] && [ "$(fact "$BOOT_LOG" cpu la57)" = 0 ]; then
	pass "epyc: 1 GiB pages, 4 levels"
else
	fail "epyc: pdpe1gb=$(fact "$BOOT_LOG" cpu pdpe1gb) la57=$(fact "$BOOT_LOG" cpu la57)"
fi

boot_done
