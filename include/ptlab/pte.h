/* SPDX-License-Identifier: MIT */
/*
 * x86-64 paging-structure entry bits (Intel SDM Vol. 3A §4.5, AMD APM Vol. 2 §5.3).
 *
 * Levels are numbered from the leaf: 0 = PT, 1 = PD, 2 = PDPT, 3 = PML4, 4 = PML5.
 * A 4-level virtual address splits as
 *
 *   63      48 47     39 38     30 29     21 20     12 11          0
 *  +----------+---------+---------+---------+---------+-------------+
 *  | sign ext | level 3 | level 2 | level 1 | level 0 |   offset    |
 *  +----------+---------+---------+---------+---------+-------------+
 *
 * and 5-level paging adds level 4 at bits 56:48.  These are hardware bits;
 * callers of the library speak in PT_* flags (pt.h), translated in one place.
 */
#ifndef PTLAB_PTE_H
#define PTLAB_PTE_H

#include <stdint.h>

#define PTE_P           (UINT64_C(1) << 0)   /* present */
#define PTE_W           (UINT64_C(1) << 1)   /* writable */
#define PTE_US          (UINT64_C(1) << 2)   /* user */
#define PTE_PWT         (UINT64_C(1) << 3)   /* page write-through (PAT index bit 0) */
#define PTE_PCD         (UINT64_C(1) << 4)   /* page cache disable (PAT index bit 1) */
#define PTE_A           (UINT64_C(1) << 5)   /* accessed, set by the CPU */
#define PTE_D           (UINT64_C(1) << 6)   /* dirty, set by the CPU (leaves only) */
#define PTE_PS          (UINT64_C(1) << 7)   /* page size: leaf at level 1 or 2 */
#define PTE_PAT_4K      (UINT64_C(1) << 7)   /* PAT index bit 2 in a level-0 entry */
#define PTE_G           (UINT64_C(1) << 8)   /* global (leaves only, with CR4.PGE) */
#define PTE_PAT_LARGE   (UINT64_C(1) << 12)  /* PAT index bit 2 in a 2 MiB / 1 GiB leaf */
#define PTE_NX          (UINT64_C(1) << 63)  /* no execute (EFER.NXE=1) */

/*
 * Software bit ptlab keeps in a level-1 entry that links a page table (PS
 * clear): bit 9, which the CPU ignores there (Intel SDM Vol. 3A §4.5, table
 * 4-19, "PDE that references a page table": bits 11:8 ignored; AMD APM
 * Vol. 2 §5.3: AVL).  Set only while all 512 entries of the linked table are
 * present and none has G: pt_unmap then removes a table it covers whole
 * without reading it.  pt_map sets it on the tables it fills whole, every
 * call that changes such a table keeps it true or clears it, and pt_lint
 * reports one that does not hold.  Never set in any other entry.
 */
#define PTE_SW_FULL     (UINT64_C(1) << 9)

/* Bits 51:12 hold a 4 KiB-aligned physical address. */
#define PTE_ADDR_MASK   UINT64_C(0x000ffffffffff000)
/* The CPU sets these by itself; comparisons of live tables mask them. */
#define PTE_AD_MASK     (PTE_A | PTE_D)

#define PT_ENTRIES      512u
#define PT_PAGE_SHIFT   12u
#define PT_PAGE_SIZE    (UINT64_C(1) << PT_PAGE_SHIFT)
#define PT_LEVEL_BITS   9u

#define PT_SIZE_4K      (UINT64_C(1) << 12)
#define PT_SIZE_2M      (UINT64_C(1) << 21)
#define PT_SIZE_1G      (UINT64_C(1) << 30)
#define PT_SIZE_512G    (UINT64_C(1) << 39)

/* Bytes one entry at @level spans (level 0: 4 KiB). */
static inline uint64_t pt_level_size(unsigned level)
{
	return UINT64_C(1) << (PT_PAGE_SHIFT + PT_LEVEL_BITS * level);
}

/* Index of @va in the table at @level. */
static inline unsigned pt_index(uint64_t va, unsigned level)
{
	return (unsigned)(va >> (PT_PAGE_SHIFT + PT_LEVEL_BITS * level)) & (PT_ENTRIES - 1);
}

/* @x rounded up / down to a multiple of @a, a power of two (up wraps past 2^64 to 0). */
static inline uint64_t pt_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static inline uint64_t pt_align_down(uint64_t x, uint64_t a)
{
	return x & ~(a - 1);
}

#endif /* PTLAB_PTE_H */
