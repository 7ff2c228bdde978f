/* SPDX-License-Identifier: MIT */
/*
 * The jump into a kernel, every protocol's (kernel.c, kernel_asm.S): what
 * the protocol gives and the offsets the assembly reads it at.
 */
#ifndef PTLAB_EFI_CORE_KERNEL_JUMP_H
#define PTLAB_EFI_CORE_KERNEL_JUMP_H

#define KJ_ENTRY  0
#define KJ_CR3    8
#define KJ_CR4    16
#define KJ_RSI    24
#define KJ_RSP    32
#define KJ_GDTR   40
#define KJ_CS     48
#define KJ_DS     56

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

struct desc_ptr;

/* What a protocol's kernel gets at its entry (kernel_jump()). */
struct kernel_jump {
	uint64_t entry;                  /* the 64-bit entry point */
	uint64_t cr3;                    /* the handed-over hierarchy */
	uint64_t cr4;                    /* set by kernel_jump() */
	uint64_t rsi;                    /* Linux: the zero page; else 0 */
	uint64_t rsp;                    /* the kernel's stack top; 0: ours, as it is */
	const struct desc_ptr *gdtr;     /* the protocol's GDT, in pages the tables map */
	uint64_t cs, ds;                 /* its 64-bit code and data selectors */
};

_Static_assert(offsetof(struct kernel_jump, entry) == KJ_ENTRY, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, cr3) == KJ_CR3, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, cr4) == KJ_CR4, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, rsi) == KJ_RSI, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, rsp) == KJ_RSP, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, gdtr) == KJ_GDTR, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, cs) == KJ_CS, "kernel_jump");
_Static_assert(offsetof(struct kernel_jump, ds) == KJ_DS, "kernel_jump");

#endif
#endif
