/* SPDX-License-Identifier: MIT */
/* covers: paging/lint.c paging/pt.c paging/bulk.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Host tests of PTE_SW_FULL (include/ptlab/pte.h): the software bit in a
 * level-1 entry saying that the page table it links holds 512 present,
 * non-global entries.  Where pt_map sets it, which calls keep it and which
 * clear it, that pt_unmap relies on it (a table it covers whole is removed
 * without being read) and that pt_lint finds a mark that does not hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"
#include "fixture.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)
#define PA0 (UINT64_C(1) << 40)

static int setup(void **state)
{
	return arena_space_setup(state, 2048, 4);
}

static int lint(struct arena_space *f, struct pt_lint *l)
{
	uint64_t scratch[256];

	return pt_lint(&f->s, scratch, 256, NULL, NULL, l);
}

static void lint_clean(struct arena_space *f)
{
	struct pt_lint l;

	assert_int_equal(lint(f, &l), PT_OK);
	assert_int_equal(l.bad_hints, 0);
}

/* [@va, @va + @len) mapped to PA0 with 4 KiB pages and @flags: accepted. */
static void map_4k(struct arena_space *f, uint64_t va, uint64_t len, unsigned flags)
{
	int rc = pt_map(&f->s, va, PA0, len, flags, PT_PAGE_4K, NULL);

	if (rc != PT_OK)
		fail_msg("pt_map(va 0x%llx, len 0x%llx, flags 0x%x): %s", (unsigned long long)va,
			 (unsigned long long)len, flags, pt_strerror(rc));
}

/* [@va, @va + @len) unmapped (@flags), the flushes in @fl: accepted. */
static void unmap_ok(struct arena_space *f, uint64_t va, uint64_t len, unsigned flags,
		     struct pt_flushlist *fl)
{
	int rc = pt_unmap(&f->s, va, len, flags, fl);

	if (rc != PT_OK)
		fail_msg("pt_unmap(va 0x%llx, len 0x%llx, flags 0x%x): %s", (unsigned long long)va,
			 (unsigned long long)len, flags, pt_strerror(rc));
}

/* The level-1 entry above @va, found by a walk of its own (no library call). */
static uint64_t *pd_entry(struct arena_space *f, uint64_t va)
{
	uint64_t pa = f->s.root_pa, *t = NULL;

	for (unsigned level = 3; level >= 1; level--) {
		t = arena_p2v(&f->a, pa);
		t += pt_index(va, level);
		if (level > 1) {
			assert_true(*t & PTE_P);
			assert_false(*t & PTE_PS);
			pa = *t & PTE_ADDR_MASK;
		}
	}
	return t;
}

static bool marked(struct arena_space *f, uint64_t va)
{
	uint64_t e = *pd_entry(f, va);

	assert_true(e & PTE_P);
	assert_false(e & PTE_PS);
	return e & PTE_SW_FULL;
}

/* No entry but level-1 links to page tables carries the bit. */
static int no_mark_elsewhere(void *arg, unsigned level, uint64_t pa)
{
	struct arena_space *f = arg;
	const uint64_t *t = arena_p2v(&f->a, pa);

	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if ((t[i] & PTE_P) && (t[i] & PTE_SW_FULL))
			assert_true(level == 1 && !(t[i] & PTE_PS));
	return 0;
}

