// SPDX-License-Identifier: MIT
/* covers: paging/plan.c */
/*
 * Host tests for paging/plan.c: the tables a plan needs.  pt_plan_apply
 * builds exactly the plan's min_tables (counted per level from the tables
 * the build allocated), fails leaving the space empty, and refuses to map
 * over a mapping; pt_plan_min_tables against a naive model that steps
 * through every entry leaf by leaf exactly as a largest-fit mapper chooses
 * them, records every (level, region) a table is needed for, and counts
 * distinct pairs after sorting.  PTLAB_SEED=<n> replays one seed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/plan.h>

#include "arena.h"
#include "planfx.h"
#include "../../efi/lib/prng.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define G512 PT_SIZE_512G

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* ---- (b) the build uses exactly the computed minimum ------------------ */

struct leaf_check {
	const struct pt_plan *plan;
	uint64_t bytes;
	uint64_t leaves;
};

static int check_leaf(void *arg, const struct pt_leaf *l)
{
	struct leaf_check *c = arg;
	const struct pt_plan_entry *e = pt_plan_find(c->plan, l->va);

	if (!e || l->va - e->va + l->size > e->len)
		fail_msg("leaf 0x%llx+0x%llx not inside one plan entry",
			 (unsigned long long)l->va, (unsigned long long)l->size);
	if (l->pa != e->pa + (l->va - e->va))
		fail_msg("leaf 0x%llx maps pa 0x%llx", (unsigned long long)l->va,
			 (unsigned long long)l->pa);
	if ((l->flags & PT_ATTR_MASK) != e->flags)
		fail_msg("leaf 0x%llx flags 0x%x, entry 0x%x", (unsigned long long)l->va,
			 l->flags, e->flags);
	c->bytes += l->size;
	c->leaves++;
	return 0;
}

static void apply_and_count(bool has_1g, unsigned levels)
{
	struct plan_fx x;
	struct arena a;
	struct pt_space s;
	struct leaf_check c = { 0 };

	plan_fx_ovmf(&x, has_1g, levels);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	c.plan = &x.plan;
	arena_init(&a, 8192);
	a.env.has_1g = has_1g;
	assert_int_equal(pt_create(&s, &a.env, levels), PT_OK);
	assert_int_equal(pt_plan_apply(&s, &x.plan), PT_OK);

	print_message("has_1g %d levels %u: %llu tables (%llu %llu %llu %llu %llu)\n",
		      has_1g, levels, (unsigned long long)x.plan.min_total,
		      (unsigned long long)x.plan.min_tables[0],
		      (unsigned long long)x.plan.min_tables[1],
		      (unsigned long long)x.plan.min_tables[2],
		      (unsigned long long)x.plan.min_tables[3],
		      (unsigned long long)x.plan.min_tables[4]);
	assert_int_equal(pt_table_count(&s), x.plan.min_total);
	for (unsigned L = 0; L < 5; L++)
		assert_int_equal(s.stats.tables[L], x.plan.min_tables[L]);
	assert_int_equal(x.plan.min_tables[levels - 1], 1);

	/* every leaf lies inside one entry and carries its attributes */
	assert_int_equal(pt_visit(&s, 0, 0, check_leaf, &c), 0);
	assert_int_equal(c.bytes, x.plan.identity_bytes + x.plan.hhdm_bytes + x.plan.image_bytes);
	assert_int_equal(c.leaves, s.stats.leaves[0] + s.stats.leaves[1] + s.stats.leaves[2]);
	if (!has_1g)
		assert_int_equal(s.stats.leaves[PT_PAGE_1G], 0);
	else
		assert_true(s.stats.leaves[PT_PAGE_1G] > 0);

	pt_destroy(&s);
	assert_int_equal(a.frames.in_use, 0);
	arena_fini(&a);
}

static void test_apply_uses_exactly_min_tables_with_1g(void **state)
{
	(void)state;
	apply_and_count(true, 4);
	apply_and_count(true, 5);
}

