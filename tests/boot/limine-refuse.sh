#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Limine-protocol loader (--mode=handoff --kernel=ELF): its refusals,
# its checks' faults, and the good path with a minimal kernel of the
# tests' own (tests/limine-mini/mini.S, assembled and linked here, static
# and position independent) that judges its entry state and the
# responses, starts every AP through its goto_address and ends QEMU
# through isa-debug-exit with 0x31 (status 99) when every point held.
#
# Boots (two at a time):
#  good   -cpu max -smp 4: the static kernel with a module; ptlab's checks
#         and the hand-over's own pass, the kernel says every point held
#         (the APs reached it), and writes its line to the debug console
#  pie    -smp 2 --kaslr: the position-independent kernel slid by a random
#         amount above the minimum slide, its relocation applied
#  five   -cpu max -smp 2 --levels=5: the kernel asking for 5-level paging
#         entered with CR4.LA57, as the paging mode response says
#  faults --inject=limine-digest,limine-segment,limine-entry,limine-identity,limine-layout
#         with the kernel asking for base revision 0 (whose identity map
#         ptlab makes RWX after the comparison): each fails exactly its
#         check, nothing is handed over
#  park   --inject=limine-park,limine-unmasked, -smp 2: the AP check and the
#         interrupt-masking check fail, nothing handed over
#  nola57 -cpu qemu64: a kernel that requires 5 levels, no --levels: refused
#         naming the CPU's missing LA57 as the cause
#  bare   -smp 4: stack size requests of 0x5555555555556000 and
#         0x3333333333334000 (whose product with the CPUs wrapped, issue 45)
#         and one of 256 MiB (5 of them more than half the RAM), each
#         refused naming the request before ExitBootServices; a kernel
#         with only an unknown request refused for a missing module after
#         a note naming it; then a kernel with no request at all handed
#         over (no response buffer), its checks passed
#  refuse 512 MiB: crafted ELF files (tests/limine-mini/craft.py, among them
#         a stack size request of 0x8000000000001000 on one CPU) and a
#         missing module and a missing required internal module, each
#         refused before ExitBootServices with its
#         own message; the firmware goes on (the UEFI shell runs the next
#         case from \startup.nsh, then shuts down)
#
# About two and a half minutes on an idle 2-core machine (bare: 40 s).
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init limine-refuse

HERE=$(cd "$(dirname "$0")" && pwd)
MINI=$HERE/../limine-mini
T=${LIMINE_TIMEOUT:-400}
HANDED='^ptlab: handing over to the Limine kernel'

# ---- the kernels ----
k=$BOOT_DIR/k
mkdir -p "$k"
if ! as --64 -o "$k/mini.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/mini.elf" "$k/mini.o" ||
   ! ld -nostdlib -pie --no-dynamic-linker -z max-page-size=0x1000 -z text -T "$MINI/pie.ld" \
	-o "$k/pie.elf" "$k/mini.o" ||
   ! as --64 --defsym PAGING5=1 -o "$k/mini5.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/mini5.elf" "$k/mini5.o" ||
   ! as --64 --defsym BASEREV=0 -o "$k/mini0.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/mini0.elf" "$k/mini0.o" ||
   ! as --64 --defsym PAGING5=1 --defsym MIN5=1 -o "$k/mini5min.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/mini5min.elf" "$k/mini5min.o" ||
   ! as --64 --defsym IMOD=1 -o "$k/minim.o" "$MINI/mini.S" ||
   ! ld -nostdlib -static -z max-page-size=0x1000 -T "$MINI/mini.ld" -o "$k/minim.elf" "$k/minim.o"; then
	fail "the minimal kernel could not be assembled and linked (binutils)"
	boot_done
	exit
fi
CASES="arm low overlap pastfile huge wx rel stack-8000000000001000"
# issue 45: stack size requests whose product with the CPUs wrapped, one that fits a
# quarter of the RAM but not 5 times in half of it, a kernel with no request at all,
# one with only an unknown request (and its tag)
BARE="stack-5555555555556000 stack-3333333333334000 stack-10000000 unknown noreq"
CASES="$CASES $BARE"
for c in $CASES; do
	python3 "$MINI/craft.py" "$c" "$k/$c" || fail "craft.py $c"