static void test_map_marks_the_page_tables_it_fills_whole(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = GiB;

	/* PTs 0 and 1 whole, PT 2 for 8 KiB only */
	map_4k(f, va, 4 * MiB + 8 * KiB, PT_WRITE);
	assert_true(marked(f, va));
	assert_true(marked(f, va + 2 * MiB));
	assert_false(marked(f, va + 4 * MiB));
	/* a whole PT of global pages is not marked */
	map_4k(f, 2 * GiB, 2 * MiB, PT_GLOBAL);
	assert_false(marked(f, 2 * GiB));
	/* a full PT made by splitting a 2 MiB leaf is not marked (the mark is optional) */
	assert_int_equal(pt_map(&f->s, 3 * GiB, PA0, 4 * MiB, PT_WRITE, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_protect(&f->s, 3 * GiB + 4 * KiB, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(f->s.stats.tables[0], 3 + 1 + 1);
	assert_false(marked(f, 3 * GiB));
	/* a PT filled by two calls is not marked either */
	map_4k(f, 4 * GiB, MiB, 0);
	map_4k(f, 4 * GiB + MiB, MiB, 0);
	assert_false(marked(f, 4 * GiB));
	assert_int_equal(pt_visit_tables(&f->s, no_mark_elsewhere, f), PT_OK);
	lint_clean(f);
}

static void test_remap_and_nonglobal_protect_keep_the_mark(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = GiB;

	map_4k(f, va, 2 * MiB, PT_WRITE);
	assert_true(marked(f, va));
	assert_int_equal(pt_remap(&f->s, va + 64 * KiB, 64 * KiB, 2 * PA0, 0, NULL), PT_OK);
	assert_true(marked(f, va));
	assert_int_equal(pt_protect(&f->s, va, 2 * MiB, PT_EXEC, NULL), PT_OK);
	assert_true(marked(f, va));
	assert_int_equal(pt_protect(&f->s, va + 4 * KiB, 4 * KiB, PT_USER | PT_WRITE, NULL), PT_OK);
	assert_true(marked(f, va));
	lint_clean(f);
	/* one global page ends it */
	assert_int_equal(pt_protect(&f->s, va + 8 * KiB, 4 * KiB, PT_GLOBAL, NULL), PT_OK);
	assert_false(marked(f, va));
	lint_clean(f);
}

static void test_partial_unmap_clears_the_mark(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = GiB;
	struct pt_flushlist fl;

	map_4k(f, va, 4 * MiB, PT_WRITE);
	/* the last page of PT 0 and the first of PT 1 */
	unmap_ok(f, va + 2 * MiB - 4 * KiB, 8 * KiB, 0, &fl);
	assert_false(marked(f, va));
	assert_false(marked(f, va + 2 * MiB));
	lint_clean(f);
	/* mapping the pages back does not mark the tables again */
	map_4k(f, va + 2 * MiB - 4 * KiB, 8 * KiB, PT_WRITE);
	assert_false(marked(f, va));
	/* and an unmap of them whole reads them: same result */
	unmap_ok(f, va, 4 * MiB, 0, &fl);
	assert_int_equal(pt_table_count(&f->s), 1);
	lint_clean(f);
}

static void test_unmap_of_marked_tables_counts_and_flushes_as_a_read(void **state)
{
	/* two marked PTs, one global PT between them and a partial one at the end */
	static const struct { uint64_t off, len; unsigned flags; } layout[] = {
		{ 0, 2 * MiB, PT_WRITE },
		{ 2 * MiB, 2 * MiB, PT_GLOBAL },
		{ 4 * MiB, 2 * MiB + 4 * KiB, 0 },
	};
	struct arena_space *f = *state;
	uint64_t va = GiB;
	struct pt_flushlist fl;

	for (unsigned i = 0; i < sizeof(layout) / sizeof(layout[0]); i++)
		map_4k(f, va + layout[i].off, layout[i].len, layout[i].flags);
	assert_true(marked(f, va));
	assert_false(marked(f, va + 2 * MiB));
	assert_true(marked(f, va + 4 * MiB));
	assert_int_equal(f->s.stats.leaves[0], 3 * 512 + 1);
	assert_int_equal(f->s.stats.tables[0], 4);
	/* only the marked ones: no global page among them */
	unmap_ok(f, va + 4 * MiB, 2 * MiB, 0, &fl);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, va + 4 * MiB);
	assert_int_equal(fl.r[0].len, 2 * MiB);
	assert_false(fl.global);
	assert_int_equal(f->s.stats.leaves[0], 2 * 512 + 1);
	assert_int_equal(f->s.stats.tables[0], 3);
	lint_clean(f);
	/* all of it: the global table's G reaches the flush list */
	unmap_ok(f, va, 6 * MiB + 4 * KiB, PT_SPARSE, &fl);
	assert_int_equal(fl.n, 2);
	assert_int_equal(fl.r[0].va, va);
	assert_int_equal(fl.r[0].len, 4 * MiB);
	assert_int_equal(fl.r[1].va, va + 6 * MiB);
	assert_int_equal(fl.r[1].len, 4 * KiB);
	assert_true(fl.global);
	assert_int_equal(pt_table_count(&f->s), 1);
	assert_int_equal(f->s.stats.leaves[0], 0);
	lint_clean(f);
}

/*
 * pt_unmap trusts the mark: a marked table it covers whole is not read.
 * Shown with a mark planted on a table with a hole, which pt_lint reports;
 * the same table unmarked is read and the hole found.
 */
static void test_unmap_trusts_the_mark_and_lint_checks_it(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = GiB, *pde, *pt;
	struct pt_lint l;

	map_4k(f, va, 2 * MiB, PT_WRITE);
	pde = pd_entry(f, va);
	pt = arena_p2v(&f->a, *pde & PTE_ADDR_MASK);
	lint_clean(f);

	/* a global entry under a mark */
	pt[7] |= PTE_G;
	assert_int_equal(lint(f, &l), PT_ECORRUPT);
	assert_int_equal(l.bad_hints, 1);
	assert_int_equal(l.errors, 1);
	assert_int_equal(l.first_bad_va, va);
	assert_int_equal(l.first_bad_level, 1);
	pt[7] &= ~PTE_G;

	/* a hole under a mark (stats adjusted, so only the mark is wrong) */
	pt[9] = 0;
	f->s.stats.leaves[0]--;
	assert_int_equal(lint(f, &l), PT_ECORRUPT);
	assert_int_equal(l.bad_hints, 1);
	assert_int_equal(l.errors, 1);

	/* unmarked, the hole is found and nothing changes */
	*pde &= ~PTE_SW_FULL;
	lint_clean(f);
	assert_int_equal(pt_unmap(&f->s, va, 2 * MiB, 0, NULL), PT_ENOTMAPPED);
	assert_int_equal(pt_table_count(&f->s), 4);

	/* marked, the table is not read: removed whole (511 leaves counted as 512) */
	*pde |= PTE_SW_FULL;
	f->s.stats.leaves[0]++;
	assert_int_equal(pt_unmap(&f->s, va, 2 * MiB, 0, NULL), PT_OK);
	assert_int_equal(pt_table_count(&f->s), 1);
	assert_int_equal(f->s.stats.leaves[0], 0);
}

/* The mark's check covers the first and the last entry of the table too. */
static void test_lint_checks_every_entry_under_a_mark(void **state)
{
	static const unsigned idx[] = { 0, 1, PT_ENTRIES - 1 };
	struct arena_space *f = *state;
	uint64_t va = GiB, *pt, saved;
	struct pt_lint l;

	map_4k(f, va, 2 * MiB, PT_WRITE);
	assert_true(marked(f, va));
	pt = arena_p2v(&f->a, *pd_entry(f, va) & PTE_ADDR_MASK);
	for (unsigned k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
		unsigned i = idx[k];

		saved = pt[i];
		pt[i] |= PTE_G;
		assert_int_equal(lint(f, &l), PT_ECORRUPT);
		assert_int_equal(l.bad_hints, 1);
		assert_int_equal(l.errors, 1);
		/* a hole there (stats adjusted, so only the mark is wrong) */
		pt[i] = 0;
		f->s.stats.leaves[0]--;
		assert_int_equal(lint(f, &l), PT_ECORRUPT);
		assert_int_equal(l.bad_hints, 1);
		assert_int_equal(l.errors, 1);
		pt[i] = saved;
		f->s.stats.leaves[0]++;
		lint_clean(f);
	}
}

/* A table marked in one call and covered whole by a later map is refused like any other. */
static void test_map_over_a_marked_table_fails_unchanged(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = GiB, before;

	map_4k(f, va, 2 * MiB, PT_WRITE);
	before = *pd_entry(f, va);
	assert_int_equal(pt_map(&f->s, va + 12 * KiB, PA0, 4 * KiB, 0, PT_PAGE_4K, NULL),
			 PT_EEXIST);
	assert_int_equal(*pd_entry(f, va), before);
	assert_true(before & PTE_SW_FULL);
	lint_clean(f);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, arena_space_teardown)

UNIT_MAIN(
	T(test_map_marks_the_page_tables_it_fills_whole),
	T(test_remap_and_nonglobal_protect_keep_the_mark),
	T(test_partial_unmap_clears_the_mark),
	T(test_unmap_of_marked_tables_counts_and_flushes_as_a_read),
	T(test_unmap_trusts_the_mark_and_lint_checks_it),
	T(test_lint_checks_every_entry_under_a_mark),
	T(test_map_over_a_marked_table_fails_unchanged))
