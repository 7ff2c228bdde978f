/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loads and stores at any alignment, for the firmware-free
 * parsers of what arrives from outside (a kernel's file and image, the
 * firmware's ACPI tables): nothing there is trusted to be aligned, and the
 * loads say the byte order.  The host tests build and read such bytes with
 * the same functions (tests/unit/, tests/fuzz/fuzzkit.h).
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

/* Returns the little-endian value of the @n bytes (n <= 8) at @p. */
static inline uint64_t le_ldn(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Stores the low @n bytes (n <= 8) of @v little-endian at @p. */
static inline void le_stn(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Stores @v little-endian at @p. */
static inline void le_st16(uint8_t *p, uint16_t v)
{
	le_stn(p, 2, v);
}

/* Stores @v little-endian at @p. */
static inline void le_st32(uint8_t *p, uint32_t v)
{
	le_stn(p, 4, v);
}

/* Stores @v little-endian at @p. */
static inline void le_st64(uint8_t *p, uint64_t v)
{
	le_stn(p, 8, v);
}

#endif
