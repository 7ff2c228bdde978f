/* SPDX-License-Identifier: MIT */
/* covers: efi/report/ptdump.c */
/*
 * efi/report/ptdump.c: the batched walk against pt_visit, the ranges listing
 * against a coalescing of pt_visit's leaves done here, exact lines, region
 * markers, effective permissions, the leaf cap and the stop callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"

#include "../../efi/report/fmt.h"
#include "../../efi/report/ptdump.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)
#define HIGH UINT64_C(0xffff800000000000)

#define MAX_LINES 4096

struct lines {
	unsigned n;
	char *l[MAX_LINES];
};

static void collect(void *arg, const char *line)
{
	struct lines *ls = arg;

	assert_true(ls->n < MAX_LINES);
	ls->l[ls->n++] = strdup(line);
}

static void lines_free(struct lines *ls)
{
	for (unsigned i = 0; i < ls->n; i++)
		free(ls->l[i]);
	ls->n = 0;
}

struct fx {
	struct arena a;
	struct pt_space s;
	struct lines got, want;
	struct ptdump d;                 /* the last dump() */
	struct ptdump_walk_stats st;     /* ... and its walk */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	arena_init(&f->a, 4096);
	assert_int_equal(pt_create(&f->s, &f->a.env, 4), PT_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pt_destroy(&f->s);
	arena_fini(&f->a);
	lines_free(&f->got);
	lines_free(&f->want);
	free(f);
	return 0;
}

static void map(struct fx *f, uint64_t va, uint64_t pa, uint64_t len, unsigned flags,
		enum pt_page_size max)
{
	assert_int_equal(pt_map(&f->s, va, pa, len, flags | PT_ALLOW_WX, max, NULL), PT_OK);
}

/* f->d: the tables dumped in @fmt with the @nm markers @m, at most @cap lines; f->st: the walk */
static void dump(struct fx *f, enum ptdump_format fmt, const struct ptdump_marker *m,
		 unsigned nm, uint64_t cap)
{
	ptdump_begin(&f->d, fmt, f->s.levels, m, nm, &f->a.env.pat, "leaf", cap, collect,
		     &f->got);
	assert_int_equal(ptdump_walk(&f->s, ptdump_add, &f->d, NULL, NULL, &f->st), 0);
	ptdump_end(&f->d);
}

/* ---- the reference: pt_visit's leaves, coalesced here ---- */

struct ref {
	struct fx *f;
	bool have;
	uint64_t va, end;
	unsigned attrs, level;
	uint64_t leaves[3];
};

static unsigned attrs_of(const struct pt_leaf *l)
{
	unsigned a = 0;

	a |= l->flags & PT_USER ? PTDUMP_USR : 0;
	a |= l->flags & PT_WRITE ? PTDUMP_RW : 0;
	a |= l->flags & PT_EXEC ? 0 : PTDUMP_NX;
	a |= l->entry & PTE_PWT ? PTDUMP_PWT : 0;
	a |= l->entry & PTE_PCD ? PTDUMP_PCD : 0;
	a |= l->entry & (l->level ? PTE_PAT_LARGE : PTE_PAT_4K) ? PTDUMP_PAT : 0;
	a |= l->entry & PTE_G ? PTDUMP_GLB : 0;
	return a;
}

static void ref_flush(struct ref *r)
{
	char line[128];

	if (!r->have)
		return;
	ptdump_format_range(line, sizeof(line), r->va, r->end, r->attrs, r->level, 4);
	collect(&r->f->want, line);
	r->have = false;
}

static int ref_leaf(void *arg, const struct pt_leaf *l)
{
	struct ref *r = arg;
	unsigned a = attrs_of(l);

	r->leaves[l->level]++;
	if (r->have && r->end == l->va && r->attrs == a && r->level == l->level) {
		r->end += l->size;
		return 0;
	}
	ref_flush(r);
	*r = (struct ref){ r->f, true, l->va, l->va + l->size, a, l->level,
			   { r->leaves[0], r->leaves[1], r->leaves[2] } };
	return 0;
}

