/* SPDX-License-Identifier: MIT */
/* covers: paging/pt.c paging/bulk.c paging/space.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Host tests of the walker's optional environment fast paths (a linear
 * frame window, frames handed out dirty): the tables they build are the
 * ones the plain environment builds, and of the frame-list pages a large
 * map reserves and the tables a walk unlinks before their flush.
 */
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

/* Linear phys-to-virt and unzeroed frames for @a (its memory is 0xa5 garbage). */
static void arena_fast(struct arena *a)
{
	assert_int_equal(pt_frames_set_zeroing(&a->frames, false), PT_OK);
	a->env.frames_dirty = true;
	a->env.p2v_linear = true;
	a->env.p2v_offset = (uint64_t)(uintptr_t)a->mem - a->base;
}

struct cmp {
	struct arena_space *other;
	uint64_t leaves;
};

/*
 * @leaf of one space must be a leaf of the other with the same va, size,
 * flags and entry: translate there (its last byte; the other way round too).
 */
static int cmp_leaf(void *arg, const struct pt_leaf *leaf)
{
	struct cmp *c = arg;
	struct pt_leaf t;
	uint64_t last = leaf->va + leaf->size - 1;

	c->leaves++;
	if (pt_translate(&c->other->s, last, &t) != PT_OK)
		return 1;
	if (t.va != leaf->va || t.size != leaf->size || t.flags != leaf->flags ||
	    t.entry != leaf->entry || t.pa != leaf->pa + leaf->size - 1)
		return 2;
	/* entry_pa names the very entry that was read */
	if (*(uint64_t *)arena_p2v(&c->other->a, t.entry_pa) != t.entry)
		return 3;
	return 0;
}

/* Same leaves (entry_pa aside), same statistics, translate agrees, lint clean. */
static void expect_same_space(struct arena_space *a, struct arena_space *b)
{
	struct cmp ca = { b, 0 }, cb = { a, 0 };

	assert_int_equal(pt_visit(&a->s, 0, 0, cmp_leaf, &ca), 0);
	assert_int_equal(pt_visit(&b->s, 0, 0, cmp_leaf, &cb), 0);
	assert_int_equal(ca.leaves, cb.leaves);
	assert_memory_equal(&a->s.stats, &b->s.stats, sizeof(a->s.stats));
	assert_fx_clean(a);
	assert_fx_clean(b);
}

static void fx_init_pair(struct arena_space *ref, struct arena_space *fast, uint64_t frames)
{
	arena_init(&ref->a, frames);
	arena_init(&fast->a, frames);
	arena_fast(&fast->a);
	pt_pat_ptlab(&ref->a.env.pat);
	pt_pat_ptlab(&fast->a.env.pat);
	assert_int_equal(pt_create(&ref->s, &ref->a.env, 4), PT_OK);
	assert_int_equal(pt_create(&fast->s, &fast->a.env, 4), PT_OK);
}

static void fx_fini_pair(struct arena_space *ref, struct arena_space *fast)
{
	pt_destroy(&ref->s);
	pt_destroy(&fast->s);
	assert_int_equal(ref->a.frames.in_use, 0);
	assert_int_equal(fast->a.frames.in_use, 0);
	arena_fini(&ref->a);
	arena_fini(&fast->a);
}

