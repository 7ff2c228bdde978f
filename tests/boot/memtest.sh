#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Debian's unmodified memtest86+x64.bin (package memtest86+: the Linux boot
# protocol 2.12, 64-bit entry, not relocatable) handed over by ptlab with
# console=ttyS0,115200: its screen on the serial port (escape sequences
# stripped, a cursor move starting a line: tests/boot/serialchat.py) shows
# it started and runs test #0 with 0 errors, and no Errors: count it drew
# is other than 0.  serialchat ends QEMU once it has seen that.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init memtest

HERE=$(cd "$(dirname "$0")" && pwd)
MEMTEST=${MEMTEST:-/boot/memtest86+x64.bin}
BOOT_TIMEOUT=${LINUXREF_TIMEOUT:-420}
# what the boot may take until its first expected line (QEMU's own limit is
# BOOT_TIMEOUT, a little longer)
WAIT=$((BOOT_TIMEOUT - 60))
need_files "package memtest86+" "$MEMTEST"
echo "# $MEMTEST"

img=$BOOT_DIR/memtest.img
cp -- "$PTLAB_IMG" "$img"
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
img_put "$img" "$MEMTEST" /boot/memtest.bin

chat_bg memtest --img "$img" --cpu max --mem 2G --cfg "--mode=handoff --end=qemu \
--iterations=2000 --kernel=\\boot\\memtest.bin \"--cmdline=console=ttyS0,115200\"" \
	-- 'expect:'$WAIT':Memtest86\+ v[0-9]' 'expect:120:#0 +\[Address test, walking ones' \
	'expect:120:Status: Testing' 'expect:120:Pass: +0 +Errors: 0 *$'
boot_wait

boot_result memtest
fails=$BOOT_FAIL
judge_chat memtest "memtest86+x64.bin started on ptlab's hand-off and runs test #0 with 0 errors"
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "memtest: ptlab handed over"
if python3 -c '
import re, sys
sys.path.insert(0, sys.argv[1])
import serialchat
lines = serialchat.clean(open(sys.argv[2], "rb").read())
# the count as drawn (the last field may be cut short by the quit)
errs = [int(m.group(1)) for m in (re.search(r"Errors: +([0-9]+)", l) for l in lines) if m]
bad = [n for n in errs if n]
print(f"{len(errs)} Errors: counts, {len(bad)} not 0")
sys.exit(1 if bad or not errs else 0)' "$HERE" "$BOOT_LOG" >"$BOOT_DIR/memtest.errs"; then
	pass "memtest: every Errors: count it drew is 0 ($(cat "$BOOT_DIR/memtest.errs"))"
else
	fail "memtest: $(cat "$BOOT_DIR/memtest.errs")"
fi
# its screen, cleaned as serialchat reads it (a cursor move starts a line)
if [ "$BOOT_FAIL" -gt "$fails" ]; then
	python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import serialchat
for l in serialchat.clean(open(sys.argv[2], "rb").read())[-15:]:
    print("# " + l)' "$HERE" "$BOOT_LOG"
fi


boot_done
