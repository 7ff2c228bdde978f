#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every CPU on the built tables.  Firmware mode (EFI_MP_SERVICES): -smp 1
# skips with the reason; -smp 2 and -smp 4 pass the per-CPU checks on every
# AP, the IPI shootdowns (4K remap/unmap/protect, 2M remap/unmap, a split)
# and the concurrent churn, and every AP is counted on the tables; a
# withheld IPI (--inject=missing-shootdown) is caught as a stale read on
# that AP; an AP forced to fault (--raise=ap-fault: a push on an unmapped
# stack, taken on its IST stack) is reported while the other AP goes on and
# the report is completed.  Hand-off mode
# (INIT-SIPI-SIPI): -smp 1 skips, -smp 4 passes with every AP parked; with
# -smp 3 the withheld IPI is caught on one AP while the other faults, is
# reported and parks.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init smp

# TCG with several vCPUs on a loaded host is slow: generous budgets, two boots at a time.
T=${SMP_TIMEOUT:-400}

# smp_fact NAME FIELD WANT: the "# smp:" fact of the last judged boot
smp_fact()
{
	local got
	got=$(fact "$BOOT_LOG" smp "$2")
	if [ "$got" = "$3" ]; then
		pass "$1: smp $2=$3"
	else
		fail "$1: smp $2='$got', expected $3"
	fi
}

# every_ap NAME N: per-CPU check lines for CPUs 1..N-1, shootdown and churn lines
every_ap()
{
	local name=$1 n=$2 i k missing=
	for ((i = 1; i < n; i++)); do
		for k in 'its own frame read through identity and HHDM' \
			 'a call through the image alias' '#PF on its own unmapped page' \
			 'A/D on its own page'; do
			log_has "^ok [0-9]+ - smp cpu $i \\(apic [0-9]+\\): $k" "$BOOT_LOG" ||
				missing="$missing cpu$i:'$k'"
		done
	done
	for k in '4K remap' '4K unmap' '4K protect' '2M remap' '2M unmap' '2M split'; do
		log_has "^ok [0-9]+ - shootdown $k: $((n - 1)) APs? saw the change after the IPI \\($((n - 1)) acknowledged\\)" "$BOOT_LOG" ||
			missing="$missing '$k'"
	done
	log_has "^ok [0-9]+ - smp churn: 32 .* $((n - 1)) APs? agreed with the shadow model" "$BOOT_LOG" ||
		missing="$missing churn"
	if [ -z "$missing" ]; then
		pass "$name: per-CPU checks on $((n - 1)) APs, six shootdowns, the churn"
	else
		fail "$name: missing ok lines:$missing"
	fi
}

boot_bg smp-1 --smp 1 --mem 1G --timeout "$T" --cfg "--end=qemu"
boot_bg smp-2 --smp 2 --mem 1G --timeout "$T" --cfg "--end=qemu"
boot_wait
judge_passed smp-1
smp_fact smp-1 cpus 1
check_log '^ok [0-9]+ - smp # SKIP one CPU' "$BOOT_LOG" "smp-1: skipped with the reason"
judge_passed smp-2
smp_fact smp-2 started 2
smp_fact smp-2 on_tables 2
smp_fact smp-2 method mp-services
smp_fact smp-2 apic_ids mp-services
every_ap smp-2 2

boot_bg smp-4 --smp 4 --mem 1G --timeout "$T" --cfg "--end=qemu"
boot_bg inject --smp 2 --mem 1G --timeout "$T" --cfg "--end=qemu --inject=missing-shootdown"
boot_wait
judge_passed smp-4
smp_fact smp-4 cpus 4
smp_fact smp-4 started 4
smp_fact smp-4 on_tables 4
every_ap smp-4 4
judge_ended inject 35 '^not ok [0-9]+ - shootdown 4K remap: cpu 1 \(apic [0-9]+\) at 0x[0-9a-f]+ still used the stale translation: read 0x[0-9a-f]+, expected read 0x[0-9a-f]+ \(IPI withheld' "the withheld IPI is caught as a stale read"
check_log '^# inject: missing-shootdown: no IPI to cpu 1 ' "$BOOT_LOG" "inject: says which AP got no IPI"
check_log '^not ok [0-9]+ - smp churn: cpu 1 \(apic [0-9]+\) disagreed with the shadow model [0-9]+ times; first at step [0-9]+ va=0x[0-9a-f]+: expected (read 0x[0-9a-f]+|#PF error=0x0 cr2=0x[0-9a-f]+), observed ' "$BOOT_LOG" "inject: the churn's agreed point catches the AP that missed an IPI"
check_log '^ok [0-9]+ - shootdown 4K unmap: 1 AP saw the change' "$BOOT_LOG" "inject: later shootdowns reach the AP again"

