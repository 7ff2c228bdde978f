/* SPDX-License-Identifier: MIT */
/* covers: paging/query.c paging/pat.c */
/*
 * Host tests of the lookups: pt_translate and pt_translate_many against a
 * walk written here from the SDM (Vol. 3A §4.5, §4.6.1), in both
 * environments (phys_to_virt calls, and the linear mapping), on every leaf
 * size, holes at every level, 4 and 5 levels, non-canonical addresses,
 * rights taken away by an entry above a permissive leaf, not-present
 * entries whose other bits are set, PS where it is reserved, and random
 * batches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"
#include "fixture.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)

/* Where the mappings of these tests start: 16 TiB, canonical with 4 and 5 levels. */
#define VA0 UINT64_C(0x0000100000000000)
#define PA0 UINT64_C(0x0000200000000000)

/* The answer of the walk below. */
struct want {
	int err;
	uint64_t frame, size, entry, entry_pa;
	bool w, us, xd, g;
};

/*
 * The SDM walk: from CR3 (the root) one entry per level, stop at a clear P
 * (not mapped), at PS in a PDPTE or PDE, or at a PTE; R/W and U/S must be
 * set at every level for the right, XD set at any level takes execution
 * away.  Non-canonical addresses fault before any walk (§3.3.7.1).
 */
static struct want sdm_walk(struct arena *a, const struct pt_space *s, uint64_t va)
{
	struct want r = { .w = true, .us = true };
	unsigned bits = s->levels == 5 ? 57 : 48;
	uint64_t table = s->root_pa;
	int shift;

	if ((va >> (bits - 1)) != 0 && (va >> (bits - 1)) != (UINT64_MAX >> (bits - 1))) {
		r.err = PT_ENONCANON;
		return r;
	}
	for (shift = bits - 9; ; shift -= 9) {
		uint64_t at = table + ((va >> shift) & 511) * 8;
		uint64_t e = *(uint64_t *)arena_p2v(a, at);

		if (!(e & 1)) {
			r.err = PT_ENOTMAPPED;
			return r;
		}
		r.w = r.w && (e & 2);
		r.us = r.us && (e & 4);
		r.xd = r.xd || (e >> 63);
		if (shift == 12 || (e & 0x80)) {
			r.size = UINT64_C(1) << shift;
			r.frame = e & UINT64_C(0x000ffffffffff000) & ~(r.size - 1);
			r.entry = e;
			r.entry_pa = at;
			r.g = e & 0x100;
			return r;
		}
		table = e & UINT64_C(0x000ffffffffff000);
	}
}

/* Does @l (a PT_OK answer for @va) say what @w does? */
static void expect_leaf(const struct want *w, uint64_t va, const struct pt_leaf *l)
{
	assert_int_equal(l->size, w->size);
	assert_int_equal(l->va, va & ~(w->size - 1));
	assert_int_equal(l->pa, w->frame + (va & (w->size - 1)));
	assert_int_equal(UINT64_C(1) << (12 + 9 * l->level), w->size);
	assert_int_equal(l->entry, w->entry);
	assert_int_equal(l->entry_pa, w->entry_pa);
	assert_int_equal(!!(l->flags & PT_WRITE), w->w);
	assert_int_equal(!!(l->flags & PT_USER), w->us);
	assert_int_equal(!(l->flags & PT_EXEC), w->xd);
	assert_int_equal(!!(l->flags & PT_GLOBAL), w->g);
}

#define NMAX 64u

/*
 * Every address of @va through the SDM walk, pt_translate and
 * pt_translate_many, in the arena's environment (phys_to_virt) and in the
 * linear one.  pt_translate leaves *out alone on failure, and the batch
 * zeroes out[k].  Returns how many were mapped.
 */
