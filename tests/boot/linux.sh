#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hand-off to a real kernel: Debian's linux-image-cloud-amd64 booted by
# --mode=handoff --kernel=... on the tables ptlab built and checked, with
# an initramfs whose /init (tests/linux/init.c) judges from inside the
# kernel: user space reached, the command line ptlab passed, every CPU
# online (ptlab parked its APs in wait-for-SIPI), the paging mode, a clean
# kernel log.  On the host: ptlab's report passed and ends with its
# "# linux:" facts and "ptlab: handing over to Linux"; every e820 range the
# kernel lists in /sys/firmware/memmap is ptlab's "# e820:" line for line;
# the RAM the kernel counts is what ptlab reported less the kernel's own
# reservations; efifb took the framebuffer exactly when ptlab passed one;
# the kernel found through efi_info's system table what ptlab read before
# ExitBootServices (the SMBIOS manufacturer, PlatformLang through
# efivarfs, Secure Boot off) and lists /sys/firmware/efi/systab; every EFI
# global variable it lists through efivarfs is the firmware's variable
# store's, read on the host from the boot's flash after QEMU ended, byte
# for byte, and the list is the EFI stub boot's (efivars.py); its
# "efi:" list of configuration tables is ptlab's "# linux-tables:" and the
# boot-services memory it frees follows from "# linux-bootsvc:"
# (efiview.py; the tables only under efi=noruntime).  The
# first boot gets two initrds (a marker cpio, then the initramfs) and a
# 2000-byte command line with a quoted value holding blanks (\" in
# \ptlab.cfg).
#
# Boots: OVMF -cpu max with -smp 1 (--levels=4, 2 GiB) and -smp 4
# (--levels=5, 8 GiB); -cpu qemu64 (no 1 GiB pages, no LA57) with -smp 4;
# OVMF's SMM build with Secure Boot off (-smp 2, --levels=5), whose map reserves 0x30000+0x20000
# below 640 KiB (the W^X exemptions there are the RAM around it, by name);
# U-Boot's UEFI.  The same kernel through its own EFI stub (no ptlab) is
# the reference for the usable RAM.  Bad kernels and initrds, and
# --levels=5 on a CPU without LA57 (-cpu qemu64), are refused before
# ExitBootServices, each with its own reason, and the firmware goes on: the
# UEFI shell runs the next case and finally shuts down.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init linux

