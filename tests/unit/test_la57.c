// SPDX-License-Identifier: MIT
/* covers: paging/pt.c paging/plan.c */
/*
 * 5-level paging on the host: the 57-bit canonical rules, the plan's table
 * minimum with a PML5 (against the same plan at 4 levels, and against what
 * a build really uses), and the LA57 trampoline's RX page in the plan
 * (pt_plan_identity_perm, as live/la57.c asks for it) on captured OVMF
 * maps: split out of the identity entry that holds it, the rest
 * unchanged, built with exactly the new minimum.  The function's own cases
 * on a hand-made plan are test_plan_identity.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pte.h>

#include "arena.h"
#include "samples.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define KiB UINT64_C(1024)
#define PAGE PT_PAGE_SIZE
#define OVMF_DESC_SIZE 48u
#define MAX_DESC 1024u

static void test_canonical_48_and_57_bits(void **state)
{
	static const struct { uint64_t va; bool c4, c5; } t[] = {
		{ 0, true, true },
		{ UINT64_C(0x00007fffffffffff), true, true },
		{ UINT64_C(0x0000800000000000), false, true },    /* 128 TiB */
		{ UINT64_C(0x00fffffffffff000), false, true },    /* top page of the 57-bit lower half */
		{ UINT64_C(0x00ffffffffffffff), false, true },
		{ UINT64_C(0x0100000000000000), false, false },   /* 2^56 */
		{ UINT64_C(0x7fffffffffffffff), false, false },
		{ UINT64_C(0x8000000000000000), false, false },
		{ UINT64_C(0xfeffffffffffffff), false, false },
		{ UINT64_C(0xff00000000000000), false, true },    /* bottom of the 57-bit high half */
		{ UINT64_C(0xffff7fffffffffff), false, true },
		{ UINT64_C(0xffff800000000000), true, true },     /* the HHDM */
		{ UINT64_C(0xffffffff80000000), true, true },     /* the image alias */
		{ UINT64_MAX, true, true },
	};

	(void)state;
	for (unsigned i = 0; i < NR(t); i++) {
		if (pt_canonical(t[i].va, 4) != t[i].c4 || pt_canonical(t[i].va, 5) != t[i].c5)
			fail_msg("0x%016llx: canonical at 4 levels %d (want %d), at 5 levels %d (want %d)",
				 (unsigned long long)t[i].va, pt_canonical(t[i].va, 4), t[i].c4,
				 pt_canonical(t[i].va, 5), t[i].c5);
	}
}

/* The far mappings the live checks make at 5 levels, and the ranges they must refuse. */
static void test_five_level_far_mappings_and_the_57_bit_hole(void **state)
{
	static const uint64_t far[] = {
		UINT64_C(0x0000800000003000), UINT64_C(0x00fffffffffff000),
		UINT64_C(0xff00000000005000),
	};
	struct arena a;
	struct pt_space s;
	struct pt_leaf l;

	(void)state;
	arena_init(&a, 64);
	assert_int_equal(pt_create(&s, &a.env, 5), PT_OK);
	for (unsigned i = 0; i < NR(far); i++) {
		assert_int_equal(pt_map(&s, far[i], 0x7000 + i * PAGE, PAGE, PT_WRITE, PT_PAGE_4K, NULL),
				 PT_OK);
		assert_int_equal(pt_translate(&s, far[i] + 0x18, &l), PT_OK);
		assert_int_equal(l.pa, 0x7018 + i * PAGE);
		assert_int_equal(l.level, 0);
	}
	/* one PML5, then a PML4, PDPT, PD, PT for each of the three */
	assert_int_equal(s.stats.tables[4], 1);
	assert_int_equal(pt_table_count(&s), 1 + 3 * 4);
	/* 2^47 is PML5 slot 0, PML4 slot 256; the top page is slot 255; the high half 256 */
	assert_int_equal(pt_index(far[0], 4), 0);
	assert_int_equal(pt_index(far[0], 3), 256);
	assert_int_equal(pt_index(far[1], 4), 255);
	assert_int_equal(pt_index(far[2], 4), 256);
	/* across the 57-bit hole, and beyond it */
	assert_int_equal(pt_map(&s, UINT64_C(0x00fffffffffff000) - PAGE, 0, 3 * PAGE, 0, PT_PAGE_4K,
				NULL), PT_ENONCANON);
	assert_int_equal(pt_map(&s, UINT64_C(0x0100000000000000), 0, PAGE, 0, PT_PAGE_4K, NULL),
			 PT_ENONCANON);
	assert_int_equal(pt_translate(&s, UINT64_C(0xfeffffffffffff00), &l), PT_ENONCANON);
	for (unsigned i = 0; i < NR(far); i++)
		assert_int_equal(pt_unmap(&s, far[i], PAGE, 0, NULL), PT_OK);
	assert_int_equal(pt_table_count(&s), 1);
	pt_destroy(&s);
	assert_int_equal(a.frames.in_use, 0);
	arena_fini(&a);
}

