/* SPDX-License-Identifier: MIT */
/*
 * The page-table walker: map, unmap, protect, remap, translate, visit.
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
 */
#include <ptlab/pt.h>

#include <string.h>

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
	uint64_t pte_g;        /* unmap: PTE_G if a 4 KiB leaf walk_ptes checked was global */
	struct pt_flushlist *fl;
	int err;
};

/*
 * The table at @pa: pa + p2v_offset with a linear mapping, else what
 * phys_to_virt says.  Every table access of this file goes through here.
 */
static inline uint64_t *tab(const struct pt_env *env, uint64_t pa)
{
	if (env->p2v_linear)
		return (uint64_t *)(uintptr_t)(pa + env->p2v_offset);
	return env->phys_to_virt(env->ctx, pa);
}

/* ---- entries ---------------------------------------------------------- */

static bool is_leaf(uint64_t e, unsigned level)
{
	return level == 0 || (e & PTE_PS);
}

/* Address bits of a leaf at @level (a large leaf's low bits hold PAT and reserved bits). */
static uint64_t leaf_addr_mask(unsigned level)
{
	return PTE_ADDR_MASK & ~(pt_level_size(level) - 1);
}

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

/* Intermediate entries are permissive; leaves carry the permissions. */
static uint64_t table_entry(uint64_t pa, bool user)
{
	return pa | PTE_P | PTE_W | (user ? PTE_US : 0);
}

int pt_flags_to_bits(const struct pt_env *env, unsigned flags, unsigned level, uint64_t *bits)
{
	uint64_t b = PTE_P, cache;
	int err;

	err = pt_cache_bits(&env->pat, PT_CACHE_OF(flags), level, &cache);
	if (err)
		return err;
	b |= cache;
	if (flags & PT_WRITE)
		b |= PTE_W;
	if (flags & PT_USER)
		b |= PTE_US;
	if (flags & PT_GLOBAL)
		b |= PTE_G;
	if (!(flags & PT_EXEC))
		b |= PTE_NX;
	if (level)
		b |= PTE_PS;
	*bits = b;
	return PT_OK;
}

/*
 * PT_CACHE() bits of leaf @e at @level under env->pat, as
 * pt_cache_of_entry() decides, with a type ptlab has no name for read as
 * UC (the safe assumption).  A table lookup instead of a search.
 */
static unsigned leaf_cache_flags(const struct pt_env *env, uint64_t e, unsigned level)
{
	/* IA32_PAT memory type code -> enum pt_cache; 2, 3 are reserved codes */
	static const uint8_t cache_of_code[8] = {
		[PT_PAT_UC] = PT_CACHE_UC,
		[PT_PAT_WC] = PT_CACHE_WC,
		[2] = PT_CACHE_UC,
		[3] = PT_CACHE_UC,
		[PT_PAT_WT] = PT_CACHE_WT,
		[PT_PAT_WP] = PT_CACHE_WP,
		[PT_PAT_WB] = PT_CACHE_WB,
		[PT_PAT_UCM] = PT_CACHE_UCM,
	};
	unsigned i = (unsigned)((e & (PTE_PWT | PTE_PCD)) >> 3) |
		     (e & (level ? PTE_PAT_LARGE : PTE_PAT_4K) ? 4u : 0u);
	unsigned code = env->pat.type[i];

	return PT_CACHE(code < 8 ? cache_of_code[code] : PT_CACHE_UC);
}

unsigned pt_bits_to_flags(const struct pt_env *env, uint64_t e, unsigned level)
{
	unsigned f = leaf_cache_flags(env, e, level);

	if (e & PTE_W)
		f |= PT_WRITE;
	if (e & PTE_US)
		f |= PT_USER;
	if (e & PTE_G)
		f |= PT_GLOBAL;
	if (!(e & PTE_NX))
		f |= PT_EXEC;
	return f;
}

/* ---- flush lists ---------------------------------------------------------- */

/* Record that [va, last] changed; coalesces with the previous range. */
static void fl_add(struct pt_flushlist *fl, uint64_t va, uint64_t last, bool global)
{
	struct pt_range *r;

	fl->global |= global;
	if (fl->all)
		return;
	if (fl->n) {
		r = &fl->r[fl->n - 1];
		/*
		 * Adjacent or overlapping: va at most one past r's last byte.
		 * Measured from r->va, since r->va + r->len is 0 (wrapped) for
		 * a range that ends at 2^64, the last page of the address space.
		 */
		if (va >= r->va && va - r->va <= r->len) {
			if (last - r->va + 1 > r->len)
				r->len = last - r->va + 1;
			return;
		}
	}
	if (fl->n == PT_FLUSHLIST_MAX) {
		fl->all = true;
		return;
	}
	fl->r[fl->n].va = va;
	fl->r[fl->n].len = last - va + 1;
	fl->n++;
}

