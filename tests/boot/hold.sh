#!/bin/bash
# SPDX-License-Identifier: MIT
#
# QEMU's monitor as a walker independent of ours: the CPU emulator's own
# reading of the tables (SDM Vol. 3A 4.5) must equal what we built.  The app
# runs with --dump --hold: it prints every leaf of the tables it built,
# then halts with interrupts off and those tables loaded.  Over QMP the
# test reads CR3 ("info registers"), QEMU's own walk of the hierarchy
# ("info tlb") and a few translations ("gva2gpa"), and compares them with
# the printed leaf list (tlbcmp.py).  256 MiB keeps the list short.
# Twice: in the firmware's 4-level mode and with --levels=5 (the app has
# switched the CPU to LA57 itself: QEMU must see CR4.LA57 and walk the
# PML5).
set -uo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fb.sh"

boot_init hold

HERE=$(dirname "$0")

hmp()
{
	python3 "$HERE/qmon.py" --text "$sock" hmp "$1"
}

# probe NAME VA: gva2gpa VA must give what the leaf list gives
probe()
{
	local name=$1 va=$2 want got out
	want=$(python3 "$HERE/tlbcmp.py" translate "$log" "$va")
	out=$(hmp "gva2gpa $va")
	case $out in
	"gpa: 0x"*) got=$(printf '0x%x' "$(sed -n 's/^gpa: \(0x[0-9a-f]*\).*/\1/p' <<<"$out" | head -n 1)") ;;
	Unmapped*) got=unmapped ;;
	*) got="?($out)" ;;
	esac
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		pass "$tag: gva2gpa $name $va: $got, as the leaf list says"
	else
		fail "$tag: gva2gpa $name $va: QEMU '$got', leaf list '$want'"
	fi
}

# The hold line comes 25-35 s after the start on a busy 2-core machine (a short
# churn: it is not what this test is about), the
# QMP queries take a few more: about 3x that before giving up (a failure
# must not hold up the whole suite for long).  Both boots run at once.
start_hold()
{
	local tag=$1 cfg=$2
	mkdir -p "$BOOT_DIR/$tag"
	boot_bg "$tag" --log "$BOOT_DIR/$tag/serial.log" --cfg "$cfg" --cpu max --mem 256M \
		--timeout 400 -- -qmp "unix:$BOOT_DIR/$tag/qmp.sock,server=on,wait=off"
}

