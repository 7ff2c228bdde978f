#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Check the Debian packages ptlab needs; install the missing ones when
# running as root with apt-get, otherwise say what to install and fail.
# Prints nothing and calls no package tool but dpkg-query when all are there.
set -euo pipefail

PKGS=(make gcc libc6-dev binutils gnu-efi ovmf qemu-system-x86 mtools fdisk
      dosfstools libcmocka-dev clang libclang-rt-14-dev sbsigntool python3 pkgconf
      chromium librsvg2-bin xfonts-terminus u-boot-qemu openssl grub-efi-amd64-bin
      grub-common systemd-boot-efi linux-image-cloud-amd64 busybox-static cpio
      initramfs-tools memtest86+)

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "ptlab: dpkg-query not found, not checking packages (need: ${PKGS[*]})" >&2
	exit 0
fi

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "ptlab: installing missing packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y --no-install-recommends "${missing[@]}"
	exit 0
fi

echo "ptlab: missing packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
exit 1