static unsigned check_all(struct arena *a, struct pt_space *s, const uint64_t *va, unsigned n)
{
	struct pt_env linear = a->env;
	const struct pt_env *env = s->env;
	struct pt_leaf many[NMAX], one, zero = { 0 };
	int err[NMAX];
	unsigned mapped = 0;

	assert_true(n <= NMAX);
	linear.p2v_linear = true;
	linear.p2v_offset = (uint64_t)(uintptr_t)a->mem - a->base;
	for (unsigned pass = 0; pass < 2; pass++) {
		s->env = pass ? &linear : env;
		memset(many, 0xa5, sizeof(many));
		assert_int_equal(pt_translate_many(s, va, n, many, err), PT_OK);
		for (unsigned k = 0; k < n; k++) {
			struct want w = sdm_walk(a, s, va[k]);

			memset(&one, 0x5a, sizeof(one));
			assert_int_equal(pt_translate(s, va[k], &one), w.err);
			assert_int_equal(err[k], w.err);
			if (w.err) {
				struct pt_leaf canary;

				memset(&canary, 0x5a, sizeof(canary));
				assert_memory_equal(&one, &canary, sizeof(one));
				assert_memory_equal(&many[k], &zero, sizeof(zero));
				continue;
			}
			expect_leaf(&w, va[k], &one);
			/* the cache type, which the walk above does not decode */
			assert_int_equal(PT_CACHE_OF(one.flags),
					 pt_cache_of_entry(&env->pat, one.entry, one.level));
			assert_memory_equal(&many[k], &one, sizeof(one));
			mapped += !pass;
		}
	}
	s->env = env;
	return mapped;
}

static int setup4(void **state)
{
	return arena_space_setup(state, 1024, 4);
}

static int setup5(void **state)
{
	return arena_space_setup(state, 1024, 5);
}

/*
 * Leaves of every size with different rights and cache types, the holes
 * between them not present at every level below the root, and a hole in
 * the root itself (and, with 5 levels, in the PML4 under it).
 */
