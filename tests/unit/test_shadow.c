// SPDX-License-Identifier: MIT
/* covers: tests/unit/shadow.c */
/*
 * The oracle itself: the shadow model (shadow.[ch]) the randomized test of
 * the walker (test_pt_random.c) is judged against, on hand-computed cases:
 * each result worked out here from the SDM's rules, not from the model.
 */
#include <stdbool.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "shadow.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define G512 PT_SIZE_512G
#define PHYS_LIMIT (UINT64_C(1) << 46)

static void expect_run(const struct shadow *m, size_t i, uint64_t va, uint64_t len,
		       uint64_t pa, unsigned attrs)
{
	assert_true(i < m->n);
	assert_int_equal(m->run[i].va, va);
	assert_int_equal(m->run[i].len, len);
	assert_int_equal(m->run[i].pa, pa);
	assert_int_equal(m->run[i].attrs, attrs);
}

struct diffs {
	unsigned n;
	uint64_t va[8], len[8];
	int a[8], b[8];
};

static int diff_collect(void *arg, uint64_t va, uint64_t len, int attrs_a, int attrs_b)
{
	struct diffs *d = arg;

	if (d->n == 8)
		return 1;
	d->va[d->n] = va;
	d->len[d->n] = len;
	d->a[d->n] = attrs_a;
	d->b[d->n] = attrs_b;
	d->n++;
	return 0;
}

