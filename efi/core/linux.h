/* SPDX-License-Identifier: MIT */
/*
 * Hand-off mode ending in a Linux kernel (--kernel, --initrd, --cmdline):
 * the files read and placed before ExitBootServices, the plan's one W^X
 * exemption, and after the checks the tables built again, the zero page
 * and the jump to the 64-bit entry.  The order is handoff.c's.
 */
#ifndef PTLAB_EFI_LINUX_H
#define PTLAB_EFI_LINUX_H

#include <efi.h>

#include "state/state.h"

/*
 * Before ExitBootServices, after the memory map was normalized: read the
 * kernel and the initrd from the boot volume, judge the setup header,
 * place the kernel, the initrd, the zero page and the command line in
 * pages of ours.  @map_cap: memory-map ranges the final map may have.
 * Returns PT_OK, or an error after a failure line naming the file and the
 * reason; then nothing stays allocated and p->kern.on is false.
 */
int linux_load(struct ptlab *p, EFI_LOADED_IMAGE *li, unsigned map_cap);

/* After run_plan(): the kernel's init_size range RWX in the identity map. */
int linux_plan_exempt(struct ptlab *p);

/*
 * After the checks (no boot services): the hierarchy built again from the
 * checked plan and compared with the checked build, the CPU reading and
 * executing through it, the e820 table and the zero page.  PT_OK when the
 * jump may follow (every line reported), an error otherwise.
 */
int linux_prepare_jump(struct ptlab *p);

/*
 * The jump: the firmware's PAT, CR4 without PGE/SMEP/SMAP/PKE/PCIDE, a
 * GDT with __BOOT_CS 0x10 and __BOOT_DS 0x18, no IDT, the handed-over
 * hierarchy in CR3, RSI = the zero page, to load address + 0x200.
 */
__attribute__((noreturn)) void linux_jump(struct ptlab *p);

#endif