done

img=$BOOT_DIR/limine.img
cp -- "$PTLAB_IMG" "$img"
mmd -i "$img@@$BOOT_ESP_OFFSET" ::/boot
for f in mini.elf pie.elf mini5.elf mini5min.elf mini0.elf minim.elf $CASES; do
	img_put "$img" "$k/$f" "/boot/$f"
done
run="\\EFI\\BOOT\\BOOTX64.EFI --mode=handoff --end=return"
{
	printf '@echo -off\nfs0:\n'
	for c in low overlap pastfile huge wx rel stack-8000000000001000; do
		printf '%s --kernel=\\boot\\%s\n' "$run" "$c"
	done
	printf '%s --kernel=\\boot\\mini.elf --module=\\boot\\nothere,text\n' "$run"
	printf '%s --kernel=\\boot\\minim.elf\n' "$run"
	printf '%s --levels=5 --kernel=\\boot\\mini.elf\n' "$run"
	printf '%s --levels=4 --kernel=\\boot\\mini5min.elf\n' "$run"
	printf '%s --kernel=\\boot\\mini.elf --initrd=\\boot\\pie.elf\n' "$run"
	printf 'echo "ptlab-test: the firmware went on"\nreset -s\n'
} >"$k/startup.nsh"
rimg=$BOOT_DIR/refuse.img
cp -- "$img" "$rimg"
img_put "$rimg" "$k/startup.nsh" /startup.nsh
{
	printf '@echo -off\nfs0:\n'
	for c in stack-3333333333334000 stack-10000000; do
		printf '%s --kernel=\\boot\\%s\n' "$run" "$c"
	done
	printf '%s --kernel=\\boot\\unknown --module=\\boot\\nothere\n' "$run"
	printf '%s --kernel=\\boot\\noreq%s\n' "${run% *} --end=qemu --iterations=500" \
		"${BOOT_DEVIATIONS:+ --known-deviation=$BOOT_DEVIATIONS}"
} >"$k/bare.nsh"
bimg=$BOOT_DIR/bare.img
cp -- "$img" "$bimg"
img_put "$bimg" "$k/bare.nsh" /startup.nsh

base="--mode=handoff --end=qemu --iterations=500"
boot_bg good --img "$img" --cpu max --smp 4 --timeout "$T" \
	--cfg "$base --kernel=\\boot\\mini.elf \"--module=\\boot\\pie.elf,a module string\"" \
	-- -debugcon "file:$BOOT_DIR/good.debugcon"
boot_bg pie --img "$img" --smp 2 --timeout "$T" --cfg "$base --kaslr --kernel=\\boot\\pie.elf"
boot_wait
boot_bg five --img "$img" --cpu max --smp 2 --timeout "$T" --cfg "$base --levels=5 --kernel=\\boot\\mini5.elf"
boot_bg faults --img "$img" --smp 2 --timeout "$T" \
	--cfg "$base --inject=limine-digest,limine-segment,limine-entry,limine-identity,limine-layout --kernel=\\boot\\mini0.elf"
boot_wait
boot_bg park --img "$img" --smp 2 --timeout "$T" \
	--cfg "$base --inject=limine-park,limine-unmasked --kernel=\\boot\\mini.elf"
boot_bg refuse --img "$rimg" --cpu max --mem 512M --timeout "$T" \
	--cfg "--mode=handoff --end=return --kernel=\\boot\\arm"
boot_bg nola57 --img "$img" --cpu qemu64 --mem 512M --timeout "$T" \
	--cfg "--mode=handoff --end=qemu --kernel=\\boot\\mini5min.elf"
boot_wait
boot_bg bare --img "$bimg" --smp 4 --timeout "$T" \
	--cfg "--mode=handoff --end=return --kernel=\\boot\\stack-5555555555556000"
boot_wait

# ---- good ----
boot_result good
st=$?
check_status "$st" 99 "good: the kernel ran and every point of its own held (isa-debug-exit 0x31)"
check_log '^ptlab: [0-9]+ passed, 0 failed' "$BOOT_LOG" "good: every check of ptlab passed"
# each check of the tables handed over passed, found by its registry key
check_log '^ok [0-9]+ - limine: .* # check=limine-digest$' \
	"$BOOT_LOG" "good: the tables handed over are the checked plan (digest)"