# judge_hold TAG LEVELS: the held boot TAG, compared with QEMU's walker
judge_hold()
{
	local levels=$2 held fw built end cr3 cr4 st summary big la57
	tag=$1
	run=$BOOT_DIR/$tag
	sock=$run/qmp.sock
	log=$run/serial.log
	if ! fb_wait_log '^# hold: cr3=0x[0-9a-f]+' "$log" 240 "$BOOT_DIR/$tag.status"; then
		fail "$tag: no '# hold: cr3=' line on serial"
		return
	fi
	pass "$tag: the app holds its tables (# hold: line on serial)"
	held=$(log_clean "$log" | sed -n 's/^# hold: cr3=\(0x[0-9a-f]*\).*/\1/p' | head -n 1)
	fw=$(fact "$log" cr3 firmware)
	built=$(fact "$log" cr3 built)
	if [ -z "$(failing_lines "$log")" ]; then
		pass "$tag: no failing test point before the hold"
	else
		fail "$tag: failing test points before the hold:$(failing_lines "$log" | head -n 3 | sed 's/^/ /')"
	fi
	check_no_log '^# report truncated' "$log" "$tag: the report (with the dump) was not truncated"
	if [ "$(fact "$log" paging levels)" = "$levels" ]; then
		pass "$tag: the report says the live checks ran at $levels levels"
	else
		fail "$tag: # paging: levels='$(fact "$log" paging levels)', expected $levels"
	fi

	# CR3 as QEMU sees it, once the CPU has halted: the hold line is printed
	# just before our tables are loaded and the CPU halts
	end=$((SECONDS + 20))
	while hmp "info registers" >"$run/regs.txt" &&
	      ! grep -E 'HLT=1' "$run/regs.txt" >/dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.5
	done
	if grep -E 'HLT=1' "$run/regs.txt" >/dev/null; then
		pass "$tag: info registers: the CPU is halted"
	else
		fail "$tag: info registers: the CPU did not halt within 20 s"
	fi
	cr3=$(sed -n 's/.*CR3=\([0-9a-f]*\).*/\1/p' "$run/regs.txt" | head -n 1)
	if [ -n "$cr3" ] && [ -n "$held" ] && [ $((16#$cr3)) -eq $((held)) ] &&
	   [ "$built" = "$held" ]; then
		pass "$tag: info registers: CR3=0x$cr3 is the held (and built) root $held"
	else
		fail "$tag: info registers: CR3='$cr3', held '$held', built '$built'"
	fi
	if [ -n "$cr3" ] && [ -n "$fw" ] && [ $((16#$cr3)) -ne $((fw)) ]; then
		pass "$tag: info registers: CR3 differs from the firmware's $fw"
	else
		fail "$tag: info registers: CR3='$cr3', firmware '$fw'"
	fi
	# CR4.LA57 (bit 12) as QEMU sees it: the mode QEMU walks in
	cr4=$(sed -n 's/.*CR4=\([0-9a-f]*\).*/\1/p' "$run/regs.txt" | head -n 1)
	la57=$(( (16#${cr4:-0} >> 12) & 1 ))
	if [ -n "$cr4" ] && [ $(( la57 ? 5 : 4 )) -eq "$levels" ]; then
		pass "$tag: info registers: CR4=0x$cr4, LA57=$la57: $levels-level paging"
	else
		fail "$tag: info registers: CR4='$cr4', expected $levels-level paging"
	fi

	# QEMU's walk against the printed leaves
	hmp "info tlb" >"$run/tlb.txt"
	python3 "$HERE/tlbcmp.py" compare --qmp "$sock" "$log" "$run/tlb.txt" >"$run/tlbcmp.txt"
	st=$?
	cat "$run/tlbcmp.txt"
	summary=$(sed -n 's/^# tlb: \(leaves=.*\)/\1/p' "$run/tlbcmp.txt")
	if [ "$st" -eq 0 ] && [ -n "$summary" ]; then
		pass "$tag: info tlb: QEMU's leaves and runs equal the dump ($summary)"
	else
		fail "$tag: info tlb: QEMU's walk differs from the dump (status $st)"
	fi

	# translations: identity, HHDM and image alias, a 2M leaf, unmapped
	probe identity "$(printf '0x%x' $((held + 0x18)))"
	probe hhdm "$(printf '0x%x' $((0xffff800000000000 + held + 0x18)))"
	probe image 0xffffffff80000010
	big=$(log_clean "$log" | sed -n 's/^# leaf: va=\(0x[0-9a-f]*\) .* size=0x200000 .*/\1/p' | head -n 1)
	if [ -n "$big" ]; then
		probe 2m-leaf "$(printf '0x%x' $((big + 0x1ff008)))"
	else
		fail "$tag: no 2M leaf in the dump to probe"
	fi
	probe null 0x0
	if [ "$(python3 "$HERE/tlbcmp.py" translate "$log" 0x400000123000)" = unmapped ] &&
	   [ "$(hmp 'gva2gpa 0x400000123000')" = Unmapped ]; then
		pass "$tag: gva2gpa 0x400000123000: Unmapped (no leaf there)"
	else
		fail "$tag: gva2gpa 0x400000123000 translated, or the dump maps it"
	fi
	if [ "$levels" = 5 ]; then
		# 57-bit addresses exist for QEMU's walker now, and nothing is mapped there
		probe above-128t 0x800000003000
		probe top-57 0xfffffffffff000
		probe high-57 0xff00000000005000
	fi
}

start_hold held "--dump --hold --end=qemu --iterations=2000"
start_hold held5 "--dump --hold --end=qemu --iterations=2000 --levels=5"
judge_hold held 4
judge_hold held5 5

for tag in held held5; do
	boot_quit "$tag" "$BOOT_DIR/$tag/qmp.sock"
done
boot_wait
for tag in held held5; do
	boot_result "$tag"
	st=$?
	check_status "$st" 0 "$tag: QEMU quit over QMP while the app held its tables"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_DIR/$tag/serial.log" 15
done

boot_done
