#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ptlab on firmware that enforces no-execute ("make test-nxfw", not in "make
# test": OVMF_NX_CODE is built by "make ovmf-nx", mk/ovmfnx.sh, from
# Debian's edk2 source with the memory protections of a current PC), with
# NX_COMPAT set in its PE header, as the build sets it.  Firmware mode at 4 levels with 2 CPUs; firmware mode at 5
# levels (the LA57 trampoline runs on the firmware's tables; the APs stay
# in the firmware's 4 levels, so SMP skips there, by design); hand-off mode
# at 4 and 5 levels with 2 CPUs; Debian's kernel handed over: each passes
# its whole suite.  That the firmware really enforces NX is read from
# ptlab's own walk of the firmware's tables (the "# firmware-access:" fact:
# our text r-x, our data, loader pages, pool and stack rw-, page 0 not
# mapped), against stock OVMF booted the same way, where the same pages are
# rwx, so the suite cannot pass on stock OVMF.  And ptlab's finding of
# EFI_MEMORY_ATTRIBUTE_PROTOCOL is held to the firmware's source (2022.11
# declares none).
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init nxfw

NX_CODE=${OVMF_NX_CODE:-$PTLAB_BUILD/ovmf-nx/OVMF_CODE_4M.fd}
NX_VARS=${OVMF_NX_VARS:-$PTLAB_BUILD/ovmf-nx/OVMF_VARS_4M.fd}
NX_SRC=${OVMF_NX_SRC:-$(dirname "$NX_CODE")/src/edk2}
KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
INITRD=${LINUX_INITRD:-$PTLAB_BUILD/linux/initrd.img}
T=${NXFW_TIMEOUT:-400}
INIT_PASSED=65      # isa-debug-exit 0x20 from /init

if [ ! -f "$NX_CODE" ] || [ ! -f "$NX_VARS" ]; then
	fail "no NX-enforcing OVMF '$NX_CODE' / '$NX_VARS' (make ovmf-nx)"
	boot_done
	exit
fi
echo "# firmware $NX_CODE ($(stat -c %s "$NX_CODE") bytes), $(tr '\n' ' ' <"$(dirname "$NX_CODE")/pcds.txt" 2>/dev/null)"

# want NAME KEY FIELD VALUE: the fact FIELD of "# KEY:" of the last judged boot
want()
{
	local got
	got=$(fact "$BOOT_LOG" "$2" "$3")
	if [ "$got" = "$4" ]; then
		pass "$1: $2 $3=$4"
	else
		fail "$1: $2 $3='$got', expected '$4'"
	fi
}

# enforced NAME: what the NX firmware's tables give ptlab's kinds of memory
enforced()
{
	want "$1" firmware-access text r-x
	want "$1" firmware-access data rw-
	want "$1" firmware-access loader_data rw-
	want "$1" firmware-access pool rw-
	want "$1" firmware-access stack rw-
	want "$1" firmware-tables page0_mapped 0
	want "$1" memattr protocol "$MEMATTR"
}

# two_cpus NAME: both CPUs started and ran on the built tables
two_cpus()
{
	want "$1" smp started 2
	want "$1" smp on_tables 2
}

# The firmware's source: does it offer EFI_MEMORY_ATTRIBUTE_PROTOCOL?
if [ ! -d "$NX_SRC/MdePkg" ]; then
	fail "no edk2 source at $NX_SRC (make ovmf-nx unpacks it there)"
	MEMATTR=unknown
elif grep -rqs gEfiMemoryAttributeProtocolGuid "$NX_SRC/MdePkg/MdePkg.dec"; then
	MEMATTR=present
else
	MEMATTR=absent
fi
echo "# the firmware's source declares EFI_MEMORY_ATTRIBUTE_PROTOCOL: $MEMATTR"

# The image the NX boots take: ptlab as it is built, with NX_COMPAT (0x0100)
# in its PE header's DllCharacteristics (NX_COMPAT=1, mk/toolchain.mk), read
# back by objdump, a reader of its own.
nximg=$BOOT_DIR/nxcompat.img
cp -- "$PTLAB_IMG" "$nximg"
mcopy -n -o -i "$nximg@@$BOOT_ESP_OFFSET" ::/EFI/BOOT/BOOTX64.EFI "$BOOT_DIR/app.efi"
got=$(objdump -p "$BOOT_DIR/app.efi" | sed -n 's/^DllCharacteristics[[:space:]]*//p')
if [ -n "$got" ] && [ $((0x$got & 0x100)) -ne 0 ]; then
	pass "the built ptlab has NX_COMPAT set (objdump: DllCharacteristics $got)"
