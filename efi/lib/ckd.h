/* SPDX-License-Identifier: MIT */
/*
 * Checked arithmetic on the sizes, counts, addresses and offsets that come
 * from outside (a kernel file, its requests, a module, an initrd, a
 * bzImage header, \ptlab.cfg): every sum and product of such a value goes
 * through these, so that a wrap is an error the caller names, never a
 * small allocation that a large promise is then made about.  Firmware-free
 * (host-tested, test_ckd.c).  Each returns true when the exact result fits
 * and stores it; false when it does not, *@out then unspecified.
 */
#ifndef PTLAB_EFI_LIB_CKD_H
#define PTLAB_EFI_LIB_CKD_H

#include <stdbool.h>
#include <stdint.h>

/* @a + @b into *@out; false when the sum does not fit 64 bits. */
static inline bool ckd_add(uint64_t *out, uint64_t a, uint64_t b)
{
	return !__builtin_add_overflow(a, b, out);
}

/* @a + @b + @c into *@out; false when the sum does not fit. */
static inline bool ckd_add3(uint64_t *out, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t t;

	return ckd_add(&t, a, b) && ckd_add(out, t, c);
}

/* @a * @b into *@out; false when the product does not fit 64 bits. */
static inline bool ckd_mul(uint64_t *out, uint64_t a, uint64_t b)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* @a * @b + @c into *@out; false when it does not fit. */
static inline bool ckd_muladd(uint64_t *out, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t t;

	return ckd_mul(&t, a, b) && ckd_add(out, t, c);
}

/*
 * @v rounded up to a multiple of @align (a power of two, not 0) into
 * *@out; false when that multiple is above UINT64_MAX (or @align is not a
 * power of two).
 */
static inline bool ckd_align_up(uint64_t *out, uint64_t v, uint64_t align)
{
	uint64_t t;

	if (!align || (align & (align - 1)) || !ckd_add(&t, v, align - 1))
		return false;
	*out = t & ~(align - 1);
	return true;
}

/* Whether [@a, @a + @alen) and [@b, @b + @blen) share a byte (neither may wrap). */
static inline bool ckd_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

#endif
