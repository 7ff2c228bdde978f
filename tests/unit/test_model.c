/* SPDX-License-Identifier: MIT */
/* covers: efi/lib/model.c */
/*
 * Host tests of the churn's shadow model (efi/lib/model.c): hand-worked cases,
 * then random set/find/mapped_bytes sequences against a per-page array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "../../efi/lib/model.h"
#include "../../efi/lib/prng.h"

#define PG 4096u
#define PAGES 256u
#define BASE UINT64_C(0xffffff0000000000)

static struct model_run store[512];

static void test_set_splits_and_replaces_runs(void **state)
{
	struct model m;
	const struct model_run *r;

	(void)state;
	model_init(&m, store, 512);
	assert_int_equal(model_set(&m, BASE, 10 * PG, true, 0x100000, 1), 0);
	/* punch a hole in the middle: two runs, the tail's pa follows its va */
	assert_int_equal(model_set(&m, BASE + 3 * PG, 2 * PG, false, 0, 0), 0);
	assert_int_equal(m.n, 2);
	r = model_find(&m, BASE + 7 * PG);
	assert_non_null(r);
	assert_int_equal(r->va, BASE + 5 * PG);
	assert_int_equal(r->pa, 0x100000 + 5 * PG);
	assert_null(model_find(&m, BASE + 4 * PG));
	assert_int_equal(model_mapped_bytes(&m, BASE, 10 * PG), 8 * PG);
	/* overwrite across both runs and the hole */
	assert_int_equal(model_set(&m, BASE + 2 * PG, 5 * PG, true, 0x900000, 2), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(model_find(&m, BASE + 4 * PG)->attrs, 2);
	assert_int_equal(model_mapped_bytes(&m, BASE, 10 * PG), 10 * PG);
	/* the last page of the address space */
	assert_int_equal(model_set(&m, UINT64_C(0xfffffffffffff000), PG, true, 0x5000, 3), 0);
	assert_int_equal(model_find(&m, UINT64_MAX)->pa, 0x5000);
}

static void test_set_refuses_when_full_and_changes_nothing(void **state)
{
	struct model m;

	(void)state;
	model_init(&m, store, 3);
	assert_int_equal(model_set(&m, BASE, 9 * PG, true, 0, 0), 0);
	assert_int_equal(model_set(&m, BASE + 3 * PG, PG, false, 0, 0), 0);
	assert_int_equal(m.n, 2);
	/* a hole inside the second run needs a fourth slot */
	assert_int_equal(model_set(&m, BASE + 6 * PG, PG, false, 0, 0), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(model_set(&m, BASE + PG, PG, false, 0, 0), -1);
	assert_int_equal(m.n, 3);
	assert_int_equal(model_mapped_bytes(&m, BASE, 9 * PG), 7 * PG);
}

struct page {
	int mapped;
	uint64_t pa;
	unsigned attrs;
};

static struct prng rng = { 0x243f6a8885a308d3u };

static uint64_t next(void)
{
	return prng_next(&rng);
}

static void test_merge_joins_only_continuing_neighbours(void **state)
{
	struct model m;

	(void)state;
	model_init(&m, store, 512);
	assert_int_equal(model_set(&m, BASE, 2 * PG, true, 0x100000, 1), 0);
	assert_int_equal(model_set(&m, BASE + 2 * PG, PG, true, 0x102000, 1), 0);  /* continues */
	assert_int_equal(model_set(&m, BASE + 3 * PG, PG, true, 0x200000, 1), 0);  /* other pa */
	assert_int_equal(model_set(&m, BASE + 4 * PG, PG, true, 0x201000, 2), 0);  /* other attrs */
	assert_int_equal(model_set(&m, BASE + 6 * PG, PG, true, 0x202000, 2), 0);  /* a hole before */
	assert_int_equal(m.n, 5);   /* model_set never merges */
	model_merge(&m);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.run[0].va, BASE);
	assert_int_equal(m.run[0].len, 3 * PG);
	assert_int_equal(m.run[1].pa, 0x200000);
	assert_int_equal(m.run[3].va, BASE + 6 * PG);
	assert_ptr_equal(model_next(&m, BASE + 5 * PG), &m.run[3]);
	assert_null(model_next(&m, BASE + 7 * PG));
}

static void test_random_sequences_match_per_page_array(void **state)
{
	static struct page ref[PAGES];
	struct model m;
	unsigned checked = 0;

	(void)state;
	model_init(&m, store, 512);
	for (unsigned op = 0; op < 20000; op++) {
		unsigned first = next() % PAGES, n = 1 + next() % 16;
		int mapped = next() % 3 != 0;
		uint64_t pa = (next() % 4096) * PG;
		unsigned attrs = next() % 8;

		if (first + n > PAGES)
			n = PAGES - first;
		if (model_set(&m, BASE + first * PG, n * PG, mapped, pa, attrs))
			continue;
		for (unsigned i = 0; i < n; i++)
			ref[first + i] = (struct page){ mapped, pa + i * PG, attrs };
		for (unsigned k = 0; k < 4; k++) {
			unsigned i = next() % PAGES, len = 1 + next() % 32;
			const struct model_run *r = model_find(&m, BASE + i * PG + 17);
			uint64_t want = 0;

			if (ref[i].mapped) {
				assert_non_null(r);
				assert_int_equal(r->pa + (BASE + i * PG - r->va), ref[i].pa);
				assert_int_equal(r->attrs, ref[i].attrs);
			} else {
				assert_null(r);
			}
			if (i + len > PAGES)
				len = PAGES - i;
			for (unsigned j = i; j < i + len; j++)
				want += ref[j].mapped ? PG : 0;
			assert_int_equal(model_mapped_bytes(&m, BASE + i * PG, len * PG), want);
			/* the next run: the first mapped page at or after page i */
			{
				const struct model_run *nx = model_next(&m, BASE + i * PG + 17);
				unsigned j = i;

				while (j < PAGES && !ref[j].mapped)
					j++;
				if (j == PAGES) {
					assert_null(nx);
				} else {
					assert_non_null(nx);
					assert_true(nx->va <= BASE + j * PG &&
						    BASE + j * PG - nx->va < nx->len);
				}
			}
			checked++;
		}
		for (unsigned j = 1; j < m.n; j++)
			assert_true(m.run[j - 1].va + m.run[j - 1].len <= m.run[j].va);
	}
	printf("model: %u lookups checked against the per-page array\n", checked);
}

UNIT_MAIN(
	cmocka_unit_test(test_set_splits_and_replaces_runs),
	cmocka_unit_test(test_set_refuses_when_full_and_changes_nothing),
	cmocka_unit_test(test_merge_joins_only_continuing_neighbours),
	cmocka_unit_test(test_random_sequences_match_per_page_array))
