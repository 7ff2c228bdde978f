#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A 52-bit physical address width (-cpu max,phys-bits=52): OVMF maps its
# whole 128 TiB address space in 2 MiB leaves, 67 million entries.  The
# firmware-tables audit coalesces whole tables, so the application's own
# time (# time: total_us) stays within a few seconds, and the audit stops
# at the --timeout deadline like every other phase.  OVMF itself needs
# about a minute to build those tables on an idle machine (several under
# load): that is budgeted in the QEMU timeout, not in the app's time.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init physbits

APP_LIMIT_US=${APP_LIMIT_US:-10000000}   # 10 s for the whole run, audit included

boot_bg p52 --cfg "--end=qemu --iterations=2000" --cpu max,phys-bits=52 --mem 1G --timeout 900
# A churn far longer than a second, so the deadline falls inside the run
# however fast the machine is; the audit before it stops at the deadline or
# ends before it.
boot_bg p52-deadline --cfg "--end=qemu --iterations=1000000 --timeout=1" --cpu max,phys-bits=52 \
	--mem 1G --timeout 900
boot_wait

judge_passed p52
leaves=$(fact "$BOOT_LOG" firmware-tables leaves_2m)
runs=$(fact "$BOOT_LOG" firmware-tables runs)
total=$(fact "$BOOT_LOG" time total_us)
if [ "${leaves:-0}" -ge 60000000 ] 2>/dev/null && [ "$(fact "$BOOT_LOG" firmware-tables complete)" = 1 ]; then
	pass "p52: the audit walked all $leaves 2 MiB leaves of the firmware's tables"
else
	fail "p52: leaves_2m='$leaves' complete='$(fact "$BOOT_LOG" firmware-tables complete)'"
fi
if [ "${runs:-999999}" -lt 1000 ] 2>/dev/null; then
	pass "p52: coalesced into $runs runs ($(fact "$BOOT_LOG" firmware-tables uniform_tables) uniform tables)"
else
	fail "p52: runs='$runs'"
fi
if [ -n "$total" ] && [ "$total" -lt "$APP_LIMIT_US" ]; then
	pass "p52: the app's own time total_us=$total < $APP_LIMIT_US (audit_us=$(fact "$BOOT_LOG" firmware-tables audit_us))"
else
	fail "p52: total_us='$total' not below $APP_LIMIT_US"
fi

boot_result p52-deadline
st=$?
check_status "$st" 37 "p52 --timeout=1: aborted by the deadline"
check_log '^not ok [0-9]+ - timeout: the run passed --timeout=1 s' "$BOOT_LOG" "p52 --timeout=1: said so"
audit=$(fact "$BOOT_LOG" firmware-tables audit_us)
complete=$(fact "$BOOT_LOG" firmware-tables complete)
if [ "$complete" = 0 ] || [ "${audit:-99999999}" -lt 1500000 ] 2>/dev/null; then
	pass "p52 --timeout=1: the audit stopped at the deadline or ended before it (complete=$complete audit_us=$audit)"
else
	fail "p52 --timeout=1: the audit ran on past the deadline (complete=$complete audit_us=$audit)"
fi
total=$(fact "$BOOT_LOG" time total_us)
check_completed p52-deadline

boot_done