static void test_apply_uses_exactly_min_tables_without_1g(void **state)
{
	(void)state;
	apply_and_count(false, 4);
	apply_and_count(false, 5);
}

static void test_apply_failure_leaves_space_empty(void **state)
{
	struct plan_fx x;
	struct arena a;
	struct pt_space s;
	struct arena_snap before, after;
	uint64_t need;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	need = x.plan.min_total - 1;
	/* fail the first, a middle and the last table allocation */
	for (uint64_t k = 1; k <= need; k += need / 2 ? need / 2 : 1) {
		arena_init(&a, 8192);
		assert_int_equal(pt_create(&s, &a.env, 4), PT_OK);
		arena_snap_take(&before, &a, &s);
		a.frames.fail_at = k;
		assert_int_equal(pt_plan_apply(&s, &x.plan), PT_ENOMEM);
		arena_snap_take(&after, &a, &s);
		assert_int_equal(after.ntables, before.ntables);
		assert_memory_equal(&after.stats, &before.stats, sizeof(before.stats));
		assert_int_equal(after.in_use, before.in_use);
		assert_memory_equal(after.words, before.words,
				    before.ntables * PT_ENTRIES * sizeof(uint64_t));
		arena_snap_free(&before);
		arena_snap_free(&after);
		/* and the same space takes the whole plan afterwards */
		a.frames.fail_at = 0;
		assert_int_equal(pt_plan_apply(&s, &x.plan), PT_OK);
		assert_int_equal(pt_table_count(&s), x.plan.min_total);
		pt_destroy(&s);
		arena_fini(&a);
	}
}

static void test_apply_rejects_overlap_with_existing_mapping(void **state)
{
	struct plan_fx x;
	struct arena a;
	struct pt_space s;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	arena_init(&a, 8192);
	assert_int_equal(pt_create(&s, &a.env, 4), PT_OK);
	/* something already at the image window: the last entries fail */
	assert_int_equal(pt_map(&s, PT_IMAGE_BASE + 0x10000, 0x1000, K4, PT_WRITE, PT_PAGE_4K,
				NULL), PT_OK);
	assert_int_equal(pt_plan_apply(&s, &x.plan), PT_EEXIST);
	assert_int_equal(s.stats.leaves[0] + s.stats.leaves[1] + s.stats.leaves[2], 1);
	assert_int_equal(pt_table_count(&s), 4);
	pt_destroy(&s);
	arena_fini(&a);
}

/* ---- (c) min_tables against a naive leaf-by-leaf model ------------------- */

static uint64_t naive_leaf_size(const struct pt_plan_entry *e, uint64_t va, bool has_1g)
{
	static const uint64_t size[3] = { K4, M2, G1 };
	uint64_t pa = e->pa + (va - e->va);
	uint64_t left = e->va + e->len - va;

	for (int k = 2; k >= 0; k--) {
		if (k > (int)e->max_size || (k == 2 && !has_1g))
			continue;
		if (va % size[k] == 0 && pa % size[k] == 0 && left >= size[k])
			return size[k];
	}
	fail_msg("no leaf fits at 0x%llx", (unsigned long long)va);
	return 0;
}

struct region {
	unsigned level;
	uint64_t index;
};

static int region_cmp(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return 0;
}

static uint64_t naive_min_tables(const struct pt_plan_entry *e, unsigned n, unsigned levels,
				 bool has_1g, uint64_t out[5])
{
	struct region *r = NULL;
	size_t nr = 0, cap = 0;
	uint64_t total = 0, last[5] = { 0 };
	bool have[5] = { false };

	memset(out, 0, 5 * sizeof(out[0]));
	for (unsigned i = 0; i < n; i++) {
		for (uint64_t va = e[i].va; va != e[i].va + e[i].len;) {
			uint64_t sz = naive_leaf_size(&e[i], va, has_1g);
			unsigned leaf_level = sz == G1 ? 2 : sz == M2 ? 1 : 0;

			for (unsigned L = leaf_level; L + 1 < levels; L++) {
				uint64_t index = va / pt_level_size(L + 1);

				/* the sort below dedups; this only keeps the array small */
				if (have[L] && last[L] == index)
					continue;
				have[L] = true;
				last[L] = index;
				if (nr == cap) {
					cap = cap ? 2 * cap : 1024;
					r = realloc(r, cap * sizeof(*r));
					assert_non_null(r);
				}
				r[nr].level = L;
				r[nr].index = index;
				nr++;
			}
			va += sz;
		}
	}
	if (nr)
		qsort(r, nr, sizeof(*r), region_cmp);
	for (size_t i = 0; i < nr; i++)
		if (i == 0 || region_cmp(&r[i - 1], &r[i]) != 0)
			out[r[i].level]++;
	free(r);
	out[levels - 1] = 1;
	for (unsigned L = 0; L < 5; L++)
		total += out[L];
	return total;
}