static void barrier(struct walk *w, const struct pt_flushlist *fl)
{
	if (w->env->flush)
		w->env->flush(w->env->ctx, fl);
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

/* Append frame @pa to @l. */
static void list_push(const struct pt_env *env, struct frame_list *l, uint64_t pa)
{
	uint64_t *t, n;

	if (l->head) {
		t = tab(env, l->tail);
		n = t[1] >> LIST_COUNT_SHIFT;
		if (n < LIST_SLOTS) {
			t[2 + n] = pa;
			t[1] = (n + 1) << LIST_COUNT_SHIFT;
			return;
		}
		t[0] = pa;   /* a new list page after this one */
	} else {
		l->head = pa;
		l->taken = 0;
	}
	t = tab(env, pa);
	t[0] = 0;
	t[1] = 0;
	l->tail = pa;
}

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

/* Free every frame of @l; returns how many there were. */
static uint64_t list_free(const struct pt_env *env, struct frame_list *l)
{
	uint64_t n = 0;

	for (; l->head; n++)
		env->free_frame(env->ctx, list_take(env, l));
	return n;
}

static inline uint64_t take_frame(struct walk *w)
{
	return list_take(w->env, &w->reserve);
}

/*
 * Allocate w->need frames into w->reserve: list_push's work with the list
 * page and its count kept in locals (a map of a GiB of 4 KiB pages takes
 * 514 frames), the count stored once per list page.
 */
static int reserve_frames(struct walk *w)
{
	const struct pt_env *env = w->env;
	struct frame_list *l = &w->reserve;
	uint64_t *page = NULL, n = 0, pa;

	for (uint64_t i = 0; i < w->need; i++) {
		if (env->alloc_frame(env->ctx, &pa) != PT_OK) {
			if (page)
				page[1] = n << LIST_COUNT_SHIFT;
			list_free(env, l);
			return PT_ENOMEM;
		}
		if (page && n < LIST_SLOTS) {
			page[2 + n++] = pa;
			continue;
		}
		/* pa becomes a list page, after the current one if any */
		if (page) {
			page[1] = n << LIST_COUNT_SHIFT;
			page[0] = pa;
		} else {
			l->head = pa;
			l->taken = 0;
		}
		page = tab(env, pa);
		page[0] = 0;
		page[1] = 0;
		l->tail = pa;
		n = 0;
	}
	if (page)
		page[1] = n << LIST_COUNT_SHIFT;
	return PT_OK;
}

/* ---- the walk ------------------------------------------------------------------ */

static void walk(struct walk *w, unsigned level, uint64_t *t, uint64_t vleaf,
		 uint64_t x, uint64_t last);
static void map_apply(struct walk *w, unsigned level, uint64_t *t, bool fresh,
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
	barrier(w, &one);
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
	fl_add(w->fl, x, seg_last, (e | n) & PTE_G);
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
			 * walk_ptes and the unlink below would do for them.
			 */
			if (!w->apply)
				return;
			w->s->stats.leaves[0] -= PT_ENTRIES;
			fl_add(w->fl, x, seg_last, false);
			t[i] = 0;
			list_push(w->env, &w->dead, cpa);
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
		list_push(w->env, &w->dead, cpa);
		w->s->stats.tables[level - 1]--;
	}
}

/*
 * A table frame from a dirty allocator that pt_map is about to fill for
 * [x, last] at @level.  pt_map writes every entry of the range of a table
 * it creates (a leaf or a link to a table it creates too) and never reads
 * them (map_apply with @fresh, walk_ptes), so only the entries outside the
 * range are cleared.
 */
static void clear_new_table(uint64_t *t, unsigned level, uint64_t x, uint64_t last)
{
	unsigned first = pt_index(x, level), end = pt_index(last, level) + 1;

	if (first)
		memset(t, 0, first * sizeof(*t));
	if (end < PT_ENTRIES)
		memset(t + end, 0, (PT_ENTRIES - end) * sizeof(*t));
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
 * map_apply): nothing to check, but pt_map counts the frames it needs.
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
 * The two loops over whole PTs below (a GiB of 4 KiB pages is 2 MiB of
 * entries) are bound by instructions per entry.  Where the compiler has
 * 16-byte vector registers (__SSE2__: host builds), they handle two entries
 * per instruction through GCC's generic vector type; the firmware build
 * (-mno-sse) has no such registers and compiles the scalar loops only.
 * Vectors are loaded and stored with __builtin_memcpy: no alignment or
 * aliasing assumption beyond that of uint64_t.
 */
#ifdef __SSE2__
typedef uint64_t pte_pair __attribute__((vector_size(16)));
#endif

/* AND and OR of [p, end), independent chains (loads, not a dependency). */
static void ptes_and_or(const uint64_t *p, const uint64_t *end, uint64_t *and_all,
			uint64_t *or_all)
{
	uint64_t a0 = ~UINT64_C(0), a1 = a0, a2 = a0, a3 = a0, o0 = 0, o1 = 0, o2 = 0, o3 = 0;

#ifdef __SSE2__
	pte_pair va0 = { a0, a0 }, va1 = va0, va2 = va0, va3 = va0;
	pte_pair vo0 = { 0, 0 }, vo1 = vo0, vo2 = vo0, vo3 = vo0, v0, v1, v2, v3;

	for (; end - p >= 8; p += 8) {
		__builtin_memcpy(&v0, p, sizeof(v0));
		__builtin_memcpy(&v1, p + 2, sizeof(v1));
		__builtin_memcpy(&v2, p + 4, sizeof(v2));
		__builtin_memcpy(&v3, p + 6, sizeof(v3));
		va0 &= v0;
		va1 &= v1;
		va2 &= v2;
		va3 &= v3;
		vo0 |= v0;
		vo1 |= v1;
		vo2 |= v2;
		vo3 |= v3;
	}
	va0 &= va1 & va2 & va3;
	vo0 |= vo1 | vo2 | vo3;
	a0 = va0[0] & va0[1];
	o0 = vo0[0] | vo0[1];
#endif
	for (; end - p >= 4; p += 4) {
		a0 &= p[0];
		a1 &= p[1];
		a2 &= p[2];
		a3 &= p[3];
		o0 |= p[0];
		o1 |= p[1];
		o2 |= p[2];
		o3 |= p[3];
	}
	for (; p < end; p++) {
		a0 &= *p;
		o0 |= *p;
	}
	*and_all = a0 & a1 & a2 & a3;
	*or_all = o0 | o1 | o2 | o3;
}

