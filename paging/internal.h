/* SPDX-License-Identifier: MIT */
/* Library-internal helpers shared between paging/ files; not part of the API. */
#ifndef PTLAB_PAGING_INTERNAL_H
#define PTLAB_PAGING_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <ptlab/pt.h>

/* CPUID leaves and bits, XCR0 bits (Intel SDM Vol. 2A CPUID, Vol. 1 13.3) */
#define CPUID_LEAF_MAX           0u
#define CPUID_LEAF_FEATURES      1u
#define CPUID_LEAF_EXT_FEATURES  7u
#define CPUID1_ECX_OSXSAVE       (UINT32_C(1) << 27)
#define CPUID1_ECX_AVX           (UINT32_C(1) << 28)
#define CPUID7_EBX_AVX2          (UINT32_C(1) << 5)
#define XCR0_SSE_AVX             UINT64_C(0x6)   /* bits 1 (SSE) and 2 (AVX) */

/* pt_align_up / pt_align_down: <ptlab/pte.h>. */

/* The @bytes-byte little-endian value at @p, read byte by byte (any alignment). */
static inline uint64_t pt_load_le(const void *p, unsigned bytes)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | b[bytes];
	return v;
}

/*
 * PT_DEFINE_RANGE_SEARCH(name, type, START, SIZE) defines
 *   static unsigned name(const type *a, unsigned n, uint64_t x)
 * for @n elements sorted by START and disjoint, each covering
 * [START(e), START(e) + SIZE(e)) with SIZE(e) > 0: the index of the first
 * element whose last byte is at or above @x (@n when none), by binary
 * search.  That element holds @x exactly when START(a[i]) <= x; also
 *   static const type *name##_holding(const type *a, unsigned n, uint64_t x)
 * returns that element, or NULL when none holds @x.
 */
#define PT_DEFINE_RANGE_SEARCH(name, type, START, SIZE)				\
static inline unsigned name(const type *a, unsigned n, uint64_t x)		\
{										\
	unsigned lo = 0, hi = n;						\
										\
	while (lo < hi) {							\
		unsigned mid = lo + (hi - lo) / 2;				\
										\
		if (START(a[mid]) + (SIZE(a[mid]) - 1) < x)			\
			lo = mid + 1;						\
		else								\
			hi = mid;						\
	}									\
	return lo;								\
}										\
										\
static inline const type *name##_holding(const type *a, unsigned n, uint64_t x)	\
{										\
	unsigned i = name(a, n, x);						\
										\
	return i < n && START(a[i]) <= x ? &a[i] : NULL;			\
}

/* START and SIZE for PT_DEFINE_RANGE_SEARCH over elements' .pa or .va and .len. */
#define PT_FIELD_PA(e)  ((e).pa)
#define PT_FIELD_VA(e)  ((e).va)
#define PT_FIELD_LEN(e) ((e).len)

/*
 * PT_DEFINE_HEAPSORT(name, type, KEY) defines
 *   static void name(type *a, size_t n)
 * sorting @a in place by the uint64_t KEY(element), ascending: no
 * allocation, O(n log n) worst case, not stable.
 */
#define PT_DEFINE_HEAPSORT(name, type, KEY)					\
static void name##_sift(type *a, size_t root, size_t n)				\
{										\
	type tmp = a[root];							\
										\
	for (;;) {								\
		size_t child = 2 * root + 1;					\
										\
		if (child >= n)							\
			break;							\
		if (child + 1 < n && KEY(a[child + 1]) > KEY(a[child]))		\
			child++;						\
		if (KEY(a[child]) <= KEY(tmp))					\
			break;							\
		a[root] = a[child];						\
		root = child;							\
	}									\
	a[root] = tmp;								\
}										\
										\
static void name(type *a, size_t n)						\
{										\
	for (size_t i = n / 2; i-- > 0;)					\
		name##_sift(a, i, n);						\
	for (size_t end = n; end-- > 1;) {					\
		type tmp = a[0];						\
										\
		a[0] = a[end];							\
		a[end] = tmp;							\
		name##_sift(a, 0, end);						\
	}									\
}

/* Leaf bits (P, W, US, G, NX, cache, PS above level 0) for PT_* @flags at @level. */
int pt_flags_to_bits(const struct pt_env *env, unsigned flags, unsigned level, uint64_t *bits);
/* PT_* attributes a leaf entry @e at @level carries by itself (not ANDed down a walk). */
unsigned pt_bits_to_flags(const struct pt_env *env, uint64_t e, unsigned level);

#endif
