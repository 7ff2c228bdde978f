#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ptlab booted over the network: OVMF's PXE boot on QEMU's user network
# (its DHCP names the boot file, its TFTP server serves a directory of the
# test's own), no disk at all.
#
#   tftp     ptlab.efi and a ptlab.cfg on the server: ptlab reads its
#            options from the server (from=cfg), says it has no boot
#            volume and so no report file (file=none), and its whole
#            report, passed, comes over the serial port; QEMU's exit
#            status is the pass verdict's
#   kernel   --kernel=\boot\vmlinuz read from the same server: Debian's
#            kernel, its size as on the server, handed over, its banner
#            and its command line byte for byte, its panic for want of a
#            root (panic=-1 ends QEMU)
#   missing  --kernel naming a file the server lacks: refused before
#            ExitBootServices with the server's own "not found"
#   dir      --kernel=\boot, a directory of the server, and dirsep with
#            --kernel=\boot\: refused at once as a directory (the server
#            gave its size and then timed the transfer out, status
#            EFI_TIMEOUT, after about a minute)
#   refused  an unknown option in the server's ptlab.cfg: the refusal says
#            there is no report file rather than pointing to \PTLAB.TXT
#            (QEMU stopped through QMP once the line is out)
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init netboot

KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
NET_TIMEOUT=${NETBOOT_TIMEOUT:-300}
CMDLINE='console=ttyS0 panic=-1 no_timer_check ptlab.net=tftp'
if [ -z "$KERNEL" ] || [ ! -f "$KERNEL" ]; then
	fail "no kernel '$KERNEL' (package linux-image-cloud-amd64)"
	boot_done
	exit
fi

# serve TAG CFG: a TFTP directory for boot TAG with ptlab.efi (the
# image's own BOOTX64.EFI), the kernel as boot/vmlinuz and CFG as ptlab.cfg
serve()
{
	local dir=$BOOT_DIR/$1.tftp
	mkdir -p "$dir/boot"
	img_extract "$PTLAB_IMG" EFI/BOOT/BOOTX64.EFI "$dir/ptlab.efi" ||
		fail "$1: no BOOTX64.EFI on $PTLAB_IMG"
	cp -- "$KERNEL" "$dir/boot/vmlinuz"
	printf '%s\n' "$2" >"$dir/ptlab.cfg"
	echo "$dir"
}

boot_bg tftp --tftp "$(serve tftp '--end=qemu --iterations=2000')" --bootfile ptlab.efi \
	--cpu max --mem 1G --timeout "$NET_TIMEOUT"
boot_bg kernel --tftp "$(serve kernel "--mode=handoff --end=qemu --iterations=2000 \
--kernel=\\boot\\vmlinuz \"--cmdline=$CMDLINE\"")" --bootfile ptlab.efi \
	--cpu max --mem 1G --timeout "$NET_TIMEOUT"
boot_bg missing --tftp "$(serve missing '--mode=handoff --end=qemu --iterations=2000 --kernel=\boot\nothere')" \
	--bootfile ptlab.efi --cpu max --mem 1G --timeout "$NET_TIMEOUT"
boot_wait
boot_bg dir --tftp "$(serve dir '--mode=handoff --end=qemu --iterations=2000 --kernel=\boot')" --bootfile ptlab.efi \
	--cpu max --mem 1G --timeout "$NET_TIMEOUT"
boot_bg dirsep --tftp "$(serve dirsep '--mode=handoff --end=qemu --iterations=2000 --kernel=\boot\')" \
	--bootfile ptlab.efi --cpu max --mem 1G --timeout "$NET_TIMEOUT"
refused_log=$BOOT_DIR/refused.serial
: >"$refused_log"
boot_bg refused --tftp "$(serve refused '--end=qemu --no-such-option')" --bootfile ptlab.efi \
	--cpu max --mem 1G --timeout "$NET_TIMEOUT" --log "$refused_log" \
	-- -qmp "unix:$BOOT_DIR/refused.qmp,server=on,wait=off"
# the refused run goes back to the firmware, which goes on: stop it once ptlab has said why
for _ in $(seq 1 "$NET_TIMEOUT"); do
	log_clean "$refused_log" | grep -q '^ptlab: refused: ' && break
	[ -e "$BOOT_DIR/refused.status" ] && break
	sleep 1