UBOOT_ROM=${UBOOT_ROM:-/usr/lib/u-boot/qemu-x86_64/u-boot.rom}
SMM_CODE=${OVMF_SB_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
KERNEL=${LINUX_KERNEL:-$(ls /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)}
INITRD=${LINUX_INITRD:-$PTLAB_BUILD/linux/initrd.img}
INIT_PASSED=65      # isa-debug-exit 0x20 from /init
LINUX_TIMEOUT=${LINUX_TIMEOUT:-400}

if [ -z "$KERNEL" ] || [ ! -f "$KERNEL" ] || [ ! -f "$INITRD" ]; then
	fail "no kernel '$KERNEL' (package linux-image-cloud-amd64) or initrd '$INITRD' (make linux-initrd)"
	boot_done
	exit
fi
echo "# kernel $KERNEL ($(stat -c %s "$KERNEL") bytes), initrd $INITRD ($(stat -c %s "$INITRD") bytes)"

img=$BOOT_DIR/linux.img
cp -- "$PTLAB_IMG" "$img"
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
img_put "$img" "$KERNEL" /boot/vmlinuz
img_put "$img" "$INITRD" /boot/initrd.img

# The command line of boot TAG (what /init finds in /proc/cmdline), with
# any further kernel parameters.
cmdline_of()
{
	local tag=$1 smp=$2 la57=$3
	shift 3
	echo "console=ttyS0 panic=-1 printk.devkmsg=on ptlab.cpus=$smp ptlab.la57=$la57 ptlab.boot=$tag${*:+ $*}"
}

# linux_boot TAG CPU MEM SMP LEVELS LA57 PARAMS [boot_run options]: the
# hand-off with the kernel; LA57 is whether the kernel will run 5-level
# paging (it switches to it by itself on a CPU with LA57, whatever ptlab's
# levels); PARAMS are more kernel parameters ("" for none), taken as one
# string.  INITRDS: the --initrd options (default: the initramfs alone).
# The command line is quoted in \ptlab.cfg, a double quote in it written
# \" so that it reaches the kernel.
linux_boot()
{
	local tag=$1 cpu=$2 mem=$3 smp=$4 levels=$5 la57=$6 params=$7 cmd
	shift 7
	cmd=$(cmdline_of "$tag" "$smp" "$la57" "$params")
	[ -n "$params" ] || cmd=$(cmdline_of "$tag" "$smp" "$la57")
	printf '%s\n' "$cmd" >"$BOOT_DIR/$tag.cmdline"
	echo "$levels" >"$BOOT_DIR/$tag.levels"
	boot_bg "$tag" --img "$img" --cpu "$cpu" --mem "$mem" --smp "$smp" \
		--timeout "$LINUX_TIMEOUT" --cfg "--mode=handoff --end=qemu --iterations=2000 \
--levels=$levels --kernel=\\boot\\vmlinuz ${INITRDS:---initrd=\\boot\\initrd.img} \"--cmdline=${cmd//\"/\\\"}\"" "$@"
}

# fnv1a TEXT: the 64-bit FNV-1a hash /init prints of /proc/cmdline
fnv1a()
{
	python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
print("0x%016x" % h)' "$1"
}

# init_lines LOG: what /init printed through the kernel log, cleaned
init_lines()
{
	log_clean "$1" | sed -n 's/^\[ *[0-9]*\.[0-9]*\] //; /^init: /p'
}

# e820 names as /sys/firmware/memmap spells them
e820_name()
{
	case $1 in
	1) echo "System RAM" ;;
	3) echo "ACPI Tables" ;;
	4) echo "ACPI Non-volatile Storage" ;;
	5) echo "Unusable memory" ;;
	7) echo "Persistent Memory" ;;
	*) echo "Reserved" ;;
	esac
}

# ptlab_e820 LOG: ptlab's "# e820:" lines as "START-END NAME"
ptlab_e820()
{
	log_clean "$1" | sed -n 's/^# e820: \(0x[0-9a-f]*-0x[0-9a-f]*\) type=\([0-9]*\)$/\1 \2/p' |
	while read -r range type; do
		echo "$range $(e820_name "$type")"
	done
}

# usable_bytes: the "System RAM" bytes of "START-END NAME" lines on stdin
usable_bytes()
{
	python3 -c '
import sys
total = 0
for line in sys.stdin:
    rng, name = line.split(" ", 1)
    if name.strip() == "System RAM":
        a, b = (int(x, 16) for x in rng.split("-"))
        total += b - a + 1
print(total)'
}

# kernel_memmap LOG: the kernel's /sys/firmware/memmap as /init printed it
kernel_memmap()
{
	init_lines "$1" | sed -n 's/^init: memmap: //p'
}

# judge_init TAG: /init's own checks
judge_init()
{
	local tag=$1 bad
	bad=$(init_lines "$BOOT_LOG" | grep -E '^init: not ok' | head -n 5)
	if [ -z "$bad" ] && init_lines "$BOOT_LOG" | grep -E '^init: [1-9][0-9]* passed, 0 failed$' >/dev/null; then
		pass "$tag: /init ran its checks in user space, all passed ($(init_lines "$BOOT_LOG" | grep -cE '^init: ok'))"
	else
		fail "$tag: /init: ${bad:-no closing line}"
	fi
	local want got
	want=$(cat "$BOOT_DIR/$tag.cmdline")
	got=$(init_lines "$BOOT_LOG" | sed -n 's/^init: cmdline-bytes: //p')
	if [ "$got" = "${#want} fnv1a: $(fnv1a "$want")" ] &&
	   [ "$(init_lines "$BOOT_LOG" | sed -n 's/^init: cmdline: //p')" = "${want:0:800}" ]; then
		pass "$tag: /proc/cmdline is the command line ptlab passed (${#want} bytes, by FNV-1a)"
	else
		fail "$tag: /proc/cmdline '$got' / '$(init_lines "$BOOT_LOG" | sed -n 's/^init: cmdline: //p' | head -c 200)' != ${#want} bytes '${want:0:200}'"
	fi
}

