/* SPDX-License-Identifier: MIT */
/*
 * The page-table walker: map, unmap, protect, remap.
 *
 * One recursive range walk serves every changing call.  At each level the
 * range is clamped to the entry's span (seg_last = x | (size - 1)), so each
 * table is visited once per call and no page is walked from the root.
 *
 * Every changing call runs the walk twice.  The CHECK pass reads the tables,
 * finds the first reason to fail and counts the table frames the change
 * needs; large leaves that would be split and tables that would be created
 * are walked as "virtual" tables computed from the entry above, so the count
 * is exact.  The frames are then reserved (listed in some of the reserved
 * frames themselves, see take_frame).  The APPLY pass cannot fail: it takes
 * its frames from that list.  Hence a failing call changes nothing.
 *
 * A level-1 entry linking a page table may carry PTE_SW_FULL (pte.h): every
 * entry of that table is present and none is global.  pt_map sets it on the
 * tables it fills whole; pt_unmap removes a table it covers whole and finds
 * marked without reading it (its CHECK pass would find nothing to fail and
 * no G to flush); a call that changes a marked table keeps the mark only
 * where the change keeps it true (pt_remap, pt_protect to non-global pages)
 * and clears it otherwise (sw_full_kept).
 *
 * Its loops over whole tables and pt_map's APPLY pass are bulk.c's, the
 * flush list and the frame lists flush.c's; walk.h holds what those three
 * share, struct walk (a call's state) first, and entry.h the entry helpers
 * every file reads entries with.  The calls run one way, pt.c -> bulk.c ->
 * flush.c (mk/paging-order.txt).  The argument checks are here, beside
 * begin(), their one caller.  The queries (translate, visit): query.c.
 */
#include <ptlab/pt.h>

#include "walk.h"

/* ---- entries ---------------------------------------------------------- */

/* Attribute bits of leaf @e at @level moved to a leaf at level @to (PAT bit 7 vs 12). */
static uint64_t attr_convert(uint64_t e, unsigned from, unsigned to)
{
	uint64_t a = e & ~leaf_addr_mask(from);
	bool pat = from ? (a & PTE_PAT_LARGE) : (a & PTE_PAT_4K);

	a &= ~(PTE_PS | PTE_PAT_LARGE);
	if (to)
		a |= PTE_PS | (pat ? PTE_PAT_LARGE : 0);
	else if (pat)
		a |= PTE_PAT_4K;
	return a;
}

/* Entry @i of the table @level-1 that splitting leaf @e at @level installs. */
static uint64_t split_entry(uint64_t e, unsigned level, unsigned i)
{
	uint64_t base = e & leaf_addr_mask(level);

	return (base + (uint64_t)i * pt_level_size(level - 1)) | attr_convert(e, level, level - 1);
}

int pt_flags_to_bits(const struct pt_env *env, unsigned flags, unsigned level, uint64_t *bits)
{
	uint64_t b = PTE_P, cache;
	int err;

	err = pt_cache_bits(&env->pat, PT_CACHE_OF(flags), level, &cache);
	if (err)
		return err;
	b |= cache | perm_bits(flags);
	if (level)
		b |= PTE_PS;
	*bits = b;
	return PT_OK;
}

/* ---- the walk ------------------------------------------------------------------ */

static void walk(struct walk *w, unsigned level, uint64_t *t, uint64_t vleaf,
		 uint64_t x, uint64_t last);
static uint64_t map_need(const struct walk *w, unsigned level, uint64_t x, uint64_t last);

/* Does the leaf @e at @level already translate [x, last] the way the call wants? */
static bool leaf_unchanged(const struct walk *w, uint64_t e, unsigned level, uint64_t x)
{
	uint64_t want;

	if (w->op == OP_PROTECT)
		return (attr_convert(e, level, level) & ~PTE_AD_MASK) == w->attr[level];
	want = w->pa + (x - w->va);
	return (e & leaf_addr_mask(level)) + (x & (pt_level_size(level) - 1)) == want;
}

/*
 * Replace leaf @e (at t[i], @level) by a table with the identical
 * translation, flush the leaf's range, and return the new table.
 */