/* A fresh table the map fills in part is zero everywhere else. */
static void test_dirty_frames_partly_filled_tables_are_cleared(void **state)
{
	static struct arena_space ref, fast;
	const uint64_t *pt;
	struct pt_leaf l;

	(void)state;
	fx_init_pair(&ref, &fast, 256);
	/* root, PDPT, PD and one PT, three leaves in the middle of the PT */
	assert_int_equal(pt_map(&fast.s, 5 * GiB + 2 * MiB + 100 * 4 * KiB, 0, 3 * 4 * KiB,
				PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_translate(&fast.s, 5 * GiB + 2 * MiB + 101 * 4 * KiB, &l), PT_OK);
	pt = arena_p2v(&fast.a, l.entry_pa - 101 * sizeof(uint64_t));
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if (i < 100 || i > 102)
			assert_int_equal(pt[i], 0);
		else
			assert_int_equal(pt[i] & PTE_ADDR_MASK, (i - 100) * 4 * KiB);
	assert_unmapped(&fast, 5 * GiB + 2 * MiB + 99 * 4 * KiB);
	assert_unmapped(&fast, 5 * GiB + 2 * MiB + 103 * 4 * KiB);
	assert_unmapped(&fast, 5 * GiB);
	assert_unmapped(&fast, 6 * GiB);
	/* a PT filled whole next to it, and 2 MiB leaves in a fresh PD */
	assert_int_equal(pt_map(&fast.s, 5 * GiB + 4 * MiB, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K,
				NULL), PT_OK);
	assert_int_equal(pt_map(&fast.s, 9 * GiB + 6 * MiB, 0, 4 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_map(&ref.s, 5 * GiB + 2 * MiB + 100 * 4 * KiB, 0, 3 * 4 * KiB,
				PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&ref.s, 5 * GiB + 4 * MiB, 0, 2 * MiB, PT_WRITE, PT_PAGE_4K,
				NULL), PT_OK);
	assert_int_equal(pt_map(&ref.s, 9 * GiB + 6 * MiB, 0, 4 * MiB, 0, PT_PAGE_2M, NULL), PT_OK);
	expect_same_space(&ref, &fast);
	fx_fini_pair(&ref, &fast);
}

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/*
 * The same random calls on a default environment and on one with a linear
 * mapping and unzeroed frames (recycled frames hold old entries, fresh ones
 * 0xa5 garbage with P and PS set): same results, same tables.  Failures
 * injected into both must leave the fast one unchanged.
 */
static void test_fast_env_builds_the_same_tables(void **state)
{
	static struct arena_space ref, fast;
	/* two windows: one in root slot 0, one across the slot 0/1 boundary */
	const uint64_t win[2] = { 0, 512 * GiB - 64 * MiB };
	const unsigned flags[] = { 0, PT_WRITE, PT_EXEC, PT_USER | PT_WRITE, PT_GLOBAL,
				   PT_CACHE(PT_CACHE_WC), PT_CACHE(PT_CACHE_UC) | PT_WRITE };
	struct arena_snap snap;
	unsigned injected = 0, ok = 0;

	(void)state;
	rng_state = UINT64_C(0x243f6a8885a308d3);
	fx_init_pair(&ref, &fast, 2048);
	for (unsigned step = 0; step < 1500; step++) {
		uint64_t va = win[rnd(2)] + rnd(64) * 2 * MiB + (rnd(2) ? rnd(512) * 4 * KiB : 0);
		uint64_t len = rnd(3) == 0 ? (1 + rnd(3)) * 2 * MiB : (1 + rnd(700)) * 4 * KiB;
		uint64_t pa = rnd(2) ? (va & (GiB - 1)) : rnd(4096) * 4 * KiB;
		unsigned fl = flags[rnd(sizeof(flags) / sizeof(flags[0]))];
		unsigned op = (unsigned)rnd(5), opts = rnd(2) ? PT_SPARSE : 0;
		enum pt_page_size size = (enum pt_page_size)rnd(3);
		uint64_t fail = rnd(3) == 0 ? 1 + rnd(3) : 0;
		int e1, e2;

		if (fail) {
			pt_frames_fail_nth(&ref.a.frames, fail);
			pt_frames_fail_nth(&fast.a.frames, fail);
			arena_snap_take(&snap, &fast.a, &fast.s);
		}
		switch (op) {
		case 0:
		case 1:
			e1 = pt_map(&ref.s, va, pa, len, fl, size, NULL);
			e2 = pt_map(&fast.s, va, pa, len, fl, size, NULL);
			break;
		case 2:
			e1 = pt_unmap(&ref.s, va, len, opts, NULL);
			e2 = pt_unmap(&fast.s, va, len, opts, NULL);
			break;
		case 3:
			e1 = pt_protect(&ref.s, va, len, fl | opts, NULL);
			e2 = pt_protect(&fast.s, va, len, fl | opts, NULL);
			break;
		default:
			e1 = pt_remap(&ref.s, va, len, pa, opts, NULL);
			e2 = pt_remap(&fast.s, va, len, pa, opts, NULL);
			break;
		}
		assert_int_equal(e1, e2);
		if (fail) {
			if (e2 == PT_ENOMEM) {
				assert_true(arena_snap_equal(&snap, &fast.a, &fast.s));
				injected++;
			}
			arena_snap_free(&snap);
			pt_frames_fail_nth(&ref.a.frames, 0);
			pt_frames_fail_nth(&fast.a.frames, 0);
		}
		ok += e2 == PT_OK;
		if (step % 50 == 0)
			expect_same_space(&ref, &fast);
	}
	expect_same_space(&ref, &fast);
	/* the sequence did something, and failed some calls on purpose */
	assert_true(ok > 300);
	assert_true(injected > 10);
	assert_true(fast.a.frames.freed > 50);
	fx_fini_pair(&ref, &fast);
}

/*
 * Tables an unmap unlinks are freed only after the flush, and until then a
 * CPU may still walk them through a cached entry above.  Whatever the
 * library writes into them before the flush (it keeps its list of dead
 * frames in some of them) must read as not present: at the flush every
 * entry of every unlinked table is either what it was or not present.
 * Six dead tables (four PTs, their PD, the PDPT), so the count the list
 * keeps in one of them passes odd values.
 */
#define DEAD_TABLES 8

static struct {
	struct arena *a;
	uint64_t pa[DEAD_TABLES];
	uint64_t old[DEAD_TABLES][512];
	unsigned n, flushes, bad;
} dead;

static int dead_collect(void *arg, unsigned level, uint64_t pa)
{
	(void)arg;
	if (level < 3 && dead.n < DEAD_TABLES) {
		dead.pa[dead.n] = pa;
		memcpy(dead.old[dead.n], arena_p2v(dead.a, pa), sizeof(dead.old[0]));
		dead.n++;
	}
	return 0;
}

static void dead_flush(void *ctx, const struct pt_flushlist *fl)
{
	(void)ctx;
	(void)fl;
	dead.flushes++;
	for (unsigned i = 0; i < dead.n; i++) {
		const uint64_t *t = arena_p2v(dead.a, dead.pa[i]);

		for (unsigned j = 0; j < 512; j++)
			if (t[j] != dead.old[i][j] && (t[j] & PTE_P))
				dead.bad++;
	}
}

static void test_unlinked_tables_read_not_present_until_flushed(void **state)
{
	struct arena_space *f = *state;
	struct pt_env env = f->a.env;
	struct pt_space s;

	memset(&dead, 0, sizeof(dead));
	dead.a = &f->a;
	env.flush = dead_flush;
	assert_int_equal(pt_create(&s, &env, 4), PT_OK);
	assert_int_equal(pt_map(&s, 4 * GiB, GiB, 8 * MiB, PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_visit_tables(&s, dead_collect, NULL), PT_OK);
	assert_int_equal(dead.n, 6);   /* PDPT, PD, 4 PTs */
	assert_int_equal(pt_unmap(&s, 4 * GiB, 8 * MiB, 0, NULL), PT_OK);
	assert_true(dead.flushes >= 1);
	assert_int_equal(dead.bad, 0);
	assert_int_equal(pt_table_count(&s), 1);
	pt_destroy(&s);
}

/*
 * A map whose reservation outgrows one list page (510 frames): a GiB of
 * 4 KiB pages in an empty space takes 514 tables (PDPT, PD, 512 PTs), so
 * the reserve holds a second list page.  Every reserved frame becomes a
 * table, none is lost or taken twice, no list page is written past its
 * end; a failure on the 514th allocation (in the second list page) hands
 * every frame back.
 */
static void test_map_reserving_more_than_one_list_page(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va = 3 * GiB, pa = 7 * GiB;
	uint64_t in_use = f->a.frames.in_use;
	struct arena_snap snap;

	arena_snap_take(&snap, &f->a, &f->s);
	f->a.frames.fail_at = 514;
	assert_int_equal(pt_map(&f->s, va, pa, GiB, PT_WRITE, PT_PAGE_4K, NULL), PT_ENOMEM);
	assert_true(arena_snap_equal(&snap, &f->a, &f->s));
	assert_int_equal(f->a.frames.in_use, in_use);
	assert_int_equal(f->a.frames.allocated - snap.allocated, 513);
	arena_snap_free(&snap);

	/*
	 * The first frame taken, the first list page, is the arena's last:
	 * a list page is written within its 4 KiB only (ASan watches the end).
	 */
	assert_int_equal(f->a.size / (4 * KiB), 4096);
	f->a.frames.cursor = 4095;
	assert_int_equal(pt_map(&f->s, va, pa, GiB, PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(f->a.frames.in_use - in_use, 514);
	assert_int_equal(f->s.stats.tables[0], 512);
	assert_int_equal(f->s.stats.leaves[PT_PAGE_4K], 512 * 512);
	for (uint64_t off = 0; off < GiB; off += 2 * MiB - 4 * KiB)
		assert_xlat(f, va + off, pa + off, 0, PT_WRITE);
	assert_xlat(f, va + GiB - 4 * KiB, pa + GiB - 4 * KiB, 0, PT_WRITE);
	assert_unmapped(f, va + GiB);
	assert_fx_clean(f);
	assert_int_equal(pt_unmap(&f->s, va, GiB, 0, NULL), PT_OK);
	assert_int_equal(f->a.frames.in_use, in_use);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, arena_space_setup4, arena_space_teardown)

UNIT_MAIN(
	T(test_map_reserving_more_than_one_list_page),
	cmocka_unit_test(test_dirty_frames_partly_filled_tables_are_cleared),
	cmocka_unit_test(test_fast_env_builds_the_same_tables),
	T(test_unlinked_tables_read_not_present_until_flushed))