static void expect_same_as_reference(struct fx *f, const struct ptdump *d)
{
	struct ref r = { .f = f };

	assert_int_equal(pt_visit(&f->s, 0, 0, ref_leaf, &r), PT_OK);
	ref_flush(&r);
	assert_int_equal(f->got.n, f->want.n);
	for (unsigned i = 0; i < f->got.n; i++)
		assert_string_equal(f->got.l[i], f->want.l[i]);
	for (unsigned l = 0; l < 3; l++) {
		assert_int_equal(d->leaves[l], r.leaves[l]);
		assert_int_equal(d->leaves[l], f->s.stats.leaves[l]);
	}
	assert_int_equal(d->lines, f->want.n);
}

/* ---- tests ---- */

static void test_range_line_shape(void **state)
{
	char b[128];

	(void)state;
	ptdump_format_range(b, sizeof(b), 0x1000, 0xa0000, PTDUMP_RW | PTDUMP_NX, 0, 4);
	assert_string_equal(b, "0x0000000000001000-0x00000000000a0000       636K     RW"
			       "                 NX pte");
	ptdump_format_range(b, sizeof(b), UINT64_C(0xffffffff80000000),
			    UINT64_C(0xffffffff80200000), PTDUMP_GLB, 1, 4);
	assert_string_equal(b, "0xffffffff80000000-0xffffffff80200000         2M     ro"
			       "             GLB x  pmd");
	ptdump_format_range(b, sizeof(b), 0, UINT64_C(64) << 40,
			    PTDUMP_USR | PTDUMP_RW | PTDUMP_PWT | PTDUMP_PCD | PTDUMP_PAT, 2, 5);
	assert_string_equal(b, "0x0000000000000000-0x0000400000000000        64T USR RW PWT"
			       " PCD PAT     x  pud");
	/* not a whole number of the next unit: stays in the smaller one */
	ptdump_format_range(b, sizeof(b), 0, 3 * MiB + 4 * KiB, PTDUMP_NX, 0, 4);
	assert_string_equal(b, "0x0000000000000000-0x0000000000301000      3076K     ro"
			       "                 NX pte");
	assert_string_equal(ptdump_level_name(3, 5), "p4d");
	assert_string_equal(ptdump_level_name(3, 4), "pgd");
	assert_string_equal(ptdump_level_name(4, 5), "pgd");
}

static void test_exact_listing_with_markers(void **state)
{
	struct fx *f = *state;
	static const struct ptdump_marker m[] = {
		{ 0, "Identity map" },
		{ UINT64_C(0x0000800000000000), "Non-canonical hole" },
		{ HIGH, "HHDM" },
		{ HIGH + 1 * MiB, "Split here" },
		{ UINT64_C(0xffffffff80000000), "Image" },
	};
	static const char *const want[] = {
		"---[ Identity map ]---",
		"0x0000000000001000-0x0000000000200000      2044K     RW                 NX pte",
		"0x0000000000200000-0x0000000000600000         4M     RW                 NX pmd",
		"0x0000000000600000-0x0000000000800000         2M     ro             GLB x  pmd",
		"---[ Non-canonical hole ]---",
		"---[ HHDM ]---",
		"0xffff800000000000-0xffff800000100000         1M     RW                 NX pte",
		"---[ Split here ]---",
		"0xffff800000100000-0xffff800000200000         1M     RW                 NX pte",
		"---[ Image ]---",
	};

	map(f, 0x1000, 0x1000, 2 * MiB - 0x1000, PT_WRITE, PT_PAGE_2M);
	map(f, 2 * MiB, 2 * MiB, 4 * MiB, PT_WRITE, PT_PAGE_2M);
	map(f, 6 * MiB, 6 * MiB, 2 * MiB, PT_EXEC | PT_GLOBAL, PT_PAGE_2M);
	map(f, HIGH, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K);
	dump(f, PTDUMP_RANGES, m, 5, 0);
	assert_int_equal(f->got.n, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < f->got.n; i++)
		assert_string_equal(f->got.l[i], want[i]);
	assert_int_equal(f->d.lines, 5);
	assert_int_equal(f->d.leaves[0], 511 + 512);
	assert_int_equal(f->d.leaves[1], 3);
	assert_int_equal(f->d.bytes, 8 * MiB - 0x1000 + 2 * MiB);
}