static void test_shadow_model_hand_computed(void **state)
{
	struct shadow m, b;
	struct pt_pat pat;
	uint64_t pa = 0;
	unsigned at = 0;
	const uint64_t hi = UINT64_C(0xffff800000000000);
	const unsigned W = PT_WRITE, X = PT_EXEC;
	struct diffs dc;

	(void)state;
	pt_pat_default(&pat);
	shadow_init(&m, 4, 46, &pat);

	/* argument checks, in the documented order */
	assert_int_equal(shadow_map(&m, 0x1000, 0x2000, K4, W | X), PT_EFLAGS);
	assert_int_equal(shadow_map(&m, 0x1000, 0x2000, K4, W | X | PT_ALLOW_WX | PT_SPARSE), PT_EFLAGS);
	assert_int_equal(shadow_map(&m, 0x1000, 0x2000, K4, PT_CACHE(PT_CACHE_WC)), PT_EFLAGS);
	assert_int_equal(shadow_map(&m, 0x1000, 0x2000, K4, PT_CACHE(7)), PT_EFLAGS);
	assert_int_equal(shadow_map(&m, 0x1000, 0x2000, K4, PT_CACHE(PT_CACHE_UCM)), PT_OK);
	assert_int_equal(shadow_map(&m, UINT64_C(0x0000800000000000) | 1, 1, 1, 0), PT_ENONCANON);
	assert_int_equal(shadow_map(&m, 0x1001, 0x2001, 1, 0), PT_EALIGN_VA);
	assert_int_equal(shadow_map(&m, 0x9000, 0x2001, 1, 0), PT_EALIGN_PA);
	assert_int_equal(shadow_map(&m, 0x9000, 0x2000, 1, 0), PT_EALIGN_LEN);
	assert_int_equal(shadow_map(&m, 0x9000, 0x2000, 0, 0), PT_ELEN);
	assert_int_equal(shadow_map(&m, 0x9000, UINT64_C(0xfffffffffffff000), 2 * K4, 0), PT_ELEN);
	assert_int_equal(shadow_map(&m, UINT64_C(0x00007ffffffff000), 0, 2 * K4, 0), PT_ENONCANON);
	assert_int_equal(shadow_map(&m, UINT64_C(0x00007ffffffff000), 0, K4, 0), PT_OK);
	assert_int_equal(shadow_map(&m, 0x9000, PHYS_LIMIT - K4, 2 * K4, 0), PT_EPHYS);
	assert_int_equal(shadow_map(&m, 0x9000, PHYS_LIMIT - K4, K4, 0), PT_OK);
	assert_int_equal(shadow_map(&m, 0x8000, 0x100000, 2 * K4, 0), PT_EEXIST);
	assert_int_equal(shadow_map(&m, 0xa000, 0, K4, PT_CACHE(PT_CACHE_UCM) | W), PT_OK);
	/* 0x1000 UCM -> 0x2000; 0x9000 -> top of phys; 0xa000 -> 0; lower-half top page */
	assert_int_equal(m.n, 4);
	expect_run(&m, 0, 0x1000, K4, 0x2000, PT_CACHE(PT_CACHE_UCM));
	expect_run(&m, 3, UINT64_C(0x00007ffffffff000), K4, 0, 0);
	assert_int_equal(shadow_unmap(&m, 0x9000, 2 * K4, 0), PT_OK);
	assert_int_equal(shadow_unmap(&m, 0x1000, 2 * K4, 0), PT_ENOTMAPPED);
	assert_int_equal(shadow_unmap(&m, 0x1000, 2 * K4, PT_SPARSE), PT_OK);
	assert_int_equal(shadow_unmap(&m, 0x1000, 2 * K4, PT_SPARSE), PT_OK);
	assert_int_equal(shadow_unmap(&m, 0x1000, K4, PT_ALLOW_WX), PT_EFLAGS);
	assert_int_equal(shadow_unmap(&m, UINT64_C(0x00007ffffffff000), K4, PT_NOSPLIT), PT_OK);
	assert_int_equal(m.n, 0);

	/* split and merge: map 4 MiB, cut the middle, then restore it */
	assert_int_equal(shadow_map(&m, hi, 0x40000000, 2 * M2, W), PT_OK);
	assert_int_equal(shadow_protect(&m, hi + M2 - K4, 2 * K4, X), PT_OK);
	assert_int_equal(m.n, 3);
	expect_run(&m, 0, hi, M2 - K4, 0x40000000, W);
	expect_run(&m, 1, hi + M2 - K4, 2 * K4, 0x40000000 + M2 - K4, X);
	expect_run(&m, 2, hi + M2 + K4, M2 - K4, 0x40000000 + M2 + K4, W);
	assert_true(shadow_lookup(&m, hi + M2 + 0x123, &pa, &at));
	assert_int_equal(pa, 0x40000000 + M2 + 0x123);
	assert_int_equal(at, X);
	assert_false(shadow_lookup(&m, hi - 1, NULL, NULL));
	assert_false(shadow_lookup(&m, hi + 2 * M2, NULL, NULL));
	assert_int_equal(shadow_protect(&m, hi + M2 - K4, 2 * K4, W | X), PT_EFLAGS);
	assert_int_equal(shadow_protect(&m, hi, 3 * M2, W), PT_ENOTMAPPED);
	assert_int_equal(shadow_protect(&m, hi, 3 * M2, W | PT_SPARSE), PT_OK);
	assert_int_equal(m.n, 1);
	expect_run(&m, 0, hi, 2 * M2, 0x40000000, W);

	/* remap: pages keep their offset from va and their attributes */
	assert_int_equal(shadow_protect(&m, hi + M2, M2, 0), PT_OK);
	assert_int_equal(shadow_remap(&m, hi + M2 - K4, 2 * K4, 0x7000, 0), PT_OK);
	assert_int_equal(m.n, 4);
	expect_run(&m, 1, hi + M2 - K4, K4, 0x7000, W);
	expect_run(&m, 2, hi + M2, K4, 0x8000, 0);
	assert_int_equal(shadow_remap(&m, hi + M2 - K4, 2 * K4, 0x40000000 + M2 - K4, 0), PT_OK);
	assert_int_equal(m.n, 2);
	assert_int_equal(shadow_remap(&m, hi, K4, 0x7001, 0), PT_EALIGN_PA);
	assert_int_equal(shadow_remap(&m, hi, K4, PHYS_LIMIT, 0), PT_EPHYS);
	/* the page below hi is not canonical: that is found before the hole */
	assert_int_equal(shadow_remap(&m, hi - K4, 2 * K4, 0, 0), PT_ENONCANON);
	assert_int_equal(shadow_remap(&m, hi + 2 * M2 - K4, 2 * K4, 0, 0), PT_ENOTMAPPED);
	assert_int_equal(shadow_remap(&m, hi + 2 * M2 - K4, 2 * K4, 0, PT_SPARSE), PT_OK);
	assert_true(shadow_lookup(&m, hi + 2 * M2 - K4, &pa, NULL));
	assert_int_equal(pa, 0);
	assert_int_equal(shadow_remap(&m, hi + 2 * M2 - K4, K4, 0x40000000 + 2 * M2 - K4, 0), PT_OK);
	assert_int_equal(shadow_mapped_bytes(&m, hi - M2, 8 * M2), 2 * M2);
	assert_true(shadow_sane(&m));

	/* diff: exactly the changed range */
	memset(&b, 0, sizeof(b));
	shadow_copy(&b, &m);
	assert_int_equal(shadow_unmap(&b, hi + 5 * K4, K4, 0), PT_OK);
	memset(&dc, 0, sizeof(dc));
	assert_int_equal(shadow_diff(&m, &b, diff_collect, &dc), 0);
	assert_int_equal(dc.n, 1);
	assert_int_equal(dc.va[0], hi + 5 * K4);
	assert_int_equal(dc.len[0], K4);
	assert_int_equal(dc.a[0], W);
	assert_int_equal(dc.b[0], -1);
	memset(&dc, 0, sizeof(dc));
	assert_int_equal(shadow_diff(&m, &m, diff_collect, &dc), 0);
	assert_int_equal(dc.n, 0);
	/* the other way round, and a change of pa only */
	assert_int_equal(shadow_remap(&m, hi + 7 * K4, K4, 0x99000, 0), PT_OK);
	memset(&dc, 0, sizeof(dc));
	assert_int_equal(shadow_diff(&b, &m, diff_collect, &dc), 0);
	assert_int_equal(dc.n, 2);
	assert_int_equal(dc.va[0], hi + 5 * K4);
	assert_int_equal(dc.a[0], -1);
	assert_int_equal(dc.b[0], W);
	assert_int_equal(dc.va[1], hi + 7 * K4);
	assert_int_equal(dc.len[1], K4);
	assert_int_equal(dc.a[1], W);
	assert_int_equal(dc.b[1], W);
	shadow_fini(&b);

	/* 5-level canonical form */
	shadow_fini(&m);
	shadow_init(&m, 5, 52, &pat);
	assert_true(shadow_canonical(&m, UINT64_C(0x00ff800000000000)));
	assert_false(shadow_canonical(&m, UINT64_C(0x0100000000000000)));
	assert_true(shadow_canonical(&m, UINT64_C(0xff00000000000000)));
	assert_int_equal(shadow_map(&m, UINT64_C(0x0000800000000000), 0, K4, 0), PT_OK);
	shadow_fini(&m);
}

UNIT_MAIN(
	cmocka_unit_test(test_shadow_model_hand_computed))
