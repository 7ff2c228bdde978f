#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hostile entry states: $PTLAB_BUILD/tests/chain.efi (tests/entrystate/
# chain.c) boots first and starts \ptlab.efi once per variant after putting
# the CPU into a state other firmware leaves, then compares every register
# ptlab promises to restore.  Every variant must come back exactly as it
# went in (or be skipped where the CPU lacks the feature); the last one runs
# ptlab with --wrong-restore and must be caught.  Two variants enter ptlab
# in 5-level paging (-cpu max has LA57; OVMF itself runs 4-level): ptlab
# must run 5-level by default and switch down with --levels=4.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

CHAIN=${PTLAB_CHAIN:-$PTLAB_BUILD/tests/chain.efi}
APP=${PTLAB_APP:-$PTLAB_BUILD/ptlab.efi}

boot_init entrystate

if [ ! -f "$CHAIN" ] || [ ! -f "$APP" ] || [ ! -f "$PTLAB_IMG" ]; then
	fail "missing $CHAIN, $APP or $PTLAB_IMG (make all image chain)"
	boot_done
	exit
fi
img=$BOOT_DIR/chain.img
cp -- "$PTLAB_IMG" "$img" &&
	img_put "$img" "$CHAIN" /EFI/BOOT/BOOTX64.EFI &&
	img_put "$img" "$APP" /ptlab.efi ||
	{ fail "could not build the chain image"; boot_done; exit; }

boot_run --img "$img" --cpu max --mem 1G --timeout 600 \
	--cfg "--end=return --iterations=300"
st=$?
check_status "$st" 33 "the chainloader ran every variant and found nothing wrong (0x10)"
log=$BOOT_LOG
nvar=$(log_clean "$log" | sed -n 's/^chain: \([0-9]*\) variants$/\1/p')
nok=$(log_clean "$log" | grep -cE '^chain: ok ')
nskip=$(log_clean "$log" | grep -cE '^chain: skip ')
if [ -n "$nvar" ] && [ "$nvar" -ge 8 ] && [ $((nok + nskip)) -eq "$nvar" ] && [ "$nok" -ge 8 ]; then
	pass "$nok of $nvar variants restored exactly, $nskip skipped"
else
	fail "variants=$nvar ok=$nok skipped=$nskip"
fi
for v in as-is pge-global wp-off nxe-off gdt-readonly-no-tss firmware-tss tables-1g \
	 timer-irq cmdline pat combined; do
	check_log "^chain: ok $v\$" "$log" "$v: every register as it was before StartImage"
done
check_log '^chain: (ok|skip) pcid(:|$)' "$log" "pcid: restored, or skipped with the reason"
check_log '^chain: (ok cet|skip cet: the CPU has no CET \(CPUID)' "$log" \
	"cet: restored, or skipped with the reason"

# The output of variant $1's ptlab run: from "chain: run $1" to its verdict.
segment()
{
	log_clean "$log" | awk -v v="chain: run $1" \
		'$0 == v { on = 1; next } on && /^chain: (ok|not ok) / { on = 0 } on'
}

# seg_check VARIANT REGEX DESC: a pass when that run's output matches REGEX.
seg_check()
{
	if segment "$1" | grep -E -- "$2" >/dev/null; then
		pass "$1: $3"
	else
		fail "$1: $3 (not found: $2)"
	fi
}

# The firmware runs 5-level (a PML5 over OVMF's own PML4; -cpu max has LA57).
for v in la57 la57-levels4; do
	check_log "^chain: ok $v\$" "$log" "$v: every register as it was (CR4.LA57=1) before StartImage"
	seg_check $v '^# firmware: .* entry_cr4=0x[0-9a-f]*[13579bdf][0-9a-f]{3} ' \
		"ptlab found CR4.LA57=1 on entry"
done
seg_check la57 '^# paging: levels=5 la57=1 cr4=0x' "5 levels by default (# paging: levels=5)"
seg_check la57 '^ok [0-9]+ - la57: all [1-9][0-9]* live phases ran with CR4.LA57=1 and our root in CR3 \(0 switches\)' \
	"every live phase at 5 levels, no switch needed"
