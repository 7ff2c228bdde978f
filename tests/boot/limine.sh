#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hand-off to a Limine-protocol kernel: --mode=handoff --kernel=PATH with
# an ELF64 kernel, judged from inside by our own test kernel
# (tests/limine/, written from the protocol's specification), which checks
# every response, the entry state, the page tables by its own CR3 walk,
# the modules' SHA-256 (carried on each module's string), the firmware
# tables and every AP, and prints TAP as "kernel: ..." lines on COM1 and
# port 0xE9, then ends QEMU through isa-debug-exit (0x20: all passed).
#
# Boots (in parallel, two at a time):
#   max5     OVMF -cpu max -smp 4, 4 GiB, --levels=5, the PIE kernel
#            slid by --kaslr
#   qemu64   OVMF -cpu qemu64 -smp 2 (no LA57, no 1 GiB pages), the static
#            kernel at 0xffffffff80000000
#   rev0     OVMF -cpu max -smp 2, the static kernel asking for base
#            revision 0 (identity map of the first 4 GiB), no --levels:
#            its paging mode request alone asks for 5 levels
#   uboot    U-Boot's UEFI, -cpu max, one CPU (U-Boot lists the CPUs
#            neither in an MADT nor through EFI_MP_SERVICES_PROTOCOL, so no
#            AP could be started), --levels=5, the PIE kernel
# Each with two modules on \boot (their SHA-256 on their strings) and the
# kernel's internal module \boot\imod.bin.
#
# On the host: ptlab's report passed and ends with "ptlab: handing over";
# the kernel's lines: every "kernel: ok", no "kernel: not ok", its plan
# and "kernel: N passed, 0 failed" agreeing with the test points, QEMU
# status 65; the same lines on port 0xE9 as on COM1; the facts it prints
# against what the test passed: its command line, the modules' paths and
# sizes, the CPU count, the paging mode, its own file's size; and ptlab's
# facts of the hand-off (where it loaded the kernel, the memory map's
# entries, the stack) against what the kernel found.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init limine

UBOOT_ROM=${UBOOT_ROM:-/usr/lib/u-boot/qemu-x86_64/u-boot.rom}
LIMINE_DIR=$PTLAB_BUILD/limine
KERNEL_PASSED=65    # isa-debug-exit 0x20 from the kernel
LIMINE_TIMEOUT=${LIMINE_TIMEOUT:-300}

for k in kernel-pie.elf kernel-static.elf kernel-rev0.elf; do
	if [ ! -f "$LIMINE_DIR/$k" ]; then
		fail "no $LIMINE_DIR/$k (make limine)"
		boot_done
		exit
	fi
done

# the modules: pseudo-random bytes of two sizes, and the kernel's internal
# module, whose bytes it computes itself (tests/limine/kernel.c imod_byte)
python3 - "$BOOT_DIR" <<'EOF'
import random, sys
d = sys.argv[1]
rng = random.Random(20251204)
open(f"{d}/mod1.bin", "wb").write(bytes(rng.getrandbits(8) for _ in range(300000)))
open(f"{d}/mod2.bin", "wb").write(bytes(rng.getrandbits(8) for _ in range(4097)))
open(f"{d}/imod.bin", "wb").write(bytes((i * 31 + (i >> 8) + 7) & 0xff for i in range(12345)))
EOF

sha() { sha256sum "$1" | cut -d' ' -f1; }

# image TAG KERNEL: a copy of the image with the kernel and modules on \boot
image()
{
	local img=$BOOT_DIR/$1.img f
	cp -- "$PTLAB_IMG" "$img" || return 1
	mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot || return 1
	img_put "$img" "$2" /boot/kernel.elf || return 1
	for f in mod1.bin mod2.bin imod.bin; do
		img_put "$img" "$BOOT_DIR/$f" "/boot/$f" || return 1
	done
	echo "$img"
}

