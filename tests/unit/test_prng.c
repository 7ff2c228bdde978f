/* SPDX-License-Identifier: MIT */
/* covers: efi/lib/prng.h */
/*
 * The checks' and tests' one pseudo-random generator (efi/lib/prng.h):
 * splitmix64's published outputs, computed here by a second, 32-bit-limb
 * implementation and pinned for seed 0; prng_below's range; the same seed
 * replaying the same sequence.  The churn's replay hint (--seed=N) and the
 * unit tests' PTLAB_SEED rely on all three.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "unit.h"

#include "../../efi/lib/prng.h"

/* splitmix64's reference outputs for state 0 (Vigna's splitmix64.c). */
static const uint64_t seed0[3] = {
	UINT64_C(0xe220a8397b1dcdaf), UINT64_C(0x6e789e6aa1b965f4), UINT64_C(0x06c45d188009454f),
};

/* a * b mod 2^64 from 32-bit halves: not the compiler's 64-bit multiply */
static uint64_t mul64(uint64_t a, uint64_t b)
{
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;

	return al * bl + (((al * bh + ah * bl) & 0xffffffffu) << 32);
}

static uint64_t slow_splitmix(uint64_t *state)
{
	uint64_t z;

	*state += UINT64_C(0x9e3779b97f4a7c15);
	z = *state;
	z = mul64(z ^ (z >> 30), UINT64_C(0xbf58476d1ce4e5b9));
	z = mul64(z ^ (z >> 27), UINT64_C(0x94d049bb133111eb));
	return z ^ (z >> 31);
}

static void test_seed0_gives_the_reference_outputs(void **state)
{
	struct prng r;
	uint64_t s = 0;

	(void)state;
	prng_seed(&r, 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(slow_splitmix(&s), seed0[i]);
		assert_int_equal(prng_next(&r), seed0[i]);
	}
}

static void test_matches_a_second_implementation(void **state)
{
	static const uint64_t seeds[] = {
		1, 7, UINT64_C(0xffffffffffffffff), UINT64_C(0x243f6a8885a308d3),
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct prng r;
		uint64_t s = seeds[k];

		prng_seed(&r, seeds[k]);
		for (unsigned i = 0; i < 1000; i++)
			assert_int_equal(prng_next(&r), slow_splitmix(&s));
	}
}

static void test_below_stays_in_range_and_replays(void **state)
{
	struct prng a, b;
	unsigned seen[7] = { 0 };

	(void)state;
	prng_seed(&a, 42);
	prng_seed(&b, 42);
	for (unsigned i = 0; i < 7000; i++) {
		uint64_t x = prng_below(&a, 7);

		assert_true(x < 7);
		assert_int_equal(prng_below(&b, 7), x);
		seen[x]++;
	}
	for (unsigned v = 0; v < 7; v++)
		assert_true(seen[v] > 800 && seen[v] < 1200);   /* 1000 each, roughly */
	assert_int_equal(prng_below(&a, 0), 0);
	assert_int_equal(prng_below(&a, 1), 0);
}

UNIT_MAIN(
	cmocka_unit_test(test_seed0_gives_the_reference_outputs),
	cmocka_unit_test(test_matches_a_second_implementation),
	cmocka_unit_test(test_below_stays_in_range_and_replays))
