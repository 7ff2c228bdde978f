#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/initramfs.sh OUT INIT BUSYBOX [EFIVARFS]
#
# The initramfs of the Linux hand-off test: INIT (a static program) as
# /init and BUSYBOX (busybox-static's) as /bin/busybox, and the kernel's
# efivarfs module EFIVARFS (when given and present) as /efivarfs.ko for
# /init to load, in an uncompressed newc cpio archive owned by root.  No
# root needed to build it.
set -euo pipefail

out=$1 init=$2 busybox=$3 efivarfs=${4:-}
root=$(mktemp -d "$out.root.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys"
install -m 0755 "$init" "$root/init"
install -m 0755 "$busybox" "$root/bin/busybox"
if [ -n "$efivarfs" ] && [ -f "$efivarfs" ]; then
	install -m 0644 "$efivarfs" "$root/efivarfs.ko"
fi
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv -f "$out.tmp" "$out"
