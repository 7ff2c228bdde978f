#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A PC as it ships: Secure Boot on with Microsoft's keys only (OVMF's
# Secure Boot build with OVMF_VARS_4M.ms.fd, SMM), Debian's signed shim
# as \EFI\BOOT\BOOTX64.EFI, its MokManager beside it and the signed ptlab
# as grubx64.efi with its certificate in DER (mk/shim-image.sh, what
# "make image SHIM=1" writes).  ptlab is signed with the build's key
# ($PTLAB_BUILD/ptlab-signed.efi, make signed-image, Debian's OVMF test
# key), which no key of Microsoft's firmware trusts.
#
#   enrol    before enrolment shim refuses ptlab ("Verification failed:
#            (0x1A) Security Violation") and not one line of ptlab comes;
#            shim then starts MokManager, which the test drives over the
#            serial console (tests/boot/serialchat.py): "Enroll key from
#            disk", the volume, \EFI\BOOT\ptlab.der, Continue, Yes,
#            Reboot (QEMU ends on the reboot).  The variable store it
#            leaves holds shim's MokList with the certificate's bytes; the
#            Microsoft store it started from does not.
#   after    the same store: shim starts ptlab, which passes its whole
#            suite with Secure Boot on and says it was verified through
#            shim ("# secureboot: state=on shim=yes via=shim")
#   other    ptlab signed by another key (made here) on the same store:
#            shim refuses it, not one line of ptlab
#   nosbat   ptlab signed by the enrolled key but without its .sbat
#            section: shim refuses it too (shim wants SBAT data); the
#            control, sbatcopy, made the same way with .sbat kept, runs
#   linux    after enrolment, --mode=handoff with Debian's signed kernel
#            (trusted through shim's built-in certificate), verified by
#            shim's SHIM_LOCK protocol ("# verify: ... by=shim"), and the
#            test initramfs (its digest built into the signed image): the
#            kernel runs on the checked tables, says "Secure boot enabled"
#            and its /init passes
#   unsigned, resigned  the same kernel with its signatures removed, and
#            re-signed by the other key alone: refused by shim with its
#            status before ExitBootServices, nothing handed over
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init shim

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/boot
SB_CODE=${OVMF_SB_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
MS_VARS=${OVMF_MS_VARS:-/usr/share/OVMF/OVMF_VARS_4M.ms.fd}
CERT=${PTLAB_CERT:-/usr/share/ovmf/PkKek-1-snakeoil.pem}
SHIM_DIR=${SHIM_DIR:-/usr/lib/shim}
SIGNED_EFI=$PTLAB_BUILD/ptlab-signed.efi
SIGNED_APP=$PTLAB_BUILD/signed/ptlab.efi
KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
INITRD=$PTLAB_BUILD/linux/initrd.img
LINUX_TIMEOUT=${LINUX_TIMEOUT:-400}
INIT_PASSED=65      # isa-debug-exit 0x20 from /init

for f in "$SHIM_DIR/shimx64.efi.signed" "$SHIM_DIR/mmx64.efi.signed" "$SIGNED_EFI" \
	"$SIGNED_APP" "$CERT" "$KERNEL" "$INITRD" "$SB_CODE" "$MS_VARS"; do
	if [ -z "$f" ] || [ ! -f "$f" ]; then
		fail "no file '$f' (packages shim-signed, ovmf, linux-image-cloud-amd64; make signed-image linux-initrd)"
		boot_done
		exit
	fi
done

sb=(--machine q35,smm=on --code "$SB_CODE" --cpu max --mem 1G)
secure=(-global driver=cfi.pflash01,property=secure,value=on)
NOT_PTLAB='^(ptlab|# [a-z-]+:|ok [0-9]|not ok [0-9])'

# ---- the images: the build's signed ptlab, and one signed by another key ----

# the other key: a fresh one, never enrolled anywhere
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout "$BOOT_DIR/other.key" \
	-out "$BOOT_DIR/other.pem" -days 30 -subj "/CN=ptlab shim test, not enrolled/" \
	>/dev/null 2>&1 || fail "openssl could not make the other key"
"$ROOT/mk/sign.sh" "$BOOT_DIR/other.key" "$BOOT_DIR/other.pem" "$SIGNED_APP" \
	"$BOOT_DIR/other.efi" "$BOOT_DIR/sign" >/dev/null || fail "mk/sign.sh: ptlab with the other key"
# without .sbat, signed by the key that will be enrolled: shim must refuse
# it for want of SBAT data alone; the control (sbatcopy) goes through the
# same objcopy and signing with .sbat kept, and shim starts it
# resign TAG [OBJCOPY OPTIONS]: $BOOT_DIR/TAG.efi, the signed build's
# application through objcopy, signed with the build's key
resign()
{
	local tag=$1
	shift
	objcopy "$@" "$SIGNED_APP" "$BOOT_DIR/$tag-unsigned.efi" &&
		KEY_PASS=${KEY_PASS:-snakeoil} "$ROOT/mk/sign.sh" \
		"${PTLAB_KEY:-/usr/share/ovmf/PkKek-1-snakeoil.key}" "$CERT" \
		"$BOOT_DIR/$tag-unsigned.efi" "$BOOT_DIR/$tag.efi" "$BOOT_DIR/sign" >/dev/null 2>&1 &&
		"$ROOT/mk/shim-image.sh" "$BOOT_DIR/$tag.img" "$BOOT_DIR/$tag.efi" "$CERT" "" ||
		fail "$tag: ptlab could not be signed or laid out (objcopy $*)"
}
resign nosbat --remove-section .sbat
resign sbatcopy
if objdump -h "$BOOT_DIR/nosbat.efi" | grep -q ' \.sbat ' ||
   ! objdump -h "$BOOT_DIR/sbatcopy.efi" | grep -q ' \.sbat '; then
	fail "nosbat/sbatcopy: .sbat not removed, or not kept"
fi
img=$BOOT_DIR/shim.img
"$ROOT/mk/shim-image.sh" "$img" "$SIGNED_EFI" "$CERT" "" || fail "mk/shim-image.sh"
"$ROOT/mk/shim-image.sh" "$BOOT_DIR/other.img" "$BOOT_DIR/other.efi" "$BOOT_DIR/other.pem" "" ||
	fail "mk/shim-image.sh (other key)"

# the layout: each file of \EFI\BOOT is its source's bytes, the certificate
# the PEM's in DER, in the order MokManager lists them
openssl x509 -in "$CERT" -outform DER -out "$BOOT_DIR/cert.der"
layout_ok=1
for pair in "ptlab.der:$BOOT_DIR/cert.der" "grubx64.efi:$SIGNED_EFI" \
	"mmx64.efi:$SHIM_DIR/mmx64.efi.signed" "BOOTX64.EFI:$SHIM_DIR/shimx64.efi.signed"; do
	name=${pair%%:*} src=${pair#*:}
	mcopy -n -i "$img@@$BOOT_ESP_OFFSET" "::/EFI/BOOT/$name" "$BOOT_DIR/got" 2>/dev/null &&
		cmp -s "$BOOT_DIR/got" "$src" || { layout_ok=0; echo "# \\EFI\\BOOT\\$name is not $src"; }
done
order=$(mdir -b -i "$img@@$BOOT_ESP_OFFSET" ::/EFI/BOOT | sed 's|.*/||' | tr '\n' ' ')
[ "$order" = "ptlab.der grubx64.efi mmx64.efi BOOTX64.EFI " ] ||
	{ layout_ok=0; echo "# \\EFI\\BOOT lists '$order'"; }
if [ "$layout_ok" = 1 ]; then
	pass "image: \\EFI\\BOOT holds shim, MokManager, the signed ptlab as grubx64.efi and its certificate in DER, in that order of listing"
else
	fail "image: the shim layout of \\EFI\\BOOT is wrong"
fi

# the kernels: Debian's signed one, it without signatures, it signed by the
# other key alone (mk/sign.sh --kernel removes Debian's first)
cp -- "$KERNEL" "$BOOT_DIR/unsigned"
chmod u+w "$BOOT_DIR/unsigned"
while sbverify --list "$BOOT_DIR/unsigned" 2>/dev/null | grep -q '^signature [0-9]'; do
	sbattach --remove "$BOOT_DIR/unsigned" >/dev/null || break
done
"$ROOT/mk/sign.sh" --kernel "$BOOT_DIR/other.key" "$BOOT_DIR/other.pem" "$KERNEL" \
	"$BOOT_DIR/resigned" "$BOOT_DIR/sign" >/dev/null || fail "mk/sign.sh --kernel: the other key"
if sbverify --list "$BOOT_DIR/unsigned" 2>&1 | grep -q '^No signature table present' &&
   [ "$(sbverify --list "$BOOT_DIR/resigned" 2>/dev/null | grep -c '^signature [0-9]')" = 1 ]; then
	pass "kernels: Debian's kernel without its signatures, and signed by the other key alone"
else
	fail "kernels: unsigned or re-signed copy wrong: $(sbverify --list "$BOOT_DIR/unsigned" 2>&1 | head -n 2 | tr '\n' ' ')"
fi
kimg=$BOOT_DIR/kernels.img
cp -- "$img" "$kimg"
mmd -i "$kimg@@$BOOT_ESP_OFFSET" ::/boot
for pair in "vmlinuz:$KERNEL" "unsigned:$BOOT_DIR/unsigned" "resigned:$BOOT_DIR/resigned" \
	"initrd.img:$INITRD"; do
	mcopy -i "$kimg@@$BOOT_ESP_OFFSET" "${pair#*:}" "::/boot/${pair%%:*}"
done

# ---- enrol: refused, then MokManager over the serial console ---------------

ENROLLED=$BOOT_DIR/enrolled.fd
pipe=$BOOT_DIR/enrol.com1
boot_bg enrol --img "$img" --log "$BOOT_DIR/enrol.log" --cfg "--end=qemu --iterations=5000" \
	"${sb[@]}" --vars "$MS_VARS" --vars-keep "$ENROLLED" --timeout 300 --serial-pipe "$pipe" \
	-- "${secure[@]}" -qmp unix:"$BOOT_DIR/enrol.qmp",server=on,wait=off
python3 "$HERE/serialchat.py" --wait 60 --log "$BOOT_DIR/enrol.log" "$BOOT_DIR/enrol.qmp" "$pipe" \
	'expect:180:Verification failed: \(0x1A\) Security Violation' key:enter \
	'expect:60:Press any key to perform MOK management' key:enter \
	'expect:30:Enroll hash from disk' key:down key:enter \
	'expect:30:PTLAB' key:enter \
	'expect:30:EFI/' key:enter \
	'expect:30:BOOT/' key:down key:enter \
	'expect:30:BOOTX64\.EFI' key:down key:enter \
	'expect:30:View key 0' 'expect:10:Continue' key:down key:enter \
	'expect:30:Enroll the key\(s\)\?' 'expect:10:Yes' key:down key:enter \
	'expect:30:Perform MOK management' 'expect:10:Reboot' key:enter \
	'expect:60:QEMU-NEVER-PRINTS-THIS' >"$BOOT_DIR/enrol.chat" 2>&1
chat=$?
boot_wait
boot_result enrol >/dev/null
BOOT_LOG=$BOOT_DIR/enrol.log
# every step done, then the reboot ended QEMU before the last expect
if [ "$chat" = 1 ] && grep -q 'serialchat: pressed enter' "$BOOT_DIR/enrol.chat" &&
   [ "$(grep -c '^serialchat: saw ' "$BOOT_DIR/enrol.chat")" = 13 ] &&
   grep -q 'QEMU-NEVER-PRINTS-THIS/: QEMU ended' "$BOOT_DIR/enrol.chat"; then
	pass "enrol: MokManager driven over serial: enrol key from disk, ptlab.der, Continue, Yes, Reboot (QEMU ended)"
else
	fail "enrol: MokManager was not driven to the end (serialchat status $chat)"
	sed 's/^/# /' "$BOOT_DIR/enrol.chat" | grep -v '^# serialchat: | *$' | tail -n 20
fi
check_log 'Verification failed: \(0x1A\) Security Violation' "$BOOT_LOG" \
	"before enrolment: shim refuses ptlab (Verification failed: (0x1A) Security Violation)"
check_no_log "$NOT_PTLAB" "$BOOT_LOG" "before enrolment: not one line of ptlab"
# MokList in the store: its name (UCS-2) and the certificate's DER bytes
in_store()
{
	python3 -c '
import sys
store = open(sys.argv[1], "rb").read()
der = open(sys.argv[2], "rb").read()
sys.exit(0 if der in store and "MokList".encode("utf-16-le") in store else 1)' "$1" "$BOOT_DIR/cert.der"
}
if [ -f "$ENROLLED" ] && in_store "$ENROLLED" && ! in_store "$MS_VARS"; then
	pass "enrol: the variable store holds MokList with the certificate's bytes (Microsoft's store did not)"
else
	fail "enrol: no MokList with the certificate in the store the enrolment left"
	boot_done
	exit
fi

# ---- after enrolment -------------------------------------------------------

# refused_bg TAG IMG: a boot of IMG on the enrolled store that shim
# refuses; stopped once shim has said so (its message waits for a key)
refused_bg()
{
	boot_bg "$1" --img "$2" --log "$BOOT_DIR/$1.log" --cfg "--end=qemu" "${sb[@]}" \
		--vars "$ENROLLED" -- "${secure[@]}" -qmp unix:"$BOOT_DIR/$1.qmp",server=on,wait=off
}
# refused_wait TAG...: until each has been refused (and stopped) or has ended
refused_wait()
{
	local t left=("$@") now
	for _ in $(seq 1 "$BOOT_TIMEOUT"); do
		now=()
		for t in "${left[@]}"; do
			if [ -e "$BOOT_DIR/$t.status" ]; then
				continue
			elif grep -q 'Verification failed' "$BOOT_DIR/$t.log" 2>/dev/null; then
				sleep 2
				boot_quit "$t" "$BOOT_DIR/$t.qmp"
			else
				now+=("$t")
			fi
		done
		[ "${#now[@]}" = 0 ] && return 0
		left=("${now[@]}")
		sleep 1
	done
}
# judge_refused TAG DESC: shim refused the image, nothing of ptlab ran
judge_refused()
{
	boot_result "$1" >/dev/null
	check_log 'Verification failed: \(0x1A\) Security Violation' "$BOOT_LOG" "$1: $2"
	check_no_log "$NOT_PTLAB" "$BOOT_LOG" "$1: not one line of ptlab"
}

boot_bg after --img "$img" --cfg "--end=qemu --iterations=5000" "${sb[@]}" --vars "$ENROLLED" \
	-- "${secure[@]}"
refused_bg other "$BOOT_DIR/other.img"
refused_wait other
boot_bg sbatcopy --img "$BOOT_DIR/sbatcopy.img" --cfg "--end=qemu --iterations=2000" "${sb[@]}" \
	--vars "$ENROLLED" -- "${secure[@]}"
boot_wait

judge_passed after
check_log '^# firmware: vendor="EDK II" .*secure_boot=on setup_mode=0 ' "$BOOT_LOG" \
	"after: ran with Secure Boot on"
check_log '^# secureboot: state=on shim=yes via=shim$' "$BOOT_LOG" \
	"after: the report says shim started and verified it"
judge_refused other "ptlab signed by a key not enrolled is refused by shim"
boot_result sbatcopy
check_status $? 33 "sbatcopy: the control (objcopy and signed again, .sbat kept) started by shim, passed"
check_log '^# secureboot: state=on shim=yes via=shim$' "$BOOT_LOG" "sbatcopy: verified through shim"

# ---- Debian's signed kernel through shim -----------------------------------

# no_timer_check: on a loaded host TCG may miss the kernel's IO-APIC timer
# check, which then panics ("IO-APIC + timer doesn't work")
cmd="console=ttyS0 panic=-1 printk.devkmsg=on no_timer_check ptlab.cpus=1 ptlab.la57=1"
boot_bg linux --img "$kimg" --cfg "--mode=handoff --end=qemu --iterations=2000 \
--kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img \"--cmdline=$cmd ptlab.boot=shim-linux\"" \
	"${sb[@]}" --vars "$ENROLLED" --timeout "$LINUX_TIMEOUT" -- "${secure[@]}"
boot_bg unsigned --img "$kimg" --cfg "--mode=handoff --end=qemu --iterations=2000 --kernel=\\boot\\unsigned" \
	"${sb[@]}" --vars "$ENROLLED" -- "${secure[@]}"
boot_wait
boot_bg resigned --img "$kimg" --cfg "--mode=handoff --end=qemu --iterations=2000 --kernel=\\boot\\resigned" \
	"${sb[@]}" --vars "$ENROLLED" -- "${secure[@]}"
refused_bg nosbat "$BOOT_DIR/nosbat.img"

boot_result linux
st=$?
# a kernel locked down by Secure Boot refuses /init the exit port: it
# powers off instead (status 0), and the kernel says why
if log_has 'Lockdown: init: (ioperm|raw io port access) is restricted' "$BOOT_LOG"; then
	check_status "$st" 0 "linux: the kernel reached /init, locked down: it powered off (status 0)"
else
	check_status "$st" "$INIT_PASSED" "linux: the kernel reached /init, which passed (status 0x20)"
fi
check_log '^# secureboot: state=on shim=yes via=shim$' "$BOOT_LOG" "linux: started by shim, Secure Boot on"
check_log '^# verify: file=\\boot\\vmlinuz kind=pe bytes='"$(stat -c %s "$KERNEL")"' by=shim$' \
	"$BOOT_LOG" "linux: Debian's signed kernel, all its bytes, accepted by shim (SHIM_LOCK Verify)"
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "linux: ptlab handed over"
check_log '^\[ *[0-9]+\.[0-9]+\] (secureboot: )?Secure boot enabled$' "$BOOT_LOG" \
	"linux: the kernel says Secure boot enabled"
check_log '^\[ *[0-9]+\.[0-9]+\] init: [1-9][0-9]* passed, 0 failed$' "$BOOT_LOG" \
	"linux: /init ran its checks, all passed"
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30

refused_wait nosbat
boot_wait
judge_refused nosbat "ptlab signed by the enrolled key but without .sbat is refused by shim"
shimfail='Secure Boot: shim refuses it \(SHIM_LOCK Verify\): status 0x8000000000000(01a \(EFI_SECURITY_VIOLATION\)|00f \(EFI_ACCESS_DENIED\))$'
for tag in unsigned resigned; do
	boot_result "$tag"
	st=$?
	check_status "$st" 35 "$tag: the run failed (status 0x11)"
	check_log "^not ok [0-9]+ - linux: kernel \\\\boot\\\\$tag refused: $shimfail" "$BOOT_LOG" \
		"$tag: the kernel refused by shim, with its status"
	check_log '^# handoff: boot services kept: the kernel was refused before ExitBootServices' \
		"$BOOT_LOG" "$tag: refused before ExitBootServices"
	check_no_log 'handoff: leaving boot services|handing over' "$BOOT_LOG" "$tag: nothing handed over"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
done

boot_done