/*
 * Store e, e + step, e + 2 step, ... into [p, end): the leaves of a map
 * (step: the leaf size).  Adding a multiple of the leaf size to pa | attr
 * leaves the attribute bits alone (pa < 2^52).  A moving pointer and a
 * fixed step, so a store costs one add beside it.
 */
static inline __attribute__((always_inline))
void fill_leaves(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
#ifdef __SSE2__
	const pte_pair d = { 2 * step, 2 * step };
	pte_pair v0 = { e, e + step }, v1, v2, v3;

	for (; end - p >= 8; p += 8) {
		v1 = v0 + d;
		v2 = v1 + d;
		v3 = v2 + d;
		__builtin_memcpy(p, &v0, sizeof(v0));
		__builtin_memcpy(p + 2, &v1, sizeof(v1));
		__builtin_memcpy(p + 4, &v2, sizeof(v2));
		__builtin_memcpy(p + 6, &v3, sizeof(v3));
		v0 = v3 + d;
	}
	e = v0[0];
#endif
	for (; end - p >= 8; p += 8, e += 8 * step) {
		p[0] = e;
		p[1] = e + step;
		p[2] = e + 2 * step;
		p[3] = e + 3 * step;
		p[4] = e + 4 * step;
		p[5] = e + 5 * step;
		p[6] = e + 6 * step;
		p[7] = e + 7 * step;
	}
	for (; p < end; p++, e += step)
		*p = e;
}

/*
 * Storing whole page tables (a GiB of 4 KiB pages is 2 MiB of entries) is
 * bound by the stores in flight while their lines are fetched for
 * ownership: 32-byte stores keep twice the bytes in flight of 16-byte ones
 * (a map of a GiB of 4 KiB pages about 10% faster on an AMD EPYC).  Only
 * page tables take this loop: runs of large leaves are 512 times fewer
 * bytes per GiB, where a call's fixed costs weigh as much as the stores.
 * The host build's flags only assume SSE2, so the caller says whether the
 * CPU runs AVX2 (env->wide_stores, from pt_cpu_wide_stores; the library
 * keeps no state of its own).  The firmware build has no SSE and never
 * compiles the loop.
 */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#define PT_HAVE_AVX2_PATH 1
typedef uint64_t pte_quad __attribute__((vector_size(32)));

static __attribute__((target("avx2"), noinline))
void fill_leaves_avx2(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
	const pte_quad d = { 8 * step, 8 * step, 8 * step, 8 * step };
	pte_quad v0 = { e, e + step, e + 2 * step, e + 3 * step }, v1;

	v1 = v0 + (pte_quad){ 4 * step, 4 * step, 4 * step, 4 * step };
	for (; end - p >= 8; p += 8) {
		__builtin_memcpy(p, &v0, sizeof(v0));
		__builtin_memcpy(p + 4, &v1, sizeof(v1));
		v0 += d;
		v1 += d;
	}
	for (e = v0[0]; p < end; p++, e += step)
		*p = e;
}
#endif

bool pt_cpu_avx2_usable(const struct pt_cpu_avx2 *r)
{
	const uint32_t os_avx = CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;

	if (r->max_leaf < CPUID_LEAF_EXT_FEATURES)
		return false;
	if ((r->leaf1_ecx & os_avx) != os_avx)
		return false;
	/* SSE and AVX state enabled by the OS (Intel SDM Vol. 1 13.3) */
	if ((r->xcr0 & XCR0_SSE_AVX) != XCR0_SSE_AVX)
		return false;
	return (r->leaf7_ebx & CPUID7_EBX_AVX2) != 0;
}

bool pt_cpu_wide_stores(void)
{
#ifdef PT_HAVE_AVX2_PATH
	struct pt_cpu_avx2 r = { 0 };
	uint32_t a, b, c, d, xcr0_lo, xcr0_hi;

	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_MAX), "c"(0u));
	r.max_leaf = a;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_FEATURES), "c"(0u));
	r.leaf1_ecx = c;
	/* XGETBV raises #UD unless OSXSAVE is set */
	if (c & CPUID1_ECX_OSXSAVE) {
		__asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0u));
		r.xcr0 = (uint64_t)xcr0_hi << 32 | xcr0_lo;
	}
	/* CPUID never faults; above the highest leaf the answer is ignored */
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_EXT_FEATURES), "c"(0u));
	r.leaf7_ebx = b;
	return pt_cpu_avx2_usable(&r);
#else
	return false;
#endif
}

/* fill_leaves for 4 KiB leaves, with the wide loop for long runs where the env allows it. */
static inline __attribute__((always_inline))
void store_ptes(const struct pt_env *env, uint64_t *p, uint64_t *end, uint64_t e)
{
#ifdef PT_HAVE_AVX2_PATH
	if (env->wide_stores && end - p >= 64) {
		fill_leaves_avx2(p, end, e, PT_PAGE_SIZE);
		return;
	}
#else
	(void)env;
#endif
	fill_leaves(p, end, e, PT_PAGE_SIZE);
}

/*
 * [x, last] of a real level-0 table, for map and unmap: every entry is a
 * hole or a 4 KiB leaf covering exactly one page of the range, so the
 * per-entry decisions of visit_hole/visit_leaf reduce to loops over the
 * entries (the 4 KiB cases touch 512 entries per table).  Same checks in the
 * same VA order, same table contents, statistics and flush ranges as the
 * per-entry path, with one exception: a table the unmap covers whole is
 * about to be unlinked and freed by visit_table, so its entries are left as
 * they are.  Returns false for the other operations.
 */
