#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/image.sh OUT APP STARTUP_NSH [ARGS]
# mk/image.sh --tree OUT DIR
#
# Build a GPT disk image holding one FAT32 EFI System partition at 1 MiB
# with APP as \EFI\BOOT\BOOTX64.EFI (the removable-media path firmware boots
# without a boot entry), STARTUP_NSH as \startup.nsh and, when ARGS is not
# empty, ARGS as \ptlab.cfg.  With --tree, the partition holds what the
# directory DIR holds (an ESP laid out as on a disk).  No root, no loop
# devices.
set -euo pipefail

tree=
if [ "${1-}" = --tree ]; then
	out=$2 tree=$3
else
	out=$1 app=$2 nsh=$3 args=${4-}
fi

SIZE_MIB=${PTLAB_IMG_MIB:-64}
SECTOR=512
START=2048                                  # 1 MiB
TOTAL=$((SIZE_MIB * 1024 * 1024 / SECTOR))
# The backup GPT takes the last 33 sectors; end the partition on a 1 MiB
# boundary below it.
PART=$(( (TOTAL - 34 - START) / 2048 * 2048 ))

export MTOOLS_SKIP_CHECK=1
tmp="$out.tmp.$$"
trap 'rm -f "$tmp" "$tmp.cfg"' EXIT

rm -f "$tmp"
truncate -s "${SIZE_MIB}M" "$tmp"
printf 'label: gpt\nstart=%d, size=%d, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI System"\n' \
	"$START" "$PART" | sfdisk --quiet --no-reread --no-tell-kernel "$tmp" >/dev/null

img="$tmp@@$((START * SECTOR))"
mformat -i "$img" -F -T "$PART" -h 64 -s 32 -v PTLAB ::
if [ -n "$tree" ]; then
	if [ -n "$(ls -A -- "$tree")" ]; then
		mcopy -s -i "$img" "$tree"/* ::/
	fi
	mv -f "$tmp" "$out"
	exit 0
fi
mmd -i "$img" ::/EFI ::/EFI/BOOT
mcopy -i "$img" "$app" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$img" "$nsh" ::/startup.nsh
if [ -n "$args" ]; then
	printf '%s\n' "$args" >"$tmp.cfg"
	mcopy -i "$img" "$tmp.cfg" ::/ptlab.cfg
fi
mv -f "$tmp" "$out"
