#!/bin/bash
# SPDX-License-Identifier: MIT
#
# 5-level paging on the machine (--levels=5): ptlab switches the CPU to
# LA57 itself (OVMF runs 4-level) and runs the whole suite there, in
# firmware and hand-off mode; without LA57 (qemu64) the 5-level phase is a
# SKIP and the 4-level suite passes; a churn --inject is still caught at 5
# levels; a failed switch precondition is refused with a report; a fault
# inside the switch window is caught by the window's 32-bit IDT.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init la57

# names of the test points of a report, numbers and values left out
point_names()
{
	report_lines "$1" | sed -nE 's/^ok [0-9]+ - ([^:#]*).*/\1/p' | sed -E 's/ +$//' | sort -u
}

at_five()
{
	local name=$1 cr4
	if [ "$(fact "$BOOT_LOG" paging levels)" = 5 ] && [ "$(fact "$BOOT_LOG" paging la57)" = 1 ]; then
		cr4=$(fact "$BOOT_LOG" paging cr4)
		if (( (cr4 >> 12) & 1 )); then
			pass "$name: # paging: levels=5 la57=1 cr4=$cr4 (bit 12 set)"
		else
			fail "$name: # paging: cr4=$cr4 has no LA57 bit"
		fi
	else
		fail "$name: # paging: levels='$(fact "$BOOT_LOG" paging levels)' la57='$(fact "$BOOT_LOG" paging la57)'"
	fi
	check_fact "$BOOT_LOG" tables pml5 1 "$name: # tables: one PML5 counted (total $(fact "$BOOT_LOG" tables total) = minimum)"
	check_fact "$BOOT_LOG" cpu levels 5 "$name: # cpu: levels=5"
	check_log '^ok [0-9]+ - tables: built exactly the plan.s minimum \([0-9]+ pages, 5 levels, one PML5\)' \
		"$BOOT_LOG" "$name: built exactly the plan's minimum, PML5 included"
	for far in "above 128 TiB: 0x800000003000" "top of the 57-bit lower half: 0xfffffffffff000" \
		   "bottom of the 57-bit high half: 0xff00000000005000"; do
		check_log "^ok [0-9]+ - far mapping $far written and read back, faults once unmapped" \
			"$BOOT_LOG" "$name: far mapping ${far%%:*}"
	done
	check_log '^ok [0-9]+ - canonical: a read of 0x100000000000000 raises #GP \(not #PF\) at 5 levels' \
		"$BOOT_LOG" "$name: 2^56 is beyond the 57-bit canonical boundary (#GP)"
	check_log '^ok [0-9]+ - la57: all [1-9][0-9]* live phases ran with CR4.LA57=1 and our root in CR3' \
		"$BOOT_LOG" "$name: every live phase (checks, churn slices, teardown) ran at 5 levels"
}

boot_bg fw5 --cfg "--levels=5 --end=qemu --iterations=3000" --cpu max --mem 1G
boot_bg fw4 --cfg "--end=qemu --iterations=3000" --cpu max --mem 1G
boot_wait

judge_passed fw5
at_five fw5
check_log '^# la57: switch=4-to-5 trampoline=0x[0-9a-f]+ ' "$BOOT_LOG" "fw5: the trampoline was set up"
check_log '^ok [0-9]+ - la57: switch preconditions hold' "$BOOT_LOG" "fw5: preconditions checked before the window"
fw5_log=$BOOT_LOG
judge_passed fw4
check_fact "$BOOT_LOG" paging levels 4 "fw4: the default is the firmware's mode: 4 levels"
check_fact "$BOOT_LOG" tables pml5 0 "fw4: the default is the firmware's mode: no PML5"
check_log '^ok [0-9]+ - canonical: a read of 0x800000000000 raises #GP \(not #PF\) at 4 levels' \
	"$BOOT_LOG" "fw4: 2^47 is beyond the 48-bit canonical boundary (#GP)"
# every check of the 4-level suite ran at 5 levels too, none skipped
missing=$(comm -23 <(point_names "$BOOT_LOG") <(point_names "$fw5_log"))
skipped5=$(report_lines "$fw5_log" | grep -cE '# SKIP')
skipped4=$(report_lines "$BOOT_LOG" | grep -cE '# SKIP')
if [ -z "$missing" ] && [ "$skipped5" -eq "$skipped4" ]; then
	pass "fw5: every test point of the 4-level run passed at 5 levels ($(point_names "$BOOT_LOG" | wc -l) names, $skipped5 skips as at 4 levels)"
else
	fail "fw5: missing at 5 levels: $(echo $missing) (skips: 5-level $skipped5, 4-level $skipped4)"
fi

boot_bg qemu64 --cfg "--levels=5 --end=qemu --iterations=2000" --cpu qemu64 --mem 256M
boot_bg handoff5 --cfg "--levels=5 --mode=handoff --end=qemu --iterations=5000" --cpu max --mem 2G
boot_wait