boot_bg ap-fault --smp 3 --mem 1G --timeout "$T" --cfg "--end=qemu --raise=ap-fault"
boot_bg handoff-1 --smp 1 --mem 1G --timeout "$T" --cfg "--end=qemu --mode=handoff --iterations=2000"
boot_wait
judge_ended ap-fault 35 '^not ok [0-9]+ - smp cpu 2 \(apic [0-9]+\): unexpected exception vector=14 \(#PF\) rip=0x[0-9a-f]+ cr2=0x40000000fff8 error=0x2; the AP restored the firmware.s state and returned' "the AP's #PF on a bad stack is taken on its own IST stack and reported"
check_log '^ok [0-9]+ - shootdown 2M split: 1 AP saw the change after the IPI' "$BOOT_LOG" "ap-fault: the other AP goes on with the shootdowns"
check_log '^ok [0-9]+ - smp: 2 APs ran on our tables and returned' "$BOOT_LOG" "ap-fault: both APs returned to the firmware"
if [ "$(failing_lines "$BOOT_LOG" | grep -c .)" = 1 ]; then
	pass "ap-fault: the fault is the only failure"
else
	fail "ap-fault: $(failing_lines "$BOOT_LOG" | grep -c .) failures"
fi

judge_passed handoff-1 nofile
smp_fact handoff-1 cpus 1
smp_fact handoff-1 method init-sipi
check_log '^ok [0-9]+ - smp # SKIP one CPU' "$BOOT_LOG" "handoff-1: skipped with the reason"

boot_bg handoff-4 --smp 4 --mem 1G --timeout "$T" --cfg "--end=qemu --mode=handoff --iterations=2000"
boot_bg handoff-inject --smp 3 --mem 1G --timeout "$T" --cfg "--end=qemu --mode=handoff --iterations=2000 --inject=missing-shootdown --raise=ap-fault"
boot_wait
judge_passed handoff-4 nofile
smp_fact handoff-4 cpus 4
smp_fact handoff-4 started 4
smp_fact handoff-4 on_tables 4
smp_fact handoff-4 method init-sipi
smp_fact handoff-4 apic_ids madt
check_log '^ok [0-9]+ - smp: the MADT and GetProcessorInfo agree on 4 APIC IDs, the BSP is [0-9]+ # check=madt-id$' "$BOOT_LOG" "handoff-4: the MADT's CPUs are the MP services' CPUs"
every_ap handoff-4 4
check_log '^ok [0-9]+ - smp: 3 APs started by INIT-SIPI-SIPI ran on the built tables and are parked' "$BOOT_LOG" "handoff-4: every AP parked"
boot_result handoff-inject >/dev/null
check_status $? 35 "handoff-inject: run ended with status 35"
check_log '^not ok [0-9]+ - shootdown 4K remap: cpu 1 \(apic [0-9]+\) at 0x[0-9a-f]+ still used the stale translation: .*\(IPI withheld' "$BOOT_LOG" "handoff-inject: the withheld IPI is caught as a stale read"
check_log '^not ok [0-9]+ - smp cpu 2 \(apic [0-9]+\): unexpected exception vector=14 \(#PF\) rip=0x[0-9a-f]+ cr2=0x40000000fff8 error=0x2; the AP parked' "$BOOT_LOG" "handoff-inject: the other AP's fault is reported, that AP parked"
check_log '^ok [0-9]+ - smp: 2 APs started by INIT-SIPI-SIPI ran on the built tables and are parked' "$BOOT_LOG" "handoff-inject: both APs parked"
check_log '^not ok [0-9]+ - smp churn: cpu 1 \(apic [0-9]+\) disagreed with the shadow model' "$BOOT_LOG" "handoff-inject: the churn catches it too"
check_log '^ptlab: [0-9]+ passed, 3 failed, [0-9]+ skipped$' "$BOOT_LOG" "handoff-inject: the report closes with exactly those three failures"

boot_done