check_log "^ok [0-9]+ - limine: the kernel's 3 segments .* # check=limine-segment$" \
	"$BOOT_LOG" "good: the segments mapped as the file says"
check_log '^ok [0-9]+ - limine: .* # check=limine-entry$' \
	"$BOOT_LOG" "good: the responses and the entry read back through the tables handed over"
check_log '^ok [0-9]+ - limine: the 4-level layout: HHDM at 0xffff800000000000 .* # check=limine-layout$' \
	"$BOOT_LOG" "good: the HHDM response at the 4-level offset, below the kernel"
check_log '^ok [0-9]+ - limine: 3 AP\(s\) .* # check=limine-park$' "$BOOT_LOG" \
	"good: the 3 APs parked on the tables handed over"
check_log '^ok [0-9]+ - limine: .* of [1-9][0-9]* I/O APIC\(s\) .* # check=limine-unmasked$' \
	"$BOOT_LOG" "good: the PIC and the I/O APIC masked, read back"
check_log '^# limine-load: kernel=\\boot\\mini.elf type=exec .* modules=1 cpus=4' "$BOOT_LOG" \
	"good: the module read, 4 CPUs from the MADT"
check_log "$HANDED" "$BOOT_LOG" "good: handed over, and said so last"
if grep -q '^limine-mini: every point held' "$BOOT_DIR/good.debugcon" 2>/dev/null; then
	pass "good: the kernel's line on the debug console"
else
	fail "good: no line of the kernel on the debug console"
fi

# ---- pie ----
boot_result pie
st=$?
check_status "$st" 99 "pie: the slid kernel ran, its relocation applied (isa-debug-exit 0x31)"
check_log '^# limine-load: kernel=\\boot\\pie.elf type=dyn load=0x[0-9a-f]+\+0x[0-9a-f]+ va=0xffffffff[89a-f][0-9a-f]{7} slide=0xffffffff[89a-f][0-9a-f]{7} from (rdseed|rdrand|EFI_RNG_PROTOCOL)' \
	"$BOOT_LOG" "pie: slid from the minimum slide by a random amount, the source named"
check_log "$HANDED" "$BOOT_LOG" "pie: handed over"

# ---- five ----
boot_result five
st=$?
check_status "$st" 99 "five: the kernel ran on 5-level paging, as its paging mode response says (isa-debug-exit 0x31)"
check_log '^# limine-load: kernel=\\boot\\mini5.elf .* levels=5 ' "$BOOT_LOG" "five: loaded for 5 levels"
check_log '^ok [0-9]+ - limine: the 5-level layout: HHDM at 0xff00000000000000 .* fit below the kernel.s window # check=limine-layout$' \
	"$BOOT_LOG" "five: the HHDM response at the 5-level offset, every physical address below the kernel"
check_log '^ok [0-9]+ - limine: 1 AP\(s\) .* # check=limine-park$' "$BOOT_LOG" \
	"five: the AP parked on the 5-level tables"
check_log "$HANDED" "$BOOT_LOG" "five: handed over"

# ---- faults ----
boot_result faults
st=$?
check_status "$st" 35 "faults: the run ended with a failure (status 0x11)"
# each fault fails its own check, found by its registry key, and no other check fails
check_log '^not ok [0-9]+ - limine: .* # check=limine-digest$' \
	"$BOOT_LOG" "faults: limine-digest (page 0 mapped before the comparison) fails the digest check"
check_log "^not ok [0-9]+ - limine: 1 of [0-9]+ pages .* # check=limine-segment$" \
	"$BOOT_LOG" "faults: limine-segment (a page's X flipped) fails the segment check"
check_log "^not ok [0-9]+ - limine: the kernel's entry 0xffffffff80000000 reads 15 of 16 bytes .* # check=limine-entry$" \
	"$BOOT_LOG" "faults: limine-entry (an expected entry byte flipped) fails the read-back"
