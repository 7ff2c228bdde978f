#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build tests/boot/trapdemo/main.c with efi/cpu* and efi/trap* into a private
# UEFI app, boot it under QEMU/OVMF (TCG) and check its summary.
#   tests/boot/trapdemo/run.sh [extra gcc flags, e.g. -DFATAL_TEST]
# Exit status 0 when QEMU exited with 33 (isa-debug-exit 0x10) and the log
# says "0 failed".  TRAPDEMO_DIR keeps the work directory (default: mktemp).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
dir=${TRAPDEMO_DIR:-$(mktemp -d)}
mkdir -p "$dir"
cd "$dir"

CF="-std=c11 -O2 -g -Wall -Wextra -Wshadow -Wvla -Wstrict-prototypes -Werror
    -ffreestanding -fno-stack-protector -fshort-wchar -mno-red-zone -mno-sse
    -mno-mmx -fpic -maccumulate-outgoing-args
    -isystem /usr/include/efi -isystem /usr/include/efi/x86_64 -I$top/efi"
objs=
for f in cpu/cpu.c cpu/cpu_asm.S cpu/trap.c cpu/trap_asm.S; do
	gcc $CF -c "$top/efi/$f" -o "$(basename "$f").o"
	objs="$objs $(basename "$f").o"
done
gcc $CF "$@" -c "$here/main.c" -o main.o
ld -nostdlib -znocombreloc -T /usr/lib/elf_x86_64_efi.lds -shared -Bsymbolic \
	-L/usr/lib /usr/lib/crt0-efi-x86_64.o main.o $objs -o app.so -lefi -lgnuefi
objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela \
	-j .reloc --target efi-app-x86_64 --subsystem=10 app.so app.efi

export MTOOLS_SKIP_CHECK=1
rm -f img
truncate -s 64M img
printf 'label: gpt\n start=2048, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B\n' | sfdisk -q img
mformat -i img@@1M -F ::
mmd -i img@@1M ::/EFI ::/EFI/BOOT
mcopy -i img@@1M app.efi ::/EFI/BOOT/BOOTX64.EFI
cp /usr/share/OVMF/OVMF_VARS_4M.fd vars.fd

st=0
timeout "${BOOT_TIMEOUT:-90}" qemu-system-x86_64 -machine q35,accel=tcg -cpu max -m 2G \
	-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
	-drive if=pflash,format=raw,file=vars.fd -drive format=raw,file=img \
	-serial file:log -display none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-net none -no-reboot || st=$?
tr -d '\r' < log | sed 's/\x1b\[[0-9;]*[a-zA-Z]//g' | sed -n '/^trapdemo start/,$p'
echo "trapdemo: qemu status $st, log in $dir/log"
[ "$st" = 33 ] && tr -d '\r' < log | grep -q ' 0 failed$'
