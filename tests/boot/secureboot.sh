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
boot_bg signed --img "$SIGNED_IMG" --cfg "--end=qemu --iterations=5000" "${sb[@]}" \
	-- "${secure[@]}"
sock=$BOOT_DIR/unsigned.qmp
boot_bg unsigned --img "$PTLAB_IMG" --cfg "--end=qemu" "${sb[@]}" \
	-- "${secure[@]}" -qmp unix:"$sock",server=on,wait=off
# stop the refused boot as soon as the firmware has said so (only it says it)
for _ in $(seq 1 "$BOOT_TIMEOUT"); do
	sleep 1
	[ -e "$BOOT_DIR/unsigned.status" ] && break
	if grep -q 'Access Denied' "$BOOT_DIR"/run.*/serial.log 2>/dev/null; then
		sleep 2
		boot_quit unsigned "$sock"
		break
	fi
done
boot_wait

judge_passed signed
check_log '^# firmware: vendor="EDK II" .*secure_boot=on setup_mode=0 ' "$BOOT_LOG" \
	"signed: ran with Secure Boot on"
boot_result unsigned
check_log 'BdsDxe: failed to load .*Access Denied' "$BOOT_LOG" \
	"unsigned: the firmware refused it (Access Denied)"
check_no_log '^(ptlab|# |ok [0-9])' "$BOOT_LOG" "unsigned: not one line of ptlab"

boot_done