# judge_efi TAG [noruntime]: what the kernel found through efi_info is what
# ptlab read before ExitBootServices (noruntime: booted with
# efi=noruntime, no runtime services and so no EFI variables to compare)
judge_efi()
{
	local tag=$1 rt=${2:-} vendor var
	if init_lines "$BOOT_LOG" | grep '^init: ok - /sys/firmware/efi/systab lists the configuration tables' >/dev/null &&
	   { [ -n "$rt" ] || [ "$(init_lines "$BOOT_LOG" | sed -n 's/^init: efi-runtime: //p')" = 1 ]; }; then
		pass "$tag: /sys/firmware/efi/systab exists: the kernel took the system table from efi_info (runtime services: ${rt:-kept, /sys/firmware/efi/runtime})"
	else
		fail "$tag: no /sys/firmware/efi/systab with ACPI20= or no runtime services: $(init_lines "$BOOT_LOG" | grep 'efi/systab\|efi-runtime' | head -n 2)"
	fi
	vendor=$(log_clean "$BOOT_LOG" | sed -n 's/^# linux-firmware: .* sys_vendor="\([^"]*\)" .*/\1/p' | head -n 1)
	if [ -n "$vendor" ] && [ "$(init_lines "$BOOT_LOG" | sed -n 's/^init: sys_vendor: //p')" = "$vendor" ]; then
		pass "$tag: /sys/class/dmi/id/sys_vendor is the SMBIOS type-1 manufacturer ptlab read ('$vendor')"
	else
		fail "$tag: sys_vendor '$(init_lines "$BOOT_LOG" | sed -n 's/^init: sys_vendor: //p')', ptlab read '$vendor'"
	fi
	var=$(fact "$BOOT_LOG" linux-firmware efivar_bytes)
	if [ -n "$rt" ]; then
		:
	elif [ -n "$var" ] && [ "$var" != none ] &&
	   [ "$(init_lines "$BOOT_LOG" | sed -n 's/^init: efivar-PlatformLang: //p')" = "$var" ]; then
		pass "$tag: PlatformLang through efivarfs (runtime services) is the value ptlab read ($var)"
	else
		fail "$tag: PlatformLang through efivarfs '$(init_lines "$BOOT_LOG" | sed -n 's/^init: efivar-PlatformLang: //p')', ptlab read '$var'"
	fi
	# the configuration tables the kernel lists are those ptlab read from
	# the system table, and it frees the boot-services memory of the map
	# ptlab passed but the descriptor it reserved the Memory Attributes
	# Table in (with efi=noruntime it frees none: the tables only)
	if python3 "$(dirname "$0")/efiview.py" ${rt:+tables} "$BOOT_LOG" >"$BOOT_DIR/$tag.efiview" 2>&1; then
		while read -r l; do
			pass "$tag: ${l#ok: }"
		done <"$BOOT_DIR/$tag.efiview"
	else
		fail "$tag: the kernel's tables or freed boot-services memory are not what ptlab passed"
		sed 's/^/# /' "$BOOT_DIR/$tag.efiview"
	fi
	if [ "$(fact "$BOOT_LOG" linux-efi secure_boot)" = 2 ] &&
	   log_clean "$BOOT_LOG" | grep 'Secure boot disabled$' >/dev/null; then
		pass "$tag: secure_boot=2 in the zero page, the kernel says 'Secure boot disabled'"
	else
		fail "$tag: secure_boot='$(fact "$BOOT_LOG" linux-efi secure_boot)', the kernel's Secure boot line: $(log_clean "$BOOT_LOG" | grep -o 'Secure boot.*' | head -n 1)"
	fi
}


