#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Secure Boot: $PTLAB_BUILD/ptlab-signed.efi (make signed-image, Debian's
# OVMF test key) verifies with sbverify against that certificate, the
# unsigned build does not; with OVMF's Secure Boot build and its snakeoil
# variables (the test key enrolled), the signed image runs the full suite
# and reports secure_boot=on, the unsigned one is refused by the firmware
# ("Access Denied", not one line of ptlab), and the test stops QEMU itself
# then: the firmware would wait for a key for ever.
#
# What the signed ptlab boots under Secure Boot (fw/verify.c): Debian's
# kernel signed with the test key (make linux-signed) and the test
# initramfs, whose digest the signed image holds (make signed-image
# TRUST=build/linux/initrd.img, as "make test" builds it), are handed over
# and reach /init; Debian's own kernel (not signed by a key in db), the
# signed kernel with one byte flipped, an initrd whose digest is not
# built in and a Limine-protocol ELF kernel (no PE image: the digest list
# alone could admit it) whose digest is not built in are each refused
# before ExitBootServices, naming the file and
# the status, and the firmware's shell goes on to the next.  On the same
# firmware with Secure Boot off (OVMF_VARS_4M.fd), nothing is verified:
# Debian's kernel with the unlisted initrd is handed over.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

SB_CODE=${OVMF_SB_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
SB_VARS=${OVMF_SB_VARS:-/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd}
CERT=${PTLAB_CERT:-/usr/share/ovmf/PkKek-1-snakeoil.pem}
SIGNED_EFI=$PTLAB_BUILD/ptlab-signed.efi
SIGNED_IMG=$PTLAB_BUILD/ptlab-signed.img

boot_init secureboot

if sbverify --cert "$CERT" "$SIGNED_EFI" >"$BOOT_DIR/sbverify.out" 2>&1; then
	pass "sbverify: ptlab-signed.efi carries a valid signature by the test key"
else
	fail "sbverify: ptlab-signed.efi: $(tail -n 1 "$BOOT_DIR/sbverify.out")"
fi
if sbverify --cert "$CERT" "$PTLAB_BUILD/ptlab.efi" >/dev/null 2>&1; then
	fail "sbverify accepted the unsigned ptlab.efi"
else
	pass "sbverify: the unsigned ptlab.efi is rejected"
fi
key=$PTLAB_BUILD/sign/key.pem
if [ -f "$key" ] && [ "$(stat -c %a "$key")" = 600 ]; then
	pass "the decrypted test key is mode 0600"
else
	fail "decrypted key $key: mode '$(stat -c %a "$key" 2>/dev/null)'"
fi

sb=(--machine q35,smm=on --code "$SB_CODE" --vars "$SB_VARS" --cpu max --mem 1G)
secure=(-global driver=cfi.pflash01,property=secure,value=on)
KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
SIGNED_KERNEL=$PTLAB_BUILD/linux/vmlinuz-signed
INITRD=$PTLAB_BUILD/linux/initrd.img
LIMINE_ELF=$PTLAB_BUILD/limine/kernel-static.elf
PLAIN_VARS=${OVMF_VARS_PLAIN:-/usr/share/OVMF/OVMF_VARS_4M.fd}
INIT_PASSED=65      # isa-debug-exit 0x20 from /init
LINUX_TIMEOUT=${LINUX_TIMEOUT:-400}
have_linux=1
for f in "$KERNEL" "$SIGNED_KERNEL" "$INITRD" "$LIMINE_ELF"; do
	if [ -z "$f" ] || [ ! -f "$f" ]; then
		fail "no '$f' (package linux-image-cloud-amd64; make linux-signed linux-initrd limine)"
		have_linux=0
	fi
done

# the digest list: the initrd's SHA-256 (sha256sum's) is in the signed
# image's bytes, not in the unsigned build's
if [ "$have_linux" = 1 ]; then
	sum=$(sha256sum "$INITRD" | cut -d' ' -f1)
	in_image()
	{
		python3 -c 'import sys; sys.exit(0 if bytes.fromhex(sys.argv[1]) in open(sys.argv[2], "rb").read() else 1)' "$sum" "$1"
	}
	if in_image "$SIGNED_EFI" && ! in_image "$PTLAB_BUILD/ptlab.efi"; then
		pass "the initrd's SHA-256 ${sum:0:16}... is built into ptlab-signed.efi, not into ptlab.efi"
	else
		fail "the initrd's SHA-256 $sum is not in ptlab-signed.efi alone (make signed-image TRUST=$INITRD)"
	fi
fi

boot_bg signed --img "$SIGNED_IMG" --cfg "--end=qemu --iterations=5000" "${sb[@]}" \
	-- "${secure[@]}"
# The kernels' image: the signed ptlab with Debian's kernel (/boot/unsigned),
# the signed one (/boot/vmlinuz) and that with one byte flipped in its
# payload (/boot/flipped), the test initramfs (/boot/initrd.img, built in)
# and it with 512 zero bytes more (/boot/other.img: a cpio archive still,
# not built in).  The firmware starts no unsigned UEFI shell under Secure
# Boot, so each refusal is a boot of its own, with --end=return: the
# firmware's boot manager goes on to its next option, finds none and
# waits for a key, and the test stops QEMU then.
kimg=$BOOT_DIR/kernels.img
REFUSALS="unsigned-kernel flipped-kernel unlisted-initrd unlisted-elf"
# refuse_bg TAG OPTIONS: a refusal's boot, its serial log $BOOT_DIR/TAG.log
refuse_bg()
{
	boot_bg "$1" --img "$kimg" --log "$BOOT_DIR/$1.log" --cfg "--mode=handoff --end=return $2" \
		"${sb[@]}" -- "${secure[@]}" -qmp unix:"$BOOT_DIR/$1.qmp",server=on,wait=off
}
if [ "$have_linux" = 1 ]; then
	root=$(cd "$(dirname "$0")/../.." && pwd)
	PTLAB_IMG_MIB=128 "$root/mk/image.sh" "$kimg" "$SIGNED_EFI" "$root/startup.nsh" ""
	python3 -c '
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0x01
open(sys.argv[2], "wb").write(data)' "$SIGNED_KERNEL" "$BOOT_DIR/flipped"
	cp -- "$INITRD" "$BOOT_DIR/other.img"
	head -c 512 /dev/zero >>"$BOOT_DIR/other.img"
	mmd -i "$kimg@@$BOOT_ESP_OFFSET" ::/boot
	img_put "$kimg" "$KERNEL" /boot/unsigned
	img_put "$kimg" "$SIGNED_KERNEL" /boot/vmlinuz
	img_put "$kimg" "$BOOT_DIR/flipped" /boot/flipped
	img_put "$kimg" "$INITRD" /boot/initrd.img
	img_put "$kimg" "$BOOT_DIR/other.img" /boot/other.img
	img_put "$kimg" "$LIMINE_ELF" /boot/limine.elf
	refuse_bg unsigned-kernel '--kernel=\boot\unsigned'
	refuse_bg flipped-kernel '--kernel=\boot\flipped'
	refuse_bg unlisted-initrd '--kernel=\boot\vmlinuz --initrd=\boot\other.img'
	refuse_bg unlisted-elf '--kernel=\boot\limine.elf'
else
	REFUSALS=
fi
boot_bg unsigned --img "$PTLAB_IMG" --log "$BOOT_DIR/unsigned.log" --cfg "--end=qemu" "${sb[@]}" \
	-- "${secure[@]}" -qmp unix:"$BOOT_DIR/unsigned.qmp",server=on,wait=off
# stop each refused boot as soon as the firmware has said so (only it says
# it): the unsigned ptlab refused, the boot manager out of options
declare -A waiting=([unsigned]='Access Denied')
for t in $REFUSALS; do
	waiting[$t]='BdsDxe: No bootable option or device was found'
done
for _ in $(seq 1 "$BOOT_TIMEOUT"); do
	[ "${#waiting[@]}" = 0 ] && break
	sleep 1
	for t in "${!waiting[@]}"; do
		if [ -e "$BOOT_DIR/$t.status" ]; then
			unset "waiting[$t]"
		elif grep -q "${waiting[$t]}" "$BOOT_DIR/$t.log" 2>/dev/null; then
			sleep 2
			boot_quit "$t" "$BOOT_DIR/$t.qmp"
			unset "waiting[$t]"
		fi
	done
done
# and until those QEMUs are gone (a quit takes a moment)
for t in unsigned $REFUSALS; do
	for _ in $(seq 1 60); do
		[ -e "$BOOT_DIR/$t.status" ] && break
		sleep 1
	done
done
boot_wait

judge_passed signed
check_log '^# firmware: vendor="EDK II" .*secure_boot=on setup_mode=0 ' "$BOOT_LOG" \
	"signed: ran with Secure Boot on"
check_log '^# secureboot: state=on shim=no via=firmware$' "$BOOT_LOG" \
	"signed: the report says the firmware verified it, no shim"
boot_result unsigned
check_log 'BdsDxe: failed to load .*Access Denied' "$BOOT_LOG" \
	"unsigned: the firmware refused it (Access Denied)"
check_no_log '^(ptlab|# |ok [0-9])' "$BOOT_LOG" "unsigned: not one line of ptlab"


[ "$have_linux" = 1 ] || { boot_done; exit; }

# ---- the kernels: the signed one handed over; with Secure Boot off, any ---------

# no_timer_check: on a loaded host TCG may miss the kernel's IO-APIC timer
# check, which then panics ("IO-APIC + timer doesn't work")
cmd="console=ttyS0 panic=-1 printk.devkmsg=on no_timer_check ptlab.cpus=1 ptlab.la57=1"
boot_bg sb-linux --img "$kimg" --cfg "--mode=handoff --end=qemu --iterations=2000 \
--kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img \"--cmdline=$cmd ptlab.boot=sb-linux\"" \
	"${sb[@]}" --timeout "$LINUX_TIMEOUT" -- "${secure[@]}"
boot_bg nosb-linux --img "$kimg" --cfg "--mode=handoff --end=qemu --iterations=2000 \
--kernel=\\boot\\unsigned --initrd=\\boot\\other.img \"--cmdline=$cmd ptlab.boot=nosb-linux\"" \
	--machine q35,smm=on --code "$SB_CODE" --vars "$PLAIN_VARS" --cpu max --mem 1G \
	--timeout "$LINUX_TIMEOUT" -- "${secure[@]}"

sbfail="Secure Boot: the firmware's policy \\(db/dbx\\) refuses it: LoadImage status 0x80000000000000(1a \\(EFI_SECURITY_VIOLATION\\)|0f \\(EFI_ACCESS_DENIED\\))\$"
other=$(sha256sum "$BOOT_DIR/other.img" | cut -d' ' -f1)
# judge_refused TAG REGEX DESC: the boot ran ptlab with Secure Boot on, its
# failure line matches REGEX, boot services were kept, the firmware went on
judge_refused()
{
	local tag=$1
	boot_result "$tag"
	check_log '^# firmware: .*secure_boot=on setup_mode=0 ' "$BOOT_LOG" "$tag: ran with Secure Boot on"
	check_log "^not ok [0-9]+ - $2" "$BOOT_LOG" "$tag: $3"
	check_log '^# handoff: boot services kept: the kernel was refused before ExitBootServices, nothing of it stays allocated' \
		"$BOOT_LOG" "$tag: boot services kept, nothing of the file left allocated"
	check_no_log 'handoff: leaving boot services|handing over' "$BOOT_LOG" "$tag: nothing handed over"
	check_log '^ptlab: [0-9]+ passed, [1-9][0-9]* failed' "$BOOT_LOG" "$tag: the report closed with the failure"
	check_log '^BdsDxe: No bootable option or device was found' "$BOOT_LOG" \
		"$tag: the firmware went on (its boot manager, to the next option)"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
}
judge_refused unsigned-kernel 'linux: kernel \\boot\\unsigned refused: '"$sbfail" \
	"Debian's kernel (signed by no key in db) refused by the firmware, with its status"
judge_refused flipped-kernel 'linux: kernel \\boot\\flipped refused: '"$sbfail" \
	"the signed kernel with one byte flipped refused by the firmware, with its status"
judge_refused unlisted-initrd 'linux: initrd \\boot\\other.img refused: Secure Boot: sha256 '"$other"' is not in the built-in digest list$' \
	"an initrd whose digest is not built in refused by the digest list, naming its SHA-256"
check_log '^# verify: file=\\boot\\vmlinuz kind=pe bytes=[0-9]+ by=firmware$' "$BOOT_LOG" \
	"unlisted-initrd: the signed kernel itself was accepted by the firmware first"
elf=$(sha256sum "$LIMINE_ELF" | cut -d' ' -f1)
judge_refused unlisted-elf 'limine: kernel \\boot\\limine.elf refused: Secure Boot: sha256 '"$elf"' is not in the built-in digest list$' \
	"a Limine-protocol ELF kernel (no PE image: only the digest list admits it) whose digest is not built in refused"

boot_wait
# judge_kernel TAG: handed over, the kernel's own log, /init's verdict
judge_kernel()
{
	local tag=$1 st
	boot_result "$tag"
	st=$?
	# a kernel locked down by Secure Boot refuses /init the exit port:
	# it powers off instead (status 0), and the kernel says why
	if log_has 'Lockdown: init: (ioperm|raw io port access) is restricted' "$BOOT_LOG"; then
		check_status "$st" 0 "$tag: the kernel reached /init, locked down: it powered off (status 0)"
	else
		check_status "$st" "$INIT_PASSED" "$tag: the kernel reached /init, which passed (status 0x20)"
	fi
	check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "$tag: ptlab handed over"
	check_log '^\[ *[0-9]+\.[0-9]+\] Linux version ' "$BOOT_LOG" "$tag: the kernel's own log on serial"
	check_log '^\[ *[0-9]+\.[0-9]+\] init: [1-9][0-9]* passed, 0 failed$' "$BOOT_LOG" \
		"$tag: /init ran its checks, all passed"
}
judge_kernel sb-linux
check_log '^# firmware: .*secure_boot=on setup_mode=0 ' "$BOOT_LOG" "sb-linux: ran with Secure Boot on"
check_log '^# verify: file=\\boot\\vmlinuz kind=pe bytes='"$(stat -c %s "$SIGNED_KERNEL")"' by=firmware$' \
	"$BOOT_LOG" "sb-linux: the signed kernel, all its bytes, accepted by the firmware (LoadImage)"
check_log '^# verify: file=\\boot\\initrd.img kind=digest bytes='"$(stat -c %s "$INITRD")"' by=digest entry=initrd.img \(one of [0-9]+ built in\)$' \
	"$BOOT_LOG" "sb-linux: the initrd accepted by its built-in digest"
# kernel_sb TAG STATE: with EFI information in the zero page (the kernel's
# "efi: EFI v..." line) the kernel reports Secure Boot as STATE
kernel_sb()
{
	if log_has '^\[ *[0-9]+\.[0-9]+\] efi: EFI v' "$BOOT_LOG"; then
		check_log "^\\[ *[0-9]+\\.[0-9]+\\] (secureboot: )?Secure boot $2\$" "$BOOT_LOG" \
			"$1: the kernel, booted with EFI information, finds Secure Boot $2"
	else
		echo "# $1: the kernel had no EFI information from ptlab: its Secure Boot state is not checked"
	fi
}
kernel_sb sb-linux enabled
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
judge_kernel nosb-linux
check_log '^# firmware: .*secure_boot=off ' "$BOOT_LOG" "nosb-linux: the same firmware, Secure Boot off"
check_log '^# secureboot: state=off shim=no via=none$' "$BOOT_LOG" \
	"nosb-linux: the report says nothing verified it"
check_log '^# verify: file=\\boot\\unsigned kind=pe bytes=[0-9]+ by=none: Secure Boot is off' \
	"$BOOT_LOG" "nosb-linux: the kernel not verified, and said so"
check_log '^# verify: file=\\boot\\other.img kind=digest bytes=[0-9]+ by=none: Secure Boot is off' \
	"$BOOT_LOG" "nosb-linux: the initrd not verified, and said so"
kernel_sb nosb-linux disabled
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30

boot_done