if segment la57 | grep -E '^# la57: switch=' >/dev/null; then
	fail "la57: ptlab set up a switch although the firmware runs 5-level"
else
	pass "la57: no trampoline set up (no # la57: switch= line)"
fi
# After ptlab returned, still at 5 levels: the firmware's CPU protocol made a
# page read-only and writable again, its leaf (walked from our PML5) followed.
for v in la57 la57-levels4; do
	seg_check $v '^chain: firmware edit at 5 levels: page 0x[0-9A-F]+ leaf 0x[0-9A-F]*[014589CD] \(RO\), then 0x[0-9A-F]*[2367ABEF]$' \
		"SetMemoryAttributes at 5 levels edits the firmware's tables (R/W clear, then set)"
done
# ptlab's audit walks the PML5 at 5 levels: the same leaves as OVMF's own
# 4-level tables in the as-is run (the PML5 adds and hides nothing).
audit()
{
	segment "$1" | sed -n 's/^# firmware-tables: cr3=0x[0-9a-f]* levels=\([45]\) \(.*\) audit_us=.*/\1 \2/p'
}
a4=$(audit as-is)
a5=$(audit la57)
if [ -n "$a4" ] && [ "${a5#5 }" = "${a4#4 }" ] && [ "${a5%% *}" = 5 ] && [ "${a4%% *}" = 4 ]; then
	pass "la57: the firmware's tables walked at 5 levels hold the same leaves as at 4 levels (${a5#5 })"
else
	fail "la57: firmware-tables audit at 5 levels '$a5', at 4 levels '$a4'"
fi
# ... and the firmware's edits at 5 levels (SetMemoryAttributes above; it
# splits a 2 MiB leaf the first time) are in its 4-level tables afterwards:
# the 4-level audit of the next run equals the 5-level one before it.
a5=$(audit la57-levels4)
a4=$(audit 'wrong-restore!')
if [ -n "$a4" ] && [ "${a5#5 }" = "${a4#4 }" ] && [ "${a5%% *}" = 5 ] && [ "${a4%% *}" = 4 ]; then
	pass "la57: the firmware's tables after its edits at 5 levels, walked at 4 levels: the same leaves"
else
	fail "la57: firmware-tables audit at 5 levels '$a5', then at 4 levels '$a4'"
fi
seg_check la57-levels4 '^# la57: switch=5-to-4 trampoline=0x' "--levels=4 sets up a 5-to-4 switch"
seg_check la57-levels4 '^ok [0-9]+ - la57: switch preconditions hold' "preconditions checked"
seg_check la57-levels4 '^# paging: levels=4 la57=0 cr4=0x' "the suite ran at 4 levels (# paging: levels=4)"
seg_check la57-levels4 '^ok [0-9]+ - la57: all [1-9][0-9]* live phases ran with CR4.LA57=0 and our root in CR3 \(([2-9]|[1-9][0-9]+) switches\)' \
	"every live phase at 4 levels, switched down and back up"
check_log '^chain: ok wrong-restore!: caught:$' "$log" "a deliberately wrong restore is caught"
check_log '^chain: +CR0=0x[0-9a-f]+ expected 0x[0-9a-f]+$' "$log" \
	"... and named: CR0 alone differs"
check_log "^# options: the boot manager's LoadOptions \"root=/dev/sda2 ro quiet console=ttyS0,115200\" hold no --option: ignored, options from \\\\ptlab\\.cfg\$" \
	"$log" "cmdline: the kernel command line was named and ignored"
n=$(log_clean "$log" | grep -cE '^ptlab: [0-9]+ passed, 0 failed, [0-9]+ skipped$')
if [ "$n" -ge $((nvar - nskip)) ] 2>/dev/null; then
	pass "ptlab passed every check in all $n runs"
else
	fail "only $n ptlab runs closed with 0 failed"
fi
[ "$BOOT_FAIL" -eq 0 ] || log_clean "$log" | grep -E '^(chain:|ptlab:|not ok)' | sed 's/^/# /'

boot_done
