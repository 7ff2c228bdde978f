/* SPDX-License-Identifier: MIT */
/*
 * What the memory map says is RAM (ram.h): the one answer every
 * module that must not touch MMIO or reserved memory asks.  A file of its
 * own so a module that needs it depends on nothing else, and a host test
 * linking such a module may stand in its own (a link seam).
 */
#include "checks/ram.h"
#include <ptlab/memmap.h>

bool ptlab_is_ram(const struct pt_memmap *map, uint64_t pa)
{
	return pt_memmap_covers(map, pa, 1, PT_MEM_SET_MEMORY);
}

bool ptlab_range_is_ram(const struct pt_memmap *map, uint64_t pa, uint64_t len)
{
	return pt_memmap_covers(map, pa, len, PT_MEM_SET_MEMORY);
}
