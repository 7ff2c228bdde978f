/* SPDX-License-Identifier: MIT */
/*
 * What lmhandoff_asm.S's AP parking code reads: one block per AP, filled by
 * the BSP (lmhandoff.c) in bootloader-reclaimable memory.  Included by
 * assembly: plain numbers.
 */
#ifndef PTLAB_EFI_LIMINE_PARK_H
#define PTLAB_EFI_LIMINE_PARK_H

#define LP_GDTR       6         /* limit (2 bytes) at 6, base (8) at 8: lgdt 6(block) */
#define LP_INFO       16        /* HHDM address of the AP's lm_smp_info */
#define LP_STACK      24        /* HHDM address of its stack's top */
#define LP_PAT        32        /* IA32_PAT to load */
#define LP_LOOP       40        /* the polling loop's address in the image alias */
#define LP_X2APIC     48        /* u32: 1 = enable x2APIC mode */
#define LP_ARRIVED    52        /* u32: the AP writes 1 when parked */
#define LP_CR3        56        /* the CR3 the AP found itself on */
#define LP_BYTES      64

#define LIMINE_SEL_CODE64 0x28  /* the protocol's GDT: 64-bit code, 64-bit data */
#define LIMINE_SEL_DATA64 0x30

#ifndef __ASSEMBLER__
#include <stdint.h>

struct limine_park {
	uint8_t pad[6];
	uint16_t gdt_limit;
	uint64_t gdt_base;
	uint64_t info;
	uint64_t stack;
	uint64_t pat;
	uint64_t loop;
	uint32_t x2apic;
	volatile uint32_t arrived;
	volatile uint64_t cr3;
};

_Static_assert(sizeof(struct limine_park) == LP_BYTES, "park block");
#endif

#endif
