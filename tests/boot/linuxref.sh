#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hand-off to what ptlab did not write, as Debian ships it (linux.sh boots
# the kernel with the test's own initramfs; this suite runs beside it):
#
#   mkrun    "make run KERNEL=... CMDLINE=..." from a fresh build directory,
#            no initrd: handed over, the kernel's banner and the command
#            line byte for byte, its panic for want of a root (panic=-1 and
#            -no-reboot end QEMU); a command line with a newline is
#            refused and the run image left as it was
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
#   memtest  Debian's unmodified memtest86+x64.bin: test #0 running with 0
#            errors on its serial screen
#   grub, sdboot  GRUB (grub-mkstandalone) and systemd-boot start the Linux
#            entry "make install-esp KERNEL=... CMDLINE=..." wrote: ptlab
#            gets its options from the menu, hands over, and the kernel has
#            the command line byte for byte
#
# All boots run at once in the background; the serial consoles are FIFOs
# driven by tests/boot/serialchat.py, which ends QEMU (QMP quit) once it
# has seen what it waits for or its time is up.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init linuxref

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/boot
KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
DEBIAN_INITRD=${LINUX_DEBIAN_INITRD:-/boot/initrd.img-${KERNEL#*/vmlinuz-}}
MEMTEST=${MEMTEST:-/boot/memtest86+x64.bin}
REF_TIMEOUT=${LINUXREF_TIMEOUT:-420}
# what a boot may take until its last expected line (QEMU's own limit is
# REF_TIMEOUT, a little longer)
WAIT=$((REF_TIMEOUT - 60))

for f in "$KERNEL" "$DEBIAN_INITRD" "$MEMTEST"; do
	if [ -z "$f" ] || [ ! -f "$f" ]; then
		fail "no file '$f' (packages linux-image-cloud-amd64, initramfs-tools, memtest86+)"
		boot_done
		exit
	fi
done
echo "# kernel $KERNEL, initramfs $DEBIAN_INITRD, $MEMTEST"

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
img_put "$img" "$MEMTEST" /boot/memtest.bin

# chat_bg TAG [boot_run options] -- STEPS...: boot_bg TAG with COM1 a pair
# of FIFOs and serialchat.py running STEPS on it; serialchat ends QEMU and
# keeps the log ($BOOT_DIR/TAG.log), its own output in TAG.chat, its
# status in TAG.chatst
chat_bg()
{
	local tag=$1 pipe=$BOOT_DIR/$1.com1 qmp=$BOOT_DIR/$1.qmp
	local -a opts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	boot_bg "$tag" "${opts[@]}" --log "$BOOT_DIR/$tag.log" --timeout "$REF_TIMEOUT" \
		--serial-pipe "$pipe" -- -qmp unix:"$qmp",server=on,wait=off
	(
		python3 "$HERE/serialchat.py" --wait 60 --log "$BOOT_DIR/$tag.log" \
			"$qmp" "$pipe" "$@" >"$BOOT_DIR/$tag.chat" 2>&1
		echo $? >"$BOOT_DIR/$tag.chatst"
	) &
}

# judge_chat TAG DESC: serialchat did every step of TAG
judge_chat()
{
	if [ "$(cat "$BOOT_DIR/$1.chatst" 2>/dev/null)" = 0 ]; then
		pass "$1: $2"
	else
		fail "$1: $2 (serialchat status '$(cat "$BOOT_DIR/$1.chatst" 2>/dev/null)')"
	fi
	sed 's/^/# /' "$BOOT_DIR/$1.chat"
}

# ---- make run KERNEL=... from a fresh build directory --------------------------

# The command line carries what a tokenizer or a shell could take apart:
# '#', '\', '$', a single quote, a double blank, quotes, a backslash before
# a quote and one at the end.  no_timer_check: on a loaded host TCG's timer
# can fail the kernel's IO-APIC timer check, which then panics (every
# kernel boot here has it, the stub's included).
MKRUN_CMDLINE='console=ttyS0 panic=-1 no_timer_check ptlab.text=a#b\c$HOME'"'"'d  e ptlab.q="u v" ptlab.bq="w\" ptlab.end=z\'
mkrun=$BOOT_DIR/mkrun
mkdir -p "$mkrun"
# timeout(1) leads a process group of its own: its id, recorded, lets an
# interrupted suite end make and its QEMU too
(
	cd "$ROOT" &&
	exec env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS timeout -k 10 "$REF_TIMEOUT" \
		make -j2 BUILD="$mkrun/build" run KERNEL="$KERNEL" "CMDLINE=$MKRUN_CMDLINE" \
		ARGS=--iterations=2000
) </dev/null >"$mkrun/out" 2>&1 &
mkpid=$!
echo "$mkpid" >>"$BOOT_PIDS"

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
boot_bg shell --img "$shimg" --cpu max --mem 2G --smp 2 --log "$BOOT_DIR/shell.log" --timeout "$REF_TIMEOUT"

# ---- memtest86+ ---------------------------------------------------------------------

chat_bg memtest --img "$img" --cpu max --mem 2G --cfg "--mode=handoff --end=qemu \
--iterations=2000 --kernel=\\boot\\memtest.bin \"--cmdline=console=ttyS0,115200\"" \
	-- 'expect:'$WAIT':Memtest86\+ v[0-9]' 'expect:120:#0 +\[Address test, walking ones' \
	'expect:120:Status: Testing' 'expect:120:Pass: +0 +Errors: 0 *$'

wait "$mkpid"
mkst=$?
# ---- GRUB and systemd-boot chain to the Linux entry of make install-esp ---------------

SDBOOT=${SDBOOT:-/usr/lib/systemd/boot/efi/systemd-bootx64.efi}
GRUB_MODULES="part_gpt fat chain echo halt search search_fs_file configfile normal test"
MENU_CMDLINE='console=ttyS0 panic=-1 no_timer_check ptlab.menu="from a menu"'
ESP=/ptlab-esp-$$-$RANDOM
esp=$BOOT_DIR/esp
menus=
if (cd "$ROOT" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s install-esp \
	BUILD="$PTLAB_BUILD" DEPS_CHECK=0 ESP="$ESP" DESTDIR="$esp" KERNEL="$KERNEL" \
	CMDLINE="$MENU_CMDLINE" MENU_ARGS=--iterations=2000) >"$BOOT_DIR/install.out" 2>&1; then
	pass "menus: make install-esp KERNEL=... CMDLINE=... wrote its entries"
	menus="grub sdboot"
else
	fail "menus: make install-esp KERNEL=... failed: $(tr '\n' ' ' <"$BOOT_DIR/install.out")"
fi
for menu in $menus; do
	tree=$BOOT_DIR/$menu
	cp -r "$esp$ESP" "$tree"
	mkdir -p "$tree/EFI/BOOT"
	if [ "$menu" = grub ]; then
		# the standalone GRUB finds the ESP that holds ptlab and reads its
		# grub.cfg: the entry update-grub takes from 40_custom
		printf 'search --no-floppy --file --set=root /EFI/ptlab/ptlab.efi\nconfigfile ($root)/boot/grub/grub.cfg\n' \
			>"$BOOT_DIR/embed.cfg"
		grub-mkstandalone -O x86_64-efi -o "$tree/EFI/BOOT/BOOTX64.EFI" \
			--install-modules="$GRUB_MODULES" --modules="$GRUB_MODULES" --locales= --fonts= \
			--themes= "boot/grub/grub.cfg=$BOOT_DIR/embed.cfg" >"$BOOT_DIR/grub.out" 2>&1 ||
			fail "menus: grub-mkstandalone: $(tr '\n' ' ' <"$BOOT_DIR/grub.out")"
		# /etc/grub.d/40_custom prints what follows its own first lines
		mkdir -p "$tree/boot/grub"
		cat /etc/grub.d/40_custom "$tree/EFI/ptlab/grub.40_custom" >"$BOOT_DIR/40_custom"
		{
			printf 'set timeout=0\nset default=0\n'
			sh "$BOOT_DIR/40_custom"
		} >"$tree/boot/grub/grub.cfg"
		grep -q '^menuentry ' "$tree/boot/grub/grub.cfg" ||
			fail "menus: no menuentry in the GRUB menu made from 40_custom"
	else
		mkdir -p "$tree/loader/entries"
		cp "$SDBOOT" "$tree/EFI/BOOT/BOOTX64.EFI"
		cp "$tree/EFI/ptlab/ptlab.conf" "$tree/loader/entries/ptlab.conf"
		printf 'default ptlab.conf\ntimeout 0\n' >"$tree/loader/loader.conf"
	fi
	"$ROOT/mk/image.sh" --tree "$BOOT_DIR/$menu.img" "$tree"
	boot_bg "$menu" --img "$BOOT_DIR/$menu.img" --log "$BOOT_DIR/$menu.log" --mem 1G \
		--timeout "$REF_TIMEOUT"
done

boot_wait

# ---- judge make run --------------------------------------------------------------------

st=$mkst
serial=$mkrun/build/serial.log
if [ "$st" = 0 ] && tail -n 1 "$mkrun/out" | grep -qE '^ptlab: verdict: pass - '; then
	pass "mkrun: make run KERNEL=... exited 0 with the verdict pass"
else
	fail "mkrun: make run KERNEL=... exit status '$st', last line '$(tail -n 1 "$mkrun/out")'"
	tail -n 30 "$mkrun/out" | sed 's/^/# /'
fi
if grep -qE '^ptlab: handed over to Linux; the kernel wrote [1-9][0-9]* line\(s\)' "$mkrun/out"; then
	pass "mkrun: the verdict says ptlab handed over to Linux"
else
	fail "mkrun: no 'handed over to Linux' in make run's output"
fi
if [ -f "$serial" ]; then
	check_log '^\[ *[0-9.]+\] Linux version [0-9]' "$serial" "mkrun: the kernel printed its banner"
	got=$(log_clean "$serial" | sed -n 's/^\[ *[0-9.]*\] Kernel command line: //p')
	if [ "$got" = "$MKRUN_CMDLINE" ]; then
		pass "mkrun: the kernel's command line is CMDLINE byte for byte ($got)"
	else
		fail "mkrun: the kernel's command line '$got', CMDLINE '$MKRUN_CMDLINE'"
	fi
	check_log 'Kernel panic - not syncing: VFS: Unable to mount root fs' "$serial" \
		"mkrun: without an initrd the kernel ran to its panic for a root file system"
else
	fail "mkrun: no serial log $serial"
fi
onimg=$mkrun/vmlinuz
if img_extract "$mkrun/build/run.img" linux/vmlinuz "$onimg" 2>/dev/null &&
   cmp -s "$onimg" "$KERNEL"; then
	pass "mkrun: \\linux\\vmlinuz on the run image is KERNEL"
else
	fail "mkrun: \\linux\\vmlinuz on the run image is not KERNEL"
fi
# a command line \ptlab.cfg cannot carry: refused, nothing booted or written
if [ -f "$mkrun/build/run.img" ]; then
	before=$(md5sum <"$mkrun/build/run.img")
	touch "$mkrun/build/serial.log"
	(cd "$ROOT" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS timeout 120 \
		make BUILD="$mkrun/build" run KERNEL="$KERNEL" CMDLINE=$'console=ttyS0\nquiet' \
		</dev/null >"$mkrun/refused" 2>&1)
	st=$?
	if [ "$st" != 0 ] && grep -q "image: CMDLINE holds a character ptlab cannot take (a newline" "$mkrun/refused" &&
	   [ "$(md5sum <"$mkrun/build/run.img")" = "$before" ] && [ -f "$mkrun/build/serial.log" ] &&
	   ! grep -q qemu-system "$mkrun/refused"; then
		pass "mkrun: a newline in CMDLINE refused with its reason (status $st), the run image unchanged, nothing booted"
	else
		fail "mkrun: CMDLINE with a newline: status $st, run image $( [ "$(md5sum <"$mkrun/build/run.img")" = "$before" ] && echo unchanged || echo changed)"
		tail -n 5 "$mkrun/refused" | sed 's/^/# /'
	fi
else
	fail "mkrun: no run image to refuse a command line on"
fi

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

# ---- judge memtest86+ ----------------------------------------------------------------------

boot_result memtest
fails=$BOOT_FAIL
judge_chat memtest "memtest86+x64.bin started on ptlab's hand-off and runs test #0 with 0 errors"
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "memtest: ptlab handed over"
if python3 -c '
import re, sys
sys.path.insert(0, sys.argv[1])
import serialchat
lines = serialchat.clean(open(sys.argv[2], "rb").read())
# the count as drawn (the last field may be cut short by the quit)
errs = [int(m.group(1)) for m in (re.search(r"Errors: +([0-9]+)", l) for l in lines) if m]
bad = [n for n in errs if n]
print(f"{len(errs)} Errors: counts, {len(bad)} not 0")
sys.exit(1 if bad or not errs else 0)' "$HERE" "$BOOT_LOG" >"$BOOT_DIR/memtest.errs"; then
	pass "memtest: every Errors: count it drew is 0 ($(cat "$BOOT_DIR/memtest.errs"))"
else
	fail "memtest: $(cat "$BOOT_DIR/memtest.errs")"
fi
# its screen, cleaned as serialchat reads it (a cursor move starts a line)
if [ "$BOOT_FAIL" -gt "$fails" ]; then
	python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import serialchat
for l in serialchat.clean(open(sys.argv[2], "rb").read())[-15:]:
    print("# " + l)' "$HERE" "$BOOT_LOG"
fi

# ---- judge the menus ---------------------------------------------------------------------------

for menu in $menus; do
	boot_result "$menu"
	st=$?
	check_status "$st" 0 "$menu: QEMU ended with the kernel's panic (panic=-1, -no-reboot)"
	check_log '^# options: .* mode=handoff .* kernel=\\EFI\\ptlab\\linux\\vmlinuz-[^ ]* initrd=none .* from=boot-manager$' \
		"$BOOT_LOG" "$menu: ptlab got the entry's hand-off options from the boot manager"
	check_report "$BOOT_LOG" "$menu" nofile
	check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "$menu: ptlab handed over"
	got=$(log_clean "$BOOT_LOG" | sed -n 's/^\[ *[0-9.]*\] Kernel command line: //p')
	if [ "$got" = "$MENU_CMDLINE" ]; then
		pass "$menu: the kernel's command line is the entry's CMDLINE byte for byte ($got)"
	else
		fail "$menu: the kernel's command line '$got', CMDLINE '$MENU_CMDLINE'"
	fi
	check_log 'Kernel panic - not syncing: VFS: Unable to mount root fs' "$BOOT_LOG" \
		"$menu: the kernel ran to its panic for a root file system"
done

boot_done