static void map_set(struct arena_space *f)
{
	static const struct {
		uint64_t off, len;
		unsigned flags;
		enum pt_page_size size;
	} set[] = {
		{ 0, 2 * MiB - 8 * KiB, PT_WRITE, PT_PAGE_4K },
		{ 2 * MiB - 4 * KiB, 4 * KiB, PT_USER | PT_EXEC | PT_CACHE(PT_CACHE_WT), PT_PAGE_4K },
		{ GiB, 4 * MiB, PT_EXEC | PT_GLOBAL | PT_CACHE(PT_CACHE_UC), PT_PAGE_2M },
		{ GiB + 8 * MiB, 2 * MiB, PT_WRITE | PT_USER, PT_PAGE_2M },
		{ 4 * GiB, GiB, PT_WRITE | PT_USER | PT_GLOBAL, PT_PAGE_1G },
		{ 5 * GiB, GiB, PT_CACHE(PT_CACHE_UCM), PT_PAGE_1G },
	};

	for (unsigned i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		assert_int_equal(pt_map(&f->s, VA0 + set[i].off, PA0 + set[i].off, set[i].len,
					set[i].flags, set[i].size, NULL), PT_OK);
}

/* Addresses over map_set's leaves and holes, in an order that visits each leaf more than once. */
static const uint64_t set_va[] = {
	VA0, VA0 + 0xfff, VA0 + 0x1000, VA0 + 0x1abc, VA0 + 2 * MiB - 8 * KiB - 1,
	VA0 + 2 * MiB - 8 * KiB,                     /* hole in a PT */
	VA0 + 2 * MiB - 4 * KiB, VA0 + 2 * MiB - 1,  /* the user page */
	VA0 + 2 * MiB,                               /* hole in a PD */
	VA0 + GiB, VA0 + GiB + 3 * MiB + 5, VA0 + GiB + 4 * MiB - 1,
	VA0 + GiB + 8 * MiB + 77, VA0 + GiB + 6 * MiB,
	VA0 + 2 * GiB,                               /* hole in a PDPT */
	VA0 + 4 * GiB + 123, VA0 + 5 * GiB - 1, VA0 + 5 * GiB, VA0 + 6 * GiB - 1, VA0 + 6 * GiB,
	VA0 + 0x1000 + 5,                            /* back to the first PT */
	VA0 + 512 * GiB,                             /* hole in the PML4 (4 levels: the root) */
	UINT64_C(1) << 48,                           /* 5 levels: a hole in the root; 4: not canonical */
	UINT64_C(0xffff800000000000), UINT64_C(0xff00000000000000),
	UINT64_C(0x0000800000000000),                /* canonical only with 5 levels */
	UINT64_C(0x8000000000000000), UINT64_MAX,
};
#define NSET (sizeof(set_va) / sizeof(set_va[0]))

/* map_set's holes: each is not present at its own level, the root's included. */
static void holes_at_every_level(struct arena_space *f)
{
	static const uint64_t hole[5] = {
		VA0 + 2 * MiB - 8 * KiB, VA0 + 2 * MiB, VA0 + 2 * GiB, VA0 + 512 * GiB, UINT64_C(1) << 48,
	};

	for (unsigned level = 0; level < f->s.levels; level++) {
		uint64_t table = f->s.root_pa, e;

		assert_int_equal(sdm_walk(&f->a, &f->s, hole[level]).err, PT_ENOTMAPPED);
		for (unsigned l = f->s.levels - 1; ; l--) {
			e = *(uint64_t *)arena_p2v(&f->a, table + pt_index(hole[level], l) * 8);
			if (!(e & PTE_P)) {
				assert_int_equal(l, level);
				break;
			}
			table = e & PTE_ADDR_MASK;
		}
	}
}

static void test_every_leaf_size_and_hole(void **state)
{
	struct arena_space *f = *state;
	struct pt_leaf l;

	map_set(f);
	/* 16 mapped addresses, and each leaf size is among them */
	assert_int_equal(check_all(&f->a, &f->s, set_va, NSET), 16);
	for (unsigned level = 0; level < 3; level++) {
		uint64_t va = level == 0 ? VA0 + 0x1abc : level == 1 ? VA0 + GiB + 5 : VA0 + 4 * GiB + 5;

		assert_int_equal(pt_translate(&f->s, va, &l), PT_OK);
		assert_int_equal(l.level, level);
		assert_int_equal(l.pa, PA0 + (va - VA0));
	}
	holes_at_every_level(f);
}

static void test_every_leaf_size_and_hole_5_levels(void **state)
{
	struct arena_space *f = *state;

	map_set(f);
	/* and the canonical-only-with-5-levels addresses are holes now */
	assert_int_equal(check_all(&f->a, &f->s, set_va, NSET), 16);
	holes_at_every_level(f);
	assert_int_equal(sdm_walk(&f->a, &f->s, UINT64_C(0x0000800000000000)).err, PT_ENOTMAPPED);
	assert_int_equal(sdm_walk(&f->a, &f->s, UINT64_C(0xff00000000000000)).err, PT_ENOTMAPPED);
	assert_int_equal(sdm_walk(&f->a, &f->s, UINT64_C(0x8000000000000000)).err, PT_ENONCANON);
}

/* The entry at @level on the way to @va. */
static uint64_t *entry_at(struct arena *a, const struct pt_space *s, uint64_t va, unsigned level)
{
	uint64_t table = s->root_pa, *e;

	for (unsigned l = s->levels - 1; ; l--) {
		e = arena_p2v(a, table + pt_index(va, l) * 8);
		if (l == level)
			return e;
		table = *e & PTE_ADDR_MASK;
	}
}

/*
 * A permissive leaf (writable, user, executable) under one entry that
 * takes a right away: each at every level above each leaf size.
 */
static void rights_taken_above(void **state, unsigned levels)
{
	struct arena_space *f = *state;
	const unsigned all = PT_WRITE | PT_USER | PT_EXEC | PT_ALLOW_WX;
	static const uint64_t take[3][2] = { { PTE_W, 0 }, { PTE_US, 0 }, { 0, PTE_NX } };
	const uint64_t va[3] = { VA0 + 0x5000 + 7, VA0 + GiB + 2 * MiB + 9, VA0 + 2 * GiB + 11 };

	assert_int_equal(pt_map(&f->s, VA0, PA0, 2 * MiB, all, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + GiB, PA0, 4 * MiB, all, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + 2 * GiB, PA0, GiB, all, PT_PAGE_1G, NULL), PT_OK);
	for (unsigned size = 0; size < 3; size++)
		for (unsigned level = size + 1; level < levels; level++)
			for (unsigned t = 0; t < 3; t++) {
				uint64_t *e = entry_at(&f->a, &f->s, va[size], level), old = *e;
				struct pt_leaf l;

				*e = (old & ~take[t][0]) | take[t][1];
				assert_int_equal(check_all(&f->a, &f->s, va, 3), 3);
				assert_int_equal(pt_translate(&f->s, va[size], &l), PT_OK);
				/* exactly the right taken is gone */
				assert_int_equal(l.flags & (PT_WRITE | PT_USER | PT_EXEC),
						 (PT_WRITE | PT_USER | PT_EXEC) &
						 ~(t == 0 ? PT_WRITE : t == 1 ? PT_USER : PT_EXEC));
				*e = old;
			}
}

static void test_rights_taken_above_a_permissive_leaf(void **state)
{
	rights_taken_above(state, 4);
}

static void test_rights_taken_above_a_permissive_leaf_5_levels(void **state)
{
	rights_taken_above(state, 5);
}

/*
 * The batch takes the leaf of the address before when an address lies in
 * it: neighbours just outside a leaf (the next 4 KiB page, the next 2 MiB
 * in the same PD, the next GiB) with other rights must not be taken for it.
 */
static void test_batch_neighbours_of_a_leaf(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va[] = {
		VA0 + 0x1000, VA0 + 0x1fff, VA0 + 0x1ffe, VA0 + 0x2000, VA0 + 0x2001, VA0 + 0x1000,
		VA0 + GiB + 2 * MiB - 1, VA0 + GiB + 2 * MiB, VA0 + GiB + 4 * MiB - 1,
		VA0 + 2 * GiB + 5, VA0 + 3 * GiB - 1, VA0 + 3 * GiB, VA0 + 3 * GiB + 1,
		VA0 + GiB + 1, VA0 + 0x1001,
	};

	assert_int_equal(pt_map(&f->s, VA0 + 0x1000, PA0 + 0x7000, 4 * KiB, PT_WRITE, PT_PAGE_4K,
				NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + 0x2000, PA0 + 0x3000, 4 * KiB, PT_USER, PT_PAGE_4K,
				NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + GiB, PA0 + 10 * MiB, 2 * MiB, PT_WRITE, PT_PAGE_2M,
				NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + GiB + 2 * MiB, PA0 + 2 * MiB, 2 * MiB, PT_EXEC,
				PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + 2 * GiB, PA0 + 5 * GiB, GiB, PT_WRITE, PT_PAGE_1G,
				NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + 3 * GiB, PA0 + GiB, GiB, PT_GLOBAL, PT_PAGE_1G,
				NULL), PT_OK);
	assert_int_equal(check_all(&f->a, &f->s, va, sizeof(va) / sizeof(va[0])),
			 sizeof(va) / sizeof(va[0]));
}

/*
 * Every cache type ptlab's PAT layout has (WC and WP select PAT entries 6
 * and 7, so the PAT bit: bit 7 of a 4 KiB leaf, bit 12 above), global and
 * not, at every leaf size.
 */
static void test_every_cache_type_global_or_not(void **state)
{
	struct arena_space *f = *state;
	uint64_t va[3 * PT_CACHE_COUNT * 2];
	unsigned n = 0;

	pt_pat_ptlab(&f->a.env.pat);
	for (unsigned size = 0; size < 3; size++)
		for (unsigned c = 0; c < PT_CACHE_COUNT; c++)
			for (unsigned g = 0; g < 2; g++) {
				uint64_t len = UINT64_C(1) << (12 + 9 * size);
				uint64_t at = VA0 + size * 64 * GiB + (c * 2 + g) * (size == 2 ? GiB : 2 * len);

				assert_int_equal(pt_map(&f->s, at, PA0 + (at - VA0), len,
							PT_CACHE(c) | (g ? PT_GLOBAL : 0) | PT_WRITE,
							(enum pt_page_size)size, NULL), PT_OK);
				va[n++] = at + len / 3;
			}
	/*
	 * Twice: as mapped, then with A and D set (the processor sets them in
	 * live tables) and the ignored bits 9 to 11 of every leaf.
	 */
	for (unsigned pass = 0; pass < 2; pass++) {
		assert_int_equal(check_all(&f->a, &f->s, va, n), n);
		/* and the cache type is the one mapped */
		for (unsigned k = 0; k < n; k++) {
			struct pt_leaf l;

			assert_int_equal(pt_translate(&f->s, va[k], &l), PT_OK);
			assert_int_equal(PT_CACHE_OF(l.flags), k / 2 % PT_CACHE_COUNT);
			assert_int_equal(!!(l.flags & PT_GLOBAL), k % 2);
			*(uint64_t *)arena_p2v(&f->a, l.entry_pa) |= PTE_AD_MASK | UINT64_C(0xe00);
		}
	}
}

/* phys_to_virt calls the batch below makes, and the arena's answer. */
static unsigned p2v_calls;

static void *counting_p2v(void *ctx, uint64_t pa)
{
	p2v_calls++;
	return arena_p2v(ctx, pa);
}

/*
 * Addresses in the leaf the address before them found take that leaf:
 * in the callback environment a batch walks (one phys_to_virt call a
 * level) only for the first address of each leaf.
 */
static void test_batch_walks_once_per_leaf(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va[] = {
		VA0 + 0x3000, VA0 + 0x3008, VA0 + 0x3fff, VA0 + 0x3001,    /* one 4 KiB leaf */
		VA0 + GiB + 5, VA0 + GiB + MiB, VA0 + GiB + 2 * MiB - 1,   /* one 2 MiB leaf */
		VA0 + 0x3010,                                              /* the first again */
	};
	struct pt_leaf out[8];
	int err[8];

	assert_int_equal(pt_map(&f->s, VA0, PA0, 2 * MiB, PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s, VA0 + GiB, PA0, 2 * MiB, PT_WRITE, PT_PAGE_2M, NULL), PT_OK);
	f->a.env.phys_to_virt = counting_p2v;
	p2v_calls = 0;
	assert_int_equal(pt_translate_many(&f->s, va, 8, out, err), PT_OK);
	/* 4 levels to the 4 KiB leaf, 3 to the 2 MiB one, 4 to the 4 KiB one again */
	assert_int_equal(p2v_calls, 4 + 3 + 4);
	f->a.env.phys_to_virt = arena_p2v;
	assert_int_equal(check_all(&f->a, &f->s, va, 8), 8);
}

/*
 * The entry on the way to @va at @level replaced by each of @bad in turn:
 * every address of @va (n of them) through check_all.
 */
static void check_with_entry(struct arena_space *f, uint64_t at, unsigned level,
			     const uint64_t *bad, unsigned nbad, const uint64_t *va, unsigned n)
{
	uint64_t *e = entry_at(&f->a, &f->s, at, level), old = *e;
	struct pt_leaf l;

	for (unsigned b = 0; b < nbad; b++) {
		*e = bad[b];
		check_all(&f->a, &f->s, va, n);
		/* and @at itself is what the entry now says: a hole, or a leaf at @level */
		if (!(bad[b] & PTE_P)) {
			assert_int_equal(pt_translate(&f->s, at, &l), PT_ENOTMAPPED);
		} else {
			assert_int_equal(pt_translate(&f->s, at, &l), PT_OK);
			assert_int_equal(l.level, level);
			assert_int_equal(l.entry, bad[b]);
		}
	}
	*e = old;
}

/*
 * A not-present entry's other bits mean nothing (SDM Vol. 3A §4.5): with
 * all of them set (an address far outside the arena, PS, XD), or PS and
 * the address of a real table, at every level on the way to a leaf of
 * each size, the lookups stop there.  A walk that followed the address
 * would read outside the arena (arena_p2v aborts; in the linear
 * environment the read faults).  Neighbours in the same tables, before
 * and after, keep their answers in the same batch.
 */
static void not_present_entries_at_every_level(void **state)
{
	struct arena_space *f = *state;
	const uint64_t leaf[3] = { VA0 + 0x1abc, VA0 + GiB + 3 * MiB + 5, VA0 + 4 * GiB + 123 };

	map_set(f);
	for (unsigned size = 0; size < 3; size++)
		for (unsigned level = size; level < f->s.levels; level++) {
			uint64_t real = *entry_at(&f->a, &f->s, leaf[size], level) & PTE_ADDR_MASK;
			const uint64_t bad[] = { ~PTE_P, PTE_PS | real, 0 };
			uint64_t va[NSET + 3];

			memcpy(va, set_va, sizeof(set_va));
			va[NSET] = leaf[size];
			va[NSET + 1] = leaf[size] + 8;
			va[NSET + 2] = VA0;
			check_with_entry(f, leaf[size], level, bad, 3, va, NSET + 3);
		}
}

/*
 * PS in an entry of the root (and of the PML4 under a 5-level root), a
 * reserved bit there (SDM Vol. 3A §4.5): both lookups end the walk at it
 * as the SDM walk above does, with the size an entry there spans.
 */
static void ps_above_level_2(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va[] = { VA0 + 0x1abc, VA0 + 77 * GiB + 5, VA0 + GiB, VA0 + 512 * GiB };

	map_set(f);
	for (unsigned level = 3; level < f->s.levels; level++) {
		const uint64_t bad[] = {
			PTE_P | PTE_PS | PTE_W | (PA0 & ~(pt_level_size(level) - 1)),
			PTE_P | PTE_PS | PTE_NX | PTE_G | PTE_PWT | PTE_PAT_LARGE | pt_level_size(level),
		};

		check_with_entry(f, VA0, level, bad, 2, va, sizeof(va) / sizeof(va[0]));
	}
}

/*
 * An unmapped address takes the not-present entry the address before it
 * reached when that entry spans it: around a hole of one entry at each
 * level, with mapped entries on both sides, the hole's first and last
 * byte, then the last byte before it and the first after it (which must
 * not be taken for the hole), in one batch.
 */
static void holes_between_leaves(void **state)
{
	struct arena_space *f = *state;

	/* where the three entries of each level start: 4 levels use the first four */
	static const uint64_t base[5] = {
		VA0, VA0 + 64 * GiB, VA0 + 128 * GiB, VA0 + 96 * 1024 * GiB, 0,
	};

	for (unsigned level = 0; level < f->s.levels; level++) {
		uint64_t s = pt_level_size(level), a = base[level];
		/* three entries at @level: mapped (its last leaf), not present, mapped (its first) */
		uint64_t leaf = level ? (level > 2 ? GiB : s) : 4 * KiB;
		enum pt_page_size size = level > 2 ? PT_PAGE_1G : (enum pt_page_size)level;
		const uint64_t va[] = {
			a + s, a + 2 * s - 1, a + s - 1, a + s + 1, a + 2 * s, a + 2 * s - 1,
			a + s + s / 2, a + 2 * s + 7, a + s, a + s - 2,
		};

		assert_int_equal(pt_map(&f->s, a + s - leaf, PA0, leaf, PT_WRITE, size, NULL), PT_OK);
		assert_int_equal(pt_map(&f->s, a + 2 * s, PA0 + leaf, leaf, PT_USER, size, NULL), PT_OK);
		assert_int_equal(check_all(&f->a, &f->s, va, sizeof(va) / sizeof(va[0])), 4);
		/* the hole is one entry at @level */
		assert_int_equal(*entry_at(&f->a, &f->s, a + s, level) & PTE_P, 0);
		assert_int_equal(*entry_at(&f->a, &f->s, a + s - 1, level) & PTE_P, PTE_P);
		assert_int_equal(*entry_at(&f->a, &f->s, a + 2 * s, level) & PTE_P, PTE_P);
	}
}

/* xorshift64*: the same addresses every run */
static uint64_t rand_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(0x2545f4914f6cdd1d);
}

