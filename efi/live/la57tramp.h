/* SPDX-License-Identifier: MIT */
/*
 * Switching the CPU between 4- and 5-level paging (CR4.LA57).
 *
 * CR4.LA57 may change only while paging is off, and in IA-32e mode paging
 * goes off only from compatibility mode.  The switch therefore runs in a
 * trampoline: two pages below 4 GiB, allocated as EfiLoaderCode, identity
 * mapped in every hierarchy that is loaded when it runs (the code page RX,
 * the data page RW).  The data page holds the window's GDT (64-bit code,
 * flat data, 32-bit code), a 32-bit IDT whose handlers write one line to
 * COM1 and halt, the parameters and the stack.  The steps:
 *
 *   64-bit: save RSP, GDTR, IDTR and the selectors; load the window GDT and
 *   stack; far return into the 32-bit code segment (compatibility mode);
 *   32-bit: flat data segments; clear CR4.PCIDE; clear CR0.PG (IA-32e mode
 *   is inactive now: legacy protected mode with PAE); load the 32-bit IDT;
 *   set or clear CR4.LA57; load CR3 with the new root; set CR0.PG (IA-32e
 *   mode again); far return into the 64-bit code segment;
 *   64-bit: IDTR, GDTR, selectors and RSP back; far return to the caller's CS.
 *
 * The offsets below are shared by la57tramp.c and la57tramp_asm.S.
 */
#ifndef PTLAB_EFI_LIVE_LA57TRAMP_H
#define PTLAB_EFI_LIVE_LA57TRAMP_H

#define LA57_PAGES		2	/* code page, data page */
#define LA57_DATA		4096	/* the data page, from the code page */

/* Window GDT selectors (in the data page at LA57_P_GDT). */
#define LA57_SEL_CODE64		0x08
#define LA57_SEL_DATA		0x10
#define LA57_SEL_CODE32		0x28
#define LA57_GDT_ENTRIES	6

/* Data page layout. */
#define LA57_P_GDT		0x000	/* LA57_GDT_ENTRIES descriptors */
#define LA57_P_GDTR_WIN		0x040	/* limit, 64-bit base */
#define LA57_P_GDTR_SAVE	0x050
#define LA57_P_IDTR_SAVE	0x060
#define LA57_P_IDTR32		0x070	/* limit, 32-bit base */
#define LA57_P_RSP		0x080
#define LA57_P_CR4		0x088	/* CR4 loaded in the window (LA57 as wanted, PCIDE clear) */
#define LA57_P_CR3		0x090	/* the root loaded in the window */
#define LA57_P_RAISE		0x098	/* nonzero: ud2 with paging off (--raise=la57-window) */
#define LA57_P_EXIT		0x09c	/* nonzero: a window fault leaves QEMU (isa-debug-exit) */
#define LA57_P_CS		0x0a0
#define LA57_P_SS		0x0a2
#define LA57_P_DS		0x0a4
#define LA57_P_ES		0x0a6
#define LA57_P_IDT32		0x100	/* LA57_IDT32_VECTORS 8-byte gates */
#define LA57_IDT32_VECTORS	32
#define LA57_P_STACK_TOP	0x1000	/* the rest of the page is the window's stack */

#define LA57_EXIT_CODE		0x12	/* PTLAB_EXIT_ABORTED */

#ifndef __ASSEMBLER__

#include <stdbool.h>
#include <stdint.h>

/* la57tramp_asm.S: the trampoline's template (code page) and its entry points. */
extern const char la57_blob[], la57_blob_end[], la57_entry[], la57_stubs32[];

/*
 * la57tramp.c (no firmware call, no run state): copy the code into the code
 * page at @tramp (below 4 GiB) and build the window's GDT and 32-bit IDT in
 * the data page after it.
 */
void la57_tramp_init(uint64_t tramp);

/*
 * Run one switch through the trampoline at @tramp: CR4 = @cr4 (PCIDE clear,
 * LA57 as wanted) and CR3 = @cr3 (below 4 GiB) are loaded with paging off.
 * @raise: ud2 in the window (its 32-bit IDT catches it); @exit_qemu: a
 * window fault leaves QEMU through isa-debug-exit.  Interrupts must be off;
 * the caller checks every precondition.
 */
void la57_tramp_run(uint64_t tramp, uint64_t cr4, uint64_t cr3, bool raise, bool exit_qemu);

/* The CPU runs with 5-level paging (CR4.LA57). */
bool la57_active(void);

/* After ExitBootServices: the 4-level root under the 5-level @root (PML5 slot 0). */
uint64_t la57_lower_pml4(uint64_t root);

#endif /* __ASSEMBLER__ */
#endif /* PTLAB_EFI_LIVE_LA57TRAMP_H */