# limine_boot TAG KERNEL CPU MEM SMP LEVELS FB OPTS [boot_run options]: the
# hand-off of KERNEL; LEVELS the paging levels expected, given as
# --levels=LEVELS unless written "autoN" (no --levels: the kernel's paging
# mode request alone asks for 5); FB is fb=1 when a framebuffer must be
# passed, "" when the firmware may have none; OPTS more ptlab options
limine_boot()
{
	local tag=$1 kernel=$2 cpu=$3 mem=$4 smp=$5 levels=$6 fb=$7 opts=$8 img cmd lv
	shift 8
	lv=" --levels=$levels"
	case $levels in auto*) levels=${levels#auto}; lv= ;; esac
	img=$(image "$tag" "$kernel") || { fail "$tag: could not make its image"; return; }
	# the judge holds the HHDM offset to the reference loader's for the
	# paging mode it runs in, computed on its own: nothing named here
	cmd="limtest modules=2 cpus=$smp${fb:+ $fb} boot=$tag"
	echo "$cmd" >"$BOOT_DIR/$tag.cmdline"
	echo "$levels" >"$BOOT_DIR/$tag.levels"
	echo "$smp" >"$BOOT_DIR/$tag.smp"
	cp -- "$kernel" "$BOOT_DIR/$tag.kernel"
	boot_bg "$tag" --img "$img" --cpu "$cpu" --mem "$mem" --smp "$smp" --timeout "$LIMINE_TIMEOUT" \
		--cfg "--mode=handoff --iterations=2000 --kernel=\\boot\\kernel.elf \
--module=\\boot\\mod1.bin,sha256=$(sha "$BOOT_DIR/mod1.bin") \
--module=\\boot\\mod2.bin,sha256=$(sha "$BOOT_DIR/mod2.bin") \
\"--cmdline=$cmd\"$lv${opts:+ $opts} --end=qemu" "$@" \
		-- -debugcon file:"$BOOT_DIR/$tag.e9"
}

# kernel_lines LOG: the kernel's lines, "kernel: " and the CR cut off
kernel_lines()
{
	log_clean "$1" | sed -n 's/^kernel: //p'
}

# kfact LOG PREFIX: the rest of the kernel's first "# PREFIX" line
kfact()
{
	kernel_lines "$1" | sed -n "s/^# $2//p" | head -n 1
}

