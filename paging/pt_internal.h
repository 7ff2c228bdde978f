/* SPDX-License-Identifier: MIT */
/*
 * What the page-table files (pt.c, bulk.c, query.c, space.c) share and the
 * API does not show: the table access, entry and space helpers, the state of
 * a changing call (struct walk) with its frame lists, and the functions its
 * walk calls across those files.  Not installed.
 */
#ifndef PTLAB_PAGING_PT_INTERNAL_H
#define PTLAB_PAGING_PT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "internal.h"

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

/*
 * The table at @pa: pa + p2v_offset with a linear mapping, else what
 * phys_to_virt says.  Every table access of these files goes through here.
 */
static inline uint64_t *tab(const struct pt_env *env, uint64_t pa)
{
	if (env->p2v_linear)
		return (uint64_t *)(uintptr_t)(pa + env->p2v_offset);
	return env->phys_to_virt(env->ctx, pa);
}

/* ---- entries ---------------------------------------------------------- */

static inline bool is_leaf(uint64_t e, unsigned level)
{
	return level == 0 || (e & PTE_PS);
}

/* Address bits of a leaf at @level (a large leaf's low bits hold PAT and reserved bits). */
static inline uint64_t leaf_addr_mask(unsigned level)
{
	return PTE_ADDR_MASK & ~(pt_level_size(level) - 1);
}

/*
 * The leaf bit each PT_* permission stands for.  XD is the one inverted:
 * PT_EXEC is its absence, so both directions work on e ^ PTE_NX.
 */
static const struct { unsigned flag; uint64_t bit; } pt_perm_bits[] = {
	{ PT_WRITE, PTE_W }, { PT_USER, PTE_US }, { PT_GLOBAL, PTE_G }, { PT_EXEC, PTE_NX },
};

/* The W, U/S, G and XD bits of a leaf with the PT_* permissions @flags. */
static inline uint64_t perm_bits(unsigned flags)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < sizeof(pt_perm_bits) / sizeof(pt_perm_bits[0]); i++)
		b |= flags & pt_perm_bits[i].flag ? pt_perm_bits[i].bit : 0;
	return b ^ PTE_NX;
}

/* The PT_* permissions of leaf @e (perm_bits undone). */
static inline unsigned perm_flags(uint64_t e)
{
	unsigned f = 0;

	e ^= PTE_NX;
	for (unsigned i = 0; i < sizeof(pt_perm_bits) / sizeof(pt_perm_bits[0]); i++)
		f |= e & pt_perm_bits[i].bit ? pt_perm_bits[i].flag : 0;
	return f;
}

/* Intermediate entries are permissive; leaves carry the permissions. */
static inline uint64_t table_entry(uint64_t pa, bool user)
{
	return pa | PTE_P | PTE_W | (user ? PTE_US : 0);
}

/* Is @s a space pt_create made (and pt_destroy has not undone)? */
static inline bool space_ok(const struct pt_space *s)
{
	return s && s->env && s->root_pa && (s->levels == 4 || s->levels == 5);
}

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

/* ---- across the files ----------------------------------------------------- */

/* pt.c: record that [va, last] changed; coalesces with the previous range. */
void pt_fl_add(struct pt_flushlist *fl, uint64_t va, uint64_t last, bool global);

/* bulk.c: [x, last] of a real level-0 table for map and unmap; false for the others. */
bool pt_walk_ptes(struct walk *w, uint64_t *t, uint64_t x, uint64_t last);
/* bulk.c: pt_map's APPLY pass over [x, last] of the table @t at @level. */
void pt_map_apply(struct walk *w, unsigned level, uint64_t *t, bool fresh,
		  uint64_t x, uint64_t last);

/* space.c: the flag bits @allowed, and the cache type and W+X rule, of @flags. */
int pt_check_flags(unsigned flags, unsigned allowed);
/* space.c: everything but the tables, in the documented order; @pa ignored unless @has_pa. */
int pt_check_args(const struct pt_space *s, uint64_t va, uint64_t len, bool has_pa, uint64_t pa);

#endif
