/* SPDX-License-Identifier: MIT */
/*
 * A memory map built by hand for the host tests: @n ranges the test wrote
 * itself, taken as they are (not normalized), the map full (cap n) and
 * every other field zero.
 */
#ifndef PTLAB_TEST_MEMMAPFX_H
#define PTLAB_TEST_MEMMAPFX_H

#include <ptlab/memmap.h>

static inline struct pt_memmap memmap_of(struct pt_mem_range *r, unsigned n)
{
	return (struct pt_memmap){ .range = r, .cap = n, .n = n };
}

#endif