static bool walk_ptes(struct walk *w, uint64_t *t, uint64_t x, uint64_t last)
{
	unsigned first = pt_index(x, 0);
	unsigned end = first + (unsigned)((last - x) >> PT_PAGE_SHIFT) + 1;
	bool whole = first == 0 && end == PT_ENTRIES;
	uint64_t and_all, or_all, g;
	unsigned i, run;

	if (w->op == OP_MAP) {
		if (!w->apply) {
			ptes_and_or(t + first, t + end, &and_all, &or_all);
			if (or_all & PTE_P)
				w->err = PT_EEXIST;
			return true;
		}
		/* CHECK found every entry empty. */
		store_ptes(w->env, t + first, t + end, (w->pa + (x - w->va)) | w->attr[0]);
		w->s->stats.leaves[0] += end - first;
		return true;
	}
	if (w->op != OP_UNMAP)
		return false;
	if (!w->apply) {
		ptes_and_or(t + first, t + end, &and_all, &or_all);
		w->pte_g |= or_all & PTE_G;
		if (!(and_all & PTE_P) && !(w->flags & PT_SPARSE))
			w->err = PT_ENOTMAPPED;
		return true;
	}
	if (!(w->flags & PT_SPARSE)) {
		/* CHECK found every entry present */
		if (whole) {
			/*
			 * Only partly covered leaves are split, so this table
			 * was real in CHECK and walk_ptes saw it.  Every leaf
			 * it saw goes in this call, so its PTE_G verdict is
			 * right for fl->global (a call-wide flag).
			 */
			g = w->pte_g;
		} else {
			g = 0;
			for (i = first; i < end; i++) {
				g |= t[i];
				t[i] = 0;
			}
		}
		w->s->stats.leaves[0] -= end - first;
		fl_add(w->fl, x, last, g & PTE_G);
		return true;
	}
	/* PT_SPARSE with holes: runs of present entries, one flush range each */
	for (i = first; i < end; ) {
		if (!(t[i] & PTE_P)) {
			i++;
			continue;
		}
		g = 0;
		for (run = i; i < end && (t[i] & PTE_P); i++) {
			g |= t[i];
			t[i] = 0;
		}
		w->s->stats.leaves[0] -= i - run;
		fl_add(w->fl, x + ((uint64_t)(run - first) << PT_PAGE_SHIFT),
		       x + ((uint64_t)(i - first) << PT_PAGE_SHIFT) - 1, g & PTE_G);
	}
	return true;
}

/*
 * pt_map's APPLY pass over [x, last] of the table @t at @level.  The CHECK
 * pass found no leaf in the range, so every entry there is a hole or a
 * table; @fresh: @t is a table this call created, whose entries in the
 * range are written without being read.  Runs of whole leaves are stored in
 * a tight loop, and the statistics are kept in locals (a store through
 * w->s could alias the table stores and would be redone per entry).
 */
static void map_apply(struct walk *w, unsigned level, uint64_t *t, bool fresh,
		      uint64_t x, uint64_t last)
{
	const uint64_t size = pt_level_size(level);
	const bool leafable = level <= w->max_level && !((w->pa - w->va) & (size - 1));
	const uint64_t attr = leafable ? w->attr[level] : 0;
	const bool user = w->user;
	uint64_t leaves = 0, leaves0 = 0, tables = 0, seg_last, e, cpa, *child;
	unsigned i = pt_index(x, level);

	if (level == 0) {
		walk_ptes(w, t, x, last);
		return;
	}
	for (;;) {
		seg_last = x | (size - 1);
		if (leafable && !(x & (size - 1)) && seg_last <= last) {
			/* whole leaves up to the range's or the table's end */
			uint64_t n = (last - x + 1) / size;
			uint64_t *p = t + i, *end, leaf = (w->pa + (x - w->va)) | attr;

			if (n > PT_ENTRIES - i)
				n = PT_ENTRIES - i;
			end = p + n;
			if (fresh) {
				fill_leaves(p, end, leaf, size);
				p = end;
			} else {
				/* a present entry here is a table CHECK looked into */
				for (; p < end && !(*p & PTE_P); p++, leaf += size)
					*p = leaf;
			}
			n = (uint64_t)(p - (t + i));
			leaves += n;
			if (p == end) {
				/* the range ends in this table: a partial segment may follow */
				seg_last = x + n * size - 1;
				if (seg_last == last)
					break;
				x = seg_last + 1;
				i += (unsigned)n;
				continue;
			}
			x += n * size;
			i += (unsigned)n;
			seg_last = x | (size - 1);
		}
		if (seg_last > last)
			seg_last = last;
		e = fresh ? 0 : t[i];
		if (e & PTE_P) {
			if (user && !(e & PTE_US))
				t[i] = e | PTE_US;
			map_apply(w, level - 1, tab(w->env, e & PTE_ADDR_MASK), false, x, seg_last);
		} else {
			cpa = take_frame(w);
			child = tab(w->env, cpa);
			if (w->env->frames_dirty)
				clear_new_table(child, level - 1, x, seg_last);
			/* Filled before it is linked: a live walker never sees it half-built. */
			if (level == 1) {
				/* a page table: 4 KiB leaves only (walk_ptes's APPLY, inline) */
				unsigned a = pt_index(x, 0), b = pt_index(seg_last, 0) + 1;

				store_ptes(w->env, child + a, child + b,
					   (w->pa + (x - w->va)) | w->attr[0]);
				leaves0 += b - a;
			} else {
				map_apply(w, level - 1, child, true, x, seg_last);
			}
			t[i] = table_entry(cpa, user);
			/* a page table filled whole with non-global leaves */
			if (level == 1 && !(x & (size - 1)) && seg_last == (x | (size - 1)) &&
			    !(w->attr[0] & PTE_G))
				t[i] |= PTE_SW_FULL;
			tables++;
		}
		if (seg_last == last)
			break;
		x = seg_last + 1;
		i++;
	}
	if (leaves)
		w->s->stats.leaves[level] += leaves;
	if (leaves0)
		w->s->stats.leaves[0] += leaves0;
	w->s->stats.tables[level - 1] += tables;
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
	fl_add(w->fl, x, x + k * size - 1, g & PTE_G);
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
			map_apply(w, level, t, false, x, last);
			return;
		}
		if (!t) {   /* a table the call creates: nothing to check */
			w->need += map_need(w, level, x, last);
			return;
		}
	}
	if (level == 0 && t && walk_ptes(w, t, x, last))
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