static uint64_t *split(struct walk *w, uint64_t *t, unsigned i, unsigned level, uint64_t x)
{
	uint64_t e = t[i], pa = take_frame(w), size = pt_level_size(level);
	uint64_t *child = tab(w->env, pa);
	struct pt_flushlist one = { .n = 1, .global = !!(e & PTE_G) };

	for (unsigned j = 0; j < PT_ENTRIES; j++)
		child[j] = split_entry(e, level, j);
	t[i] = table_entry(pa, (e & PTE_US) || w->user);
	w->s->stats.tables[level - 1]++;
	w->s->stats.leaves[level]--;
	w->s->stats.leaves[level - 1] += PT_ENTRIES;
	/* SDM Vol. 3A §4.10.4.2: no TLB may hold the large page when its pieces change. */
	one.r[0].va = x & ~(size - 1);
	one.r[0].len = size;
	pt_fl_barrier(w, &one);
	return child;
}

static bool table_empty(const uint64_t *t)
{
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if (t[i] & PTE_P)
			return false;
	return true;
}

/* A leaf the call touches; [x, seg_last] lies inside it. */
static void visit_leaf(struct walk *w, unsigned level, uint64_t *t, unsigned i, uint64_t e,
		       uint64_t x, uint64_t seg_last)
{
	uint64_t size = pt_level_size(level);
	bool full = !(x & (size - 1)) && seg_last == (x | (size - 1));
	uint64_t n;

	if (w->op == OP_MAP) {
		w->err = PT_EEXIST;
		return;
	}
	if (w->op != OP_UNMAP && leaf_unchanged(w, e, level, x))
		return;
	/* remap: a full leaf whose new address is not aligned to its size is split too */
	if (full && w->op == OP_REMAP && ((w->pa + (x - w->va)) & (size - 1)))
		full = false;
	if (!full) {
		if (w->flags & PT_NOSPLIT) {
			w->err = PT_EBLOCKED;
			return;
		}
		if (!w->apply) {
			w->need++;
			walk(w, level - 1, NULL, e, x, seg_last);
			return;
		}
		walk(w, level - 1, split(w, t, i, level, x), 0, x, seg_last);
		return;
	}
	if (!w->apply)
		return;
	switch (w->op) {
	case OP_UNMAP:
		n = 0;
		w->s->stats.leaves[level]--;
		break;
	case OP_PROTECT:
		n = (e & (leaf_addr_mask(level) | PTE_AD_MASK)) | w->attr[level];
		break;
	default: /* OP_REMAP */
		n = (e & ~leaf_addr_mask(level)) | (w->pa + (x - w->va));
		break;
	}
	t[i] = n;
	pt_fl_add(w->fl, x, seg_last, (e | n) & PTE_G);
}

/*
 * Does a change by @w to the leaves of a table marked PTE_SW_FULL leave
 * them all present and non-global?  pt_remap changes addresses only;
 * pt_protect writes PTE_P and G as w->attr[0] says; pt_unmap clears
 * entries (a table it covers whole is freed instead, see visit_table).
 * pt_map never changes a marked table: its CHECK pass finds it full.
 */
static bool sw_full_kept(const struct walk *w)
{
	return w->op == OP_REMAP || (w->op == OP_PROTECT && !(w->attr[0] & PTE_G));
}

/* A present table entry at t[i]; the child covers [x, seg_last]. */
static void visit_table(struct walk *w, unsigned level, uint64_t *t, unsigned i, uint64_t e,
			uint64_t x, uint64_t seg_last)
{
	uint64_t cpa = e & PTE_ADDR_MASK;
	uint64_t *child;
	uint64_t size = pt_level_size(level);
	bool full = !(x & (size - 1)) && seg_last == (x | (size - 1));

	if (level == 1 && (e & PTE_SW_FULL)) {
		if (w->op == OP_UNMAP && full) {
			/*
			 * 512 present, non-global 4 KiB leaves, all in the
			 * range: CHECK has nothing to find, and APPLY does what
			 * pt_walk_ptes and the unlink below would do for them.
			 */
			if (!w->apply)
				return;
			w->s->stats.leaves[0] -= PT_ENTRIES;
			pt_fl_add(w->fl, x, seg_last, false);
			t[i] = 0;
			pt_list_push(w->env, &w->dead, cpa);
			w->s->stats.tables[0]--;
			return;
		}
		if (w->apply && !sw_full_kept(w)) {
			e &= ~PTE_SW_FULL;
			t[i] = e;
		}
	}
	child = tab(w->env, cpa);
	if (w->apply && w->user && !(e & PTE_US))
		t[i] = e | PTE_US;
	walk(w, level - 1, child, 0, x, seg_last);
	if (!w->apply || w->op != OP_UNMAP)
		return;
	if (full || table_empty(child)) {
		/* Unlink now, free after the flush (SDM Vol. 3A §4.10.2.3; see list_push). */
		t[i] = 0;
		pt_list_push(w->env, &w->dead, cpa);
		w->s->stats.tables[level - 1]--;
	}
}