struct fx {
	struct pt_mem_range range[2 * MAX_DESC];
	struct pt_memmap map;
	struct pt_plan_entry entry[4 * MAX_DESC + 2 * PT_IMAGE_MAX_SECTIONS + 4];
	struct pt_plan plan;
};

static struct fx *load(const char *name, unsigned levels, bool has_1g)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct pt_plan_caps caps = { .has_1g = has_1g, .levels = levels, .maxphyaddr = 46 };
	size_t len;
	void *raw = sample_read(name, &len);

	assert_non_null(x);
	x->map.range = x->range;
	x->map.cap = NR(x->range);
	assert_int_equal(pt_memmap_normalize(raw, len, (unsigned)(len / OVMF_DESC_SIZE),
					     OVMF_DESC_SIZE, 46, &x->map), PT_OK);
	free(raw);
	x->plan.entry = x->entry;
	x->plan.cap = NR(x->entry);
	assert_int_equal(pt_plan_build(&x->map, NULL, &caps, &x->plan), PT_OK);
	return x;
}

static const char *const maps[] = { "ovmf-256M.bin", "ovmf-2G.bin", "ovmf-8G.bin", "ovmf-16G.bin" };

/*
 * The same plan at 5 levels: the lower levels are the same tables, the
 * lower half (identity) and the high half (HHDM, image) each get a PML4
 * under the one PML5.
 */
static void test_plan_minimum_with_a_pml5(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NR(maps); i++) {
		for (int g = 0; g < 2; g++) {
			struct fx *x4 = load(maps[i], 4, g), *x5 = load(maps[i], 5, g);

			assert_int_equal(x4->plan.n, x5->plan.n);
			for (unsigned l = 0; l < 3; l++)
				assert_int_equal(x4->plan.min_tables[l], x5->plan.min_tables[l]);
			assert_int_equal(x4->plan.min_tables[3], 1);
			assert_int_equal(x4->plan.min_tables[4], 0);
			assert_int_equal(x5->plan.min_tables[3], 2);
			assert_int_equal(x5->plan.min_tables[4], 1);
			assert_int_equal(x5->plan.min_total, x4->plan.min_total + 2);
			free(x4);
			free(x5);
		}
	}
}

static void check_sorted(const struct pt_plan *pl)
{
	for (unsigned i = 1; i < pl->n; i++)
		assert_true(pl->entry[i - 1].va + pl->entry[i - 1].len <= pl->entry[i].va);
}

/* Build @pl at @levels into a fresh arena: exactly min_total tables, lint clean. */
static void build_exact(const struct pt_plan *pl, unsigned levels, bool has_1g, uint64_t code)
{
	struct arena a;
	struct pt_space s;
	struct pt_leaf l;
	struct pt_lint lint;
	uint64_t *scratch;

	arena_init(&a, pl->min_total + 16);
	a.env.has_1g = has_1g;
	assert_int_equal(pt_create(&s, &a.env, levels), PT_OK);
	assert_int_equal(pt_plan_apply(&s, pl), PT_OK);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(s.stats.tables[k], pl->min_tables[k]);
	assert_int_equal(pt_table_count(&s), pl->min_total);
	assert_int_equal(pt_translate(&s, code + 8, &l), PT_OK);
	assert_int_equal(l.pa, code + 8);
	assert_int_equal(l.level, 0);
	assert_int_equal(l.flags & (PT_WRITE | PT_EXEC), PT_EXEC);
	assert_int_equal(pt_translate(&s, PT_HHDM_BASE + code, &l), PT_OK);
	assert_int_equal(l.flags & (PT_WRITE | PT_EXEC), PT_WRITE);
	scratch = calloc(pl->min_total, sizeof(*scratch));
	assert_non_null(scratch);
	assert_int_equal(pt_lint(&s, scratch, pl->min_total, NULL, NULL, &lint), PT_OK);
	free(scratch);
	pt_destroy(&s);
	arena_fini(&a);
}