done
sleep 2
boot_quit refused "$BOOT_DIR/refused.qmp"
boot_wait

# the facts every network boot shows
judge_net()
{
	local tag=$1
	check_log '^ptlab: no boot volume \(loaded from the TFTP server 10\.0\.2\.2 \(boot file ptlab\.efi\)\): no report file' \
		"$BOOT_LOG" "$tag: ptlab says it has no boot volume, and so no report file"
	check_log '^# run: number=[0-9]+ file=none$' "$BOOT_LOG" "$tag: # run: names no report file"
	check_log '^# network boot from the TFTP server 10\.0\.2\.2 \(boot file ptlab\.efi\): .* options from its ptlab\.cfg;' \
		"$BOOT_LOG" "$tag: the report names the server and the options it fetched from it"
	check_log '^# options: .* iterations=2000 .* from=cfg$' "$BOOT_LOG" \
		"$tag: the options are the server's ptlab.cfg (iterations=2000, from=cfg)"
}

boot_result tftp
st=$?
check_status "$st" 33 "tftp: QEMU ended with the pass verdict (isa-debug-exit 0x10)"
judge_net tftp
check_report "$BOOT_LOG" tftp nofile

boot_result kernel
st=$?
check_status "$st" 0 "kernel: QEMU ended with the kernel's panic (panic=-1, -no-reboot)"
judge_net kernel
want=$(stat -c %s "$KERNEL")
if log_clean "$BOOT_LOG" | grep -qE "^# linux-load: kernel=\\\\boot\\\\vmlinuz protocol=2\\.[0-9]+ "; then
	pass "kernel: ptlab loaded \\boot\\vmlinuz from the server and judged its header"
else
	fail "kernel: no '# linux-load: kernel=\\boot\\vmlinuz' fact"
fi
check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "kernel: ptlab handed over"
check_log '^\[ *[0-9.]+\] Linux version [0-9]' "$BOOT_LOG" "kernel: the kernel printed its banner"
got=$(log_clean "$BOOT_LOG" | sed -n 's/^\[ *[0-9.]*\] Kernel command line: //p')
if [ "$got" = "$CMDLINE" ]; then
	pass "kernel: the kernel's command line is the server's ptlab.cfg's byte for byte ($got)"
else
	fail "kernel: the kernel's command line '$got', ptlab.cfg's '$CMDLINE'"
fi
check_log 'Kernel panic - not syncing: VFS: Unable to mount root fs' "$BOOT_LOG" \
	"kernel: the kernel ($want bytes over TFTP) ran to its panic for a root file system"

boot_result missing
st=$?
judge_net missing
check_log 'nothere: TFTP server 10\.0\.2\.2 answered the size with error [0-9]+ "File not found"' "$BOOT_LOG" \
	"missing: a kernel the server lacks is refused with the server's not-found answer"
if log_clean "$BOOT_LOG" | grep -q '^ptlab: handing over'; then
	fail "missing: ptlab handed over without a kernel"
else
	pass "missing: nothing handed over (QEMU status $st)"
fi

for tag in dir dirsep; do
	boot_result "$tag"
	st=$?
	check_status "$st" 35 "$tag: the refusal ended the run with --end=qemu (status 0x11)"
	judge_net "$tag"
	check_log '^not ok [0-9]+ - kernel: \\boot(\\)? is a directory of the TFTP server 10\.0\.2\.2, not a file$' \
		"$BOOT_LOG" "$tag: refused as a directory of the server, before any transfer"
	check_no_log 'EFI_TIMEOUT' "$BOOT_LOG" "$tag: no transfer timed out"
done

boot_result refused
st=$?
check_log '^ptlab: no boot volume .*: no report file' "$refused_log" "refused: ptlab says it has no report file"
check_log "^ptlab: unknown option '--no-such-option'" "$refused_log" "refused: the reason on the serial port"
check_log '^ptlab: refused: the options were not accepted, nothing was run \(no report file: the reason is above, on the screen and the serial port\)$' \
	"$refused_log" "refused: the refusal points to the serial port, not to a report file"
check_no_log 'PTLAB\.TXT' "$refused_log" "refused: no report file named"

boot_done
