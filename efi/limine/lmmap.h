/* SPDX-License-Identifier: MIT */
/*
 * The Limine memory map and what the hand-off's tables must map,
 * firmware-free (host-tested).
 *
 * The map is made from ptlab's normalized firmware map at the jump and
 * three lists the loader knows: the bootloader-reclaimable ranges (the
 * responses, page tables, stacks, GDT, parked APs' code), the kernel's
 * and the modules' ranges, and the framebuffers.  Stronger than the
 * specification asks: every entry, of any type, is page-aligned (the
 * lists are rounded outwards to whole pages), the entries are sorted and
 * no two overlap, and page 0 is never usable.
 *
 * UEFI types map so: conventional, boot-services code and data ->
 * usable; loader code and data -> bootloader-reclaimable (ptlab's own
 * image and allocations, and whatever the firmware loaded it with);
 * ACPI reclaim -> ACPI reclaimable; ACPI NVS -> ACPI NVS; unusable ->
 * bad memory; every other type (reserved, runtime code and data, MMIO,
 * PAL code, persistent, unaccepted) -> reserved.  On the lists' pages
 * the lists' types win over the firmware's; the lists may not overlap one
 * another.
 */
#ifndef PTLAB_EFI_LMMAP_H
#define PTLAB_EFI_LMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/memmap.h>

#include "limine/limine.h"

/* A physical range of bytes. */
struct lm_range {
	uint64_t pa;
	uint64_t len;
};

struct lm_map_in {
	const struct pt_memmap *fw;           /* the normalized map at the jump */
	const struct lm_range *reclaim;       /* bootloader-reclaimable, must lie in RAM the map has */
	unsigned nreclaim;
	const struct lm_range *kernel;        /* the kernel's block and the modules, likewise */
	unsigned nkernel;
	const struct lm_range *fb;            /* framebuffers: anywhere, even outside the map */
	unsigned nfb;
};

/**
 * lm_mem_type_of - the Limine type of a UEFI memory type
 * Returns LM_MEM_* as the table at the top says (unknown types: reserved).
 */
unsigned lm_mem_type_of(uint32_t efi_type);

/**
 * lm_map_bound - entries lm_map_build() may need at most for @in
 * Returns a bound good for sizing the output (and the response buffer).
 */
unsigned lm_map_bound(const struct lm_map_in *in);

/**
 * lm_map_build - the Limine memory map
 * @in: the map and the lists
 * @out: receives the entries, sorted by base, none overlapping, adjacent
 *       entries of one type merged
 * @cap: room at @out
 * @n: receives the count
 *
 * Returns 0, or -1 with @why set and *@n undefined: a list range empty or
 * wrapping, a reclaimable or kernel range on a page the firmware map does
 * not give as RAM (usable or bootloader-reclaimable by the table),
 * two list ranges overlapping, @cap too small.
 */
int lm_map_build(const struct lm_map_in *in, struct lm_memmap_entry *out, unsigned cap,
	unsigned *n, char *why, size_t whylen);

/**
 * lm_hhdm_maps - whether the HHDM holds an entry of @type above 4 GiB
 * @base_rev: the hand-off's base revision
 *
 * Returns true for every type in revision 0; in revisions 1 and 2 for
 * every type but reserved and bad memory.
 */
bool lm_hhdm_maps(unsigned base_rev, uint64_t type);

/**
 * lm_hhdm_ranges - what the HHDM (at offset + pa) must map
 * @base_rev: the hand-off's base revision
 * @map, @n: the Limine memory map
 * @out, @cap: receives sorted, merged, page-rounded ranges
 *
 * [0, 4 GiB) always, and the entries above it that lm_hhdm_maps() says.
 * In revision 0 the same ranges, page 0 excepted, are also identity
 * mapped (lm_identity_mapped()).
 *
 * Returns the number of ranges, or -1 when @cap is too small.
 */
int lm_hhdm_ranges(unsigned base_rev, const struct lm_memmap_entry *map, unsigned n,
	struct lm_range *out, unsigned cap);

/**
 * lm_identity_mapped - whether the hand-off must identity map
 * Returns true for base revision 0 only: [4 KiB, 4 GiB) and every entry.
 */
bool lm_identity_mapped(unsigned base_rev);

#endif
