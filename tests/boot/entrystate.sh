#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hostile entry states: $PTLAB_BUILD/tests/chain.efi (tests/entrystate/
# chain.c) boots first and starts \ptlab.efi once per variant after putting
# the CPU into a state other firmware leaves, then compares every register
# ptlab promises to restore.  Every variant must come back exactly as it
# went in (or be skipped where the CPU lacks the feature); the last one runs
# ptlab with --wrong-restore and must be caught.
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
	mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$CHAIN" ::/EFI/BOOT/BOOTX64.EFI &&
	mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$APP" ::/ptlab.efi ||
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