/*
 * Batches of 1 to 64 addresses over map_set's leaves and holes: runs in
 * one leaf or one hole, ascending and descending steps, non-canonical
 * addresses, in random order, against the SDM walk in both environments
 * (more walks in one batch than the linear batch makes at a time, and
 * every place in it for a run and for a non-canonical address).
 */
static void random_batches(void **state)
{
	struct arena_space *f = *state;
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15), va[NMAX];
	unsigned mapped = 0, total = 0;

	map_set(f);
	for (unsigned round = 0; round < 300; round++) {
		unsigned n = 1 + (unsigned)(rand_next(&x) % NMAX);

		for (unsigned k = 0; k < n; k++) {
			uint64_t r = rand_next(&x);

			switch (r % 4) {
			case 0: /* one of map_set's addresses, a hole or not */
				va[k] = set_va[(r >> 8) % NSET];
				break;
			case 1: /* near the address before: the same leaf or hole, or the next */
				va[k] = (k ? va[k - 1] : VA0) + ((r >> 8) % (3 * MiB)) - MiB;
				break;
			case 2: /* anywhere in the first 8 GiB of the set */
				va[k] = VA0 + (r >> 8) % (8 * GiB);
				break;
			default: /* anywhere at all */
				va[k] = rand_next(&x);
				break;
			}
		}
		mapped += check_all(&f->a, &f->s, va, n);
		total += n;
	}
	/* the batches held both answers, plenty of each */
	print_message("random batches: %u of %u addresses mapped\n", mapped, total);
	assert_true(mapped > total / 8);
	assert_true(mapped < total - total / 8);
}

