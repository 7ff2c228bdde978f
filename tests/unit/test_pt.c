/* SPDX-License-Identifier: MIT */
/* covers: paging/pat.c paging/lint.c paging/pt.c paging/bulk.c paging/query.c paging/space.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Host tests of the walker (paging/pt.c, bulk.c, query.c, space.c): map,
 * unmap, protect, remap, translate, visit, lint.
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
#define HIGH UINT64_C(0xffff800000000000)

static void test_map_picks_largest_leaf_that_fits(void **state)
{
	struct arena_space *f = *state;
	uint64_t va = 4 * GiB - 4 * MiB - 8 * KiB, pa = va + 16 * GiB, len = GiB + 8 * MiB + 16 * KiB;
	struct pt_flushlist fl;

	/* 2 pages 4K, then 2M leaves up to 4G, 1G leaf, 2M leaves, 4K tail */
	assert_int_equal(pt_map(&f->s, va, pa, len, PT_WRITE, PT_PAGE_1G, &fl), PT_OK);
	assert_xlat(f, va, pa, 0, PT_WRITE);
	assert_xlat(f, va + 8 * KiB, pa + 8 * KiB, 1, PT_WRITE);
	assert_xlat(f, 4 * GiB + 123, pa + 4 * MiB + 8 * KiB + 123, 2, PT_WRITE);
	assert_xlat(f, 5 * GiB, pa + GiB + 4 * MiB + 8 * KiB, 1, PT_WRITE);
	assert_xlat(f, va + len - 1, pa + len - 1, 0, PT_WRITE);
	assert_unmapped(f, va - 4 * KiB);
	assert_unmapped(f, va + len);
	assert_int_equal(f->s.stats.leaves[2], 1);
	assert_int_equal(f->s.stats.leaves[1], 2 + 2);
	assert_int_equal(f->s.stats.leaves[0], 2 + 2);
	/* root, one PDPT, PDs for GiB 3, 4 and 5, PTs at both ends */
	assert_int_equal(pt_table_count(&f->s), 1 + 1 + 2 + 2);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, va);
	assert_int_equal(fl.r[0].len, len);
	assert_fx_clean(f);
}

