/* SPDX-License-Identifier: MIT */
/*
 * The hand-off mode's AP trampoline: two pages below 1 MiB, code at T (the
 * SIPI vector is T >> 12, so the AP starts in real mode at CS = T >> 4,
 * IP = 0) and its data at T + 4 KiB.  The code (smp_asm.S) is position
 * independent: real mode addresses the data through DS = CS, protected and
 * long mode through EBX = T.  It goes 16 -> 32 (flat GDT from the data page)
 * -> 64-bit (CR4.PAE [LA57], CR3 = the built root, EFER.LME|NXE, CR0.PG|WP)
 * and calls entry(cpu) on the stack the data page names.  Before it
 * touches that stack, the 64-bit code loads the AP's TSS (its IST stacks)
 * and the park IDT (smp/aptrap.h): from its first 64-bit instruction an
 * exception on the AP is caught on a stack of ptlab's, whatever its RSP.
 *
 * Included by assembly: the TD_* offsets are plain numbers.
 */
#ifndef PTLAB_EFI_SMP_TRAMP_H
#define PTLAB_EFI_SMP_TRAMP_H

#define TD_PAGE_OFF   0x1000    /* the data page, from T */
#define TD_GDT        0x00      /* 9 descriptors: see TRAMP_SEL_* */
#define TD_GDTR       0x48      /* limit (2), base (4) */
#define TD_FAR32      0x50      /* offset (4), selector (2): the protected-mode entry */
#define TD_FAR64      0x58      /* offset (4), selector (2): the long-mode entry */
#define TD_CR3        0x60
#define TD_CR4        0x64
#define TD_STACK      0x68
#define TD_CPU        0x70
#define TD_ENTRY      0x78
#define TD_IDTR       0x80      /* limit (2), base (8): the park IDT (smp/aptrap.h) */
#define TD_SIZE       0x8a

#define TRAMP_SEL_CODE32 0x08
#define TRAMP_SEL_DATA   0x10
#define TRAMP_SEL_CODE64 0x18
/*
 * The park IDT's code selector: a 64-bit code descriptor here and at the
 * same index in every GDT an AP loads before it leaves ptlab's window -
 * the Limine protocol's (0x28 is its 64-bit code) - so an exception is
 * delivered whichever of them is loaded.
 */
#define TRAMP_SEL_PARK_CODE 0x28
#define TRAMP_SEL_PARK_DATA 0x30
#define TRAMP_SEL_TSS    0x38   /* the AP's TSS (its IST stacks), 16 bytes */
#define TRAMP_GDT_ENTRIES 9

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

struct smp_tramp_data {
	uint64_t gdt[TRAMP_GDT_ENTRIES];
	uint16_t gdtr_limit;
	uint32_t gdtr_base;
	uint16_t pad0;
	uint32_t far32_off;
	uint16_t far32_sel;
	uint16_t pad1;
	uint32_t far64_off;
	uint16_t far64_sel;
	uint16_t pad2;
	uint32_t cr3;
	uint32_t cr4;
	uint64_t stack_top;
	uint64_t cpu;
	uint64_t entry;
	uint16_t idtr_limit;
	uint64_t idtr_base;
} __attribute__((packed));

#endif

#endif