check_log '^not ok [0-9]+ - limine: base revision 0: 1 of [0-9]+ identity pages .* first va=0xfffff000 # check=limine-identity$' \
	"$BOOT_LOG" "faults: limine-identity (the page below 4 GiB left no-execute) fails the identity check"
check_log "^not ok [0-9]+ - limine: the responses against the 4-level layout: the HHDM offset is not the reference loader's .* \(HHDM offset 0xff00000000000000\) # check=limine-layout$" \
	"$BOOT_LOG" "faults: limine-layout (the 5-level offset in a 4-level HHDM response) fails the layout check"
failed=$(failed_checks "$BOOT_LOG")
if [ "$failed" = "limine-digest limine-entry limine-identity limine-layout limine-segment " ]; then
	pass "faults: those 5 checks failed and no other"
else
	fail "faults: the failing test points' checks are '$failed', not limine-digest, limine-entry, limine-identity, limine-layout and limine-segment once each"
fi
check_log '^# limine: not handed over: 5 check\(s\) failed' "$BOOT_LOG" "faults: not handed over, and said why"
check_no_log "$HANDED" "$BOOT_LOG" "faults: no jump"

boot_result park
st=$?
check_status "$st" 35 "park: the run ended with a failure (status 0x11)"
check_log '^not ok [0-9]+ - limine: of 1 APs 0 did not answer INIT-SIPI-SIPI and 1 run on another CR3 # check=limine-park$' \
	"$BOOT_LOG" "park: limine-park (the AP's CR3 taken for wrong) fails the AP check"
check_log '^not ok [0-9]+ - limine: interrupts not masked: PIC 0xff/0xff, [0-9]+ of [1-9][0-9]* I/O APIC lines # check=limine-unmasked$' \
	"$BOOT_LOG" "park: limine-unmasked (an I/O APIC line unmasked) fails the masking check"
failed=$(failed_checks "$BOOT_LOG")
if [ "$failed" = "limine-park limine-unmasked " ]; then
	pass "park: those 2 checks failed and no other"
else
	fail "park: the failing test points' checks are '$failed', not limine-park and limine-unmasked once each"
fi
check_no_log "$HANDED" "$BOOT_LOG" "park: no jump"

# ---- refuse ----
boot_result refuse
st=$?
check_status "$st" 0 "refuse: the shell shut down after every refusal (status 0)"
check_kernel_refused limine arm 'not an x86-64 ELF \(machine 183\)' "refuse: arm: built for another machine"
check_kernel_refused limine low 'segment at 0xffffffff7fff0000 is below 0xffffffff80000000' "refuse: low: a segment below the kernel window"
check_kernel_refused limine overlap 'overlapping segments: ' "refuse: overlap: two segments overlapping"
check_kernel_refused limine pastfile 'segment 0: file bytes \[0x1000, \+0x10000\) past the end of the file \(0x3000 bytes\)' \
	"refuse: pastfile: a segment past the end of the file"
check_kernel_refused limine huge 'no free RAM holds its 0x30001000 bytes' "refuse: huge: a kernel larger than the free RAM"
check_kernel_refused limine wx 'segment 0 at 0xffffffff80000000 is writable and executable' "refuse: wx: a writable and executable segment"
check_kernel_refused limine rel 'RELA relocation 0: type 1 is not supported \(only R_X86_64_RELATIVE, 8\)' \
	"refuse: rel: a relocation other than RELATIVE"
check_log '^not ok [0-9]+ - limine: module \\boot\\nothere cannot be opened: status 0x800000000000000e \(EFI_NOT_FOUND\)' \
	"$BOOT_LOG" "refuse: a missing module refused with the firmware's status"
check_log '^not ok [0-9]+ - limine: module \\boot\\inothere.bin cannot be opened: status 0x800000000000000e \(EFI_NOT_FOUND\)' \
	"$BOOT_LOG" "refuse: a missing internal module marked required refused, looked for beside the kernel"
check_kernel_refused limine stack-8000000000001000 'stack size request 0x8000000000001000 is larger than a quarter of the RAM \(0x[0-9a-f]+ bytes\)' \
	"refuse: stack-8000000000001000: a stack size request whose product with the CPUs wraps (1 CPU)"
