// SPDX-License-Identifier: MIT
/*
 * 5-level paging on the host: the 57-bit canonical rules, the plan's table
 * minimum with a PML5 (against the same plan at 4 levels, and against what
 * a build really uses), and the LA57 trampoline's RX page in the plan
 * (efi/cpu/la57plan.c): split out of the identity entry that holds it, the
 * rest unchanged, built with exactly the new minimum.  plan_identity_perm
 * on a hand-made plan: ranges across one, two and three identity entries
 * cut into exactly the expected pieces, and every refusal leaving the plan
 * as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pte.h>

#include "../../efi/cpu/la57plan.h"
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
	assert_int_equal(la57_plan_exec_page(&x->plan, code, levels, has_1g), PT_OK);
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
	assert_int_equal(la57_plan_exec_page(&x->plan, code, levels, has_1g), PT_OK);
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
	assert_int_equal(la57_plan_exec_page(&x->plan, 0x100800, 5, true), PT_EINVAL);
	/* page 0 is the null guard: no identity entry holds it */
	assert_int_equal(la57_plan_exec_page(&x->plan, 0, 5, true), PT_ENOTMAPPED);
	x->plan.cap = x->plan.n + 1;   /* a middle split needs two more entries */
	assert_int_equal(la57_plan_exec_page(&x->plan, 0x200000 + 5 * PAGE, 5, true), PT_ECAPACITY);
	assert_int_equal(x->plan.n, n);
	assert_int_equal(x->plan.min_total, min);
	assert_memory_equal(old, x->plan.entry, n * sizeof(*old));
	free(old);
	free(x);
}

/* ---- plan_identity_perm on a hand-made plan ------------------------------ */

#define RWX (PT_WRITE | PT_EXEC | PT_ALLOW_WX)
#define WC PT_CACHE(PT_CACHE_WC)
#define UC PT_CACHE(PT_CACHE_UC)
#define IDN PT_PLAN_IDENTITY

/*
 * Four identity entries (RW+NX from 4 KiB to 2 MiB; RW+NX write-combining
 * to 8 MiB; RX to 12 MiB; RW+NX uncached to 13 MiB), the HHDM of the first
 * three, and an image alias of the RX range.
 */
