/* SPDX-License-Identifier: MIT */
/*
 * What the memory map says is RAM (ram.c): the one answer every module
 * that must not touch MMIO or reserved memory asks.  Firmware-free.
 */
#ifndef PTLAB_EFI_RAM_H
#define PTLAB_EFI_RAM_H

#include <stdbool.h>
#include <stdint.h>

struct pt_memmap;

/* Is @pa in RAM per the memory map @map (safe to read, never MMIO or reserved)? */
bool ptlab_is_ram(const struct pt_memmap *map, uint64_t pa);
/* Is all of [pa, pa+len) RAM per @map (no hole, MMIO or reserved byte)? */
bool ptlab_range_is_ram(const struct pt_memmap *map, uint64_t pa, uint64_t len);

#endif
