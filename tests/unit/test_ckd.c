// SPDX-License-Identifier: MIT
/* covers: efi/lib/ckd.h */
/*
 * Host tests for efi/lib/ckd.h: each checked operation against the exact
 * result computed in 128 bits, at the edges of 64 bits and on a sweep of
 * values around them.
 */
#include <stdbool.h>

#include "unit.h"

#include "../../efi/lib/ckd.h"

typedef unsigned __int128 u128;

static const uint64_t edge[] = {
	0, 1, 2, 3, 0xfff, 0x1000, 0x1001, 0x7fffffffffffffff, 0x8000000000000000,
	0x8000000000001000, 0x5555555555556000, 0x3333333333334000, 0xfffffffffffff000,
	0xfffffffffffff001, 0xfffffffffffffffe, 0xffffffffffffffff, 0x100000000, 0xffffffff,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

static void test_ckd_add_mul_against_128_bits(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NEDGE; i++)
		for (unsigned j = 0; j < NEDGE; j++) {
			u128 s = (u128)edge[i] + edge[j], p = (u128)edge[i] * edge[j];
			uint64_t out = 0x5a5a;

			assert_int_equal(ckd_add(&out, edge[i], edge[j]), s <= UINT64_MAX);
			if (s <= UINT64_MAX)
				assert_true(out == (uint64_t)s);
			assert_int_equal(ckd_mul(&out, edge[i], edge[j]), p <= UINT64_MAX);
			if (p <= UINT64_MAX)
				assert_true(out == (uint64_t)p);
			for (unsigned k = 0; k < NEDGE; k += 3) {
				u128 s3 = s + edge[k], ma = p + edge[k];

				assert_int_equal(ckd_add3(&out, edge[i], edge[j], edge[k]),
						 s3 <= UINT64_MAX);
				if (s3 <= UINT64_MAX)
					assert_true(out == (uint64_t)s3);
				assert_int_equal(ckd_muladd(&out, edge[i], edge[j], edge[k]),
						 p <= UINT64_MAX && ma <= UINT64_MAX);
				if (p <= UINT64_MAX && ma <= UINT64_MAX)
					assert_true(out == (uint64_t)ma);
			}
		}
}

/* The defects of issue 45: a stack size times the stacks, which wrapped to 8 KiB. */
static void test_ckd_mul_the_stack_products_that_wrapped(void **state)
{
	static const uint64_t wrapped[][2] = {
		{ 0x8000000000001000, 2 },
		{ 0x5555555555556000, 3 },
		{ 0x3333333333334000, 5 },
	};
	uint64_t out;

	(void)state;
	for (unsigned i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		if (ckd_mul(&out, wrapped[i][0], wrapped[i][1]))
			fail_msg("stack product %u: 0x%llx * %llu taken, it wraps", i,
				 (unsigned long long)wrapped[i][0],
				 (unsigned long long)wrapped[i][1]);
	assert_true(ckd_mul(&out, 0x10000, 65));
	assert_true(out == 0x410000);
}

static void test_ckd_align_up(void **state)
{
	static const uint64_t aligns[] = { 1, 2, 0x1000, 0x200000, UINT64_C(1) << 63 };
	uint64_t out;

	(void)state;
	for (unsigned a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++)
		for (unsigned i = 0; i < NEDGE; i++) {
			u128 want = ((u128)edge[i] + aligns[a] - 1) / aligns[a] * aligns[a];

			assert_int_equal(ckd_align_up(&out, edge[i], aligns[a]), want <= UINT64_MAX);
			if (want <= UINT64_MAX)
				assert_true(out == (uint64_t)want);
		}
	/* not a power of two, or 0: refused whatever the value */
	assert_false(ckd_align_up(&out, 0x1000, 0));
	assert_false(ckd_align_up(&out, 0x1000, 0x3000));
	assert_false(ckd_align_up(&out, 0xfffffffffffff001, 0x1000));
	assert_true(ckd_align_up(&out, 0xfffffffffffff000, 0x1000));
	assert_true(out == 0xfffffffffffff000);
}

static void test_ckd_overlap(void **state)
{
	(void)state;
	assert_true(ckd_overlap(0x1000, 0x1000, 0x1fff, 1));
	assert_false(ckd_overlap(0x1000, 0x1000, 0x2000, 1));
	assert_false(ckd_overlap(0x2000, 1, 0x1000, 0x1000));
	assert_false(ckd_overlap(0x1000, 0, 0x1000, 0x1000));
	assert_true(ckd_overlap(0, 0x10000, 0x8000, 0x10000));
}

UNIT_MAIN(
	cmocka_unit_test(test_ckd_add_mul_against_128_bits),
	cmocka_unit_test(test_ckd_mul_the_stack_products_that_wrapped),
	cmocka_unit_test(test_ckd_align_up),
	cmocka_unit_test(test_ckd_overlap))
