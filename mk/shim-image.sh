#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/shim-image.sh OUT SIGNED_EFI CERT [ARGS]
#
# The disk image for a PC with Secure Boot on and Microsoft's keys only
# (make image SHIM=1): mk/image.sh's GPT disk whose EFI System partition
# holds, in \EFI\BOOT, Debian's signed shim as BOOTX64.EFI (the
# removable-media path; trusted through Microsoft's UEFI CA), shim's
# MokManager as mmx64.efi, the signed ptlab SIGNED_EFI as grubx64.efi
# (the second stage shim starts) and CERT, the certificate SIGNED_EFI was
# signed for, in DER as ptlab.der, the file to enrol in shim's MOK list
# (MokManager's "Enroll key from disk" lists it first in \EFI\BOOT);
# ARGS, when not empty, as \ptlab.cfg.  The files are copied one by one,
# in that order (the order MokManager's file browser shows them).
set -euo pipefail
export MTOOLS_SKIP_CHECK=1

out=$1 app=$2 cert=$3 args=${4-}
SHIM_DIR=${SHIM_DIR:-/usr/lib/shim}
shim=$SHIM_DIR/shimx64.efi.signed mm=$SHIM_DIR/mmx64.efi.signed

for f in "$shim" "$mm" "$app" "$cert"; do
	[ -r "$f" ] || { echo "ptlab: shim-image: cannot read $f (package shim-signed; make signed-image)" >&2; exit 1; }
done
work=$(mktemp -d "$out.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! openssl x509 -in "$cert" -outform DER -out "$work/ptlab.der" 2>"$work/err"; then
	echo "ptlab: shim-image: $cert is no PEM certificate: $(head -n 1 "$work/err")" >&2
	exit 1
fi
mkdir "$work/tree"
if [ -n "$args" ]; then
	printf '%s\n' "$args" >"$work/tree/ptlab.cfg"
fi
"$(dirname "$0")/image.sh" --tree "$work/disk.img" "$work/tree"
esp="$work/disk.img@@1M"
mmd -i "$esp" ::/EFI ::/EFI/BOOT
mcopy -i "$esp" "$work/ptlab.der" ::/EFI/BOOT/ptlab.der
mcopy -i "$esp" "$app" ::/EFI/BOOT/grubx64.efi
mcopy -i "$esp" "$mm" ::/EFI/BOOT/mmx64.efi
mcopy -i "$esp" "$shim" ::/EFI/BOOT/BOOTX64.EFI
mv -f "$work/disk.img" "$out"