judge_limine()
{
	local tag=$1 st oks bad plan closing e9 smp levels mode n i want_size want_hhdm got
	boot_result "$tag"
	st=$?
	check_status "$st" "$KERNEL_PASSED" "$tag: the kernel ran its checks and exited with 0x20 (all passed)"
	check_report "$BOOT_LOG" "$tag" nofile
	check_log '^ptlab: handing over' "$BOOT_LOG" "$tag: ptlab said it handed over"
	kernel_lines "$BOOT_LOG" >"$BOOT_DIR/$tag.kernel.txt"
	oks=$(grep -cE '^ok [0-9]+ - ' "$BOOT_DIR/$tag.kernel.txt")
	bad=$(grep -cE '^not ok [0-9]+ - ' "$BOOT_DIR/$tag.kernel.txt")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$BOOT_DIR/$tag.kernel.txt" | tail -n 1)
	closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$BOOT_DIR/$tag.kernel.txt" | tail -n 1)
	if [ "$bad" -eq 0 ] && [ "$oks" -gt 50 ] && [ "$plan" = "$oks" ] && [ "$closing" = "$oks passed, 0 failed" ]; then
		pass "$tag: kernel: $oks test points, all ok, plan 1..$plan, '$closing'"
	else
		fail "$tag: kernel: $oks ok, $bad not ok, plan '$plan', closing '$closing'"
		grep -E '^not ok ' "$BOOT_DIR/$tag.kernel.txt" | head -n 20 | sed 's/^/# kernel: /'
	fi
	e9=$(tr -d '\r' <"$BOOT_DIR/$tag.e9" 2>/dev/null | sed -n 's/^kernel: //p')
	if [ -n "$e9" ] && [ "$e9" = "$(cat "$BOOT_DIR/$tag.kernel.txt")" ]; then
		pass "$tag: port 0xE9 got the same $(echo "$e9" | wc -l) kernel lines as COM1"
	else
		fail "$tag: port 0xE9's kernel lines differ from COM1's"
	fi
	if [ "$(kfact "$BOOT_LOG" 'cmdline: ')" = "$(cat "$BOOT_DIR/$tag.cmdline")" ]; then
		pass "$tag: the kernel's cmdline is the one passed"
	else
		fail "$tag: kernel cmdline '$(kfact "$BOOT_LOG" 'cmdline: ')' != '$(cat "$BOOT_DIR/$tag.cmdline")'"
	fi
	smp=$(cat "$BOOT_DIR/$tag.smp")
	n=$(kernel_lines "$BOOT_LOG" | grep -cE '^ok [0-9]+ - AP [0-9]+ \(APIC ID [0-9]+\): arrived')
	if [ "$(kfact "$BOOT_LOG" 'mp: cpu_count=')" != "" ] &&
	   [ "$(kfact "$BOOT_LOG" 'mp: cpu_count=' | cut -d' ' -f1)" = "$smp" ] && [ "$n" = $((smp - 1)) ]; then
		pass "$tag: $smp CPUs listed, $n APs arrived"
	else
		fail "$tag: mp '$(kfact "$BOOT_LOG" 'mp: cpu_count=')', $n APs arrived, -smp $smp"
	fi
	if [ "$(kfact "$BOOT_LOG" 'bootloader: ' | sed -n 's/^name="\([^"]*\)".*/\1/p')" = ptlab ]; then
		pass "$tag: the bootloader info names ptlab"
	else
		fail "$tag: bootloader info '$(kfact "$BOOT_LOG" 'bootloader: ')'"
	fi
	levels=$(cat "$BOOT_DIR/$tag.levels")
	mode=$(kfact "$BOOT_LOG" 'paging mode: ' | cut -d, -f1)
	check_eq "$mode" $((levels - 4)) "$tag: paging mode $mode for --levels=$levels"
	# the HHDM offset the kernel got: the reference loader's for the mode
	want_hhdm=0xffff800000000000
	[ "$levels" = 5 ] && want_hhdm=0xff00000000000000
	got=$(kfact "$BOOT_LOG" 'hhdm: ' | cut -d, -f1)
	if [ "$got" = "$want_hhdm" ]; then
		pass "$tag: HHDM offset $got, the reference loader's at $levels levels"
	else
		fail "$tag: HHDM offset '$got', not $want_hhdm at $levels levels"
	fi
	# the kernel's internal module (module request revision 1): loaded by
	# ptlab beside the kernel, first in the list, as the kernel judged it
	check_log '^# limine-module: internal=0 path=\\boot\\imod.bin bytes=12345 required=0$' "$BOOT_LOG" \
		"$tag: ptlab loaded the kernel's internal module beside it"
	if grep -qE '^ok [0-9]+ - internal module: first in the list, /boot/imod.bin' "$BOOT_DIR/$tag.kernel.txt"; then
		pass "$tag: the kernel found its internal module first in the module response (revision 1)"
	else
		fail "$tag: the kernel did not find its internal module first in the list"
	fi
	want_size=$(stat -c %s "$BOOT_DIR/$tag.kernel")
	got=$(kfact "$BOOT_LOG" 'executable file: ' | sed -n 's/.* size=\([0-9]*\) .*/\1/p')
	if [ "$got" = "$want_size" ]; then
		pass "$tag: executable file size $got is the kernel's"
	else
		fail "$tag: executable file size '$got', the kernel has $want_size bytes"
	fi
	# ptlab's own facts of the hand-off against what the kernel saw
	local va load mm stack rsp kva kpa kmm
	va=$(fact "$BOOT_LOG" limine-load va)
	load=$(fact "$BOOT_LOG" limine-load load)
	mm=$(fact "$BOOT_LOG" limine memmap)
	stack=$(fact "$BOOT_LOG" limine stack)
	kva=$(kfact "$BOOT_LOG" 'executable address: ' | sed -n 's/.*virtual_base=\(0x[0-9a-f]*\).*/\1/p')
	kpa=$(kfact "$BOOT_LOG" 'executable address: ' | sed -n 's/.*physical_base=\(0x[0-9a-f]*\).*/\1/p')
	kmm=$(sed -n 's/^ok [0-9]* - memory map: \([0-9]*\) entries, array mapped$/\1/p' "$BOOT_DIR/$tag.kernel.txt")
	rsp=$(sed -n 's/^ok [0-9]* - RSP+8 16-byte aligned at entry (RSP=\(0x[0-9a-f]*\))$/\1/p' "$BOOT_DIR/$tag.kernel.txt")
	if [ -n "$va" ] && [ -n "$kva" ] && [ $((va)) = $((kva)) ] && [ $((${load%%+*})) = $((kpa)) ]; then
		pass "$tag: the kernel runs where ptlab said it loaded it (va $va, pa ${load%%+*})"
	else
		fail "$tag: ptlab loaded va='$va' load='$load', the kernel's executable address va='$kva' pa='$kpa'"
	fi
	check_eq "$kmm" "$mm" "$tag: the kernel's memory map has the $mm entries ptlab reported"
	# "stack=TOP+SIZE": the kernel's RSP+8 (above the return address) is TOP
	if [ -n "$stack" ] && [ -n "$rsp" ] && [ $((rsp + 8)) = $((${stack%%+*})) ]; then
		pass "$tag: the kernel's entry RSP+8 is the top of ptlab's stack $stack"
	else
		fail "$tag: ptlab's stack '$stack', the kernel's entry RSP '$rsp'"
	fi
	for i in 1 2; do
		want_size=$(stat -c %s "$BOOT_DIR/mod$i.bin")
		got=$(kernel_lines "$BOOT_LOG" | sed -n "s|^# module [0-9]*: path=\"\\([^\"]*mod$i\\.bin\\)\" .* size=\\([0-9]*\\) .*|\\1 \\2|p" | head -n 1)
		check_eq "$got" "/boot/mod$i.bin $want_size" "$tag: module /boot/mod$i.bin reached the kernel, $want_size bytes"
	done
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 40
}

limine_boot max5 "$LIMINE_DIR/kernel-pie.elf" max 4G 4 5 fb=1 --kaslr
# while they boot: the run image "make run KERNEL=... MODULES=..." makes
# (mk/image.sh): the kernel and each module on it, \ptlab.cfg naming them
# with each module's file name as its string; a module name the option
# line could not carry, and two modules of one name, refused
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
runimg=$BOOT_DIR/run.img
if PTLAB_RUN_KERNEL="$LIMINE_DIR/kernel-static.elf" PTLAB_RUN_MODULES="$BOOT_DIR/mod1.bin $BOOT_DIR/mod2.bin" \
	PTLAB_RUN_CMDLINE="limtest" "$ROOT/mk/image.sh" "$runimg" "$PTLAB_BUILD/ptlab.efi" "$ROOT/startup.nsh" \
	--iterations=2000 >"$BOOT_DIR/run.out" 2>&1 &&
   img_extract "$runimg" ptlab.cfg "$BOOT_DIR/run.cfg" &&
   img_extract "$runimg" modules/mod2.bin "$BOOT_DIR/run.mod2" &&
   img_extract "$runimg" linux/vmlinuz "$BOOT_DIR/run.kernel" &&
   [ "$(cat "$BOOT_DIR/run.cfg")" = '--iterations=2000 --mode=handoff --kernel=\linux\vmlinuz --module=\modules\mod1.bin,mod1.bin --module=\modules\mod2.bin,mod2.bin "--cmdline=limtest"' ] &&
   cmp -s "$BOOT_DIR/run.mod2" "$BOOT_DIR/mod2.bin" && cmp -s "$BOOT_DIR/run.kernel" "$LIMINE_DIR/kernel-static.elf"; then
	pass "make run MODULES=: the kernel and its modules on the run image, \\ptlab.cfg naming them"
else
	fail "make run MODULES=: run image or \\ptlab.cfg not as expected: $(cat "$BOOT_DIR/run.cfg" "$BOOT_DIR/run.out" 2>/dev/null | head -n 3 | tr '\n' ' ')"
fi
cp -- "$BOOT_DIR/mod1.bin" "$BOOT_DIR/a,b.bin"
for bad in "$BOOT_DIR/a,b.bin:is not a plain file name" "$BOOT_DIR/mod1.bin $BOOT_DIR/mod1.bin:two files named 'mod1.bin'"; do
	if ! PTLAB_RUN_KERNEL="$LIMINE_DIR/kernel-static.elf" PTLAB_RUN_MODULES="${bad%%:*}" \
		"$ROOT/mk/image.sh" "$BOOT_DIR/bad.img" "$PTLAB_BUILD/ptlab.efi" "$ROOT/startup.nsh" "" \
		>"$BOOT_DIR/bad.out" 2>&1 && grep -qF "${bad#*:}" "$BOOT_DIR/bad.out" && [ ! -e "$BOOT_DIR/bad.img" ]; then
		pass "make run MODULES=: refused, nothing written: ${bad#*:}"
	else
		fail "make run MODULES='${bad%%:*}': not refused as '${bad#*:}': $(head -n 2 "$BOOT_DIR/bad.out")"
	fi
done
limine_boot qemu64 "$LIMINE_DIR/kernel-static.elf" qemu64 2G 2 4 fb=1 ""
boot_wait
judge_limine max5
judge_limine qemu64

limine_boot rev0 "$LIMINE_DIR/kernel-rev0.elf" max 2G 2 auto5 fb=1 ""
if [ -f "$UBOOT_ROM" ]; then
	limine_boot uboot "$LIMINE_DIR/kernel-pie.elf" max 1G 1 5 "" "" --bios "$UBOOT_ROM"
else
	fail "no U-Boot ROM at $UBOOT_ROM (package u-boot-qemu)"
fi
boot_wait
judge_limine rev0
[ -f "$UBOOT_ROM" ] && judge_limine uboot

boot_done