static struct prng rng;

/*
 * A random sorted, disjoint plan of up to 12 entries in a window of a few
 * GiB placed just below a 512 GiB, 256 TiB or 2^47 boundary, at 0, or near
 * the top of the address space, so regions at every level are shared,
 * crossed and split.  4 KiB-only entries stay below 64 MiB to keep the
 * naive model quick.
 */
static unsigned random_plan(struct pt_plan_entry *e, unsigned cap, unsigned levels)
{
	static const uint64_t bases[] = {
		0,
		G512 - 2 * G1,
		5 * G512 - 3 * G1 + 7 * M2,
		(UINT64_C(1) << 48) - 2 * G1,
		(UINT64_C(1) << 47) - 4 * G1,
		UINT64_C(0xffff800000000000),
		UINT64_C(0xfffffffe00000000) - 8 * G1,
	};
	unsigned n = 1 + (unsigned)prng_below(&rng, cap);
	uint64_t va = bases[prng_below(&rng, NR(bases))] + prng_below(&rng, 64) * K4;
	unsigned i;

	if (levels == 4 && va >= (UINT64_C(1) << 47) && va < UINT64_C(0xffff800000000000))
		va = prng_below(&rng, 4) * G1;
	for (i = 0; i < n; i++) {
		struct pt_plan_entry *x = &e[i];
		uint64_t delta, len;

		switch (prng_below(&rng, 4)) {
		case 0:
			break;                                  /* touching */
		case 1:
			va += (1 + prng_below(&rng, 16)) * K4;
			break;
		case 2:
			va += prng_below(&rng, 64) * M2;
			break;
		default:
			va += prng_below(&rng, 3) * G1 + prng_below(&rng, 512) * K4;
			break;
		}
		switch (prng_below(&rng, 4)) {
		case 0:
			delta = prng_below(&rng, 1024) * G1;           /* 1 GiB co-aligned */
			break;
		case 1:
			delta = prng_below(&rng, 1024) * M2;
			break;
		case 2:
			delta = prng_below(&rng, 1 << 20) * K4;
			break;
		default:
			delta = 0;
			break;
		}
		x->va = va;
		x->pa = (va & ((UINT64_C(1) << 40) - 1)) + delta;
		x->max_size = (enum pt_page_size)prng_below(&rng, 3);
		x->flags = PT_WRITE;
		x->kind = PT_PLAN_IDENTITY;
		if (x->max_size == PT_PAGE_4K || ((x->va ^ x->pa) & (M2 - 1)))
			len = (1 + prng_below(&rng, 16384)) * K4;
		else if (prng_below(&rng, 2))
			len = (1 + prng_below(&rng, 2048)) * K4;
		else
			len = prng_below(&rng, 4) * G1 + prng_below(&rng, 1024) * M2 + prng_below(&rng, 512) * K4 + K4;
		/* stay clear of the top of the address space */
		if (va + len < va || va + len > UINT64_C(0xfffffffffffff000)) {
			if (va >= UINT64_C(0xfffffffffffff000))
				break;
			len = UINT64_C(0xfffffffffffff000) - va;
			if (len > 4 * G1)
				len = 4 * G1;
		}
		x->len = len;
		va += len;
		if (va >= UINT64_C(0xffffffff00000000)) {
			i++;
			break;
		}
	}
	return i;
}

