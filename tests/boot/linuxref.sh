#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hand-off to what ptlab did not write, as Debian ships it, against the
# reference boot of the same kernel (linux.sh boots the kernel with the
# test's own initramfs; run-kernel.sh, memtest.sh and menu-linux.sh boot
# Debian's kernel and memtest86+ the other ways):
#
#   initramfs  Debian's own initramfs with break=premount through ptlab:
#            at the (initramfs) prompt on the serial port, "echo
#            ptlab-$((6*7))" prints ptlab-42; then it lists every EFI
#            global variable through efivarfs (insmod, mount, od), -smp 2
#   stub     the same kernel, initramfs and command line through the
#            kernel's own EFI stub (no ptlab), driven the same way: its
#            kernel log's lines about the firmware must all be in ptlab's
#            boot but for docs/handoff.md's allowed differences; the
#            kernel's configuration tables and the boot-services memory it
#            frees are what ptlab passed (efiview.py); the variables
#            both boots list are the firmware's store's (their flash read
#            on the host after QEMU ended) byte for byte, and ptlab's are
#            the stub's but BootCurrent (efivars.py)
#   shell    ptlab started from the UEFI shell by \startup.nsh as the stub
#            is (no initrd, the kernel's panic ends it): the kernel's
#            MEMATTR is the stub boot's address
#
# All boots run at once in the background; the serial consoles are FIFOs
# driven by tests/boot/serialchat.py, which ends QEMU (QMP quit) once it
# has seen what it waits for or its time is up.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init linuxref

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/boot
KERNEL=$(debian_kernel)
DEBIAN_INITRD=${LINUX_DEBIAN_INITRD:-/boot/initrd.img-${KERNEL#*/vmlinuz-}}
BOOT_TIMEOUT=${LINUXREF_TIMEOUT:-420}
# what a boot may take until its last expected line (QEMU's own limit is
# BOOT_TIMEOUT, a little longer)
WAIT=$((BOOT_TIMEOUT - 60))

need_files "packages linux-image-cloud-amd64, initramfs-tools" "$KERNEL" "$DEBIAN_INITRD"
echo "# kernel $KERNEL, initramfs $DEBIAN_INITRD"

img=$BOOT_DIR/ref.img
cp -- "$PTLAB_IMG" "$img"
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
img_put "$img" "$KERNEL" /boot/vmlinuz
img_put "$img" "$DEBIAN_INITRD" /boot/initrd.img

# Debian's initramfs-tools leaves efivarfs out (no hook asks for it): the
# kernel's own module, as /efivarfs.ko in a second cpio archive, for the
# shell to insmod.  ptlab gets it as a second --initrd (it aligns each to 4
# bytes); the EFI stub, which loads initrd= files back to back, gets one
# file: Debian's, zeros to a 4-byte boundary, the archive.
EFIVARFS_KO=$(find "/lib/modules/${KERNEL#*/vmlinuz-}/kernel/fs/efivarfs" -name 'efivarfs.ko*' \
	2>/dev/null | head -n 1)
if [ -z "$EFIVARFS_KO" ]; then
	fail "no efivarfs module of ${KERNEL#*/vmlinuz-} under /lib/modules (package linux-image-cloud-amd64)"
	boot_done
	exit
fi
mkdir -p "$BOOT_DIR/efivarfs.root"
cp -- "$EFIVARFS_KO" "$BOOT_DIR/efivarfs.root/efivarfs.ko${EFIVARFS_KO##*.ko}"
(cd "$BOOT_DIR/efivarfs.root" && ls | cpio -o -H newc --quiet) >"$BOOT_DIR/efivarfs.cpio"
img_put "$img" "$BOOT_DIR/efivarfs.cpio" /boot/efivarfs.img
pad=$(( (4 - $(stat -c %s "$DEBIAN_INITRD") % 4) % 4 ))
{ cat -- "$DEBIAN_INITRD"; head -c "$pad" /dev/zero; cat -- "$BOOT_DIR/efivarfs.cpio"; } \
	>"$BOOT_DIR/initrd-efivarfs.img"
img_put "$img" "$BOOT_DIR/initrd-efivarfs.img" /boot/initrd-efivarfs.img

# ---- Debian's initramfs through ptlab, and through the EFI stub -------------------

DRD_CMDLINE="console=ttyS0 no_timer_check break=premount"
PROMPT='expect:'$WAIT':^\(initramfs\) '
TYPE='send:echo ptlab-$((6*7))'
ANSWER='expect:60:^ptlab-42$'
# every EFI global variable through efivarfs, one "efivar: NAME 0 HEX" line
# each (attributes and data), then "efivar-end: COUNT" (tests/boot/efivars.py)
EFIVARS='send:insmod /efivarfs.ko* 2>/dev/null||modprobe efivarfs;mount -t efivarfs e /sys/firmware/efi/efivars;n=0;for f in /sys/firmware/efi/efivars/*-8be4df61-93ca-11d2-aa0d-00e098032b8c;do b=${f##*/};echo "efivar: ${b%%-*} 0 $(od -An -v -tx1 $f|tr -d '"' \\n'"')";n=$((n+1));done;echo "efivar-end: $n"'
EFIVARS_END='expect:90:^efivar-end: [0-9]+$'
chat_bg initramfs --img "$img" --cpu max --mem 2G --smp 2 --cfg "--mode=handoff --end=qemu \
--iterations=2000 --kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img --initrd=\\boot\\efivarfs.img \"--cmdline=$DRD_CMDLINE\"" \
	-- "$PROMPT" "$TYPE" "$ANSWER" "$EFIVARS" "$EFIVARS_END"

stub=$BOOT_DIR/stub.img
cp -- "$img" "$stub"
mdel -i "$stub@@$BOOT_ESP_OFFSET" ::/EFI/BOOT/BOOTX64.EFI
printf '@echo -off\nfs0:\n\\boot\\vmlinuz initrd=\\boot\\initrd-efivarfs.img %s\n' "$DRD_CMDLINE" \
	>"$BOOT_DIR/stub.nsh"
img_put "$stub" "$BOOT_DIR/stub.nsh" /startup.nsh
chat_bg stub --img "$stub" --cpu max --mem 2G --smp 2 -- "$PROMPT" "$TYPE" "$ANSWER" \
	"$EFIVARS" "$EFIVARS_END"

# ptlab entered as the stub is: from the shell by \startup.nsh on the stub's
# image (no BOOTX64.EFI), so the firmware's allocations before it are the
# stub's; no initrd, the kernel's panic for want of a root ends QEMU
shimg=$BOOT_DIR/shell.img
cp -- "$stub" "$shimg"
img_extract "$img" EFI/BOOT/BOOTX64.EFI "$BOOT_DIR/ptlab.efi" &&
	img_put "$shimg" "$BOOT_DIR/ptlab.efi" /ptlab.efi
printf '@echo -off\nfs0:\n\\ptlab.efi\n' >"$BOOT_DIR/shell.nsh"
img_put "$shimg" "$BOOT_DIR/shell.nsh" /startup.nsh
printf '%s\n' '--mode=handoff --end=qemu --iterations=2000 --kernel=\boot\vmlinuz "--cmdline=console=ttyS0 panic=-1 no_timer_check"' \
	>"$BOOT_DIR/shell.cfg"
img_put "$shimg" "$BOOT_DIR/shell.cfg" /ptlab.cfg
boot_bg shell --img "$shimg" --cpu max --mem 2G --smp 2 --log "$BOOT_DIR/shell.log" --timeout "$BOOT_TIMEOUT"

boot_wait

# ---- judge the initramfs boots and compare them ---------------------------------------

boot_result initramfs
judge_chat initramfs "Debian's initramfs reached its (initramfs) shell on ptlab's hand-off and ran echo ptlab-\$((6*7)) -> ptlab-42"
check_report "$BOOT_LOG" initramfs nofile
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "initramfs: ptlab said it handed over"
ptlab_log=$BOOT_LOG

boot_result stub
judge_chat stub "the same kernel and initramfs through its EFI stub reached the shell and ran the command"
stub_log=$BOOT_LOG
# the reference must itself speak of the firmware, or there is nothing to compare
if log_has '^\[ *[0-9.]+\] efi: EFI v[0-9]' "$stub_log" && log_has '^\[ *[0-9.]+\] DMI: ' "$stub_log" &&
   log_has '^\[ *[0-9.]+\] secureboot: Secure boot' "$stub_log"; then
	pass "stub: the reference's kernel log has its efi:, DMI: and secure boot lines"
else
	fail "stub: the reference's kernel log lacks an efi: EFI v, DMI: or secureboot: line"
fi
python3 "$HERE/klogcmp.py" "$ROOT/docs/handoff.md" "$stub_log" "$ptlab_log" >"$BOOT_DIR/klogcmp.out" 2>&1
st=$?
if [ "$st" = 0 ]; then
	pass "stub: every EFI/DMI/ACPI/SMBIOS/secure-boot line of the EFI stub's boot is in ptlab's, or docs/handoff.md says why not ($(tail -n 1 "$BOOT_DIR/klogcmp.out"))"
	grep -v 'lines of the reference' "$BOOT_DIR/klogcmp.out" | sed 's/^/# /'
else
	fail "stub: ptlab's boot lacks lines of the EFI stub's boot that docs/handoff.md does not allow (status $st)"
	sed 's/^/# /' "$BOOT_DIR/klogcmp.out" | head -n 60
fi
# the comparison fails when ptlab's boot lacks what a row lets only differ:
# its MEMATTR entry and its Freeing line taken out
sed -e 's/ MEMATTR=0x[0-9a-f]*//' -e '/efi: Freeing EFI boot services memory: /d' "$ptlab_log" \
	>"$BOOT_DIR/lacking.log"
python3 "$HERE/klogcmp.py" "$ROOT/docs/handoff.md" "$stub_log" "$BOOT_DIR/lacking.log" \
	>"$BOOT_DIR/lacking.out" 2>&1
st=$?
if [ "$st" = 1 ] && grep -q '^klogcmp: missing under ptlab .*: efi: MEMATTR=0x' "$BOOT_DIR/lacking.out" &&
   grep -q '^klogcmp: missing under ptlab .*: efi: Freeing EFI boot services memory: ' "$BOOT_DIR/lacking.out"; then
	pass "stub: klogcmp fails (status 1) on ptlab's log without its MEMATTR table and its Freeing line, naming both"
else
	fail "stub: klogcmp on ptlab's log without MEMATTR and Freeing: status $st"
	sed 's/^/# /' "$BOOT_DIR/lacking.out" | head -n 20
fi
# what the kernel says of the tables and the boot-services memory it freed
# is what ptlab passed (the rows' reasons)
judge_efiview()
{
	if python3 "$HERE/efiview.py" "$2" >"$BOOT_DIR/$1.efiview" 2>&1; then
		while read -r l; do
			pass "$l"
		done < <(sed "s/^ok: /$1: /" "$BOOT_DIR/$1.efiview")
	else
		fail "$1: the kernel's tables or freed boot-services memory are not what ptlab passed"
		sed 's/^/# /' "$BOOT_DIR/$1.efiview"
	fi
}
judge_efiview initramfs "$ptlab_log"

boot_result stub >/dev/null
stub_vars=$(dirname "$BOOT_IMG_COPY")/vars.fd
boot_result initramfs >/dev/null
ptlab_vars=$(dirname "$BOOT_IMG_COPY")/vars.fd
judge_efivars stub "$stub_log" "$stub_vars"
judge_efivars initramfs "$ptlab_log" "$ptlab_vars" "$stub_log"
# the judgement must be able to fail: PlatformLang's last data byte changed
# in a copy of ptlab's log is neither the store's nor the stub's
sed -E 's/(efivar: PlatformLang 0 [0-9a-f]*)([0-9a-f]{2})(\r?)$/\1ff\3/' "$ptlab_log" >"$BOOT_DIR/efivars-bad.log"
python3 "$HERE/efivars.py" judge "$BOOT_DIR/efivars-bad.log" --store "$ptlab_vars" --ref "$stub_log" \
	>"$BOOT_DIR/efivars-bad.out" 2>&1
st=$?
if [ "$st" = 1 ] && [ "$(grep -c '^FAIL: .*PlatformLang: ' "$BOOT_DIR/efivars-bad.out")" = 2 ]; then
	pass "initramfs: efivars.py fails (status 1) on ptlab's list with one byte of PlatformLang changed, against the store and the stub"
else
	fail "initramfs: efivars.py on a changed PlatformLang: status $st"
	sed 's/^/# /' "$BOOT_DIR/efivars-bad.out"
fi

# ---- judge ptlab started from the shell as the stub is -------------------------------

boot_result shell
st=$?
check_status "$st" 0 "shell: QEMU ended with the kernel's panic (panic=-1, -no-reboot)"
check_log '^# options: .* mode=handoff .* from=cfg$' "$BOOT_LOG" "shell: ptlab started from the shell read \\ptlab.cfg"
check_report "$BOOT_LOG" shell nofile
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "shell: ptlab handed over"
judge_efiview shell "$BOOT_LOG"
ours=$(python3 "$HERE/efiview.py" memattr "$BOOT_LOG")
theirs=$(python3 "$HERE/efiview.py" memattr "$stub_log")
check_eq "$theirs" "$ours" "shell: entered from the shell as the stub is, the kernel's MEMATTR is the stub boot's ($ours; under ptlab as the disk's boot option $(python3 "$HERE/efiview.py" memattr "$ptlab_log"))"

boot_done
