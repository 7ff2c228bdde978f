#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/install-esp.sh DIR APP [OPTIONS]
#
# Copy APP to DIR/EFI/ptlab/ptlab.efi (DIR: a mounted EFI System Partition,
# or a scratch directory standing in for one) and write beside it the two
# boot-menu entries that start it with OPTIONS (default --end=return):
#
#   DIR/EFI/ptlab/ptlab.conf      a systemd-boot entry: copy it to
#                                 DIR/loader/entries/
#   DIR/EFI/ptlab/grub.40_custom  a GRUB menu entry: append it to
#                                 /etc/grub.d/40_custom, then update-grub
#
# Writes nothing but those three files (and the directories above them).
set -euo pipefail

dir=$1 app=$2 opts=${3---end=return}
if [ -z "$dir" ]; then
	echo "install-esp: ESP=DIR is required (the EFI System Partition, e.g. /boot/efi)" >&2
	exit 2
fi
case $opts in
*[\'\"\\\;\&\|\$\`]*)
	echo "install-esp: MENU_ARGS may not hold quotes, backslashes or shell characters: $opts" >&2
	exit 2 ;;
esac

dest=$dir/EFI/ptlab
install -d -- "$dest"
install -m 644 -- "$app" "$dest/ptlab.efi"

cat >"$dest/ptlab.conf" <<CONF
title   ptlab: page-table checks
efi     /EFI/ptlab/ptlab.efi
options $opts
CONF

cat >"$dest/grub.40_custom" <<GRUB
menuentry 'ptlab: page-table checks' {
	insmod part_gpt
	insmod fat
	insmod chain
	search --no-floppy --file --set=root /EFI/ptlab/ptlab.efi
	chainloader /EFI/ptlab/ptlab.efi $opts
}
GRUB
chmod 644 "$dest/ptlab.conf" "$dest/grub.40_custom"
echo "install-esp: $dest/ptlab.efi, ptlab.conf (systemd-boot entry), grub.40_custom (GRUB entry)"
