#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/data/memmap/capture.sh [SIZE...]
#
# Boot the application under QEMU/OVMF (q35, -cpu max) with
# "--dump-memmap --end=qemu" once per memory size (default 256M 2G 8G 16G)
# and turn the "# memmap-raw:" lines of the serial log into
# tests/data/memmap/ovmf-SIZE.txt and, through txt2bin.py (48-byte
# descriptors, as OVMF), ovmf-SIZE.bin.  The map is the final one the
# application read, after its own allocations.
#
# Environment: PTLAB_BUILD (default build) and PTLAB_IMG as for the boot
# tests; build the image first (make BUILD=... image).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
cd "$top" || exit 1
. tests/boot/lib.sh

[ $# -gt 0 ] || set -- 256M 2G 8G 16G
boot_init capture
status=0
# isa-debug-exit: the application writes 0x10 when everything passed.
pass_status=33
for mem in "$@"; do
	txt=$here/ovmf-$mem.txt
	boot_run --cpu max --mem "$mem" --cfg "--dump-memmap --end=qemu"
	st=$?
	if [ "$st" -ne "$pass_status" ]; then
		echo "capture: $mem: QEMU exit status $st, expected $pass_status" >&2
		status=1
		continue
	fi
	{
		echo "# OVMF memory map of a q35 guest, -cpu max -m $mem, as GetMemoryMap"
		echo "# returned it to ptlab (final map, after its allocations)."
		echo "# Made by capture.sh from the '# memmap-raw:' lines of the serial log."
		echo "# TYPE START PAGES ATTRIBUTE"
		log_clean "$BOOT_LOG" |
			sed -n 's/^# memmap-raw: type=\([0-9]*\) pa=\(0x[0-9a-f]*\) pages=\(0x[0-9a-f]*\) attr=\(0x[0-9a-f]*\)$/\1 \2 \3 \4/p'
	} >"$txt.tmp"
	n=$(grep -vc '^#' "$txt.tmp")
	if [ "$n" -eq 0 ]; then
		echo "capture: $mem: no memmap-raw lines in $BOOT_LOG" >&2
		rm -f "$txt.tmp"
		BOOT_FAIL=1
		status=1
		continue
	fi
	mv "$txt.tmp" "$txt"
	python3 "$here/txt2bin.py" "$txt" "${txt%.txt}.bin" 48 || status=1
	echo "capture: $mem: $n descriptors -> ${txt#"$top"/} and .bin"
done
exit $status