else
	fail "the built ptlab has DllCharacteristics '$got' (objdump): no NX_COMPAT"
fi

nx=(--img "$nximg" --code "$NX_CODE" --vars "$NX_VARS" --cpu max --timeout "$T")

boot_bg stock --smp 1 --mem 1G --cpu max --timeout "$T" --cfg "--end=qemu --iterations=2000"
boot_bg fw4 "${nx[@]}" --smp 2 --mem 1G --cfg "--end=qemu"
boot_wait
judge_passed stock
want stock firmware-access loader_data rwx
want stock firmware-access data rwx
want stock firmware-tables page0_mapped 1
judge_passed fw4
enforced fw4
two_cpus fw4
want fw4 firmware-access loader_code none

boot_bg fw5 "${nx[@]}" --smp 2 --mem 1G --cfg "--levels=5 --end=qemu"
boot_bg handoff4 "${nx[@]}" --smp 2 --mem 2G --cfg "--mode=handoff --end=qemu"
boot_wait
judge_passed fw5
enforced fw5
# firmware mode at 5 levels: the APs keep the firmware's 4-level paging
check_log '^ok [0-9]+ - smp # SKIP the APs run the firmware.s 4-level paging and the built hierarchy has 5 levels' \
	"$BOOT_LOG" "fw5: SMP skipped with the reason (the APs stay in the firmware's 4 levels)"
want fw5 la57 switch 4-to-5
# the trampoline's page is loader code, which the firmware's policy leaves
# executable: that is what it was entered through
want fw5 firmware-access loader_code rwx
want fw5 la57 memattr "$([ "$MEMATTR" = present ] && echo made-rx || echo absent)"
want fw5 paging levels 5
judge_passed handoff4 nofile
enforced handoff4
two_cpus handoff4

boot_bg handoff5 "${nx[@]}" --smp 2 --mem 2G --cfg "--mode=handoff --levels=5 --end=qemu"
if [ -n "$KERNEL" ] && [ -f "$KERNEL" ] && [ -f "$INITRD" ]; then
	img=$BOOT_DIR/linux.img
	cp -- "$nximg" "$img"
	mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
	mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$KERNEL" ::/boot/vmlinuz
	mcopy -o -i "$img@@$BOOT_ESP_OFFSET" "$INITRD" ::/boot/initrd.img
	cmd="console=ttyS0 panic=-1 printk.devkmsg=on ptlab.cpus=2 ptlab.la57=1 ptlab.boot=nxfw-linux"
	boot_bg linux "${nx[@]}" --img "$img" --smp 2 --mem 2G --cfg "--mode=handoff --end=qemu \
--iterations=2000 --kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img \"--cmdline=$cmd\""
else
	fail "linux: no kernel '$KERNEL' (package linux-image-cloud-amd64) or initrd '$INITRD' (make linux-initrd)"
fi
boot_wait
judge_passed handoff5 nofile
enforced handoff5
two_cpus handoff5
want handoff5 la57 switch 4-to-5
want handoff5 firmware-access loader_code rwx
if [ -f "$BOOT_DIR/linux.status" ]; then
	boot_result linux
	st=$?
	check_status "$st" "$INIT_PASSED" "linux: Debian's kernel, handed over on the NX firmware, reached /init, which passed (status 0x20)"
	enforced linux
	bad=$(log_clean "$BOOT_LOG" | sed -n 's/^\[ *[0-9]*\.[0-9]*\] //; /^init: not ok/p' | head -n 3)
	if [ -z "$bad" ] && log_clean "$BOOT_LOG" | grep -Eq '^(\[ *[0-9.]*\] )?init: [1-9][0-9]* passed, 0 failed'; then
		pass "linux: /init's own checks passed"
	else
		fail "linux: /init: ${bad:-no closing line}"
	fi
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
fi

boot_done