# judge_linux TAG SMP: ptlab handed over and the kernel agrees with its report
judge_linux()
{
	local tag=$1 smp=$2 st levels parked usable total memtotal fb efifb
	boot_result "$tag"
	st=$?
	check_status "$st" "$INIT_PASSED" "$tag: the kernel reached /init, which passed (status 0x20)"
	check_report "$BOOT_LOG" "$tag" nofile
	check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "$tag: ptlab said it handed over"
	check_log '^ok [0-9]+ - linux: .* # check=linux-digest$' \
		"$BOOT_LOG" "$tag: the tables handed over are the checked build, by digest"
	check_log '^ok [0-9]+ - linux: .* # check=linux-unmapped$' \
		"$BOOT_LOG" "$tag: identity mapped as the boot protocol needs"
	check_log '^ok [0-9]+ - linux: .* # check=linux-entry$' \
		"$BOOT_LOG" "$tag: the CPU reads the kernel's entry on the tables handed over"
	levels=$(fact "$BOOT_LOG" linux levels)
	parked=$(fact "$BOOT_LOG" linux cpus_parked)
	if [ "$levels" = "$(cat "$BOOT_DIR/$tag.levels")" ] && [ "$parked" = $((smp - 1)) ]; then
		pass "$tag: # linux: levels=$levels cpus_parked=$parked"
	else
		fail "$tag: # linux: levels='$levels' cpus_parked='$parked' (want $(cat "$BOOT_DIR/$tag.levels"), $((smp - 1)))"
	fi
	judge_init "$tag"
	case $(cat "$BOOT_DIR/$tag.cmdline") in
	*efi=noruntime*) judge_efi "$tag" noruntime ;;
	*) judge_efi "$tag" ;;
	esac
	case $(cat "$BOOT_DIR/$tag.cmdline") in
	*efi=noruntime*) ;;
	*) judge_efivars "$tag" "$BOOT_LOG" "$(dirname "$BOOT_IMG_COPY")/vars.fd" "$STUB_LOG" ;;
	esac
	ptlab_e820 "$BOOT_LOG" >"$BOOT_DIR/$tag.e820"
	kernel_memmap "$BOOT_LOG" >"$BOOT_DIR/$tag.memmap"
	if [ -s "$BOOT_DIR/$tag.e820" ] && diff "$BOOT_DIR/$tag.e820" "$BOOT_DIR/$tag.memmap" >"$BOOT_DIR/$tag.diff"; then
		pass "$tag: /sys/firmware/memmap is ptlab's e820 report line for line ($(wc -l <"$BOOT_DIR/$tag.e820") ranges)"
	else
		fail "$tag: /sys/firmware/memmap differs from ptlab's e820 report"
		sed 's/^/# /' "$BOOT_DIR/$tag.diff" | head -n 20
	fi
	check_fact "$BOOT_LOG" linux e820 "$(wc -l <"$BOOT_DIR/$tag.e820")" \
		"$tag: # linux: e820=$(fact "$BOOT_LOG" linux e820) counts the ranges"
	# the kernel's "Memory: A/TK available (... R reserved ...)": T pages present
	usable=$(usable_bytes <"$BOOT_DIR/$tag.e820")
	total=$(log_clean "$BOOT_LOG" | sed -n 's/.*Memory: [0-9]*K\/\([0-9]*\)K available.*/\1/p' | head -n 1)
	memtotal=$(init_lines "$BOOT_LOG" | sed -n 's/^init: memtotal-kib: //p')
	if [ -n "$total" ] && [ -n "$memtotal" ] && [ "$((total * 1024))" -le "$usable" ] &&
	   [ "$((usable - total * 1024))" -lt $((1 << 20)) ] && [ "$memtotal" -le "$total" ]; then
		pass "$tag: the kernel counts ${total} KiB present of ptlab's $((usable >> 10)) KiB usable (the first MiB's holes apart), MemTotal ${memtotal} KiB after its own reservations"
	else
		fail "$tag: ptlab usable=$usable bytes, the kernel's present='${total}' KiB, MemTotal='${memtotal}' KiB"
	fi
	fb=$(fact "$BOOT_LOG" handoff fb_pa)
	efifb=$(init_lines "$BOOT_LOG" | sed -n 's/^init: efifb: //p')
	if { [ "$fb" != 0x0 ] && [ "$efifb" = 1 ]; } || { [ "$fb" = 0x0 ] && [ "$efifb" = 0 ]; }; then
		pass "$tag: efifb took a framebuffer ($efifb) exactly when ptlab passed one (fb_pa=$fb)"
	else
		fail "$tag: ptlab passed fb_pa='$fb', efifb='$efifb'"
	fi
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
}

