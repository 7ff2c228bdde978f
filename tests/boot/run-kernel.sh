#!/bin/bash
# SPDX-License-Identifier: MIT
#
# "make run KERNEL=... CMDLINE=..." with Debian's cloud kernel, from a
# fresh build directory and no initrd (tests/boot/linuxref.sh boots the
# same kernel with Debian's initramfs): make run's verdict passes and says
# it handed over, the kernel prints its banner and the command line byte
# for byte, and panics for want of a root (panic=-1 and -no-reboot end
# QEMU); the kernel on the run image is KERNEL; a command line with a
# newline is refused with its reason, the run image left as it was and
# nothing booted.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init run-kernel

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=$(debian_kernel)
need_files "package linux-image-cloud-amd64" "$KERNEL"
REF_TIMEOUT=${LINUXREF_TIMEOUT:-420}

# The command line carries what a tokenizer or a shell could take apart:
# '#', '\', '$', a single quote, a double blank, quotes, a backslash before
# a quote and one at the end.  no_timer_check: on a loaded host TCG's timer
# can fail the kernel's IO-APIC timer check, which then panics (every
# kernel boot here has it, the stub's included).
MKRUN_CMDLINE='console=ttyS0 panic=-1 no_timer_check ptlab.text=a#b\c$HOME'"'"'d  e ptlab.q="u v" ptlab.bq="w\" ptlab.end=z\'
mkrun=$BOOT_DIR/mkrun
mkdir -p "$mkrun"
# timeout(1) leads a process group of its own: its id, recorded, lets an
# interrupted suite end make and its QEMU too
(
	cd "$ROOT" &&
	exec env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS timeout -k 10 "$REF_TIMEOUT" \
		make -j2 BUILD="$mkrun/build" run KERNEL="$KERNEL" "CMDLINE=$MKRUN_CMDLINE" \
		ARGS=--iterations=2000
) </dev/null >"$mkrun/out" 2>&1 &
mkpid=$!
echo "$mkpid" >>"$BOOT_PIDS"
wait "$mkpid"
mkst=$?

st=$mkst
serial=$mkrun/build/serial.log
if [ "$st" = 0 ] && tail -n 1 "$mkrun/out" | grep -qE '^ptlab: verdict: pass - '; then
	pass "mkrun: make run KERNEL=... exited 0 with the verdict pass"
else
	fail "mkrun: make run KERNEL=... exit status '$st', last line '$(tail -n 1 "$mkrun/out")'"
	tail -n 30 "$mkrun/out" | sed 's/^/# /'
fi
if grep -qE '^ptlab: handed over to Linux; the kernel wrote [1-9][0-9]* line\(s\)' "$mkrun/out"; then
	pass "mkrun: the verdict says ptlab handed over to Linux"
else
	fail "mkrun: no 'handed over to Linux' in make run's output"
fi
if [ -f "$serial" ]; then
	check_log '^\[ *[0-9.]+\] Linux version [0-9]' "$serial" "mkrun: the kernel printed its banner"
	check_cmdline "$serial" "$MKRUN_CMDLINE" "mkrun: the kernel's command line is CMDLINE byte for byte"
	check_log 'Kernel panic - not syncing: VFS: Unable to mount root fs' "$serial" \
		"mkrun: without an initrd the kernel ran to its panic for a root file system"
else
	fail "mkrun: no serial log $serial"
fi
onimg=$mkrun/vmlinuz
if img_extract "$mkrun/build/run.img" linux/vmlinuz "$onimg" 2>/dev/null &&
   cmp -s "$onimg" "$KERNEL"; then
	pass "mkrun: \\linux\\vmlinuz on the run image is KERNEL"
else
	fail "mkrun: \\linux\\vmlinuz on the run image is not KERNEL"
fi
# a command line \ptlab.cfg cannot carry: refused, nothing booted or written
if [ -f "$mkrun/build/run.img" ]; then
	before=$(md5sum <"$mkrun/build/run.img")
	touch "$mkrun/build/serial.log"
	(cd "$ROOT" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS timeout 120 \
		make BUILD="$mkrun/build" run KERNEL="$KERNEL" CMDLINE=$'console=ttyS0\nquiet' \
		</dev/null >"$mkrun/refused" 2>&1)
	st=$?
	if [ "$st" != 0 ] && grep -q "image: CMDLINE holds a character ptlab cannot take (a newline" "$mkrun/refused" &&
	   [ "$(md5sum <"$mkrun/build/run.img")" = "$before" ] && [ -f "$mkrun/build/serial.log" ] &&
	   ! grep -q qemu-system "$mkrun/refused"; then
		pass "mkrun: a newline in CMDLINE refused with its reason (status $st), the run image unchanged, nothing booted"
	else
		fail "mkrun: CMDLINE with a newline: status $st, run image $( [ "$(md5sum <"$mkrun/build/run.img")" = "$before" ] && echo unchanged || echo changed)"
		tail -n 5 "$mkrun/refused" | sed 's/^/# /'
	fi
else
	fail "mkrun: no run image to refuse a command line on"
fi


boot_done
