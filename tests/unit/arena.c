/* SPDX-License-Identifier: MIT */
#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ptlab/pte.h>

void *arena_p2v(void *ctx, uint64_t pa)
{
	struct arena *a = ctx;

	if (pa < a->base || pa >= a->base + a->size) {
		fprintf(stderr, "arena: physical address 0x%llx outside the arena\n",
			(unsigned long long)pa);
		abort();
	}
	return a->mem + (pa - a->base);
}

static void arena_flush(void *ctx, const struct pt_flushlist *fl)
{
	struct arena *a = ctx;

	a->flushes++;
	a->last_flush = *fl;
}

static void *frames_p2v(void *ctx, uint64_t pa)
{
	return arena_p2v(ctx, pa);
}

static int arena_alloc(void *ctx, uint64_t *pa)
{
	return pt_frames_alloc(&((struct arena *)ctx)->frames, pa);
}

static void arena_free(void *ctx, uint64_t pa)
{
	struct arena *a = ctx;

	/* The library must never free what it does not own: fail loudly. */
	if (pt_frames_free_checked(&a->frames, pa) != PT_OK) {
		fprintf(stderr, "arena: bad free of 0x%llx\n", (unsigned long long)pa);
		abort();
	}
}

void arena_init(struct arena *a, uint64_t frames)
{
	struct pt_range r;
	size_t bytes;

	memset(a, 0, sizeof(*a));
	a->base = ARENA_BASE;
	a->size = frames * PT_PAGE_SIZE;
	a->mem = aligned_alloc(PT_PAGE_SIZE, a->size);
	if (!a->mem)
		abort();
	/* Garbage, so a frame the allocator forgets to zero is noticed. */
	memset(a->mem, 0xa5, a->size);
	r.va = a->base;
	r.len = a->size;
	bytes = pt_frames_bitmap_bytes(&r, 1);
	a->bitmap = calloc(1, bytes ? bytes : 8);
	if (!a->bitmap)
		abort();
	if (pt_frames_init(&a->frames, &r, 1, a->bitmap, bytes, frames_p2v, a) != PT_OK)
		abort();
	a->env.ctx = a;
	a->env.alloc_frame = arena_alloc;
	a->env.free_frame = arena_free;
	a->env.phys_to_virt = arena_p2v;
	a->env.flush = arena_flush;
	a->env.maxphyaddr = 46;
	a->env.has_1g = true;
	pt_pat_default(&a->env.pat);
}

void arena_fini(struct arena *a)
{
	free(a->mem);
	free(a->bitmap);
	memset(a, 0, sizeof(*a));
}

struct snap_walk {
	const struct arena *a;
	struct arena_snap *snap;
	size_t cap;
};

static int snap_table(void *arg, unsigned level, uint64_t pa)
{
	struct snap_walk *w = arg;
	const uint64_t *t = arena_p2v((void *)w->a, pa);
	struct arena_snap *snap = w->snap;

	(void)level;
	if (snap->ntables == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		snap->words = realloc(snap->words, w->cap * PT_ENTRIES * sizeof(uint64_t));
		snap->pas = realloc(snap->pas, w->cap * sizeof(uint64_t));
		if (!snap->words || !snap->pas)
			abort();
	}
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		snap->words[snap->ntables * PT_ENTRIES + i] = t[i] & ~PTE_AD_MASK;
	snap->pas[snap->ntables] = pa;
	snap->ntables++;
	return 0;
}

void arena_snap_take(struct arena_snap *snap, const struct arena *a, const struct pt_space *s)
{
	struct snap_walk w = { a, snap, 0 };

	memset(snap, 0, sizeof(*snap));
	pt_visit_tables(s, snap_table, &w);
	snap->stats = s->stats;
	snap->root_pa = s->root_pa;
	snap->allocated = a->frames.allocated;
	snap->freed = a->frames.freed;
	snap->in_use = a->frames.in_use;
	snap->failed = a->frames.failed;
}

int arena_snap_equal(const struct arena_snap *snap, const struct arena *a, const struct pt_space *s)
{
	struct arena_snap now;
	int eq;

	arena_snap_take(&now, a, s);
	eq = now.ntables == snap->ntables && now.root_pa == snap->root_pa &&
	     memcmp(&now.stats, &snap->stats, sizeof(now.stats)) == 0 &&
	     now.in_use == snap->in_use &&
	     now.allocated - now.freed == snap->allocated - snap->freed &&
	     (now.ntables == 0 ||
	      (memcmp(now.words, snap->words, now.ntables * PT_ENTRIES * sizeof(uint64_t)) == 0 &&
	       memcmp(now.pas, snap->pas, now.ntables * sizeof(uint64_t)) == 0));
	arena_snap_free(&now);
	return eq;
}

int arena_snap_same_counters(const struct arena_snap *snap, const struct arena *a)
{
	return a->frames.allocated == snap->allocated && a->frames.freed == snap->freed &&
	       a->frames.in_use == snap->in_use && a->frames.failed == snap->failed;
}

void arena_snap_free(struct arena_snap *snap)
{
	free(snap->words);
	free(snap->pas);
	memset(snap, 0, sizeof(*snap));
}