judge_passed qemu64
check_log '^ok [0-9]+ - 5-level phase # SKIP --levels=5 but the CPU has no LA57 \(CPUID.\(EAX=7,ECX=0\):ECX\[16\]=0\)' \
	"$BOOT_LOG" "qemu64: the 5-level phase is a SKIP with its reason"
check_fact "$BOOT_LOG" paging levels 4 "qemu64: the 4-level suite ran instead (# paging: levels=4)"
check_fact "$BOOT_LOG" paging la57 0 "qemu64: # paging: la57=0"
check_no_log '^# la57: switch=' "$BOOT_LOG" "qemu64: no trampoline, no switch"

judge_passed handoff5 nofile
at_five handoff5
check_log '^ok [0-9]+ - handoff: switched to 5-level paging \(CR4=0x[0-9a-f]+\) with the 5-level recovery hierarchy' \
	"$BOOT_LOG" "handoff5: switched to LA57 after ExitBootServices, into the recovery hierarchy"
check_fact "$BOOT_LOG" handoff recovery_levels 5 "handoff5: the recovery hierarchy is 5-level"
check_log '^ok [0-9]+ - ram sweep: ' "$BOOT_LOG" "handoff5: the RAM sweep ran at 5 levels"
check_log '^ok [0-9]+ - handoff: back to 4-level paging \(CR4=0x[0-9a-f]+\) with the recovery identity map' \
	"$BOOT_LOG" "handoff5: back to 4 levels for the runtime services"

# a churn injection is caught at 5 levels; a refused precondition and a
# fault in the window end the run, saying why
boot_bg inject5 --cfg "--levels=5 --end=qemu --inject=missing-invlpg --iterations=3000" --cpu max --mem 1G
boot_bg root-high --cfg "--levels=5 --end=qemu --raise=la57-root-high" --cpu max --mem 6G
boot_wait

boot_result inject5
st=$?
check_status "$st" 35 "inject5: the run completed and reported the failure (status 0x11)"
note=$(log_clean "$BOOT_LOG" | sed -nE 's/^# inject: missing-invlpg after remapping (0x[0-9a-f]+)$/\1/p' | head -n 1)
if [ -n "$note" ] && log_has "^not ok [0-9]+ - churn: cpu: .* at va=$note " "$BOOT_LOG"; then
	pass "inject5: the missing invlpg at $note was caught by the churn at 5 levels"
else
	fail "inject5: note '$note' without a failing churn point at that va"
fi
[ "$(fact "$BOOT_LOG" paging levels)" = 5 ] && pass "inject5: ran at 5 levels" ||
	fail "inject5: paging levels '$(fact "$BOOT_LOG" paging levels)'"
check_completed inject5

judge_ended root-high 37 \
	'^not ok [0-9]+ - la57: switch to 5-level paging refused before the window: the 5-level root 0x[0-9a-f]{9,} is not a page below 4 GiB' \
	"the switch was refused: the root is above 4 GiB"
check_no_log '^# paging: ' "$BOOT_LOG" "root-high: no live phase ran"

# --raise=la57-window: ud2 with paging off; the window's own 32-bit IDT
# writes the line and leaves QEMU with 0x12 (it halts on bare metal)
# (beside it: on qemu64 there is no switch, so the raise cannot happen and must say so)
boot_bg window --cfg "--levels=5 --end=qemu --raise=la57-window" --cpu max --mem 1G
boot_bg noswitch --cfg "--levels=5 --end=qemu --raise=la57-window --iterations=1000" --cpu qemu64 --mem 256M
boot_wait
judge_ended noswitch 35 '^not ok [0-9]+ - raise: --raise=la57-window needs a switch of paging levels' \
	"a raise that cannot happen fails loudly"
boot_result window
st=$?
check_status "$st" 37 "window: the fault in the window ended the run (0x12), no triple fault"
check_log '^ptlab: exception in the LA57 switch window \(paging off\): vector=0x00000006 error=0x00000000 eip=0x[0-9a-f]{8} cr0=0x[0-9a-f]{8} cr4=0x[0-9a-f]{8}; halted$' \
	"$BOOT_LOG" "window: #UD caught by the 32-bit IDT, reported on COM1"
tramp=$(fact "$BOOT_LOG" la57 trampoline)
eip=$(log_clean "$BOOT_LOG" | sed -nE 's/.*LA57 switch window.* eip=(0x[0-9a-f]+) cr0=(0x[0-9a-f]+).*/\1 \2/p' | head -n 1)
if [ -n "$tramp" ] && [ -n "$eip" ] && (( (${eip% *} & ~0xfff) == tramp )) && (( (${eip#* } >> 31) == 0 )); then
	pass "window: the fault was in the trampoline page $tramp with CR0.PG=0 (${eip})"
else
	fail "window: eip/cr0 '$eip' trampoline '$tramp'"
fi

boot_done