/*
 * Frames pt_map needs below an empty table at @level to map [x, last]
 * (the table itself not counted): the CHECK pass's count for a table the
 * same call creates, which holds nothing to check.  Closed form: only the
 * two end segments can differ from the whole ones in between, and every
 * whole segment needs the same (leaf: nothing; else a table and what it
 * needs, which depends on the level and the va-to-pa offset only).
 */
static uint64_t map_need(const struct walk *w, unsigned level, uint64_t x, uint64_t last)
{
	uint64_t size, seg_last, rem, whole, n = 0;
	bool leafable;

	if (level == 0)   /* a fresh PT is all leaves */
		return 0;
	size = pt_level_size(level);
	leafable = level <= w->max_level && !((w->pa - w->va) & (size - 1));
	seg_last = x | (size - 1);
	if (seg_last >= last) {   /* one segment */
		if (leafable && !(x & (size - 1)) && last == seg_last)
			return 0;
		return 1 + map_need(w, level - 1, x, last);
	}
	if (x & (size - 1))   /* a partial first segment */
		n += 1 + map_need(w, level - 1, x, seg_last);
	else
		seg_last = x - 1;   /* the first segment is whole: count it below */
	/* [seg_last + 1, last]: whole segments, then perhaps a partial one */
	rem = last - seg_last;
	whole = rem / size;
	if (whole && !leafable)
		n += whole * (1 + map_need(w, level - 1, seg_last + 1, seg_last + size));
	if (rem % size)
		n += 1 + map_need(w, level - 1, last & ~(size - 1), last);
	return n;
}

/*
 * An empty entry at t[i] in the CHECK pass (pt_map's APPLY pass is
 * pt_map_apply): nothing to check, but pt_map counts the frames it needs.
 */
static void visit_hole(struct walk *w, unsigned level, uint64_t x, uint64_t seg_last)
{
	uint64_t size = pt_level_size(level);

	if (w->op != OP_MAP) {
		if (!(w->flags & PT_SPARSE))
			w->err = PT_ENOTMAPPED;
		return;
	}
	if (level <= w->max_level && !(x & (size - 1)) && seg_last == (x | (size - 1)) &&
	    !((w->pa + (x - w->va)) & (size - 1)))
		return;   /* a leaf */
	/* the table this hole needs, and what the call creates below it */
	w->need += 1 + map_need(w, level - 1, x, seg_last);
}

/*
 * pt_unmap at the whole large leaf t[i] of a real table (level 1 or 2, its
 * range [x, x + size) inside [x, last]) and the whole large leaves after it.
 * CHECK: nothing to check, they are skipped in one loop.  APPLY: cleared in
 * one loop, with one flush range and one statistics update for the run, as
 * visit_leaf would leave them one at a time.  Returns the number of entries
 * of the run (at least 1).
 */
static unsigned unmap_leaves(struct walk *w, unsigned level, uint64_t *t, unsigned i,
			     uint64_t x, uint64_t last)
{
	const uint64_t size = pt_level_size(level);
	uint64_t whole = (last - x + 1) / size, g = 0, e;
	unsigned k, max = PT_ENTRIES - i;

	if (whole < max)
		max = (unsigned)whole;
	if (!w->apply) {
		for (k = 0; k < max; k++)
			if ((t[i + k] & (PTE_P | PTE_PS)) != (PTE_P | PTE_PS))
				break;
		return k;
	}
	for (k = 0; k < max; k++) {
		e = t[i + k];
		if ((e & (PTE_P | PTE_PS)) != (PTE_P | PTE_PS))
			break;
		g |= e;
		t[i + k] = 0;
	}
	w->s->stats.leaves[level] -= k;
	pt_fl_add(w->fl, x, x + k * size - 1, g & PTE_G);
	return k;
}

/*
 * Walk [x, last] inside the table at @level.  @t is the table, or NULL for a
 * virtual one (CHECK pass): every entry derived from the leaf @vleaf being
 * split, or empty when @vleaf is 0.
 */