# ---- the reference: the same kernel through its own EFI stub -------------------

stub=$BOOT_DIR/stub.img
cp -- "$img" "$stub"
mdel -i "$stub@@$BOOT_ESP_OFFSET" ::/EFI/BOOT/BOOTX64.EFI
cmdline_of stub 1 1 >"$BOOT_DIR/stub.cmdline"
printf '@echo -off\nfs0:\n\\boot\\vmlinuz initrd=\\boot\\initrd.img %s\n' \
	"$(cat "$BOOT_DIR/stub.cmdline")" >"$BOOT_DIR/stub.nsh"
img_put "$stub" "$BOOT_DIR/stub.nsh" /startup.nsh

cmdline_base=$(cmdline_of max-smp1 1 1)
# two initrds: a cpio with a marker file first, then the initramfs; a
# command line of 2000 bytes with a quoted value holding blanks
first=$BOOT_DIR/first
mkdir -p "$first"
echo "ptlab-first-$$" >"$first/ptlab-first-initrd"
(cd "$first" && echo ptlab-first-initrd | cpio --quiet -o -H newc) >"$BOOT_DIR/first.cpio"
img_put "$img" "$BOOT_DIR/first.cpio" /boot/first.cpio
long_params='ptlab.osi="!Windows 2015"'
pad=$((2000 - ${#long_params} - 1 - ${#cmdline_base} - 1 - 10))
long_params="$long_params ptlab.pad=$(head -c "$pad" /dev/zero | tr '\0' 'p')"
INITRDS='--initrd=\boot\first.cpio --initrd=\boot\initrd.img' \
	linux_boot max-smp1 max 2G 1 4 1 "$long_params"
boot_bg stub --img "$stub" --cpu max --mem 2G --smp 1 --timeout "$LINUX_TIMEOUT"
# the SMM build with the plain variables (Secure Boot off)
linux_boot smm max 2G 2 5 1 "" --machine q35,smm=on --code "$SMM_CODE" -- \
	-global driver=cfi.pflash01,property=secure,value=on
boot_wait
# the reference's variables, for every hand-off on the plain firmware's
STUB_LOG=$(sed -n 1p "$BOOT_DIR/stub.paths" 2>/dev/null)
judge_linux max-smp1 1
if [ "$(init_lines "$BOOT_LOG" | sed -n 's/^init: first-initrd: //p')" = "ptlab-first-$$" ] &&
   init_lines "$BOOT_LOG" | grep '^init: ok - user space reached' >/dev/null; then
	pass "max-smp1: both initrds reached the kernel: the first's marker file and the second's /init"
else
	fail "max-smp1: first initrd's marker '$(init_lines "$BOOT_LOG" | sed -n 's/^init: first-initrd: //p')', want ptlab-first-$$"
fi
if [ "$(wc -c <"$BOOT_DIR/max-smp1.cmdline")" -ge 2000 ] && grep -q 'ptlab.osi="!Windows 2015"' "$BOOT_DIR/max-smp1.cmdline"; then
	pass "max-smp1: the command line judged above had $(($(wc -c <"$BOOT_DIR/max-smp1.cmdline") - 1)) bytes and a quoted value with blanks"
else
	fail "max-smp1: the test's command line is not what it should be"
fi
judge_linux smm 2
# the map has the reserved hole below 640 KiB, and the W^X exemptions are
# exactly the RAM around it, each mapped RWX whole (the audit's bytes)
check_log '^# e820: 0x30000-0x4ffff type=2$' "$BOOT_LOG" \
	"smm: the firmware reserves 0x30000+0x20000 below 640 KiB"
check_log '^# audit: [0-9]+ bytes mapped RWX under the run'"'"'s 3 W\^X exemptions; exempt: 0x[0-9a-f]+\+0x([0-9a-f]+) Linux init_size range \(0x\1 RWX\); 0x1000\+0x2f000 RAM below 640 KiB \(0x2f000 RWX\); 0x50000\+0x([0-9a-f]+) RAM below 640 KiB \(0x\2 RWX\)$' \
	"$BOOT_LOG" "smm: the audit names the exemptions: the init_size range and the two pieces of RAM below 640 KiB, each all RWX"
ref_usable=$(usable_bytes <"$BOOT_DIR/max-smp1.e820")
boot_result stub
st=$?
check_status "$st" "$INIT_PASSED" "stub: the same kernel and initrd through its EFI stub reached /init, which passed"
BOOT_LOG_STUB=$BOOT_LOG
judge_efivars stub "$BOOT_LOG" "$(dirname "$BOOT_IMG_COPY")/vars.fd"
stub_usable=$(kernel_memmap "$BOOT_LOG_STUB" | usable_bytes)
if [ -n "$stub_usable" ] && [ "$stub_usable" -gt 0 ] && [ -n "$ref_usable" ]; then
	diff_pages=$(( (stub_usable - ref_usable) / 4096 ))
	# ptlab keeps no page from the kernel: everything of its own is usable RAM
	if [ "$diff_pages" -eq 0 ]; then
		pass "stub: usable RAM after ptlab's hand-off equals the EFI stub's ($((ref_usable >> 10)) KiB): ptlab keeps 0 pages"
	else
		fail "stub: usable RAM differs by $diff_pages pages (EFI stub $stub_usable, ptlab $ref_usable bytes)"
		diff <(kernel_memmap "$BOOT_LOG_STUB") "$BOOT_DIR/max-smp1.e820" | sed 's/^/# /' | head -n 20
	fi
else
	fail "stub: no usable RAM total ('$stub_usable', ptlab '$ref_usable')"
fi

# ---- more CPUs, 5 levels, 8 GiB; no 1 GiB pages and no LA57 --------------------

linux_boot max-smp4-l5 max 8G 4 5 1 ""
linux_boot qemu64-smp4 qemu64 2G 4 4 0 ""
boot_wait
judge_linux max-smp4-l5 4
judge_linux qemu64-smp4 4

# ---- U-Boot's UEFI, and the bad kernels ----------------------------------------

# U-Boot's qemu-x86_64 build programs the variable MTRRs with masks
# narrower than the CPU's physical address width: Linux would trim all RAM
# above 1 MiB for it (and warn), so that trim is switched off.  Its runtime
# services fault in SetVirtualAddressMap (they reach U-Boot data outside
# the runtime regions of its memory map): efi=noruntime.
if [ -f "$UBOOT_ROM" ]; then
	linux_boot uboot max 2G 1 4 1 "disable_mtrr_trim efi=noruntime" --bios "$UBOOT_ROM"
else
	fail "no U-Boot ROM at $UBOOT_ROM (package u-boot-qemu)"
fi

# The bad files, made from the real ones: the first case from \ptlab.cfg,
# the rest from the UEFI shell's \startup.nsh, which then shuts down.
bad=$BOOT_DIR/bad
mkdir -p "$bad"
head -c 4000000 "$KERNEL" >"$bad/trunc"
# patched OUT OFFSET BYTES EXPR: the kernel with the little-endian field at
# OFFSET (BYTES long) set to EXPR, a Python expression of its value v
patched()
{
	python3 - "$KERNEL" "$@" <<'EOF'
import sys
src, out, off, n, expr = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4]), sys.argv[5]
data = bytearray(open(src, "rb").read())
v = int.from_bytes(data[off:off + n], "little")
data[off:off + n] = (eval(expr, {"v": v}) & ((1 << 8 * n) - 1)).to_bytes(n, "little")
open(out, "wb").write(data)
EOF
}
# xloadflags (0x236): XLF_KERNEL_64 (bit 0) cleared, then XLF_5LEVEL (bit 5)
patched "$bad/k32" 0x236 2 'v & ~1'
patched "$bad/k4" 0x236 2 'v & ~(1 << 5)'
# init_size (0x260): 3 GiB, more than any free range of a 1 GiB machine
patched "$bad/huge" 0x260 4 '0xc0000000'
# initrd_addr_max (0x22c): 2 MiB, below any free range the initrd fits
# and XLF_CAN_BE_LOADED_ABOVE_4G (bit 1) cleared: no other place is allowed
patched "$bad/lowrd" 0x22c 4 '0x1fffff'
KERNEL=$bad/lowrd patched "$bad/lowrd" 0x236 2 'v & ~2'
# four whole kernels do not fit the usual image: one of its own, larger
bimg=$BOOT_DIR/bad.img
root=$(cd "$(dirname "$0")/../.." && pwd)
PTLAB_IMG_MIB=128 "$root/mk/image.sh" "$bimg" "$PTLAB_BUILD/ptlab.efi" "$root/startup.nsh" ""
mmd -i "$bimg@@$BOOT_ESP_OFFSET" ::/boot
img_put "$bimg" "$KERNEL" /boot/vmlinuz
img_put "$bimg" "$INITRD" /boot/initrd.img
for f in trunc k32 lowrd k4 huge; do
	img_put "$bimg" "$bad/$f" "/boot/$f"
done
run="\\EFI\\BOOT\\BOOTX64.EFI --mode=handoff --end=return"
{
	printf '@echo -off\nfs0:\n'
	printf '%s --kernel=\\boot\\k32\n' "$run"
	printf '%s --kernel=\\boot\\lowrd --initrd=\\boot\\initrd.img\n' "$run"
	printf '%s --kernel=\\boot\\initrd.img\n' "$run"
	printf '%s --kernel=\\boot\\missing\n' "$run"
	printf '%s --kernel=\\boot\n' "$run"
	printf '%s --levels=5 --kernel=\\boot\\k4\n' "$run"
	printf '%s --levels=5 --kernel=\\boot\\vmlinuz\n' "$run"
	printf '%s --kernel=\\boot\\huge\n' "$run"
	printf 'echo "ptlab-test: the firmware went on"\nreset -s\n'
} >"$bad/startup.nsh"
img_put "$bimg" "$bad/startup.nsh" /startup.nsh
# -cpu qemu64: no LA57, so --levels=5 with a good kernel is refused too
boot_bg bad --img "$bimg" --cfg "--mode=handoff --end=return --kernel=\\boot\\trunc" \
	--cpu qemu64 --mem 1G --timeout "$LINUX_TIMEOUT"
boot_wait
# each check of the tables handed over fails for its own fault, and then
# nothing is handed over
boot_bg faults --img "$img" --cpu max --mem 1G --timeout "$LINUX_TIMEOUT" --cfg "--mode=handoff \
--end=qemu --iterations=200 --inject=linux-digest,linux-unmapped,linux-entry \
--kernel=\\boot\\vmlinuz --initrd=\\boot\\initrd.img --cmdline=console=ttyS0"
[ -f "$UBOOT_ROM" ] && judge_linux uboot 1
boot_wait
boot_result faults
st=$?
check_status "$st" 35 "faults: the run ended with a failure (status 0x11)"
# each fault fails its own check, found by its registry key, and no other check fails
check_log '^not ok [0-9]+ - linux: .* # check=linux-digest$' "$BOOT_LOG" \
	"faults: linux-digest (page 0 mapped before the comparison) fails the digest check"
check_log '^not ok [0-9]+ - linux: .* # check=linux-unmapped$' "$BOOT_LOG" \
	"faults: linux-unmapped (a page of the kernel's range unmapped) fails the identity check"
check_log '^not ok [0-9]+ - linux: .* reads 15 of 16 bytes .* # check=linux-entry$' "$BOOT_LOG" \
	"faults: linux-entry (an expected entry byte flipped) fails the CPU's read-back"
# and nothing else: the failing lines are exactly one keyed by each of those checks
failed=$(failed_checks "$BOOT_LOG")
check_eq "$failed" "linux-digest linux-entry linux-unmapped " "faults: those 3 checks failed and no other"
check_log '^# linux: not handed over: 3 check\(s\) failed' "$BOOT_LOG" "faults: not handed over, and said why"
check_no_log '^ptlab: handing over to Linux' "$BOOT_LOG" "faults: no jump"

boot_result bad
st=$?
check_status "$st" 0 "bad: the shell shut down after every refusal (status 0)"
check_kernel_refused linux trunc 'truncated: 4000000 bytes, the header says' "bad: trunc refused: a truncated file"
check_kernel_refused linux k32 'a 32-bit-only kernel: xloadflags 0x7e has no XLF_KERNEL_64' "bad: k32 refused: no 64-bit entry"
check_log '^not ok [0-9]+ - kernel: \\boot\\initrd.img refused: a cpio archive \(an initramfs\?\): neither a bzImage nor an ELF file' \
	"$BOOT_LOG" "bad: a file that is neither a bzImage nor an ELF file refused, named for what it is"
check_log '^not ok [0-9]+ - linux: initrd \\boot\\initrd.img \([0-9]+ bytes\) does not fit below the kernel'"'"'s initrd_addr_max 0x1fffff' \
	"$BOOT_LOG" "bad: an initrd that does not fit under initrd_addr_max refused"
check_log '^not ok [0-9]+ - kernel: \\boot\\missing cannot be opened: status 0x800000000000000e \(EFI_NOT_FOUND\)' \
	"$BOOT_LOG" "bad: a missing kernel refused with the firmware's status"
check_log '^not ok [0-9]+ - kernel: \\boot is a directory, not a file' \
	"$BOOT_LOG" "bad: a directory as the kernel refused as a directory"
check_kernel_refused linux k4 '--levels=5, but the kernel cannot be entered in 5-level mode \(xloadflags 0x5f has no XLF_5LEVEL\)' \
	"bad: k4 refused: 5 levels asked of a kernel without XLF_5LEVEL"
check_kernel_refused linux vmlinuz '--levels=5, but the CPU has no LA57 \(CPUID\.\(EAX=7,ECX=0\):ECX\[16\]\): it would be handed over at 4 levels; boot it with --levels=4' \
	"bad: vmlinuz refused: 5 levels asked on a CPU without LA57 (not handed over at 4 levels)"
check_log '^not ok [0-9]+ - linux: kernel \\boot\\huge: no free RAM holds init_size 0xc0000000 at pref_address 0x1000000 or at any kernel_alignment-aligned address' \
	"$BOOT_LOG" "bad: an init_size that does not fit refused"
if [ "$(log_clean "$BOOT_LOG" | grep -c '^# handoff: boot services kept: the kernel was refused before ExitBootServices')" = 9 ]; then
	pass "bad: all 9 runs kept boot services"
else
	fail "bad: $(log_clean "$BOOT_LOG" | grep -c '^# handoff: boot services kept') of 9 runs kept boot services"
fi
check_no_log 'handoff: leaving boot services' "$BOOT_LOG" "bad: no run left boot services"
check_log '^ptlab-test: the firmware went on' "$BOOT_LOG" "bad: the firmware went on after the last refusal"

boot_done