static const struct pt_plan_entry perm_plan[] = {
	{ 0x1000, 0x1000, 0x1ff000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
	{ 0x200000, 0x200000, 0x600000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
	{ 0x800000, 0x800000, 0x400000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
	{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
	{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM,
	  PT_EFI_CONVENTIONAL },
	{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE, PT_EFI_LOADER_CODE },
};

#define PERM_CAP 16u

struct perm_fx {
	struct pt_plan_entry entry[PERM_CAP];
	struct pt_plan plan;
};

static void perm_load(struct perm_fx *x, unsigned levels, bool has_1g)
{
	memset(x, 0, sizeof(*x));
	memcpy(x->entry, perm_plan, sizeof(perm_plan));
	x->plan.entry = x->entry;
	x->plan.cap = PERM_CAP;
	x->plan.n = NR(perm_plan);
	x->plan.min_total = pt_plan_min_tables(x->entry, x->plan.n, levels, has_1g,
					       x->plan.min_tables);
	assert_true(x->plan.min_total > 0);
}

/* @x's entries are exactly @want; min_total is that of the result. */
static void expect_plan(const struct perm_fx *x, const struct pt_plan_entry *want, unsigned n,
			unsigned levels, bool has_1g)
{
	uint64_t tables[5], total;

	assert_int_equal(x->plan.n, n);
	for (unsigned i = 0; i < n; i++) {
		const struct pt_plan_entry *e = &x->plan.entry[i], *w = &want[i];

		if (e->va != w->va || e->pa != w->pa || e->len != w->len || e->flags != w->flags ||
		    e->max_size != w->max_size || e->kind != w->kind || e->efi_type != w->efi_type)
			fail_msg("entry %u: va 0x%llx pa 0x%llx len 0x%llx flags 0x%x kind %d type %u, "
				 "want va 0x%llx pa 0x%llx len 0x%llx flags 0x%x kind %d type %u", i,
				 (unsigned long long)e->va, (unsigned long long)e->pa,
				 (unsigned long long)e->len, e->flags, e->kind, e->efi_type,
				 (unsigned long long)w->va, (unsigned long long)w->pa,
				 (unsigned long long)w->len, w->flags, w->kind, w->efi_type);
		if (e->kind == PT_PLAN_IDENTITY)
			assert_int_equal(e->pa, e->va);
	}
	total = pt_plan_min_tables(want, n, levels, has_1g, tables);
	assert_int_equal(x->plan.min_total, total);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(x->plan.min_tables[k], tables[k]);
}

static void test_identity_perm_splits_a_range_across_two_entries(void **state)
{
	static const struct pt_plan_entry want[] = {
		{ 0x1000, 0x1000, 0x1ef000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x1f0000, 0x1f0000, 0x10000, RWX, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x200000, 0x200000, 0x10000, RWX | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x210000, 0x210000, 0x5f0000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x800000, 0x800000, 0x400000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
		{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM,
		  PT_EFI_CONVENTIONAL },
		{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE,
		  PT_EFI_LOADER_CODE },
	};
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	assert_int_equal(plan_identity_perm(&x.plan, 0x1f0000, 0x20000, RWX, 4, true), PT_OK);
	expect_plan(&x, want, NR(want), 4, true);
}

static void test_identity_perm_splits_a_range_across_three_entries(void **state)
{
	static const struct pt_plan_entry want[] = {
		{ 0x1000, 0x1000, 0xff000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x100000, 0x100000, 0x100000, RWX, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x200000, 0x200000, 0x600000, RWX | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x800000, 0x800000, 0x100000, RWX, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0x900000, 0x900000, 0x300000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
		{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM,
		  PT_EFI_CONVENTIONAL },
		{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE,
		  PT_EFI_LOADER_CODE },
	};
	struct perm_fx x;

	(void)state;
	perm_load(&x, 5, false);
	assert_int_equal(plan_identity_perm(&x.plan, 0x100000, 0x800000, RWX, 5, false), PT_OK);
	expect_plan(&x, want, NR(want), 5, false);
}

/* A range inside one entry, not at either end: before, the range, after. */
static void test_identity_perm_middle_of_one_entry_three_pieces(void **state)
{
	static const struct pt_plan_entry want[] = {
		{ 0x1000, 0x1000, 0x1ff000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x200000, 0x200000, 0x200000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x400000, 0x400000, 0x3000, PT_EXEC | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x403000, 0x403000, 0x3fd000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x800000, 0x800000, 0x400000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
		{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM,
		  PT_EFI_CONVENTIONAL },
		{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE,
		  PT_EFI_LOADER_CODE },
	};
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, false);
	assert_int_equal(plan_identity_perm(&x.plan, 0x400000, 0x3000, PT_EXEC, 4, false), PT_OK);
	expect_plan(&x, want, NR(want), 4, false);
}

static void test_identity_perm_entries_already_so_stay_whole(void **state)
{
	static const struct pt_plan_entry want[] = {
		{ 0x1000, 0x1000, 0x1ff000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x200000, 0x200000, 0x5ff000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x7ff000, 0x7ff000, 0x1000, PT_EXEC | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x800000, 0x800000, 0x400000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
		{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM,
		  PT_EFI_CONVENTIONAL },
		{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE,
		  PT_EFI_LOADER_CODE },
	};
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	/* inside the RX entry, RX asked: nothing changes */
	assert_int_equal(plan_identity_perm(&x.plan, 0x900000, 0x1000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	assert_int_equal(plan_identity_perm(&x.plan, 0x800000, 0x400000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	/* the uncached entry is RW+NX whatever its cache type */
	assert_int_equal(plan_identity_perm(&x.plan, 0xc00000, 0x100000, PT_WRITE, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	/* across two entries: the one already RX stays whole, the other gives a page */
	assert_int_equal(plan_identity_perm(&x.plan, 0x7ff000, 0x101000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, want, NR(want), 4, true);
	/* and again: the page is RX now, nothing changes (cap n: no room needed) */
	x.plan.cap = x.plan.n;
	assert_int_equal(plan_identity_perm(&x.plan, 0x7ff000, 0x101000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, want, NR(want), 4, true);
}

/* Refused: the plan (entries, count, table minimum) as before. */
static void expect_refused(struct perm_fx *x, uint64_t pa, uint64_t len, unsigned perm, int err)
{
	struct perm_fx before = *x;
	int got = plan_identity_perm(&x->plan, pa, len, perm, 4, true);

	if (got != err)
		fail_msg("pa 0x%llx len 0x%llx perm 0x%x: %s, want %s", (unsigned long long)pa,
			 (unsigned long long)len, perm, pt_strerror(got), pt_strerror(err));
	assert_int_equal(x->plan.n, before.plan.n);
	assert_int_equal(x->plan.cap, before.plan.cap);
	assert_int_equal(x->plan.min_total, before.plan.min_total);
	assert_memory_equal(x->plan.min_tables, before.plan.min_tables, sizeof(before.plan.min_tables));
	assert_memory_equal(x->entry, before.entry, sizeof(before.entry));
}

static void test_identity_perm_bad_arguments_einval(void **state)
{
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	expect_refused(&x, 0x1f0800, 0x1000, RWX, PT_EINVAL);                /* pa unaligned */
	expect_refused(&x, 0x1f0000, 0x1800, RWX, PT_EINVAL);                /* len unaligned */
	expect_refused(&x, 0x1f0000, 0x1, PT_EXEC, PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0, RWX, PT_EINVAL);                     /* empty */
	expect_refused(&x, UINT64_C(0xfffffffffffff000), 0x2000, RWX, PT_EINVAL);   /* wraps */
	expect_refused(&x, 0x2000, UINT64_C(0xfffffffffffff000), RWX, PT_EINVAL);
	/* bits other than PT_WRITE, PT_EXEC and PT_ALLOW_WX */
	expect_refused(&x, 0x1f0000, 0x1000, PT_WRITE | PT_USER, PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0x1000, PT_EXEC | PT_GLOBAL, PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0x1000, PT_CACHE(PT_CACHE_UC), PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0x1000, RWX | PT_NOSPLIT, PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0x1000, PT_SPARSE, PT_EINVAL);
	expect_refused(&x, 0x1f0000, 0x1000, 1u << 31, PT_EINVAL);
	/* W and X together only with the opt-in, as pt_map wants it */
	expect_refused(&x, 0x1f0000, 0x1000, PT_WRITE | PT_EXEC, PT_EINVAL);
}

static void test_identity_perm_page_outside_identity_enotmapped(void **state)
{
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	expect_refused(&x, 0, 0x1000, RWX, PT_ENOTMAPPED);                   /* page 0 */
	expect_refused(&x, 0, 0x3000, RWX, PT_ENOTMAPPED);                   /* starts in the hole */
	expect_refused(&x, 0xcff000, 0x2000, RWX, PT_ENOTMAPPED);            /* ends past the map */
	expect_refused(&x, 0x1000, 0xd00000, PT_EXEC, PT_ENOTMAPPED);        /* all, one page more */
	expect_refused(&x, 0xd00000, 0x1000, PT_WRITE, PT_ENOTMAPPED);
	/* HHDM and image addresses are not identity pages */
	expect_refused(&x, PT_HHDM_BASE + 0x1000, 0x1000, PT_EXEC, PT_ENOTMAPPED);
	expect_refused(&x, PT_IMAGE_BASE, 0x1000, RWX, PT_ENOTMAPPED);
}

static void test_identity_perm_no_room_ecapacity(void **state)
{
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	/* a middle split needs two more entries */
	x.plan.cap = x.plan.n + 1;
	expect_refused(&x, 0x400000, 0x1000, PT_EXEC, PT_ECAPACITY);
	/* two entries each cut once: two more */
	expect_refused(&x, 0x1f0000, 0x20000, RWX, PT_ECAPACITY);
	x.plan.cap = x.plan.n;
	expect_refused(&x, 0x1000, 0x1000, PT_EXEC, PT_ECAPACITY);
	/* a whole entry changes in place: no room needed */
	assert_int_equal(plan_identity_perm(&x.plan, 0xc00000, 0x100000, RWX, 4, true), PT_OK);
	assert_int_equal(x.plan.n, NR(perm_plan));
	assert_int_equal(x.plan.entry[3].flags, RWX | UC);
	/* exactly the room needed */
	x.plan.cap = x.plan.n + 2;
	assert_int_equal(plan_identity_perm(&x.plan, 0x400000, 0x1000, PT_EXEC, 4, true), PT_OK);
	assert_int_equal(x.plan.n, NR(perm_plan) + 2);
}

/* The minimum table count follows the split, for each level count and leaf size. */
static void test_identity_perm_recomputes_min_total(void **state)
{
	(void)state;
	for (unsigned levels = 4; levels <= 5; levels++)
		for (int g = 0; g < 2; g++) {
			struct perm_fx x;
			uint64_t tables[5], total;

			/* a 2 MiB leaf becomes 4 KiB leaves around a page: one more table */
			perm_load(&x, levels, g);
			total = x.plan.min_total;
			assert_int_equal(plan_identity_perm(&x.plan, 0x400000, 0x1000, PT_EXEC, levels, g),
					 PT_OK);
			assert_int_equal(x.plan.min_total,
					 pt_plan_min_tables(x.entry, x.plan.n, levels, g, tables));
			for (unsigned k = 0; k < 5; k++)
				assert_int_equal(x.plan.min_tables[k], tables[k]);
			assert_int_equal(x.plan.min_total, total + 1);
			/* the levels passed count, not those of the old minimum */
			perm_load(&x, 4, g);
			assert_int_equal(plan_identity_perm(&x.plan, 0x200000, 0x200000, RWX, levels, g),
					 PT_OK);
			assert_int_equal(x.plan.min_total,
					 pt_plan_min_tables(x.entry, x.plan.n, levels, g, tables));
			assert_int_equal(x.plan.min_tables[levels - 1], 1);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_48_and_57_bits),
		cmocka_unit_test(test_five_level_far_mappings_and_the_57_bit_hole),
		cmocka_unit_test(test_plan_minimum_with_a_pml5),
		cmocka_unit_test(test_trampoline_page_split_out_rx),
		cmocka_unit_test(test_trampoline_page_refusals_change_nothing),
		cmocka_unit_test(test_identity_perm_splits_a_range_across_two_entries),
		cmocka_unit_test(test_identity_perm_splits_a_range_across_three_entries),
		cmocka_unit_test(test_identity_perm_middle_of_one_entry_three_pieces),
		cmocka_unit_test(test_identity_perm_entries_already_so_stay_whole),
		cmocka_unit_test(test_identity_perm_bad_arguments_einval),
		cmocka_unit_test(test_identity_perm_page_outside_identity_enotmapped),
		cmocka_unit_test(test_identity_perm_no_room_ecapacity),
		cmocka_unit_test(test_identity_perm_recomputes_min_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