/* Does a largest-fit build of @e (1 GiB allowed) place a 1 GiB leaf? */
static bool has_1g_leaf(const struct pt_plan_entry *e)
{
	uint64_t va = (e->va + G1 - 1) & ~(G1 - 1);

	return e->max_size == PT_PAGE_1G && va >= e->va && va - e->va + G1 <= e->len &&
	       naive_leaf_size(e, va, true) == G1;
}

static void test_min_tables_match_naive_model_on_random_plans(void **state)
{
	const char *env = getenv("PTLAB_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : UINT64_C(0x5eed0f91a1);
	unsigned rounds = env ? 1 : 2000;
	struct pt_plan_entry e[12];
	unsigned built = 0, cross_512g = 0, cross_256t = 0, with_1g = 0;
	struct arena a;

	(void)state;
	print_message("random plans: seed 0x%llx, %u rounds (PTLAB_SEED=<seed> replays one)\n",
		      (unsigned long long)seed, rounds);
	arena_init(&a, 4096);
	for (unsigned round = 0; round < rounds; round++) {
		uint64_t s = seed + round;
		unsigned levels, n;
		bool has_1g;
		uint64_t want[5], got[5], tw, tg;

		prng_seed(&rng, s);
		levels = prng_below(&rng, 2) ? 5 : 4;
		has_1g = prng_below(&rng, 2);
		n = random_plan(e, NR(e), levels);
		tw = naive_min_tables(e, n, levels, has_1g, want);
		tg = pt_plan_min_tables(e, n, levels, has_1g, got);
		if (tw != tg || memcmp(want, got, sizeof(want)) != 0) {
			for (unsigned i = 0; i < n; i++)
				print_error("  va 0x%llx pa 0x%llx len 0x%llx max %d\n",
					    (unsigned long long)e[i].va,
					    (unsigned long long)e[i].pa,
					    (unsigned long long)e[i].len, e[i].max_size);
			fail_msg("seed 0x%llx (levels %u, 1g %d): want %llu [%llu %llu %llu %llu %llu], got %llu [%llu %llu %llu %llu %llu]",
				 (unsigned long long)s, levels, has_1g,
				 (unsigned long long)tw, (unsigned long long)want[0],
				 (unsigned long long)want[1], (unsigned long long)want[2],
				 (unsigned long long)want[3], (unsigned long long)want[4],
				 (unsigned long long)tg, (unsigned long long)got[0],
				 (unsigned long long)got[1], (unsigned long long)got[2],
				 (unsigned long long)got[3], (unsigned long long)got[4]);
		}
		cross_512g += got[2] > 1;
		cross_256t += got[3] > 1 && levels == 5;
		for (unsigned i = 0; i < n; i++)
			with_1g += has_1g && has_1g_leaf(&e[i]);

		/* and a real build, for the plans that fit the arena's pt_map limits */
		if (built < 300 && tg <= 1024) {
			struct pt_plan p = { .entry = e, .cap = NR(e), .n = n };
			struct pt_space sp;
			bool fits = true;
			int err;

			for (unsigned i = 0; i < n; i++)
				fits &= pt_canonical(e[i].va, levels) &&
					pt_canonical(e[i].va + e[i].len - 1, levels) &&
					e[i].pa + e[i].len <= (UINT64_C(1) << a.env.maxphyaddr);
			if (!fits)
				continue;
			a.env.has_1g = has_1g;
			assert_int_equal(pt_create(&sp, &a.env, levels), PT_OK);
			err = pt_plan_apply(&sp, &p);

			if (err != PT_OK)
				fail_msg("seed 0x%llx: apply %s", (unsigned long long)s,
					 pt_strerror(err));
			for (unsigned L = 0; L < 5; L++)
				if (sp.stats.tables[L] != got[L])
					fail_msg("seed 0x%llx: level %u built %llu, computed %llu",
						 (unsigned long long)s, L,
						 (unsigned long long)sp.stats.tables[L],
						 (unsigned long long)got[L]);
			pt_destroy(&sp);
			built++;
		}
	}
	arena_fini(&a);
	print_message("random plans: %u built with pt_map, %u cross 512 GiB, %u cross 256 TiB, %u entries with 1 GiB leaves\n",
		      built, cross_512g, cross_256t, with_1g);
	if (rounds > 1) {
		/* the generator must keep reaching every level */
		assert_true(built >= 100);
		assert_true(cross_512g >= 20);
		assert_true(cross_256t >= 10);
		assert_true(with_1g >= 50);
	}
}

static void test_min_tables_hand_cases(void **state)
{
	struct pt_plan_entry e[2];
	uint64_t out[5];

	(void)state;
	memset(e, 0, sizeof(e));
	/* one 1 GiB leaf: a PDPT under the root */
	e[0] = (struct pt_plan_entry){ .va = G1, .pa = G1, .len = G1, .max_size = PT_PAGE_1G };
	assert_int_equal(pt_plan_min_tables(e, 1, 4, true, out), 2);
	assert_int_equal(out[2], 1);
	assert_int_equal(out[3], 1);
	/* the same without 1 GiB pages: 512 2 MiB leaves in one PD */
	assert_int_equal(pt_plan_min_tables(e, 1, 4, false, out), 3);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[0], 0);
	/* pa not 2 MiB co-aligned: 512 PTs */
	e[0].pa = G1 + K4;
	assert_int_equal(pt_plan_min_tables(e, 1, 4, true, out), 512 + 1 + 1 + 1);
	/* 5 levels: a PML4 below the root */
	assert_int_equal(pt_plan_min_tables(e, 1, 5, true, out), 512 + 1 + 1 + 1 + 1);
	assert_int_equal(out[4], 1);
	/* two entries sharing a PT across their boundary */
	e[0] = (struct pt_plan_entry){ .va = 0x1000, .pa = 0x1000, .len = 0x1000,
				       .max_size = PT_PAGE_1G };
	e[1] = (struct pt_plan_entry){ .va = 0x2000, .pa = 0x9000, .len = 0x1000,
				       .max_size = PT_PAGE_1G };
	assert_int_equal(pt_plan_min_tables(e, 2, 4, true, out), 4);
	assert_int_equal(out[0], 1);
	/* nothing: the root alone */
	assert_int_equal(pt_plan_min_tables(e, 0, 4, true, out), 1);
	assert_int_equal(out[3], 1);
	assert_int_equal(pt_plan_min_tables(e, 0, 3, true, out), 0);
}