static void test_map_without_1g_support_uses_2m(void **state)
{
	struct arena_space *f = *state;

	f->a.env.has_1g = false;
	assert_int_equal(pt_map(&f->s, GiB, GiB, GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_xlat(f, GiB, GiB, 1, PT_WRITE);
	assert_int_equal(f->s.stats.leaves[2], 0);
	assert_int_equal(f->s.stats.leaves[1], 512);
	assert_fx_clean(f);
}

static void test_map_respects_max_size(void **state)
{
	struct arena_space *f = *state;

	assert_int_equal(pt_map(&f->s, GiB, GiB, 2 * MiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_xlat(f, GiB, GiB, 0, 0);
	assert_int_equal(f->s.stats.leaves[0], 512);
}

static void test_canonical_boundary(void **state)
{
	struct arena_space *f = *state;
	uint64_t top = UINT64_C(0x00007ffffffff000);

	assert_int_equal(pt_map(&f->s, top, 0x5000, 4 * KiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_xlat(f, top + 0xfff, 0x5fff, 0, PT_WRITE);
	assert_int_equal(pt_map(&f->s, UINT64_C(0x0000800000000000), 0, 4 * KiB, 0, PT_PAGE_4K, NULL),
			 PT_ENONCANON);
	/* crossing the hole from the top of the lower half */
	assert_int_equal(pt_map(&f->s, top - 4 * KiB, 0, 12 * KiB, 0, PT_PAGE_4K, NULL), PT_ENONCANON);
	assert_int_equal(pt_map(&f->s, HIGH, 0x6000, 4 * KiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_xlat(f, HIGH, 0x6000, 0, PT_WRITE);
	/* the very last page of the address space */
	assert_int_equal(pt_map(&f->s, UINT64_C(0xfffffffffffff000), 0x7000, 4 * KiB, 0,
				PT_PAGE_4K, NULL), PT_OK);
	assert_xlat(f, UINT64_MAX, 0x7fff, 0, 0);
	assert_fx_clean(f);
}

static void test_mappings_above_512g_use_separate_root_slots(void **state)
{
	struct arena_space *f = *state;
	const uint64_t *root = arena_p2v(&f->a, f->s.root_pa);
	unsigned used = 0;

	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(pt_map(&f->s, i * 512 * GiB + 0x1000, 0x1000, 4 * KiB, 0,
					PT_PAGE_4K, NULL), PT_OK);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		used += !!(root[i] & PTE_P);
	assert_int_equal(used, 4);
	assert_int_equal(f->s.stats.tables[2], 4);
	assert_xlat(f, 3 * 512 * GiB + 0x1234, 0x1234, 0, 0);
	assert_fx_clean(f);
}

static void test_map_over_mapped_page_fails_unchanged(void **state)
{
	struct arena_space *f = *state;
	struct arena_snap snap;

	assert_int_equal(pt_map(&f->s, 2 * GiB, 0, 2 * MiB, PT_WRITE, PT_PAGE_2M, NULL), PT_OK);
	arena_snap_take(&snap, &f->a, &f->s);
	assert_int_equal(pt_map(&f->s, 2 * GiB - 4 * MiB, 0, 8 * MiB, 0, PT_PAGE_2M, NULL), PT_EEXIST);
	assert_true(arena_snap_equal(&snap, &f->a, &f->s));
	arena_snap_free(&snap);
}

static void test_argument_errors_change_nothing(void **state)
{
	struct arena_space *f = *state;
	struct arena_snap snap;
	struct {
		uint64_t va, pa, len;
		unsigned flags;
		int err;
	} c[] = {
		{ 0x1000, 0x1000, 0x1000, 1u << 15, PT_EFLAGS },
		{ 0x1000, 0x1000, 0x1000, PT_WRITE | PT_EXEC, PT_EFLAGS },
		{ 0x1000, 0x1000, 0x1000, PT_CACHE(7), PT_EFLAGS },
		{ 0x1000, 0x1000, 0x1000, PT_CACHE(PT_CACHE_WC), PT_EFLAGS }, /* not in the default PAT */
		{ UINT64_C(0x0000900000000000), 0x1000, 0x1000, 0, PT_ENONCANON },
		{ UINT64_C(0xfff0000000000000), 0x1000, 0x1000, 0, PT_ENONCANON },
		{ 0x1800, 0x1000, 0x1000, 0, PT_EALIGN_VA },
		{ 0x1000, 0x1800, 0x1000, 0, PT_EALIGN_PA },
		{ 0x1000, 0x1000, 0x1800, 0, PT_EALIGN_LEN },
		{ 0x1000, 0x1000, 0, 0, PT_ELEN },
		{ UINT64_C(0xfffffffffffff000), 0x1000, 0x2000, 0, PT_ELEN },
		{ 0x1000, UINT64_C(0xfffffffffffff000), 0x2000, 0, PT_ELEN },
		{ 0x1000, UINT64_C(1) << 46, 0x1000, 0, PT_EPHYS },
		{ 0x1000, (UINT64_C(1) << 46) - 0x1000, 0x2000, 0, PT_EPHYS },
	};

	assert_int_equal(pt_map(&f->s, GiB, 0, GiB, 0, PT_PAGE_1G, NULL), PT_OK);
	arena_snap_take(&snap, &f->a, &f->s);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int err = pt_map(&f->s, c[i].va, c[i].pa, c[i].len, c[i].flags, PT_PAGE_1G, NULL);

		if (err != c[i].err)
			fprintf(stderr, "case %zu: %s, expected %s\n", i, pt_strerror(err),
				pt_strerror(c[i].err));
		assert_int_equal(err, c[i].err);
		assert_true(arena_snap_equal(&snap, &f->a, &f->s));
		assert_true(arena_snap_same_counters(&snap, &f->a));
	}
	assert_int_equal(pt_map(&f->s, 0x1000, 0x1000, 0x1000, PT_WRITE | PT_EXEC | PT_ALLOW_WX,
				PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_unmap(&f->s, 0x1000, 0x1000, PT_ALLOW_WX, NULL), PT_EFLAGS);
	assert_int_equal(pt_map(NULL, 0, 0, 0x1000, 0, PT_PAGE_4K, NULL), PT_EINVAL);
	assert_int_equal(pt_map(&f->s, 0x2000, 0, 0x1000, 0, (enum pt_page_size)3, NULL), PT_EINVAL);
	arena_snap_free(&snap);
}

/* ---- the order of flushes, changes and frees ----------------------------- */

struct sample {
	uint64_t va;
	uint64_t pa;
	unsigned flags;
};

#define WATCH_FLUSHES 8
#define WATCH_TABLES 64

/*
 * A space with an env of its own: a copy of the arena's whose callbacks
 * (context: this struct) check the order in which the library flushes,
 * changes and frees, then hand over to the arena's.  Problems are counted
 * and the first is printed rather than asserted, so the library call under
 * test always runs to its end.
 */
struct watch {
	struct arena *a;
	struct pt_env env;
	struct pt_space s;
	unsigned bad;
	/* flush: every sample inside a flushed range translates as recorded */
	const struct sample *samples;
	size_t nsamples;
	unsigned flushes;                         /* since the last watch_arm */
	struct pt_range flushed[WATCH_FLUSHES];   /* first range of each flush */
	unsigned checked[WATCH_FLUSHES];          /* samples checked per flush */
	/* free: only while armed */
	bool armed;
	unsigned frees;
	uint64_t before[WATCH_TABLES];            /* table frames when armed */
	size_t nbefore;
	uint64_t at_flush[WATCH_TABLES];          /* table frames at the last flush */
	size_t nat_flush;
};

static void watch_problem(struct watch *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->bad++) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
}

struct table_list {
	uint64_t *pa;
	size_t n;
	size_t cap;
};

static int list_table(void *arg, unsigned level, uint64_t pa)
{
	struct table_list *t = arg;

	(void)level;
	if (t->n == t->cap)
		return 1;
	t->pa[t->n++] = pa;
	return 0;
}

/* The table frames reachable from the root of @s, into @pa; their number. */
static size_t watch_tables(const struct pt_space *s, uint64_t *pa, size_t cap)
{
	struct table_list t = { pa, 0, cap };

	assert_int_equal(pt_visit_tables(s, list_table, &t), 0);
	return t.n;
}

static bool listed(const uint64_t *list, size_t n, uint64_t pa)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == pa)
			return true;
	return false;
}

static bool flushed(const struct pt_flushlist *fl, uint64_t va)
{
	if (fl->all)
		return true;
	for (unsigned i = 0; i < fl->n; i++)
		if (va - fl->r[i].va < fl->r[i].len)
			return true;
	return false;
}

static int watch_alloc(void *ctx, uint64_t *pa)
{
	struct watch *w = ctx;

	return w->a->env.alloc_frame(w->a->env.ctx, pa);
}

static void *watch_p2v(void *ctx, uint64_t pa)
{
	struct watch *w = ctx;

	return arena_p2v(w->a, pa);
}

/*
 * The library walks the live tables, so what pt_translate sees here is
 * what a CPU walking them at this moment would see.
 */
static void watch_flush(void *ctx, const struct pt_flushlist *fl)
{
	struct watch *w = ctx;
	unsigned k = w->flushes++;
	struct pt_leaf l;

	if (k < WATCH_FLUSHES) {
		w->flushed[k] = fl->n ? fl->r[0] : (struct pt_range){ 0, 0 };
		w->checked[k] = 0;
	}
	for (size_t i = 0; i < w->nsamples; i++) {
		const struct sample *sm = &w->samples[i];

		if (!flushed(fl, sm->va))
			continue;
		if (k < WATCH_FLUSHES)
			w->checked[k]++;
		if (pt_translate(&w->s, sm->va, &l) != PT_OK)
			watch_problem(w, "flush %u: 0x%llx no longer mapped when flushed", k,
				      (unsigned long long)sm->va);
		else if (l.pa != sm->pa || l.flags != sm->flags)
			watch_problem(w, "flush %u: 0x%llx -> 0x%llx flags 0x%x, was 0x%llx flags 0x%x",
				      k, (unsigned long long)sm->va, (unsigned long long)l.pa,
				      l.flags, (unsigned long long)sm->pa, sm->flags);
	}
	if (w->armed)
		w->nat_flush = watch_tables(&w->s, w->at_flush, WATCH_TABLES);
	w->a->env.flush(w->a->env.ctx, fl);
}

/*
 * A table frame may be freed only when a flush came after its unlinking:
 * it was a table before the call, is unreachable now, and was already
 * unreachable at the last flush.
 */
static void watch_free(void *ctx, uint64_t pa)
{
	struct watch *w = ctx;
	uint64_t now[WATCH_TABLES];

	if (w->armed) {
		w->frees++;
		if (!listed(w->before, w->nbefore, pa))
			watch_problem(w, "freed 0x%llx, not a table before the call",
				      (unsigned long long)pa);
		if (listed(now, watch_tables(&w->s, now, WATCH_TABLES), pa))
			watch_problem(w, "freed table 0x%llx is still linked",
				      (unsigned long long)pa);
		if (!w->flushes)
			watch_problem(w, "table 0x%llx freed before any flush of the call",
				      (unsigned long long)pa);
		else if (listed(w->at_flush, w->nat_flush, pa))
			watch_problem(w, "table 0x%llx was still linked at the last flush",
				      (unsigned long long)pa);
	}
	w->a->env.free_frame(w->a->env.ctx, pa);
}

static void watch_init(struct watch *w, struct arena *a)
{
	memset(w, 0, sizeof(*w));
	w->a = a;
	w->env = a->env;
	w->env.ctx = w;
	w->env.alloc_frame = watch_alloc;
	w->env.free_frame = watch_free;
	w->env.phys_to_virt = watch_p2v;
	w->env.flush = watch_flush;
	assert_int_equal(pt_create(&w->s, &w->env, 4), PT_OK);
}

/* Check frees from the next call on; flushes are counted from here. */
static void watch_arm(struct watch *w)
{
	w->nbefore = watch_tables(&w->s, w->before, WATCH_TABLES);
	assert_true(w->nbefore < WATCH_TABLES);
	w->nat_flush = 0;
	w->flushes = 0;
	w->frees = 0;
	w->armed = true;
}

static void watch_fini(struct watch *w)
{
	w->armed = false;
	w->samples = NULL;
	w->nsamples = 0;
	pt_destroy(&w->s);
}

/*
 * Cutting one 4 KiB page out of a 1 GiB leaf splits it to 2 MiB leaves and
 * one of those to 4 KiB leaves.  Each split must be flushed while its whole
 * range still translates exactly as before the call: the page being
 * unmapped included.
 */
static void test_unmap_splits_large_leaf_and_keeps_neighbours(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va = 8 * GiB, pa = 3 * GiB;
	const unsigned flags = PT_WRITE | PT_GLOBAL | PT_CACHE(PT_CACHE_WT);
	static struct sample smp[1024];
	struct pt_flushlist fl;
	struct watch w;
	struct pt_leaf l;

	watch_init(&w, &f->a);
	assert_int_equal(pt_map(&w.s, va, pa, GiB, flags, PT_PAGE_1G, NULL), PT_OK);
	/* every page of the 2 MiB that is split again, one page in each other 2 MiB */
	for (unsigned i = 0; i < 512; i++) {
		smp[i].va = va + 4 * MiB + i * 4 * KiB;
		smp[512 + i].va = va + i * 2 * MiB + i * 4 * KiB;
	}
	for (unsigned i = 0; i < 1024; i++) {
		assert_int_equal(pt_translate(&w.s, smp[i].va, &l), PT_OK);
		assert_int_equal(l.level, 2);
		smp[i].pa = l.pa;
		smp[i].flags = l.flags;
	}
	w.samples = smp;
	w.nsamples = 1024;
	watch_arm(&w);
	/* cut one 4K page in the middle: 1G -> 2M leaves -> 4K leaves */
	assert_int_equal(pt_unmap(&w.s, va + 5 * MiB, 4 * KiB, 0, &fl), PT_OK);
	assert_int_equal(w.bad, 0);
	/* the two splits, each flushed with all of its samples still as before */
	assert_int_equal(w.flushes, 2);
	assert_int_equal(w.flushed[0].va, va);
	assert_int_equal(w.flushed[0].len, GiB);
	assert_int_equal(w.checked[0], 1024);
	assert_int_equal(w.flushed[1].va, va + 4 * MiB);
	assert_int_equal(w.flushed[1].len, 2 * MiB);
	assert_int_equal(w.checked[1], 512 + 1);
	/* no table was emptied, so nothing was freed */
	assert_int_equal(w.frees, 0);
	w.armed = false;

	assert_int_equal(pt_translate(&w.s, va + 5 * MiB, &l), PT_ENOTMAPPED);
	assert_xlat_in(&f->a, &w.s, va + 5 * MiB - 1, pa + 5 * MiB - 1, 0, flags);
	assert_xlat_in(&f->a, &w.s, va + 5 * MiB + 4 * KiB, pa + 5 * MiB + 4 * KiB, 0, flags);
	assert_xlat_in(&f->a, &w.s, va + 2 * MiB, pa + 2 * MiB, 1, flags);
	assert_xlat_in(&f->a, &w.s, va + GiB - 1, pa + GiB - 1, 1, flags);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, va + 5 * MiB);
	assert_int_equal(fl.r[0].len, 4 * KiB);
	assert_true(fl.global);
	assert_lint_clean(&w.s);
	watch_fini(&w);
}

static void test_split_moves_pat_bit(void **state)
{
	struct arena_space *f = *state;
	struct pt_leaf l;

	pt_pat_ptlab(&f->a.env.pat);
	assert_int_equal(pt_map(&f->s, 2 * GiB, 2 * GiB, 2 * MiB, PT_WRITE | PT_CACHE(PT_CACHE_WC),
				PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_translate(&f->s, 2 * GiB, &l), PT_OK);
	assert_true(l.entry & PTE_PAT_LARGE);
	assert_int_equal(pt_unmap(&f->s, 2 * GiB, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(pt_translate(&f->s, 2 * GiB + 4 * KiB, &l), PT_OK);
	assert_int_equal(l.level, 0);
	assert_true(l.entry & PTE_PAT_4K);
	assert_int_equal(l.entry & PTE_ADDR_MASK, 2 * GiB + 4 * KiB);
	assert_int_equal(PT_CACHE_OF(l.flags), PT_CACHE_WC);
	assert_fx_clean(f);
}

static void test_unmap_nosplit_is_blocked(void **state)
{
	struct arena_space *f = *state;
	struct arena_snap snap;

	assert_int_equal(pt_map(&f->s, 2 * GiB, 0, 2 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	arena_snap_take(&snap, &f->a, &f->s);
	assert_int_equal(pt_unmap(&f->s, 2 * GiB, 4 * KiB, PT_NOSPLIT, NULL), PT_EBLOCKED);
	assert_int_equal(pt_protect(&f->s, 2 * GiB, 4 * KiB, PT_WRITE | PT_NOSPLIT, NULL), PT_EBLOCKED);
	assert_int_equal(pt_remap(&f->s, 2 * GiB, 4 * KiB, 0x5000, PT_NOSPLIT, NULL), PT_EBLOCKED);
	assert_true(arena_snap_equal(&snap, &f->a, &f->s));
	/* no split needed: whole leaf */
	assert_int_equal(pt_unmap(&f->s, 2 * GiB, 2 * MiB, PT_NOSPLIT, NULL), PT_OK);
	arena_snap_free(&snap);
}

/*
 * The unmap that empties a PT empties its PD and PDPT too: all three are
 * unlinked, flushed and only then freed (watch_free checks each).
 */
static void test_unmap_frees_empty_tables_after_flush(void **state)
{
	struct arena_space *f = *state;
	struct watch w;
	uint64_t in_use;

	watch_init(&w, &f->a);
	assert_int_equal(pt_map(&w.s, 600 * GiB + 4 * KiB, 0x1000, 8 * KiB, 0, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_table_count(&w.s), 4);
	in_use = f->a.frames.in_use;
	watch_arm(&w);
	assert_int_equal(pt_unmap(&w.s, 600 * GiB + 4 * KiB, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(pt_table_count(&w.s), 4);
	assert_int_equal(w.frees, 0);
	assert_int_equal(w.flushes, 0);
	watch_arm(&w);
	assert_int_equal(pt_unmap(&w.s, 600 * GiB + 8 * KiB, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(w.bad, 0);
	assert_int_equal(w.flushes, 1);
	assert_int_equal(w.frees, 3);
	w.armed = false;
	assert_int_equal(pt_table_count(&w.s), 1);
	assert_int_equal(f->a.frames.in_use, in_use - 3);
	assert_lint_clean(&w.s);
	watch_fini(&w);
}

static void test_unmap_hole_is_not_mapped_unless_sparse(void **state)
{
	struct arena_space *f = *state;
	struct arena_snap snap;

	assert_int_equal(pt_map(&f->s, GiB, 0, 8 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, GiB + 12 * KiB, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	arena_snap_take(&snap, &f->a, &f->s);
	assert_int_equal(pt_unmap(&f->s, GiB, 16 * KiB, 0, NULL), PT_ENOTMAPPED);
	assert_int_equal(pt_protect(&f->s, GiB, 16 * KiB, PT_WRITE, NULL), PT_ENOTMAPPED);
	assert_int_equal(pt_remap(&f->s, GiB, 16 * KiB, 0, 0, NULL), PT_ENOTMAPPED);
	assert_int_equal(pt_unmap(&f->s, 5 * GiB, 4 * KiB, 0, NULL), PT_ENOTMAPPED);
	assert_true(arena_snap_equal(&snap, &f->a, &f->s));
	assert_int_equal(pt_unmap(&f->s, GiB, 16 * KiB, PT_SPARSE, NULL), PT_OK);
	assert_int_equal(pt_table_count(&f->s), 1);
	arena_snap_free(&snap);
}

static void test_protect_changes_attributes_and_keeps_frames(void **state)
{
	struct arena_space *f = *state;
	struct pt_flushlist fl;

	assert_int_equal(pt_map(&f->s, GiB, 7 * GiB, GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_protect(&f->s, GiB + 2 * MiB, 2 * MiB, PT_EXEC, &fl), PT_OK);
	assert_xlat(f, GiB + 2 * MiB + 5, 7 * GiB + 2 * MiB + 5, 1, PT_EXEC);
	assert_xlat(f, GiB + 4 * MiB, 7 * GiB + 4 * MiB, 1, PT_WRITE);
	assert_xlat(f, GiB, 7 * GiB, 1, PT_WRITE);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, GiB + 2 * MiB);
	/* same attributes: nothing to split, nothing to flush */
	assert_int_equal(pt_protect(&f->s, GiB + 8 * KiB, 4 * KiB, PT_WRITE | PT_NOSPLIT, &fl), PT_OK);
	assert_int_equal(fl.n, 0);
	/* uncached: PCD|PWT with the default layout */
	assert_int_equal(pt_protect(&f->s, GiB, 4 * KiB, PT_CACHE(PT_CACHE_UC), NULL), PT_OK);
	assert_xlat(f, GiB, 7 * GiB, 0, PT_CACHE(PT_CACHE_UC));
	assert_fx_clean(f);
}

static void test_remap_changes_frames_and_keeps_attributes(void **state)
{
	struct arena_space *f = *state;

	assert_int_equal(pt_map(&f->s, GiB, 0, 4 * MiB, PT_WRITE | PT_USER, PT_PAGE_2M, NULL), PT_OK);
	/* aligned: the 2M leaf is retargeted in place */
	assert_int_equal(pt_remap(&f->s, GiB, 2 * MiB, 40 * MiB, 0, NULL), PT_OK);
	assert_xlat(f, GiB + 77, 40 * MiB + 77, 1, PT_WRITE | PT_USER);
	/* misaligned new frame: the second leaf is split to 4K */
	assert_int_equal(pt_remap(&f->s, GiB + 2 * MiB, 2 * MiB, 80 * MiB + 4 * KiB, 0, NULL), PT_OK);
	assert_xlat(f, GiB + 2 * MiB, 80 * MiB + 4 * KiB, 0, PT_WRITE | PT_USER);
	assert_xlat(f, GiB + 4 * MiB - 1, 82 * MiB + 4 * KiB - 1, 0, PT_WRITE | PT_USER);
	assert_fx_clean(f);
}

/* Fail the n-th allocation of operations needing 1..4 new tables. */
static void test_out_of_frames_at_every_allocation_leaves_tree_unchanged(void **state)
{
	struct arena_space *f = *state;
	struct arena_snap snap;
	struct {
		uint64_t va;
		unsigned needs;
	} c[] = {
		{ 4 * KiB, 1 },                       /* a PT */
		{ GiB + 4 * KiB, 2 },                 /* PD + PT */
		{ 513 * GiB + 4 * KiB, 3 },           /* PDPT + PD + PT */
	};

	assert_int_equal(pt_map(&f->s, 0x2000, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_unmap(&f->s, 0x2000, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, 0x200000, 0, 2 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	for (size_t i = 0; i < 3; i++) {
		for (unsigned n = 1; n <= c[i].needs; n++) {
			arena_snap_take(&snap, &f->a, &f->s);
			pt_frames_fail_nth(&f->a.frames, n);
			assert_int_equal(pt_map(&f->s, c[i].va, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_ENOMEM);
			assert_true(arena_snap_equal(&snap, &f->a, &f->s));
			arena_snap_free(&snap);
		}
		pt_frames_fail_nth(&f->a.frames, c[i].needs + 1);
		assert_int_equal(pt_map(&f->s, c[i].va, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
		pt_frames_fail_nth(&f->a.frames, 0);
	}
	/* split of a 1G leaf down to 4K needs 2 tables; in a fresh PML4 slot with a PDPT: 4 */
	assert_int_equal(pt_map(&f->s, 1024 * GiB, 0, GiB, 0, PT_PAGE_1G, NULL), PT_OK);
	for (unsigned n = 1; n <= 2; n++) {
		arena_snap_take(&snap, &f->a, &f->s);
		pt_frames_fail_nth(&f->a.frames, n);
		assert_int_equal(pt_unmap(&f->s, 1024 * GiB + 4 * KiB, 4 * KiB, 0, NULL), PT_ENOMEM);
		assert_true(arena_snap_equal(&snap, &f->a, &f->s));
		arena_snap_free(&snap);
	}
	/* a 64 MiB 4K-map across a fresh root slot: PDPT + PD + 32 PTs */
	for (unsigned n = 1; n <= 34; n++) {
		arena_snap_take(&snap, &f->a, &f->s);
		pt_frames_fail_nth(&f->a.frames, n);
		assert_int_equal(pt_map(&f->s, 2048 * GiB, 0, 64 * MiB, 0, PT_PAGE_4K, NULL), PT_ENOMEM);
		assert_true(arena_snap_equal(&snap, &f->a, &f->s));
		arena_snap_free(&snap);
	}
	pt_frames_fail_nth(&f->a.frames, 35);
	assert_int_equal(pt_map(&f->s, 2048 * GiB, 0, 64 * MiB, 0, PT_PAGE_4K, NULL), PT_OK);
	pt_frames_fail_nth(&f->a.frames, 0);
	assert_fx_clean(f);
}

/*
 * Exactly 4 new tables: a 4 KiB map into a fresh PML5 slot needs a P4D, a
 * PDPT, a PD and a PT.  Failing any of the 4 allocations changes nothing.
 */
static void test_out_of_frames_five_levels_four_new_tables(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va = UINT64_C(0x0001000000000000) + 4 * KiB;   /* PML5 slot 1 */
	struct arena_snap snap;
	struct pt_space s5;
	struct pt_leaf l;

	assert_int_equal(pt_create(&s5, &f->a.env, 5), PT_OK);
	/* something in slot 0, so the root is not empty */
	assert_int_equal(pt_map(&s5, 4 * KiB, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_table_count(&s5), 5);
	for (unsigned n = 1; n <= 4; n++) {
		arena_snap_take(&snap, &f->a, &s5);
		pt_frames_fail_nth(&f->a.frames, n);
		assert_int_equal(pt_map(&s5, va, 0x5000, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_ENOMEM);
		assert_int_equal(f->a.frames.fail_at, 0);   /* the armed failure was hit */
		assert_true(arena_snap_equal(&snap, &f->a, &s5));
		arena_snap_free(&snap);
		assert_int_equal(pt_translate(&s5, va, &l), PT_ENOTMAPPED);
	}
	pt_frames_fail_nth(&f->a.frames, 5);
	assert_int_equal(pt_map(&s5, va, 0x5000, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	pt_frames_fail_nth(&f->a.frames, 0);
	assert_int_equal(pt_table_count(&s5), 5 + 4);
	assert_int_equal(pt_translate(&s5, va + 0x123, &l), PT_OK);
	assert_int_equal(l.pa, 0x5123);
	assert_lint_clean(&s5);
	pt_destroy(&s5);
}

/*
 * Ranges that end at 2^64 (the last page of the address space): va + len
 * wraps to 0 there, and the flush list must still coalesce them into one
 * range, whether one leaf walk reports them or several adjacent ones.
 */
static void test_flushlist_coalesces_at_the_top_of_the_address_space(void **state)
{
	struct arena_space *f = *state;
	const uint64_t top = UINT64_C(0xfffffffffffff000), top2m = UINT64_C(0xffffffffffe00000);
	struct pt_flushlist fl;

	/* one call over the last two pages */
	assert_int_equal(pt_map(&f->s, top - 4 * KiB, 0x10000, 8 * KiB, 0, PT_PAGE_4K, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top - 4 * KiB);
	assert_int_equal(fl.r[0].len, 8 * KiB);
	assert_int_equal(pt_protect(&f->s, top - 4 * KiB, 8 * KiB, PT_WRITE, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top - 4 * KiB);
	assert_int_equal(fl.r[0].len, 8 * KiB);
	assert_int_equal(pt_unmap(&f->s, top - 4 * KiB, 8 * KiB, 0, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top - 4 * KiB);
	assert_int_equal(fl.r[0].len, 8 * KiB);

	/* two calls map the pages; one call changes both, leaf by leaf */
	assert_int_equal(pt_map(&f->s, top, 0x20000, 4 * KiB, 0, PT_PAGE_4K, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va + fl.r[0].len, 0);   /* ends at 2^64 */
	assert_int_equal(pt_map(&f->s, top - 4 * KiB, 0x40000, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_remap(&f->s, top - 4 * KiB, 8 * KiB, 0x80000, 0, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top - 4 * KiB);
	assert_int_equal(fl.r[0].len, 8 * KiB);
	assert_xlat(f, UINT64_MAX, 0x81fff, 0, 0);
	/* PT_SPARSE over a hole below them: one run */
	assert_int_equal(pt_unmap(&f->s, top - 12 * KiB, 16 * KiB, PT_SPARSE, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top - 4 * KiB);
	assert_int_equal(fl.r[0].len, 8 * KiB);

	/* a 4 KiB leaf (in a PT) right below a 2 MiB leaf that ends at 2^64 */
	assert_int_equal(pt_map(&f->s, top2m - 4 * KiB, 0x1ff000, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, top2m, 0x200000, 2 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	assert_xlat(f, top, 0x3ff000, 1, 0);
	assert_int_equal(pt_protect(&f->s, top2m - 4 * KiB, 2 * MiB + 4 * KiB, PT_WRITE, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top2m - 4 * KiB);
	assert_int_equal(fl.r[0].len, 2 * MiB + 4 * KiB);
	assert_int_equal(pt_unmap(&f->s, top2m - 4 * KiB, 2 * MiB + 4 * KiB, 0, &fl), PT_OK);
	assert_int_equal(fl.n, 1);
	assert_int_equal(fl.r[0].va, top2m - 4 * KiB);
	assert_int_equal(fl.r[0].len, 2 * MiB + 4 * KiB);
	assert_int_equal(pt_table_count(&f->s), 1);
	assert_fx_clean(f);
}

static void test_five_level_space(void **state)
{
	struct arena_space *f = *state;
	struct pt_space s5;
	uint64_t va = UINT64_C(0x00ff000000000000), high = UINT64_C(0xff00000000000000);

	assert_int_equal(pt_create(&s5, &f->a.env, 5), PT_OK);
	assert_int_equal(pt_map(&s5, va, GiB, GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_map(&s5, high, 0, 4 * KiB, 0, PT_PAGE_1G, NULL), PT_OK);
	/* canonical in 57 bits, not in 48 */
	assert_int_equal(pt_map(&f->s, va, GiB, GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_ENONCANON);
	assert_int_equal(pt_map(&s5, UINT64_C(0x0100000000000000), 0, 4 * KiB, 0, PT_PAGE_4K, NULL),
			 PT_ENONCANON);
	{
		struct pt_leaf l;

		assert_int_equal(pt_translate(&s5, va + 0x1234, &l), PT_OK);
		assert_int_equal(l.pa, GiB + 0x1234);
		assert_int_equal(l.level, 2);
	}
	assert_int_equal(s5.stats.tables[4], 1);
	assert_int_equal(pt_table_count(&s5), 1 + 2 + 2 + 1 + 1);
	assert_int_equal(pt_unmap(&s5, va, GiB, 0, NULL), PT_OK);
	assert_int_equal(pt_unmap(&s5, high, 4 * KiB, 0, NULL), PT_OK);
	assert_int_equal(pt_table_count(&s5), 1);
	pt_destroy(&s5);
	assert_int_equal(pt_create(&s5, &f->a.env, 3), PT_EINVAL);
}

struct collect {
	struct pt_leaf l[16];
	unsigned n;
};

static int collect_leaf(void *arg, const struct pt_leaf *leaf)
{
	struct collect *c = arg;

	if (c->n == 16)
		return 1;
	c->l[c->n++] = *leaf;
	return 0;
}

static void test_visit_reports_leaves_in_va_order(void **state)
{
	struct arena_space *f = *state;
	struct collect c = { .n = 0 };

	assert_int_equal(pt_map(&f->s, HIGH + GiB, GiB, GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, 3 * GiB, 0x5000, 4 * KiB, PT_EXEC, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, 2 * GiB, 0x200000, 2 * MiB, 0, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_visit(&f->s, 0, 0, collect_leaf, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.l[0].va, 2 * GiB);
	assert_int_equal(c.l[0].size, 2 * MiB);
	assert_int_equal(c.l[1].va, 3 * GiB);
	assert_int_equal(c.l[1].flags, PT_EXEC);
	assert_int_equal(c.l[2].va, HIGH + GiB);
	assert_int_equal(c.l[2].pa, GiB);
	assert_int_equal(c.l[2].level, 2);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(*(uint64_t *)arena_p2v(&f->a, c.l[i].entry_pa), c.l[i].entry);
	c.n = 0;
	assert_int_equal(pt_visit(&f->s, 3 * GiB, GiB, collect_leaf, &c), 0);
	assert_int_equal(c.n, 1);
}

static void test_destroy_returns_every_frame(void **state)
{
	struct arena_space *f = *state;

	assert_int_equal(pt_map(&f->s, 0x1000, 0x1000, 64 * MiB, PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, HIGH, 0, 4 * GiB, PT_WRITE, PT_PAGE_1G, NULL), PT_OK);
	assert_true(f->a.frames.in_use > 30);
	pt_destroy(&f->s);
	assert_int_equal(f->a.frames.in_use, 0);
	assert_int_equal(f->a.frames.allocated, f->a.frames.freed);
	assert_int_equal(pt_create(&f->s, &f->a.env, 4), PT_OK);
}

static void test_lint_finds_planted_corruption(void **state)
{
	struct arena_space *f = *state;
	uint64_t scratch[64], *root;
	struct pt_lint l;

	assert_int_equal(pt_map(&f->s, GiB, 0, 4 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, 0x1000, 0, 4 * KiB, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_fx_clean(f);
	root = arena_p2v(&f->a, f->s.root_pa);
	/* PS in the root */
	root[5] = PTE_P | PTE_PS;
	assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
	assert_int_equal(l.bad_ps, 1);
	root[5] = 0;
	/* the same table referenced twice */
	root[6] = root[0];
	assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
	assert_true(l.shared_tables >= 1);
	assert_true(l.stats_mismatch >= 1);
	root[6] = 0;
	/* a reservation that was not used up */
	assert_fx_clean(f);
	f->s.stats.reserve_unused = 2;
	assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
	assert_int_equal(l.reserve_unused, 1);
	assert_int_equal(l.errors, 1);
	f->s.stats.reserve_unused = 0;
	/* an empty table */
	{
		uint64_t pa;

		assert_int_equal(pt_frames_alloc(&f->a.frames, &pa), PT_OK);
		root[7] = pa | PTE_P | PTE_W;
		assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
		assert_int_equal(l.empty_tables, 1);
		root[7] = 0;
		pt_frames_free(&f->a.frames, pa);
	}
	/* reserved bits: address above MAXPHYADDR, and bit 13 in a 2M leaf */
	{
		uint64_t *pdpt = arena_p2v(&f->a, root[0] & PTE_ADDR_MASK);
		uint64_t *pd = arena_p2v(&f->a, pdpt[1] & PTE_ADDR_MASK);
		uint64_t saved = pd[0];

		pd[0] |= UINT64_C(1) << 47;
		assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
		assert_int_equal(l.reserved_bits, 1);
		assert_int_equal(l.first_bad_va, GiB);
		assert_int_equal(l.first_bad_level, 1);
		pd[0] = saved | (UINT64_C(1) << 13);
		assert_int_equal(pt_lint(&f->s, scratch, 64, NULL, NULL, &l), PT_ECORRUPT);
		assert_int_equal(l.reserved_bits, 1);
		pd[0] = saved;
	}
	assert_int_equal(pt_lint(&f->s, scratch, 2, NULL, NULL, &l), PT_ECAPACITY);
	assert_fx_clean(f);
}

static void test_pat_encoding_round_trips(void **state)
{
	struct pt_pat pat;
	uint64_t bits;

	(void)state;
	pt_pat_default(&pat);
	assert_int_equal(pt_pat_msr(&pat), UINT64_C(0x0007040600070406));
	assert_int_equal(pt_cache_bits(&pat, PT_CACHE_WC, 0, &bits), PT_EFLAGS);
	assert_int_equal(pt_cache_bits(&pat, PT_CACHE_UC, 0, &bits), PT_OK);
	assert_int_equal(bits, PTE_PCD | PTE_PWT);
	pt_pat_ptlab(&pat);
	for (unsigned c = 0; c < PT_CACHE_COUNT; c++)
		for (unsigned level = 0; level < 3; level++) {
			assert_int_equal(pt_cache_bits(&pat, c, level, &bits), PT_OK);
			assert_int_equal(pt_cache_of_entry(&pat, bits, level), (int)c);
		}
	assert_int_equal(pt_cache_bits(&pat, PT_CACHE_WC, 1, &bits), PT_OK);
	assert_int_equal(bits, PTE_PAT_LARGE | PTE_PCD);
	assert_int_equal(pt_cache_bits(&pat, PT_CACHE_WC, 0, &bits), PT_OK);
	assert_int_equal(bits, PTE_PAT_4K | PTE_PCD);
}

static void test_env_check_rejects_incomplete_environment(void **state)
{
	struct arena_space *f = *state;
	struct pt_env env = f->a.env;
	struct pt_space s;

	env.phys_to_virt = NULL;
	assert_int_equal(pt_create(&s, &env, 4), PT_EINVAL);
	env = f->a.env;
	env.maxphyaddr = 60;
	assert_int_equal(pt_create(&s, &env, 4), PT_EINVAL);
	assert_int_equal(pt_create(&s, NULL, 4), PT_EINVAL);
}

static void test_env_check_linear_offset_must_keep_entries_aligned(void **state)
{
	struct arena_space *f = *state;
	struct pt_env env = f->a.env;

	env.p2v_linear = true;
	env.p2v_offset = 4;
	assert_int_equal(pt_env_check(&env), PT_EINVAL);
	env.p2v_offset = 8;
	assert_int_equal(pt_env_check(&env), PT_OK);
	/* the offset means nothing without the flag */
	env.p2v_linear = false;
	env.p2v_offset = 4;
	assert_int_equal(pt_env_check(&env), PT_OK);
	/* phys_to_virt stays required */
	env.p2v_linear = true;
	env.p2v_offset = 0;
	env.phys_to_virt = NULL;
	assert_int_equal(pt_env_check(&env), PT_EINVAL);
}

/* The cache type translate reports is the one pt_cache_of_entry looks up. */
static void test_translate_cache_type_follows_the_pat(void **state)
{
	struct arena_space *f = *state;
	struct pt_leaf l;

	pt_pat_ptlab(&f->a.env.pat);
	for (unsigned c = 0; c < PT_CACHE_COUNT; c++) {
		uint64_t va4 = c * 2 * MiB, va2 = GiB + c * 2 * MiB;

		assert_int_equal(pt_map(&f->s, va4, 0, 4 * KiB, PT_CACHE(c), PT_PAGE_4K, NULL), PT_OK);
		assert_int_equal(pt_map(&f->s, va2, 0, 2 * MiB, PT_CACHE(c) | PT_GLOBAL, PT_PAGE_2M,
					NULL), PT_OK);
		assert_xlat(f, va4, 0, 0, PT_CACHE(c));
		assert_xlat(f, va2 + 8 * KiB, 8 * KiB, 1, PT_CACHE(c) | PT_GLOBAL);
		assert_int_equal(pt_translate(&f->s, va4, &l), PT_OK);
		assert_int_equal(pt_cache_of_entry(&f->a.env.pat, l.entry, 0), (int)c);
	}
	/* a reserved code and an out-of-range one in the WT slot read as UC */
	f->a.env.pat.type[1] = 2;
	assert_int_equal(pt_cache_of_entry(&f->a.env.pat, PTE_PWT, 0), -1);
	assert_xlat(f, PT_CACHE_WT * 2 * MiB, 0, 0, PT_CACHE(PT_CACHE_UC));
	f->a.env.pat.type[1] = 9;
	assert_xlat(f, PT_CACHE_WT * 2 * MiB, 0, 0, PT_CACHE(PT_CACHE_UC));
	/* 8, the first code past the table of eight, is out of range too */
	f->a.env.pat.type[1] = 8;
	assert_xlat(f, PT_CACHE_WT * 2 * MiB, 0, 0, PT_CACHE(PT_CACHE_UC));
	pt_pat_ptlab(&f->a.env.pat);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, arena_space_setup4, arena_space_teardown)

UNIT_MAIN(
	T(test_map_picks_largest_leaf_that_fits),
	T(test_map_without_1g_support_uses_2m),
	T(test_map_respects_max_size),
	T(test_canonical_boundary),
	T(test_mappings_above_512g_use_separate_root_slots),
	T(test_map_over_mapped_page_fails_unchanged),
	T(test_argument_errors_change_nothing),
	T(test_unmap_splits_large_leaf_and_keeps_neighbours),
	T(test_split_moves_pat_bit),
	T(test_unmap_nosplit_is_blocked),
	T(test_unmap_frees_empty_tables_after_flush),
	T(test_unmap_hole_is_not_mapped_unless_sparse),
	T(test_protect_changes_attributes_and_keeps_frames),
	T(test_remap_changes_frames_and_keeps_attributes),
	T(test_out_of_frames_at_every_allocation_leaves_tree_unchanged),
	T(test_out_of_frames_five_levels_four_new_tables),
	T(test_flushlist_coalesces_at_the_top_of_the_address_space),
	T(test_five_level_space),
	T(test_visit_reports_leaves_in_va_order),
	T(test_destroy_returns_every_frame),
	T(test_lint_finds_planted_corruption),
	T(test_pat_encoding_round_trips),
	T(test_env_check_rejects_incomplete_environment),
	T(test_env_check_linear_offset_must_keep_entries_aligned),
	T(test_translate_cache_type_follows_the_pat))
