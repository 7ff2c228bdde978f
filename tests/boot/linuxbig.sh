#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A large initrd: with -m 1G, the initramfs and a second initrd of zeros
# make 40 % of RAM together (the kernel's unpacker skips the zeros after
# the first archive's trailer).  ptlab reads them at their size, straight
# into one run of pages, so they fit where the EFI stub's would; the kernel
# reaches /init and frees an initrd of exactly that size.  About 2 minutes
# of one core under TCG.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init linuxbig

KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
INITRD=${LINUX_INITRD:-$PTLAB_BUILD/linux/initrd.img}
INIT_PASSED=65      # isa-debug-exit 0x20 from /init
LINUX_TIMEOUT=${LINUX_TIMEOUT:-400}
MEM_MIB=1024

if [ -z "$KERNEL" ] || [ ! -f "$KERNEL" ] || [ ! -f "$INITRD" ]; then
	fail "no kernel '$KERNEL' (package linux-image-cloud-amd64) or initrd '$INITRD' (make linux-initrd)"
	boot_done
	exit
fi

rd=$(stat -c %s "$INITRD")
# the zeros: 40 % of RAM with the initramfs, a multiple of 4 bytes
zeros=$(( (MEM_MIB * 1024 * 1024 * 2 / 5 - rd + 3) / 4 * 4 ))
total=$(( (rd + 3) / 4 * 4 + zeros ))
img=$BOOT_DIR/big.img
root=$(cd "$(dirname "$0")/../.." && pwd)
PTLAB_IMG_MIB=$(( total / 1048576 + 96 )) "$root/mk/image.sh" "$img" "$PTLAB_BUILD/ptlab.efi" \
	"$root/startup.nsh" ""
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
img_put "$img" "$KERNEL" /boot/vmlinuz
img_put "$img" "$INITRD" /boot/initrd.img
head -c "$zeros" /dev/zero >"$BOOT_DIR/zeros.img"
img_put "$img" "$BOOT_DIR/zeros.img" /boot/zeros.img
rm -f "$BOOT_DIR/zeros.img"
echo "# initrds: $rd + $zeros bytes = $total of $MEM_MIB MiB"

# nosoftlockup, no RCU stall warnings: under TCG the unpacker's skip over 400 MiB of zeros runs
# long without a reschedule, which the watchdogs would log with a call trace
cmd="console=ttyS0 panic=-1 printk.devkmsg=on nosoftlockup rcupdate.rcu_cpu_stall_suppress=1 ptlab.cpus=1 ptlab.la57=1 ptlab.boot=big"
boot_bg big --img "$img" --cpu max --mem ${MEM_MIB}M --smp 1 --timeout "$LINUX_TIMEOUT" \
	--cfg "--mode=handoff --end=qemu --iterations=2000 --kernel=\\boot\\vmlinuz \
--initrd=\\boot\\initrd.img --initrd=\\boot\\zeros.img \"--cmdline=$cmd\""
boot_wait
boot_result big
st=$?
check_status "$st" "$INIT_PASSED" "big: the kernel reached /init, which passed (status 0x20)"
check_report "$BOOT_LOG" big nofile
got=$(fact "$BOOT_LOG" linux-load initrd)
if [ "${got#*+}" = "$(printf '0x%x' "$total")" ]; then
	pass "big: ptlab loaded both initrds, $total bytes ($((total * 100 / (MEM_MIB << 20))) % of RAM) at ${got%+*}"
else
	fail "big: # linux-load: initrd=$got, want $(printf '0x%x' "$total") bytes"
fi
freed=$(log_clean "$BOOT_LOG" | sed -n 's/.*Freeing initrd memory: \([0-9]*\)K.*/\1/p' | head -n 1)
if [ -n "$freed" ] && [ "$freed" -eq $(( (total + 4095) / 4096 * 4 )) ]; then
	pass "big: the kernel freed an initrd of ${freed} KiB, all of it"
else
	fail "big: the kernel freed '${freed}' KiB of initrd, want $(( (total + 4095) / 4096 * 4 ))"
fi
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
boot_done