static void test_min_tables_is_arithmetic_for_huge_entries(void **state)
{
	struct pt_plan_entry e = { .va = 0, .pa = 0, .len = UINT64_C(1) << 46,
				   .max_size = PT_PAGE_4K };
	uint64_t out[5];

	(void)state;
	/* 2^34 pages of 4 KiB: counted per run, not per page */
	assert_int_equal(pt_plan_min_tables(&e, 1, 4, true, out),
			 (UINT64_C(1) << 25) + (UINT64_C(1) << 16) + 128 + 1);
	assert_int_equal(out[0], UINT64_C(1) << 25);
	assert_int_equal(out[1], UINT64_C(1) << 16);
	assert_int_equal(out[2], 128);
	e.max_size = PT_PAGE_1G;
	assert_int_equal(pt_plan_min_tables(&e, 1, 4, true, out), 128 + 1);
}

UNIT_MAIN(
	cmocka_unit_test(test_apply_uses_exactly_min_tables_with_1g),
	cmocka_unit_test(test_apply_uses_exactly_min_tables_without_1g),
	cmocka_unit_test(test_apply_failure_leaves_space_empty),
	cmocka_unit_test(test_apply_rejects_overlap_with_existing_mapping),
	cmocka_unit_test(test_min_tables_match_naive_model_on_random_plans),
	cmocka_unit_test(test_min_tables_hand_cases),
	cmocka_unit_test(test_min_tables_is_arithmetic_for_huge_entries))