static void test_mixed_space_matches_visit(void **state)
{
	struct fx *f = *state;
	uint64_t va = 0x1000;

	/* many attribute changes, sizes and both halves */
	for (unsigned i = 0; i < 40; i++) {
		static const unsigned fl[] = { PT_WRITE, PT_EXEC, 0, PT_WRITE | PT_USER,
					       PT_WRITE | PT_CACHE(PT_CACHE_UC), PT_GLOBAL };
		uint64_t len = (i % 3 == 0 ? 2 * MiB : 0x1000 * (1 + i % 7));

		if (len == 2 * MiB)
			va = (va + 2 * MiB - 1) & ~(2 * MiB - 1);
		map(f, va, va, len, fl[(i / 2) % 6], PT_PAGE_2M);
		va += len + (i % 5 == 0 ? 0x3000 : 0);
	}
	map(f, 5 * GiB, 0, 3 * GiB, PT_WRITE, PT_PAGE_1G);
	map(f, HIGH, 0, 1 * GiB + 6 * MiB, PT_WRITE, PT_PAGE_2M);
	map(f, UINT64_C(0xfffffffffff00000), 0, 1 * MiB, PT_EXEC, PT_PAGE_4K);
	dump(f, PTDUMP_RANGES, NULL, 0, 0);
	expect_same_as_reference(f, &f->d);
	/* the last run ends at 2^64: printed as 0 like an unsigned wrap */
	assert_non_null(strstr(f->got.l[f->got.n - 1], "-0x0000000000000000 "));
	assert_int_equal(f->st.tables, pt_table_count(&f->s));
	assert_int_equal(f->st.bad, 0);
}

static void test_full_table_of_equal_leaves_is_one_batch(void **state)
{
	struct fx *f = *state;

	map(f, 0, 0, 1 * GiB, PT_WRITE, PT_PAGE_2M);      /* one PD, 512 x 2M */
	map(f, 4 * GiB, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K); /* one PT, 512 x 4K */
	dump(f, PTDUMP_RANGES, NULL, 0, 0);
	assert_int_equal(f->st.batches, 2);
	assert_int_equal(f->d.leaves[1], 512);
	assert_int_equal(f->d.leaves[0], 512);
	assert_int_equal(f->got.n, 2);
	expect_same_as_reference(f, &f->d);
}

static void test_frames_out_of_order_split_batches_not_runs(void **state)
{
	struct fx *f = *state;

	/* same attributes, frames not consecutive: three batches, one run */
	map(f, 0, 0x10000, 0x2000, PT_WRITE, PT_PAGE_4K);
	map(f, 0x2000, 0x50000, 0x1000, PT_WRITE, PT_PAGE_4K);
	dump(f, PTDUMP_RANGES, NULL, 0, 0);
	assert_int_equal(f->st.batches, 2);
	assert_int_equal(f->got.n, 1);
	assert_false(f->d.run_linear);
	expect_same_as_reference(f, &f->d);
}

/* Entry of @va at @level, through the arena. */
static uint64_t *entry_of(struct fx *f, uint64_t va, unsigned level)
{
	uint64_t pa = f->s.root_pa;

	for (unsigned l = f->s.levels - 1;; l--) {
		uint64_t *t = arena_p2v(&f->a, pa);

		if (l == level)
			return &t[pt_index(va, l)];
		pa = t[pt_index(va, l)] & PTE_ADDR_MASK;
	}
}

