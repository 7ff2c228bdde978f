/* SPDX-License-Identifier: MIT */
/*
 * The LA57 trampoline's pages (layout in la57tramp.h, code in la57tramp_asm.S): fill
 * them and run a switch.  No firmware call, no ptlab state: the entry-state
 * chainloader (tests/entrystate/chain.c) links this file and la57tramp_asm.S
 * as they are, to enter ptlab in 5-level paging.
 */
#include <stddef.h>

#include "cpu/cpu.h"
#include "live/la57tramp.h"

#include <ptlab/pte.h>


/* Window GDT descriptors, accessed bit preset so the CPU never writes them. */
#define DESC_CODE64     UINT64_C(0x00af9b000000ffff)
#define DESC_DATA       UINT64_C(0x00cf93000000ffff)
#define DESC_CODE32     UINT64_C(0x00cf9b000000ffff)
#define GATE32_INTR     UINT64_C(0x8e)   /* present, DPL 0, 32-bit interrupt gate */

static void put16(uint8_t *d, unsigned off, uint16_t v)
{
	d[off] = (uint8_t)v;
	d[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *d, unsigned off, uint32_t v)
{
	put16(d, off, (uint16_t)v);
	put16(d, off + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *d, unsigned off, uint64_t v)
{
	put32(d, off, (uint32_t)v);
	put32(d, off + 4, (uint32_t)(v >> 32));
}

void la57_tramp_init(uint64_t tramp)
{
	uint8_t *code = (uint8_t *)(uintptr_t)tramp, *d = code + LA57_DATA;
	uint64_t data = tramp + LA57_DATA;
	size_t n = (size_t)(la57_blob_end - la57_blob);

	for (size_t i = 0; i < PT_PAGE_SIZE; i++)
		code[i] = i < n ? (uint8_t)la57_blob[i] : 0xcc;
	for (size_t i = 0; i < PT_PAGE_SIZE; i++)
		d[i] = 0;
	put64(d, LA57_P_GDT + LA57_SEL_CODE64, DESC_CODE64);
	put64(d, LA57_P_GDT + LA57_SEL_DATA, DESC_DATA);
	put64(d, LA57_P_GDT + LA57_SEL_CODE32, DESC_CODE32);
	put16(d, LA57_P_GDTR_WIN, LA57_GDT_ENTRIES * 8 - 1);
	put64(d, LA57_P_GDTR_WIN + 2, data + LA57_P_GDT);
	put16(d, LA57_P_IDTR32, LA57_IDT32_VECTORS * 8 - 1);
	put32(d, LA57_P_IDTR32 + 2, (uint32_t)(data + LA57_P_IDT32));
	for (unsigned v = 0; v < LA57_IDT32_VECTORS; v++) {
		uint32_t off = (uint32_t)(tramp + (uint64_t)(la57_stubs32 - la57_blob) + 16 * v);

		put64(d, LA57_P_IDT32 + 8 * v, (uint64_t)(off & 0xffff) |
		      ((uint64_t)LA57_SEL_CODE32 << 16) | (GATE32_INTR << 40) |
		      ((uint64_t)(off >> 16) << 48));
	}
}

void la57_tramp_run(uint64_t tramp, uint64_t cr4, uint64_t cr3, bool raise, bool exit_qemu)
{
	uint8_t *d = (uint8_t *)(uintptr_t)(tramp + LA57_DATA);

	put64(d, LA57_P_CR4, cr4);
	put64(d, LA57_P_CR3, cr3);
	put32(d, LA57_P_RAISE, raise);
	put32(d, LA57_P_EXIT, exit_qemu);
	((void (*)(void))(uintptr_t)(tramp + (uint64_t)(la57_entry - la57_blob)))();
}

bool la57_active(void)
{
	return (read_cr4() & CR4_LA57) != 0;
}

uint64_t la57_lower_pml4(uint64_t root)
{
	uint64_t e = *(volatile uint64_t *)(uintptr_t)(root & PTE_ADDR_MASK);

	return (e & PTE_P) ? e & PTE_ADDR_MASK : 0;
}
