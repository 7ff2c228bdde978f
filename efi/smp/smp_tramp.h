/* SPDX-License-Identifier: MIT */
/*
 * The hand-off mode's AP trampoline: two pages below 1 MiB, code at T (the
 * SIPI vector is T >> 12, so the AP starts in real mode at CS = T >> 4,
 * IP = 0) and its data at T + 4 KiB.  The code (smp_asm.S) is position
 * independent: real mode addresses the data through DS = CS, protected and
 * long mode through EBX = T.  It goes 16 -> 32 (flat GDT from the data page)
 * -> 64-bit (CR4.PAE [LA57], CR3 = the built root, EFER.LME|NXE, CR0.PG|WP)
 * and calls entry(cpu) on the stack the data page names.
 *
 * Included by assembly: the TD_* offsets are plain numbers.
 */
#ifndef PTLAB_EFI_SMP_TRAMP_H
#define PTLAB_EFI_SMP_TRAMP_H

#define TD_PAGE_OFF   0x1000    /* the data page, from T */
#define TD_GDT        0x00      /* 4 descriptors: null, code32, data, code64 */
#define TD_GDTR       0x20      /* limit (2), base (4) */
#define TD_FAR32      0x28      /* offset (4), selector (2): the protected-mode entry */
#define TD_FAR64      0x30      /* offset (4), selector (2): the long-mode entry */
#define TD_CR3        0x38
#define TD_CR4        0x3c
#define TD_STACK      0x40
#define TD_CPU        0x48
#define TD_ENTRY      0x50
#define TD_SIZE       0x58

#define TRAMP_SEL_CODE32 0x08
#define TRAMP_SEL_DATA   0x10
#define TRAMP_SEL_CODE64 0x18

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

struct smp_tramp_data {
	uint64_t gdt[4];
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
} __attribute__((packed));

#endif

#endif
