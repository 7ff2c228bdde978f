#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/initramfs.sh OUT INIT BUSYBOX
#
# The initramfs of the Linux hand-off test: INIT (a static program) as
# /init and BUSYBOX (busybox-static's) as /bin/busybox, in an uncompressed
# newc cpio archive owned by root.  No root needed to build it.
set -euo pipefail

out=$1 init=$2 busybox=$3
root=$(mktemp -d "$out.root.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys"
install -m 0755 "$init" "$root/init"
install -m 0755 "$busybox" "$root/bin/busybox"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv -f "$out.tmp" "$out"