static void walk(struct walk *w, unsigned level, uint64_t *t, uint64_t vleaf,
		 uint64_t x, uint64_t last)
{
	uint64_t size = pt_level_size(level);

	if (w->op == OP_MAP) {
		if (w->apply) {
			pt_map_apply(w, level, t, false, x, last);
			return;
		}
		if (!t) {   /* a table the call creates: nothing to check */
			w->need += map_need(w, level, x, last);
			return;
		}
	}
	if (level == 0 && t && pt_walk_ptes(w, t, x, last))
		return;
	for (unsigned i = pt_index(x, level); ; i++) {
		uint64_t seg_last = x | (size - 1), e;

		if (seg_last > last)
			seg_last = last;
		e = t ? t[i] : vleaf ? split_entry(vleaf, level + 1, i) : 0;
		/*
		 * Unmap reads whole PTs one after the other; hardware
		 * prefetchers stop at 4 KiB boundaries, so start on the next
		 * PT while this one is read.
		 */
		if (level == 1 && t && w->op == OP_UNMAP && !w->apply && i + 1 < PT_ENTRIES &&
		    (t[i + 1] & (PTE_P | PTE_PS | PTE_SW_FULL)) == PTE_P) {
			const char *n = (const char *)tab(w->env, t[i + 1] & PTE_ADDR_MASK);

			__builtin_prefetch(n);
			__builtin_prefetch(n + 64);
			__builtin_prefetch(n + 128);
			__builtin_prefetch(n + 192);
		}
		if (!(e & PTE_P)) {
			visit_hole(w, level, x, seg_last);
		} else if (is_leaf(e, level)) {
			if (w->op == OP_UNMAP && t && !(x & (size - 1)) &&
			    seg_last == (x | (size - 1))) {
				unsigned n = unmap_leaves(w, level, t, i, x, last);

				seg_last = x + n * size - 1;
				i += n - 1;
			} else {
				visit_leaf(w, level, t, i, e, x, seg_last);
			}
		} else
			visit_table(w, level, t, i, e, x, seg_last);
		if (w->err || seg_last == last)
			return;
		x = seg_last + 1;
	}
}

/* ---- running a call ---------------------------------------------------------------- */

static int run(struct walk *w, uint64_t len)
{
	struct pt_flushlist local;
	uint64_t last = w->va + len - 1;
	uint64_t *root = tab(w->env, w->s->root_pa);
	int err;

	if (!w->fl)
		w->fl = &local;
	w->fl->n = 0;
	w->fl->all = false;
	w->fl->global = false;

	w->apply = false;
	walk(w, w->s->levels - 1, root, 0, w->va, last);
	if (w->err)
		return w->err;
	err = pt_reserve_frames(w);
	if (err)
		return err;

	w->apply = true;
	walk(w, w->s->levels - 1, root, 0, w->va, last);
	if (w->op == OP_MAP)
		pt_fl_add(w->fl, w->va, last, w->flags & PT_GLOBAL);
	if (w->dead.head) {
		pt_fl_barrier(w, w->fl);
		pt_list_free(w->env, &w->dead);
	}
	/*
	 * The CHECK pass counted exactly what APPLY takes; a frame left over is
	 * a counting bug: freed, and counted where pt_lint and the tests see it.
	 */
	w->s->stats.reserve_unused += pt_list_free(w->env, &w->reserve);
	return PT_OK;
}

/* ---- argument checks ---------------------------------------------------------- */

/* The flag bits @allowed, and the cache type and W+X rule, of @flags. */
static int check_flags(unsigned flags, unsigned allowed)
{
	if (flags & ~allowed)
		return PT_EFLAGS;
	if (PT_CACHE_OF(flags) >= PT_CACHE_COUNT)
		return PT_EFLAGS;
	if ((flags & PT_WRITE) && (flags & PT_EXEC) && !(flags & PT_ALLOW_WX))
		return PT_EFLAGS;
	return PT_OK;
}

static int check_va(const struct pt_space *s, uint64_t va)
{
	if (!pt_canonical(va, s->levels))
		return PT_ENONCANON;
	if (va & (PT_PAGE_SIZE - 1))
		return PT_EALIGN_VA;
	return PT_OK;
}

