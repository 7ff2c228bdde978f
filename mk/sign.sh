#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/sign.sh [--kernel] KEY CERT IN OUT WORKDIR
#
# Sign the UEFI application IN for Secure Boot with sbsign into OUT and
# check the result with sbverify.  The PE is stripped first: the symbol
# table objcopy leaves after the last section is what sbsign would warn
# about ("gaps between PE/COFF sections"), and any sbsign warning fails
# the build.  With --kernel, IN is a Linux bzImage (a PE through its EFI
# stub): not stripped (it has no symbol table, and objcopy does not know
# its layout), its own signatures removed first, so OUT carries KEY's
# signature only.  An encrypted KEY (Debian's OVMF test key, password
# "snakeoil", or KEY_PASS) is decrypted into WORKDIR with mode 0600, since
# sbsign cannot ask for a password without a terminal.
set -euo pipefail

kernel=0
if [ "${1-}" = --kernel ]; then
	kernel=1
	shift
fi
key=$1 cert=$2 in=$3 out=$4 work=$5
SNAKEOIL_KEY=/usr/share/ovmf/PkKek-1-snakeoil.key
SNAKEOIL_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem

for f in "$key" "$cert" "$in"; do
	[ -r "$f" ] || { echo "ptlab: sign: cannot read $f" >&2; exit 1; }
done
mkdir -p "$work"

if cmp -s "$cert" "$SNAKEOIL_CERT" || [ "$(realpath "$key")" = "$SNAKEOIL_KEY" ]; then
	cat >&2 <<'WARN'
************************************************************************
* WARNING: signing with Debian's OVMF TEST key (PkKek-1-snakeoil).     *
* Its private key is public: anyone can sign anything with it.  The    *
* image boots only on firmware that trusts this test key (OVMF with    *
* OVMF_VARS_4M.snakeoil.fd).  Never enrol this certificate on a real   *
* machine; use KEY=... CERT=... with a key of your own.                *
************************************************************************
WARN
fi

if grep -q 'ENCRYPTED' "$key"; then
	plain=$work/key.pem
	rm -f "$plain"
	(umask 077 && openssl pkey -in "$key" -passin "pass:${KEY_PASS:-snakeoil}" -out "$plain") ||
		{ echo "ptlab: sign: cannot decrypt $key (set KEY_PASS)" >&2; exit 1; }
	chmod 0600 "$plain"
	key=$plain
fi

if [ "$kernel" = 1 ]; then
	cp -- "$in" "$work/unsigned.efi"
	chmod u+w "$work/unsigned.efi"
	while sbverify --list "$work/unsigned.efi" 2>/dev/null | grep -q '^signature [0-9]'; do
		sbattach --remove "$work/unsigned.efi" >/dev/null
	done
else
	objcopy --strip-all "$in" "$work/unsigned.efi"
fi
if ! sbsign --key "$key" --cert "$cert" --output "$out.tmp" "$work/unsigned.efi" \
	>"$work/sbsign.log" 2>&1; then
	cat "$work/sbsign.log" >&2
	exit 1
fi
if grep -qi 'warning' "$work/sbsign.log"; then
	echo "ptlab: sign: sbsign warned:" >&2
	cat "$work/sbsign.log" >&2
	rm -f "$out.tmp"
	exit 1
fi
sbverify --cert "$cert" "$out.tmp" >/dev/null
mv -f "$out.tmp" "$out"
echo "  SIGNED   $out ($(basename "$cert"))"