static void test_batch_bad_arguments(void **state)
{
	struct arena_space *f = *state;
	const uint64_t va[1] = { VA0 };
	struct pt_leaf out[1];
	int err[1] = { 12345 };
	struct pt_space none = { 0 };

	assert_int_equal(pt_translate_many(NULL, va, 1, out, err), PT_EINVAL);
	assert_int_equal(pt_translate_many(&none, va, 1, out, err), PT_EINVAL);
	assert_int_equal(pt_translate_many(&f->s, NULL, 1, out, err), PT_EINVAL);
	assert_int_equal(pt_translate_many(&f->s, va, 1, NULL, err), PT_EINVAL);
	assert_int_equal(pt_translate_many(&f->s, va, 1, out, NULL), PT_EINVAL);
	/* nothing written */
	assert_int_equal(err[0], 12345);
	/* no addresses: nothing to read or write */
	assert_int_equal(pt_translate_many(&f->s, NULL, 0, NULL, NULL), PT_OK);
	assert_int_equal(pt_translate_many(&f->s, va, 1, out, err), PT_OK);
	assert_int_equal(err[0], PT_ENOTMAPPED);
}

/*
 * @fn run as two tests, "test_@fn" on a 4-level space and "test_@fn_5_levels"
 * on a 5-level one: the same checks, the space's setup the difference.
 */
#define AT_4_AND_5_LEVELS(fn)                                                      \
	{ "test_" #fn, fn, setup4, arena_space_teardown, NULL },                   \
	{ "test_" #fn "_5_levels", fn, setup5, arena_space_teardown, NULL }

UNIT_MAIN(
	cmocka_unit_test_setup_teardown(test_every_leaf_size_and_hole, setup4,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_every_leaf_size_and_hole_5_levels, setup5,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_rights_taken_above_a_permissive_leaf, setup4,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_rights_taken_above_a_permissive_leaf_5_levels,
					setup5, arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_batch_neighbours_of_a_leaf, setup4,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_every_cache_type_global_or_not, setup4,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_batch_walks_once_per_leaf, setup4,
					arena_space_teardown),
	AT_4_AND_5_LEVELS(not_present_entries_at_every_level),
	AT_4_AND_5_LEVELS(ps_above_level_2),
	AT_4_AND_5_LEVELS(holes_between_leaves),
	AT_4_AND_5_LEVELS(random_batches),
	cmocka_unit_test_setup_teardown(test_batch_bad_arguments, setup4,
					arena_space_teardown))