/* Split @code out of its identity entry; the rest of the plan is as before. */
static void check_exec_page(const char *name, unsigned levels, bool has_1g, int where)
{
	struct fx *x = load(name, levels, has_1g);
	struct pt_plan before = x->plan;
	struct pt_plan_entry *old = malloc(x->plan.n * sizeof(*old));
	const struct pt_plan_entry *big = NULL, *e;
	uint64_t code, bytes0 = 0, bytes1 = 0;
	unsigned want_n;

	assert_non_null(old);
	memcpy(old, x->plan.entry, x->plan.n * sizeof(*old));
	before.entry = old;
	/* the largest RW identity entry below 4 GiB */
	for (unsigned i = 0; i < x->plan.n; i++) {
		e = &x->plan.entry[i];
		if (e->kind == PT_PLAN_IDENTITY && (e->flags & PT_WRITE) && e->va + e->len <= (UINT64_C(1) << 32) &&
		    e->len >= 8 * PAGE && (!big || e->len > big->len))
			big = e;
	}
	assert_non_null(big);
	code = where < 0 ? big->va : where > 0 ? big->va + big->len - PAGE :
	       ((big->va + big->len / 2) & ~(PAGE - 1)) + 5 * PAGE;
	want_n = x->plan.n + (where ? 1 : 2);
	assert_int_equal(pt_plan_identity_perm(&x->plan, code, PAGE, PT_EXEC, levels, has_1g),
			 PT_OK);
	assert_int_equal(x->plan.n, want_n);
	check_sorted(&x->plan);
	for (unsigned i = 0; i < before.n; i++)
		bytes0 += old[i].len;
	for (unsigned i = 0; i < x->plan.n; i++) {
		e = &x->plan.entry[i];
		bytes1 += e->len;
		if (e->va == code)
			assert_true(e->len == PAGE && e->pa == code &&
				    e->flags == ((pt_plan_find(&before, code)->flags & ~PT_WRITE) | PT_EXEC));
		else
			/* every other entry's first and last page keep what the old plan gave them */
			for (unsigned k = 0; k < 2; k++) {
				uint64_t va = k ? e->va + e->len - PAGE : e->va;
				const struct pt_plan_entry *o = pt_plan_find(&before, va);

				assert_non_null(o);
				assert_int_equal(o->flags, e->flags);
				assert_int_equal(o->kind, e->kind);
				assert_int_equal(o->pa + (va - o->va), e->pa + (va - e->va));
			}
	}
	assert_int_equal(bytes0, bytes1);
	/* a page inside the split entry can only cost tables, never save any */
	if (x->plan.min_total < before.min_total)
		fail_msg("%s levels=%u 1g=%d where=%d: min_total %llu < %llu before", name, levels,
			 has_1g, where, (unsigned long long)x->plan.min_total,
			 (unsigned long long)before.min_total);
	build_exact(&x->plan, levels, has_1g, code);
	/* again: already RX, nothing changes */
	assert_int_equal(pt_plan_identity_perm(&x->plan, code, PAGE, PT_EXEC, levels, has_1g),
			 PT_OK);
	assert_int_equal(x->plan.n, want_n);
	free(old);
	free(x);
}

static void test_trampoline_page_split_out_rx(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NR(maps); i++)
		for (int where = -1; where <= 1; where++) {
			check_exec_page(maps[i], 5, true, where);
			check_exec_page(maps[i], 5, false, where);
			check_exec_page(maps[i], 4, true, where);
		}
}

static void test_trampoline_page_refusals_change_nothing(void **state)
{
	struct fx *x = load("ovmf-2G.bin", 5, true);
	struct pt_plan_entry *old = malloc(x->plan.n * sizeof(*old));
	uint64_t min = x->plan.min_total;
	unsigned n = x->plan.n;

	(void)state;
	assert_non_null(old);
	memcpy(old, x->plan.entry, n * sizeof(*old));
	assert_int_equal(pt_plan_identity_perm(&x->plan, 0x100800, PAGE, PT_EXEC, 5, true),
			 PT_EINVAL);
	/* page 0 is the null guard: no identity entry holds it */
	assert_int_equal(pt_plan_identity_perm(&x->plan, 0, PAGE, PT_EXEC, 5, true), PT_ENOTMAPPED);
	x->plan.cap = x->plan.n + 1;   /* a middle split needs two more entries */
	assert_int_equal(pt_plan_identity_perm(&x->plan, 0x200000 + 5 * PAGE, PAGE, PT_EXEC, 5,
					       true), PT_ECAPACITY);
	assert_int_equal(x->plan.n, n);
	assert_int_equal(x->plan.min_total, min);
	assert_memory_equal(old, x->plan.entry, n * sizeof(*old));
	free(old);
	free(x);
}

UNIT_MAIN(
	cmocka_unit_test(test_canonical_48_and_57_bits),
	cmocka_unit_test(test_five_level_far_mappings_and_the_57_bit_hole),
	cmocka_unit_test(test_plan_minimum_with_a_pml5),
	cmocka_unit_test(test_trampoline_page_split_out_rx),
	cmocka_unit_test(test_trampoline_page_refusals_change_nothing))
