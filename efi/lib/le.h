/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loads and stores at any alignment, for the firmware-free
 * parsers of what arrives from outside (a kernel's file and image, the
 * firmware's ACPI tables): nothing there is trusted to be aligned, and the
 * loads say the byte order.
 */
#ifndef PTLAB_EFI_LE_H
#define PTLAB_EFI_LE_H

#include <stdint.h>

/* Returns the little-endian 16-bit value at @p. */
static inline uint16_t le_ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

/* Returns the little-endian 32-bit value at @p. */
static inline uint32_t le_ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

/* Returns the little-endian 64-bit value at @p. */
static inline uint64_t le_ld64(const uint8_t *p)
{
	return (uint64_t)le_ld32(p) | (uint64_t)le_ld32(p + 4) << 32;
}

/* Stores @v little-endian at @p. */
static inline void le_st64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#endif