/* ---- argument checks ---------------------------------------------------------- */

bool pt_canonical(uint64_t va, unsigned levels)
{
	unsigned bits = PT_PAGE_SHIFT + PT_LEVEL_BITS * levels;
	int64_t sva = (int64_t)(va << (64 - bits)) >> (64 - bits);

	return (uint64_t)sva == va;
}

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

static bool space_ok(const struct pt_space *s)
{
	return s && s->env && s->root_pa && (s->levels == 4 || s->levels == 5);
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
	err = reserve_frames(w);
	if (err)
		return err;

	w->apply = true;
	walk(w, w->s->levels - 1, root, 0, w->va, last);
	if (w->op == OP_MAP)
		fl_add(w->fl, w->va, last, w->flags & PT_GLOBAL);
	if (w->dead.head) {
		barrier(w, w->fl);
		list_free(w->env, &w->dead);
	}
	/*
	 * The CHECK pass counted exactly what APPLY takes; a frame left over is
	 * a counting bug: freed, and counted where pt_lint and the tests see it.
	 */
	w->s->stats.reserve_unused += list_free(w->env, &w->reserve);
	return PT_OK;
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

/* ---- create / destroy ---------------------------------------------------------------- */

int pt_env_check(const struct pt_env *env)
{
	uint64_t bits;

	if (!env || !env->alloc_frame || !env->free_frame || !env->phys_to_virt)
		return PT_EINVAL;
	if (env->maxphyaddr < 32 || env->maxphyaddr > 52)
		return PT_EINVAL;
	/* Entries are 8-byte words: a linear mapping must keep them aligned. */
	if (env->p2v_linear && (env->p2v_offset & (sizeof(uint64_t) - 1)))
		return PT_EINVAL;
	if (env->wide_stores && !pt_cpu_wide_stores())
		return PT_EINVAL;
	if (pt_cache_bits(&env->pat, PT_CACHE_WB, 0, &bits) ||
	    pt_cache_bits(&env->pat, PT_CACHE_UC, 0, &bits))
		return PT_EINVAL;
	return PT_OK;
}

int pt_create(struct pt_space *s, const struct pt_env *env, unsigned levels)
{
	uint64_t pa;
	int err;

	if (!s || (levels != 4 && levels != 5))
		return PT_EINVAL;
	err = pt_env_check(env);
	if (err)
		return err;
	if (env->alloc_frame(env->ctx, &pa) != PT_OK)
		return PT_ENOMEM;
	if (env->frames_dirty)
		memset(tab(env, pa), 0, PT_PAGE_SIZE);
	*s = (struct pt_space){ .env = env, .root_pa = pa, .levels = levels };
	s->stats.tables[levels - 1] = 1;
	return PT_OK;
}

static void free_tree(const struct pt_env *env, uint64_t pa, unsigned level)
{
	uint64_t *t = tab(env, pa);

	for (unsigned i = 0; level > 0 && i < PT_ENTRIES; i++)
		if ((t[i] & PTE_P) && !is_leaf(t[i], level))
			free_tree(env, t[i] & PTE_ADDR_MASK, level - 1);
	env->free_frame(env->ctx, pa);
}

void pt_destroy(struct pt_space *s)
{
	if (!space_ok(s))
		return;
	free_tree(s->env, s->root_pa, s->levels - 1);
	*s = (struct pt_space){ 0 };
}

uint64_t pt_table_count(const struct pt_space *s)
{
	uint64_t n = 0;

	for (unsigned l = 0; l < 5; l++)
		n += s->stats.tables[l];
	return n;
}

/* ---- queries ------------------------------------------------------------------------ */

/*
 * What a translation needs of the space, read once per call (a batch reads
 * it once for all its addresses).  @top is the root's level.
 */
struct xlate {
	const struct pt_env *env;
	uint64_t root_pa;
	uint64_t p2v_offset;
	unsigned top;
};

static struct xlate xlate_of(const struct pt_space *s)
{
	return (struct xlate){ s->env, s->root_pa, s->env->p2v_offset, s->levels - 1 };
}

/*
 * The walk of pt_translate and of the callback environment's batch, with
 * @linear a constant at each call: the linear instance makes no calls, so
 * it needs no saved registers and no stack.  PT_ENONCANON, PT_ENOTMAPPED,
 * or PT_OK with the leaf entry in *e, its physical address in *ea, its
 * level in *level and the rights of the walk in *rights: every entry's R/W
 * and U/S ANDed, and PTE_NX set where no entry has XD (entries are ANDed
 * with XD inverted); no other bit.
 */
static inline __attribute__((always_inline))
int translate_walk(const struct xlate *x, uint64_t va, bool linear, uint64_t *e, uint64_t *ea,
		   unsigned *level, uint64_t *rights)
{
	uint64_t pa = x->root_pa, r = PTE_W | PTE_US | PTE_NX;

	if (!pt_canonical(va, x->top + 1))
		return PT_ENONCANON;
	for (unsigned l = x->top; ; l--) {
		uint64_t a = pa + pt_index(va, l) * sizeof(uint64_t), entry;

		if (linear)
			entry = *(const uint64_t *)(uintptr_t)(a + x->p2v_offset);
		else
			entry = *(const uint64_t *)((const char *)x->env->phys_to_virt(x->env->ctx, pa) +
						    (a - pa));
		if (!(entry & PTE_P))
			return PT_ENOTMAPPED;
		r &= entry ^ PTE_NX;
		if (is_leaf(entry, l)) {
			*e = entry;
			*ea = a;
			*level = l;
			*rights = r;
			return PT_OK;
		}
		pa = entry & PTE_ADDR_MASK;
	}
}

/*
 * Index of leaf @e at @level in translate_attr()'s table: PAT:PCD:PWT, and
 * 8 for G.  The PAT bit is bit 7 of a 4 KiB leaf, bit 12 of a larger one.
 */
static inline unsigned attr_index(uint64_t e, unsigned level)
{
	return (unsigned)(((e & (PTE_PWT | PTE_PCD)) >> 3) | ((e >> (level ? 10 : 5)) & 4) |
			  ((e & PTE_G) >> 5));
}

/*
 * The struct pt_leaf of @va from what translate_walk found.  @attr: the
 * PT_CACHE() bits and PT_GLOBAL by PAT index (PAT:PCD:PWT) + 8 for G, as
 * translate_attr() fills it, or NULL to ask leaf_cache_flags().
 */
static inline __attribute__((always_inline))
void translate_leaf(const struct xlate *x, uint64_t va, uint64_t e, uint64_t ea, unsigned level,
		    uint64_t rights, const uint8_t *attr, struct pt_leaf *out)
{
	uint64_t lo = pt_level_size(level) - 1;
	unsigned f = rights & PTE_W ? PT_WRITE : 0;

	f |= rights & PTE_US ? PT_USER : 0;
	f |= rights & PTE_NX ? PT_EXEC : 0;
	if (attr)
		f |= attr[attr_index(e, level)];
	else
		f |= leaf_cache_flags(x->env, e, level) | (e & PTE_G ? PT_GLOBAL : 0);
	out->va = va & ~lo;
	out->pa = (e & leaf_addr_mask(level)) | (va & lo);
	out->size = lo + 1;
	out->level = level;
	out->flags = f;
	out->entry = e;
	out->entry_pa = ea;
}

/* @attr for translate_leaf under env->pat. */
static void translate_attr(const struct pt_env *env, uint8_t attr[16])
{
	for (unsigned i = 0; i < 16; i++)
		attr[i] = (uint8_t)(leaf_cache_flags(env, (uint64_t)(i & 3) << 3 | (uint64_t)(i >> 2 & 1) << 7, 0) |
				    (i & 8 ? PT_GLOBAL : 0));
}

/* pt_translate with the space read into @x. */
static inline __attribute__((always_inline))
int translate_one(const struct xlate *x, uint64_t va, struct pt_leaf *out, bool linear)
{
	uint64_t e, ea, rights;
	unsigned level;
	int err = translate_walk(x, va, linear, &e, &ea, &level, &rights);

	if (!err)
		translate_leaf(x, va, e, ea, level, rights, NULL, out);
	return err;
}

/*
 * The batch of the callback environment (the linear one's is
 * translate_many_flat below): every address of @va, err[k] as
 * pt_translate would return it, out[k] zeroed where it fails.  An address
 * in the leaf the address before it found takes that leaf (the tables do
 * not change during the call) with its own pa: ascending addresses walk
 * once per leaf.  The leaf is kept in locals, not read back from out[].
 */
static __attribute__((noinline))
void translate_many_cb(const struct xlate *x, const uint64_t *va, size_t n,
		       struct pt_leaf *out, int *err)
{
	uint8_t attr[16];
	struct pt_leaf p = { 0 };
	/* p covers the addresses whose va >> p_shift is p_tag; ~0 matches none */
	uint64_t p_tag = ~UINT64_C(0), e, ea, rights;
	unsigned p_shift = 63, level;

	translate_attr(x->env, attr);
	for (size_t k = 0; k < n; k++) {
		uint64_t v = va[k];

		if ((v >> p_shift) == p_tag) {
			p.pa = (p.pa & ~(p.size - 1)) | (v & (p.size - 1));
			out[k] = p;
			err[k] = PT_OK;
			continue;
		}
		err[k] = translate_walk(x, v, false, &e, &ea, &level, &rights);
		if (err[k]) {
			/* p stays: an address in its leaf is mapped */
			out[k] = (struct pt_leaf){ 0 };
			continue;
		}
		translate_leaf(x, v, e, ea, level, rights, attr, &p);
		p_shift = PT_PAGE_SHIFT + PT_LEVEL_BITS * level;
		p_tag = v >> p_shift;
		out[k] = p;
	}
}

/* All ones where @b is true, 0 where it is false: a select without a branch. */
static inline uint64_t mask_of(bool b)
{
	return -(uint64_t)b;
}

/*
 * One level of translate_walk_flat: where *entry (at *ea) links the table
 * at @level, the entry of @va in that table, its address and level;
 * otherwise the same entry again.
 */
static inline __attribute__((always_inline))
void flat_step(const struct xlate *x, uint64_t va, unsigned level, uint64_t *entry,
	       uint64_t *ea, unsigned *l, uint64_t *r)
{
	/* all ones where P is set and PS clear: (P, PS) xor (1, 0) is 0, minus 1 is negative */
	uint64_t link = (uint64_t)((int64_t)(((*entry & (PTE_P | PTE_PS)) ^ PTE_P) - 1) >> 63);
	uint64_t next = (*entry & PTE_ADDR_MASK) + pt_index(va, level) * sizeof(uint64_t);

	*ea = (next & link) | (*ea & ~link);
	*l += (unsigned)link;
	*entry = *(const uint64_t *)(uintptr_t)(*ea + x->p2v_offset);
	*r &= *entry ^ PTE_NX;
}

/*
 * translate_walk in the linear environment without a branch on what an
 * entry holds: always @top loads after the root's, and where the entry
 * reached is not present or a leaf, the walk stays on it (loading it
 * again, which neither changes the rights nor follows its address bits).
 * A lookup's work is then the same whatever the tables hold, and lookups
 * of a batch overlap in the processor instead of waiting for a
 * mispredicted branch.  Leaves the entry reached in *e (PTE_P clear: not
 * mapped), its physical address in *ea, its level in *level and the
 * rights as translate_walk does.  @va must be canonical.
 */
static inline __attribute__((always_inline))
void translate_walk_flat(const struct xlate *x, uint64_t va, unsigned top, uint64_t *e,
			 uint64_t *ea, unsigned *level, uint64_t *rights)
{
	*ea = x->root_pa + pt_index(va, top) * sizeof(uint64_t);
	*e = *(const uint64_t *)(uintptr_t)(*ea + x->p2v_offset);
	*rights = (PTE_W | PTE_US | PTE_NX) & (*e ^ PTE_NX);
	*level = top;
	if (top == 4)
		flat_step(x, va, 3, e, ea, level, rights);
	flat_step(x, va, 2, e, ea, level, rights);
	flat_step(x, va, 1, e, ea, level, rights);
	flat_step(x, va, 0, e, ea, level, rights);
}

/*
 * PT_WRITE, PT_USER and PT_EXEC of the rights translate_walk_flat leaves
 * (PTE_W, PTE_US, and PTE_NX where execution is allowed), by shifts.
 */
_Static_assert(PTE_W >> 1 == PT_WRITE && PTE_US == PT_USER && PTE_NX >> 62 == PT_EXEC,
	       "flat_rights moves the rights' bits by shifts");
static inline unsigned flat_rights(uint64_t rights)
{
	return (unsigned)(((rights >> 1) & PT_WRITE) | (rights & PT_USER) | ((rights >> 62) & PT_EXEC));
}

/* Walks translate_many_flat makes before it writes their leaves. */
#define FLAT_WALKS 16u
/* w_level of a non-canonical address, which is not walked */
#define FLAT_NONCANON 5u

/*
 * translate_many_flat's answer for va[k] onwards while [span, span +
 * span_len) holds them: @l with pa | (va & @p_lo), and @p_err.  Returns
 * the index of the first address it did not answer.  Out of line: the
 * leaf stays in registers for a long run.
 */
static __attribute__((noinline))
size_t flat_spanned(const struct pt_leaf l, uint64_t p_lo, int p_err, uint64_t span,
		    uint64_t span_len, const uint64_t *va, size_t k, size_t n,
		    struct pt_leaf *out, int *err)
{
	for (; k < n && va[k] - span < span_len; k++) {
		out[k] = l;
		out[k].pa = l.pa | (va[k] & p_lo);
		err[k] = p_err;
	}
	return k;
}

/*
 * The linear environment's batch, for a space of @top + 1 levels (a
 * constant at each call).  The entry a walk reaches, leaf or not present,
 * decides for every address it spans (the tables do not change during the
 * call), and the addresses after a walk that its entry spans take its
 * answer without a walk: ascending addresses walk once per leaf or hole.
 * The others are walked (translate_walk_flat) up to FLAT_WALKS at a time
 * before their leaves are written: the walks are chains of dependent
 * loads with little else, and they overlap.  The leaves, or a failure's
 * zeroes, are written by masks without a branch on the entry.
 */
static inline __attribute__((always_inline))
void translate_many_flat(const struct xlate *x, const uint64_t *va, size_t n,
			 struct pt_leaf *out, int *err, unsigned top)
{
	static const uint64_t level_mask[5] = {
		PT_SIZE_4K - 1, PT_SIZE_2M - 1, PT_SIZE_1G - 1, PT_SIZE_512G - 1,
		(PT_SIZE_512G << PT_LEVEL_BITS) - 1,
	};
	uint8_t attr[16];
	/* walk j: of va[k + j], as translate_walk_flat leaves it */
	uint64_t w_e[FLAT_WALKS], w_ea[FLAT_WALKS], w_rights[FLAT_WALKS];
	unsigned w_level[FLAT_WALKS];
	/*
	 * The last walk's answer: for the addresses in [span, span + span_len)
	 * (none at first), the leaf p with the pa of its first byte (p_lo: the
	 * bits of pa an address gives), or the hole (p all zero, p_lo 0,
	 * p_err PT_ENOTMAPPED).
	 */
	struct pt_leaf p = { 0 };
	uint64_t span = 0, span_len = 0, p_lo = 0;
	int p_err = PT_OK;
	size_t k = 0;

	translate_attr(x->env, attr);
	for (;;) {
		size_t m;

		/* the addresses the last walk's entry spans */
		if (k < n && va[k] - span < span_len)
			k = flat_spanned(p, p_lo, p_err, span, span_len, va, k, n, out, err);
		if (k == n)
			return;
		/* walks, up to the first address the last of them spans */
		for (m = 0; m < FLAT_WALKS && k + m < n; m++) {
			uint64_t v = va[k + m];

			if (v - span < span_len)
				break;
			if (!pt_canonical(v, top + 1)) {
				w_level[m] = FLAT_NONCANON;
				continue;
			}
			translate_walk_flat(x, v, top, &w_e[m], &w_ea[m], &w_level[m], &w_rights[m]);
			span_len = level_mask[w_level[m]] + 1;
			span = v & -span_len;
		}
		/* their leaves */
		for (size_t j = 0; j < m; j++, k++) {
			uint64_t v = va[k], e = w_e[j], lo, ok;
			unsigned level = w_level[j];

			if (level == FLAT_NONCANON) {
				out[k] = (struct pt_leaf){ 0 };
				err[k] = PT_ENONCANON;
				continue;
			}
			ok = mask_of(e & PTE_P);
			lo = level_mask[level];
			p.va = v & ~lo & ok;
			p.pa = e & PTE_ADDR_MASK & ~lo & ok;
			p.size = (lo + 1) & ok;
			p.level = level & (unsigned)ok;
			p.flags = (flat_rights(w_rights[j]) | attr[attr_index(e, level)]) &
				  (unsigned)ok;
			p.entry = e & ok;
			p.entry_pa = w_ea[j] & ok;
			p_err = PT_ENOTMAPPED * (int)(~e & PTE_P);
			p_lo = lo & ok;
			out[k] = p;
			out[k].pa |= v & p_lo;
			err[k] = p_err;
		}
	}
}

static __attribute__((noinline))
int translate_cb(const struct xlate *x, uint64_t va, struct pt_leaf *out)
{
	return translate_one(x, va, out, false);
}

int pt_translate(const struct pt_space *s, uint64_t va, struct pt_leaf *out)
{
	struct xlate x;

	if (!space_ok(s) || !out)
		return PT_EINVAL;
	x = xlate_of(s);
	if (!x.env->p2v_linear)
		return translate_cb(&x, va, out);
	return translate_one(&x, va, out, true);
}

int pt_translate_many(const struct pt_space *s, const uint64_t *va, size_t n,
		      struct pt_leaf *out, int *err)
{
	struct xlate x;

	if (!space_ok(s) || (n && (!va || !out || !err)))
		return PT_EINVAL;
	x = xlate_of(s);
	if (!x.env->p2v_linear)
		translate_many_cb(&x, va, n, out, err);
	else if (x.top == 4)
		translate_many_flat(&x, va, n, out, err, 4);
	else
		translate_many_flat(&x, va, n, out, err, 3);
	return PT_OK;
}

struct vwalk {
	const struct pt_space *s;
	pt_visit_fn fn;
	void *arg;
};

static int visit(struct vwalk *v, unsigned level, uint64_t pa, uint64_t x, uint64_t last,
		 unsigned inherit)
{
	const uint64_t *t = tab(v->s->env, pa);
	uint64_t size = pt_level_size(level);

	for (unsigned i = pt_index(x, level); ; i++) {
		uint64_t seg_last = x | (size - 1), e = t[i];
		int ret = 0;

		if (seg_last > last)
			seg_last = last;
		if (e & PTE_P) {
			/* W and US ANDed down the walk, NX ORed (carried as !EXEC) */
			unsigned here = (e & PTE_W ? PT_WRITE : 0) | (e & PTE_US ? PT_USER : 0) |
					(e & PTE_NX ? 0 : PT_EXEC);
			unsigned eff = inherit & here;

			if (is_leaf(e, level)) {
				struct pt_leaf leaf = {
					.va = x & ~(size - 1),
					.pa = e & leaf_addr_mask(level),
					.size = size,
					.level = level,
					.entry = e,
					.entry_pa = pa + i * sizeof(uint64_t),
				};

				leaf.flags = (pt_bits_to_flags(v->s->env, e, level) &
					      ~(PT_WRITE | PT_USER | PT_EXEC)) | eff;
				ret = v->fn(v->arg, &leaf);
			} else {
				ret = visit(v, level - 1, e & PTE_ADDR_MASK, x, seg_last, eff);
			}
		}
		if (ret)
			return ret;
		if (seg_last == last)
			return 0;
		x = seg_last + 1;
	}
}

int pt_visit(const struct pt_space *s, uint64_t va, uint64_t len, pt_visit_fn fn, void *arg)
{
	struct vwalk v = { s, fn, arg };
	unsigned bits;

	if (!space_ok(s) || !fn)
		return PT_EINVAL;
	bits = PT_PAGE_SHIFT + PT_LEVEL_BITS * s->levels;
	if (!len) {
		/* the lower half, then the upper half */
		uint64_t half = UINT64_C(1) << (bits - 1);
		int ret = visit(&v, s->levels - 1, s->root_pa, 0, half - 1,
				PT_WRITE | PT_USER | PT_EXEC);

		return ret ? ret : visit(&v, s->levels - 1, s->root_pa, ~(half - 1), UINT64_MAX,
					 PT_WRITE | PT_USER | PT_EXEC);
	}
	if (va + len - 1 < va)
		return PT_ELEN;
	if (!pt_canonical(va, s->levels) || !pt_canonical(va + len - 1, s->levels) ||
	    (int64_t)(va ^ (va + len - 1)) < 0)
		return PT_ENONCANON;
	return visit(&v, s->levels - 1, s->root_pa, va, va + len - 1, PT_WRITE | PT_USER | PT_EXEC);
}

static int visit_tables(const struct pt_space *s, unsigned level, uint64_t pa,
			pt_table_fn fn, void *arg)
{
	const uint64_t *t = tab(s->env, pa);
	int ret = fn(arg, level, pa);

	for (unsigned i = 0; !ret && level > 0 && i < PT_ENTRIES; i++)
		if ((t[i] & PTE_P) && !is_leaf(t[i], level))
			ret = visit_tables(s, level - 1, t[i] & PTE_ADDR_MASK, fn, arg);
	return ret;
}

int pt_visit_tables(const struct pt_space *s, pt_table_fn fn, void *arg)
{
	if (!space_ok(s) || !fn)
		return PT_EINVAL;
	return visit_tables(s, s->levels - 1, s->root_pa, fn, arg);
}