check_kernel_refused limine mini.elf 'the run has 5-level paging \(--levels=5\) and the kernel has no paging mode request \(4 levels only\)' \
	"refuse: mini.elf: 5 levels asked of a kernel that allows 4"
check_kernel_refused limine mini5min.elf 'the run has 4-level paging \(--levels=4\) and the kernel does not allow it' \
	"refuse: mini5min.elf: 4 levels asked of a kernel that requires 5"
check_kernel_refused limine mini.elf "--initrd is the Linux protocol's; a Limine-protocol kernel takes --module" \
	"refuse: mini.elf: an initrd given to a Limine-protocol kernel"
if [ "$(log_clean "$BOOT_LOG" | grep -c '^# handoff: boot services kept: the kernel was refused before ExitBootServices')" = 13 ]; then
	pass "refuse: all 13 runs kept boot services"
else
	fail "refuse: $(log_clean "$BOOT_LOG" | grep -c '^# handoff: boot services kept') of 13 runs kept boot services"
fi
check_log '^ptlab-test: the firmware went on' "$BOOT_LOG" "refuse: the firmware went on after the last refusal"
check_no_log "$HANDED" "$BOOT_LOG" "refuse: nothing handed over"

# ---- nola57: a kernel that requires 5 levels on a CPU without LA57, no --levels ----
boot_result nola57
st=$?
check_status "$st" 35 "nola57: refused, the run ended with a failure (status 0x11)"
check_log '^not ok [0-9]+ - limine: kernel \\boot\\mini5min.elf refused: the run has 4-level paging \(the CPU has no LA57, CPUID.\(EAX=07H,ECX=0\):ECX\[16\]\) and the kernel does not allow it' \
	"$BOOT_LOG" "nola57: the refusal names the real cause, the CPU's missing LA57, not --levels"
check_no_log "$HANDED" "$BOOT_LOG" "nola57: nothing handed over"

# ---- bare ----
boot_result bare
st=$?
check_status "$st" 99 "bare: the kernel with no request ran (isa-debug-exit 0x31)"
check_kernel_refused limine stack-5555555555556000 'stack size request 0x5555555555556000 is larger than a quarter of the RAM' \
	"bare: stack-5555555555556000: a stack size request whose product with 4 CPUs wraps, before ExitBootServices"
check_kernel_refused limine stack-3333333333334000 'stack size request 0x3333333333334000 is larger than a quarter of the RAM' \
	"bare: stack-3333333333334000: another, before ExitBootServices"
check_kernel_refused limine stack-10000000 'stack size request 0x10000000 times 5 stacks \(4 CPUs and the BSP.s own\) is larger than half the RAM' \
	"bare: stack-10000000: a stack that fits a quarter of the RAM, 5 of them not half"
check_log '^# limine: kernel \\boot\\unknown: 1 request\(s\) of an identifier ptlab does not know, left unanswered' \
	"$BOOT_LOG" "bare: the unknown request named in a note"
check_log '^# limine-load: kernel=\\boot\\noreq .* requests=0x0 levels=4 stack=0x10000 stacks=0x[0-9a-f]+\+0x50000 responses=0x0\+0x0 modules=0 cpus=4' \
	"$BOOT_LOG" "bare: no request, no response buffer, 5 stacks of the default size"
check_log '^# limine: entry=0xffffffff80000000 stack=0xffff8000[0-9a-f]+\+0x10000 .* answered=0x0 .* responses=0x0\+0x0' \
	"$BOOT_LOG" "bare: entered with the default stack, nothing answered"
for c in limine-digest limine-segment limine-layout limine-entry limine-unmasked; do
	check_log "^ok [0-9]+ - limine: .* # check=$c\$" "$BOOT_LOG" "bare: the hand-over's $c check passed"
done
if [ "$(log_clean "$BOOT_LOG" | grep '^ptlab: [0-9]* passed' | tail -n 1 | grep -c ' 0 failed')" = 1 ]; then
	pass "bare: the last run, the kernel with no request, passed every check"
else
	fail "bare: the last run's result line is not '0 failed'"
fi
check_log "$HANDED" "$BOOT_LOG" "bare: handed over"

boot_done