static void test_permissions_are_effective(void **state)
{
	struct fx *f = *state;

	map(f, 0, 0, 4 * MiB, PT_WRITE | PT_EXEC | PT_USER, PT_PAGE_4K);
	/* the PD entry of the second 2 MiB: read-only, supervisor, NX above writable leaves */
	*entry_of(f, 2 * MiB, 1) &= ~(PTE_W | PTE_US);
	*entry_of(f, 2 * MiB, 1) |= PTE_NX;
	/* A/D set by a CPU do not split anything */
	*entry_of(f, 0x5000, 0) |= PTE_A | PTE_D;
	dump(f, PTDUMP_RANGES, NULL, 0, 0);
	assert_int_equal(f->got.n, 2);
	assert_string_equal(f->got.l[0], "0x0000000000000000-0x0000000000200000         2M USR RW"
					 "                 x  pte");
	assert_string_equal(f->got.l[1], "0x0000000000200000-0x0000000000400000         2M     ro"
					 "                 NX pte");
	expect_same_as_reference(f, &f->d);
}

static void test_ps_in_root_is_counted_not_followed(void **state)
{
	struct fx *f = *state;

	map(f, 0, 0, 0x1000, PT_WRITE, PT_PAGE_4K);
	*entry_of(f, UINT64_C(0x0000008000000000), 3) = PTE_P | PTE_PS | PTE_W;
	dump(f, PTDUMP_RANGES, NULL, 0, 0);
	assert_int_equal(f->st.bad, 1);
	assert_int_equal(f->got.n, 1);
	*entry_of(f, UINT64_C(0x0000008000000000), 3) = 0;
}

static void test_leaves_capped(void **state)
{
	struct fx *f = *state;

	map(f, 0, 0, 1 * GiB, PT_WRITE, PT_PAGE_2M);
	dump(f, PTDUMP_LEAVES, NULL, 0, 3);
	assert_int_equal(f->got.n, 3);
	assert_string_equal(f->got.l[0], "leaf: va=0x0 pa=0x0 size=0x200000 flags=rw-- cache=0");
	assert_string_equal(f->got.l[2],
			    "leaf: va=0x400000 pa=0x400000 size=0x200000 flags=rw-- cache=0");
	assert_int_equal(f->d.leaves_listed, 3);
	assert_int_equal(f->d.leaves_unlisted, 509);
	assert_int_equal(f->d.leaves[1], 512);
	lines_free(&f->got);
	/* no cap: every leaf, like pt_visit */
	dump(f, PTDUMP_LEAVES, NULL, 0, 0);
	assert_int_equal(f->got.n, 512);
	assert_int_equal(f->d.leaves_unlisted, 0);
}

static unsigned stop_after;

static bool stop_now(void *arg)
{
	(void)arg;
	return stop_after-- == 0;
}

static void test_stop_ends_the_walk(void **state)
{
	struct fx *f = *state;

	map(f, 0, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K);
	map(f, 2 * GiB, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K);
	stop_after = 4;   /* root, PDPT, PD, PT of the first range; then stop */
	ptdump_begin(&f->d, PTDUMP_RANGES, 4, NULL, 0, NULL, NULL, 0, collect, &f->got);
	assert_int_equal(ptdump_walk(&f->s, ptdump_add, &f->d, stop_now, NULL, &f->st), 0);
	ptdump_end(&f->d);
	assert_true(f->st.stopped);
	assert_int_equal(f->st.tables, 4);
	assert_int_equal(f->st.stop_va, 2 * GiB);
	assert_int_equal(f->d.leaves[0], 512);
}

static void test_bad_arguments(void **state)
{
	struct fx *f = *state;
	struct pt_space bad = f->s;

	bad.levels = 3;
	assert_int_equal(ptdump_walk(&bad, ptdump_add, NULL, NULL, NULL, NULL), PT_EINVAL);
	assert_int_equal(ptdump_walk(&f->s, NULL, NULL, NULL, NULL, NULL), PT_EINVAL);
	assert_int_equal(ptdump_walk(NULL, ptdump_add, NULL, NULL, NULL, NULL), PT_EINVAL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

UNIT_MAIN(
	cmocka_unit_test(test_range_line_shape),
	T(test_exact_listing_with_markers),
	T(test_mixed_space_matches_visit),
	T(test_full_table_of_equal_leaves_is_one_batch),
	T(test_frames_out_of_order_split_batches_not_runs),
	T(test_permissions_are_effective),
	T(test_ps_in_root_is_counted_not_followed),
	T(test_leaves_capped),
	T(test_stop_ends_the_walk),
	T(test_bad_arguments))