static int check_len(const struct pt_space *s, uint64_t va, uint64_t len)
{
	uint64_t last = va + len - 1;

	if (len & (PT_PAGE_SIZE - 1))
		return PT_EALIGN_LEN;
	if (!len || last < va)
		return PT_ELEN;
	if (!pt_canonical(last, s->levels) || (int64_t)(va ^ last) < 0)
		return PT_ENONCANON;
	return PT_OK;
}

static int check_pa(const struct pt_space *s, uint64_t pa, uint64_t len)
{
	uint64_t last = pa + len - 1;

	if (last < pa)
		return PT_ELEN;
	if (s->env->maxphyaddr < 64 && (last >> s->env->maxphyaddr))
		return PT_EPHYS;
	return PT_OK;
}

/*
 * Check everything but the tables, in the documented order; @pa is ignored
 * unless @has_pa.
 */
static int check_args(const struct pt_space *s, uint64_t va, uint64_t len,
		      bool has_pa, uint64_t pa)
{
	int err = check_va(s, va);

	if (!err && has_pa && (pa & (PT_PAGE_SIZE - 1)))
		err = PT_EALIGN_PA;
	if (!err)
		err = check_len(s, va, len);
	if (!err && has_pa)
		err = check_pa(s, pa, len);
	return err;
}

/* The leaf bits for w->flags at levels 0 to 2: encoded once, moved up as a split moves them. */
static int attrs_for(struct walk *w)
{
	int err = pt_flags_to_bits(w->env, w->flags & PT_ATTR_MASK, 0, &w->attr[0]);

	if (err)
		return err;
	w->attr[1] = attr_convert(w->attr[0], 0, 1);
	w->attr[2] = w->attr[1];
	return PT_OK;
}

/*
 * The argument checks every changing call makes, in the documented order:
 * the space, the flag bits @allowed (attributes encoded when the call takes
 * them), then va, pa (when @has_pa) and len.
 */
static int begin(struct walk *w, uint64_t len, unsigned allowed, bool has_pa)
{
	int err;

	if (!space_ok(w->s))
		return PT_EINVAL;
	w->env = w->s->env;
	err = check_flags(w->flags, allowed);
	if (!err && (allowed & PT_ATTR_MASK))
		err = attrs_for(w);
	if (!err)
		err = check_args(w->s, w->va, len, has_pa, w->pa);
	w->user = w->flags & PT_USER;
	return err;
}

int pt_map(struct pt_space *s, uint64_t va, uint64_t pa, uint64_t len,
	   unsigned flags, enum pt_page_size max_size, struct pt_flushlist *fl)
{
	struct walk w = { .s = s, .op = OP_MAP, .va = va, .pa = pa, .flags = flags, .fl = fl };
	int err;

	if (space_ok(s) && (unsigned)max_size > PT_PAGE_1G)
		return PT_EINVAL;
	err = begin(&w, len, PT_ATTR_MASK | PT_ALLOW_WX, true);
	if (err)
		return err;
	w.max_level = (unsigned)max_size;
	if (w.max_level == 2 && !s->env->has_1g)
		w.max_level = 1;
	return run(&w, len);
}

int pt_unmap(struct pt_space *s, uint64_t va, uint64_t len, unsigned opts,
	     struct pt_flushlist *fl)
{
	struct walk w = { .s = s, .op = OP_UNMAP, .va = va, .flags = opts, .fl = fl };
	int err = begin(&w, len, PT_NOSPLIT | PT_SPARSE, false);

	return err ? err : run(&w, len);
}

int pt_protect(struct pt_space *s, uint64_t va, uint64_t len, unsigned flags,
	       struct pt_flushlist *fl)
{
	struct walk w = { .s = s, .op = OP_PROTECT, .va = va, .flags = flags, .fl = fl };
	int err = begin(&w, len, PT_ATTR_MASK | PT_ALLOW_WX | PT_NOSPLIT | PT_SPARSE, false);

	return err ? err : run(&w, len);
}

int pt_remap(struct pt_space *s, uint64_t va, uint64_t len, uint64_t new_pa,
	     unsigned opts, struct pt_flushlist *fl)
{
	struct walk w = { .s = s, .op = OP_REMAP, .va = va, .pa = new_pa, .flags = opts, .fl = fl };
	int err = begin(&w, len, PT_NOSPLIT | PT_SPARSE, true);

	return err ? err : run(&w, len);
}
