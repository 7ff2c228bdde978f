// SPDX-License-Identifier: MIT
/* covers: paging/plan.c */
/*
 * pt_plan_identity_perm (paging/plan.c) on a hand-made plan: ranges across
 * one, two and three identity entries cut into exactly the expected
 * pieces (every field of every entry compared, the HHDM and image entries
 * untouched), entries that already have the permissions left whole, the
 * minimum table count computed again for the levels and leaf sizes given,
 * and every refusal (bad arguments, a page outside the identity map, no
 * room) leaving the plan as it was.  The LA57 trampoline's page on
 * captured OVMF maps is test_la57.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "unit.h"

#include <ptlab/plan.h>
#include <ptlab/pte.h>

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

#define RWX (PT_WRITE | PT_EXEC | PT_ALLOW_WX)
#define WC PT_CACHE(PT_CACHE_WC)
#define UC PT_CACHE(PT_CACHE_UC)
#define IDN PT_PLAN_IDENTITY

/* the entries every expected plan below ends with: the HHDM's, the image's */
#define PERM_TAIL                                                                      \
	{ PT_HHDM_BASE + 0x1000, 0x1000, 0xbff000, PT_WRITE, PT_PAGE_1G, PT_PLAN_HHDM, \
	  PT_EFI_CONVENTIONAL },                                                        \
	{ PT_IMAGE_BASE, 0x800000, 0x10000, PT_EXEC, PT_PAGE_1G, PT_PLAN_IMAGE,        \
	  PT_EFI_LOADER_CODE }

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

/*
 * The plan of perm_load(@levels, @has_1g) after pt_plan_identity_perm(@pa,
 * @len, @flags) succeeded: exactly @want.
 */
static void perm_case(unsigned levels, bool has_1g, uint64_t pa, uint64_t len, unsigned flags,
		      const struct pt_plan_entry *want, unsigned n)
{
	struct perm_fx x;

	perm_load(&x, levels, has_1g);
	assert_int_equal(pt_plan_identity_perm(&x.plan, pa, len, flags, levels, has_1g), PT_OK);
	expect_plan(&x, want, n, levels, has_1g);
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
		PERM_TAIL,
	};
	(void)state;
	perm_case(4, true, 0x1f0000, 0x20000, RWX, want, NR(want));
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
		PERM_TAIL,
	};
	(void)state;
	perm_case(5, false, 0x100000, 0x800000, RWX, want, NR(want));
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
		PERM_TAIL,
	};
	(void)state;
	perm_case(4, false, 0x400000, 0x3000, PT_EXEC, want, NR(want));
}

static void test_identity_perm_entries_already_so_stay_whole(void **state)
{
	static const struct pt_plan_entry want[] = {
		{ 0x1000, 0x1000, 0x1ff000, PT_WRITE, PT_PAGE_1G, IDN, PT_EFI_CONVENTIONAL },
		{ 0x200000, 0x200000, 0x5ff000, PT_WRITE | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x7ff000, 0x7ff000, 0x1000, PT_EXEC | WC, PT_PAGE_1G, IDN, PT_EFI_BS_DATA },
		{ 0x800000, 0x800000, 0x400000, PT_EXEC, PT_PAGE_1G, IDN, PT_EFI_RT_CODE },
		{ 0xc00000, 0xc00000, 0x100000, PT_WRITE | UC, PT_PAGE_1G, IDN, PT_EFI_MMIO },
		PERM_TAIL,
	};
	struct perm_fx x;

	(void)state;
	perm_load(&x, 4, true);
	/* inside the RX entry, RX asked: nothing changes */
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0x900000, 0x1000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0x800000, 0x400000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	/* the uncached entry is RW+NX whatever its cache type */
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0xc00000, 0x100000, PT_WRITE, 4, true), PT_OK);
	expect_plan(&x, perm_plan, NR(perm_plan), 4, true);
	/* across two entries: the one already RX stays whole, the other gives a page */
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0x7ff000, 0x101000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, want, NR(want), 4, true);
	/* and again: the page is RX now, nothing changes (cap n: no room needed) */
	x.plan.cap = x.plan.n;
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0x7ff000, 0x101000, PT_EXEC, 4, true), PT_OK);
	expect_plan(&x, want, NR(want), 4, true);
}

/* Refused: the plan (entries, count, table minimum) as before. */
static void expect_refused(struct perm_fx *x, uint64_t pa, uint64_t len, unsigned perm, int err)
{
	struct perm_fx before = *x;
	int got = pt_plan_identity_perm(&x->plan, pa, len, perm, 4, true);

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
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0xc00000, 0x100000, RWX, 4, true), PT_OK);
	assert_int_equal(x.plan.n, NR(perm_plan));
	assert_int_equal(x.plan.entry[3].flags, RWX | UC);
	/* exactly the room needed */
	x.plan.cap = x.plan.n + 2;
	assert_int_equal(pt_plan_identity_perm(&x.plan, 0x400000, 0x1000, PT_EXEC, 4, true), PT_OK);
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
			assert_int_equal(pt_plan_identity_perm(&x.plan, 0x400000, 0x1000, PT_EXEC, levels, g),
					 PT_OK);
			assert_int_equal(x.plan.min_total,
					 pt_plan_min_tables(x.entry, x.plan.n, levels, g, tables));
			for (unsigned k = 0; k < 5; k++)
				assert_int_equal(x.plan.min_tables[k], tables[k]);
			assert_int_equal(x.plan.min_total, total + 1);
			/* the levels passed count, not those of the old minimum */
			perm_load(&x, 4, g);
			assert_int_equal(pt_plan_identity_perm(&x.plan, 0x200000, 0x200000, RWX, levels, g),
					 PT_OK);
			assert_int_equal(x.plan.min_total,
					 pt_plan_min_tables(x.entry, x.plan.n, levels, g, tables));
			assert_int_equal(x.plan.min_tables[levels - 1], 1);
		}
}

/* No plan at all: refused, nothing read. */
static void test_identity_perm_null_plan_einval(void **state)
{
	(void)state;
	assert_int_equal(pt_plan_identity_perm(NULL, 0x1000, 0x1000, PT_EXEC, 4, true), PT_EINVAL);
}

UNIT_MAIN(
	cmocka_unit_test(test_identity_perm_splits_a_range_across_two_entries),
	cmocka_unit_test(test_identity_perm_splits_a_range_across_three_entries),
	cmocka_unit_test(test_identity_perm_middle_of_one_entry_three_pieces),
	cmocka_unit_test(test_identity_perm_entries_already_so_stay_whole),
	cmocka_unit_test(test_identity_perm_bad_arguments_einval),
	cmocka_unit_test(test_identity_perm_page_outside_identity_enotmapped),
	cmocka_unit_test(test_identity_perm_no_room_ecapacity),
	cmocka_unit_test(test_identity_perm_recomputes_min_total),
	cmocka_unit_test(test_identity_perm_null_plan_einval))
