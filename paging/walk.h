/* SPDX-License-Identifier: MIT */
/*
 * The walk's own header, included by its files only: pt.c (the walk),
 * bulk.c (its loops over whole runs of entries) and flush.c (the flush
 * list and the frame lists).  A changing call's state (struct walk), the
 * frame lists' encoding, and the functions that cross those files.  The
 * calls run one way, pt.c -> bulk.c -> flush.c (mk/paging-order.txt,
 * proved from the objects by make check-layers).  Not installed.
 */
#ifndef PTLAB_PAGING_WALK_H
#define PTLAB_PAGING_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "entry.h"

enum walk_op { OP_MAP, OP_UNMAP, OP_PROTECT, OP_REMAP };

/* Frames listed in some of themselves (see list_push). */
struct frame_list {
	uint64_t head;         /* first list page, 0: empty */
	uint64_t tail;         /* last list page */
	uint64_t taken;        /* frames taken from the first list page */
};

struct walk {
	struct pt_space *s;
	const struct pt_env *env;
	enum walk_op op;
	bool apply;            /* false: CHECK pass */
	uint64_t va;           /* first byte of the call's range */
	uint64_t pa;           /* pa (map) or new pa (remap) of va */
	unsigned flags;        /* PT_* attributes and options */
	unsigned max_level;    /* map: largest leaf level */
	uint64_t attr[3];      /* map/protect: leaf attribute bits per level */
	bool user;             /* map/protect to user pages: entries above them need US */
	uint64_t need;         /* CHECK: frames needed */
	struct frame_list reserve;  /* APPLY: the reserved frames (take_frame) */
	struct frame_list dead;     /* APPLY: unlinked tables to free after a flush */
	uint64_t pte_g;        /* unmap: PTE_G if a 4 KiB leaf pt_walk_ptes checked was global */
	struct pt_flushlist *fl;
	int err;
};

/* ---- frames ----------------------------------------------------------------- */

/*
 * A frame list keeps its frames listed in list pages, which are frames of
 * the list too: entry 0 links the next list page, entry 1 holds the number
 * of frames listed in entries 2, 3, ... (shifted left by 12), so a list
 * touches one frame in LIST_SLOTS + 1, not each one.  Frames are taken in
 * the order they were pushed (a list page right after the frames it lists),
 * and every entry is zeroed as it is taken, so a frame leaves as it came.
 *
 * Reserved frames: a map of 64 GiB of 4 KiB pages reserves 128 MiB of
 * frames, which a chain through the frames would each read and write once
 * more; in order, tables created in VA order are written in the
 * allocator's order, usually ascending addresses.
 *
 * Unlinked tables (pt_unmap): until the flush a CPU may still walk a dead
 * table through a cached entry above it, so whatever the list writes into
 * one must read as a not-present entry: frame addresses (4 KiB aligned) and
 * counts shifted left by 12 have bit 0, PTE_P, clear.  Such a walk finds
 * the old entries or not-present ones, never a table or leaf pointing at
 * another dead frame.  Any change to this encoding must keep PTE_P clear.
 */
#define LIST_SLOTS (PT_ENTRIES - 2u)
#define LIST_COUNT_SHIFT PT_PAGE_SHIFT

_Static_assert((PTE_P & PTE_ADDR_MASK) == 0 && PTE_P < (UINT64_C(1) << LIST_COUNT_SHIFT),
	       "frame list entries must read as not-present entries");

/* Take the first frame of @l, which must not be empty. */
static inline uint64_t list_take(const struct pt_env *env, struct frame_list *l)
{
	uint64_t pa = l->head;
	uint64_t *t = tab(env, pa);

	if (l->taken < t[1] >> LIST_COUNT_SHIFT) {
		pa = t[2 + l->taken];
		t[2 + l->taken] = 0;
		l->taken++;
		return pa;
	}
	/* the list page itself, last */
	l->head = t[0];
	l->taken = 0;
	t[0] = 0;
	t[1] = 0;
	return pa;
}

static inline uint64_t take_frame(struct walk *w)
{
	return list_take(w->env, &w->reserve);
}

/* ---- flush.c ---------------------------------------------------------------- */

/* Record that [va, last] changed; coalesces with the previous range. */
void pt_fl_add(struct pt_flushlist *fl, uint64_t va, uint64_t last, bool global);
/* The environment's flush of @fl (none without a flush callback). */
void pt_fl_barrier(const struct walk *w, const struct pt_flushlist *fl);
/* Append frame @pa to @l. */
void pt_list_push(const struct pt_env *env, struct frame_list *l, uint64_t pa);
/* Free every frame of @l; returns how many there were. */
uint64_t pt_list_free(const struct pt_env *env, struct frame_list *l);
/* Allocate w->need frames into w->reserve; PT_ENOMEM (nothing kept) when one is refused. */
int pt_reserve_frames(struct walk *w);

/* ---- bulk.c ----------------------------------------------------------------- */

/* [x, last] of a real level-0 table for map and unmap; false for the others. */
bool pt_walk_ptes(struct walk *w, uint64_t *t, uint64_t x, uint64_t last);
/* pt_map's APPLY pass over [x, last] of the table @t at @level. */
void pt_map_apply(struct walk *w, unsigned level, uint64_t *t, bool fresh,
		  uint64_t x, uint64_t last);

#endif
