// SPDX-License-Identifier: MIT
/*
 * The mapping plan: which ranges ptlab maps where, with which attributes,
 * and how many table pages a largest-fit build of it needs.
 *
 * Entries come out in three groups that are each sorted and follow one
 * another in the virtual address space:
 *
 *   identity  [0x1000, 2^47)                         va = pa
 *   HHDM      [hhdm_base, PT_IMAGE_BASE)             va = hhdm_base + pa
 *   image     [PT_IMAGE_BASE, 2^64)                  va = PT_IMAGE_BASE + (pa - image base)
 *
 * so appending identity, then HHDM, then image entries in memory-map order
 * yields a plan sorted by va without sorting anything.
 *
 * Attributes by memory class (W^X strict, nothing is ever W and X):
 *
 *   RAM, FW_DATA   PT_WRITE                     RW, NX, WB
 *   FW_CODE        PT_EXEC                      RX, WB
 *   MMIO           PT_WRITE | PT_CACHE(UC)      RW, NX, UC
 *   RESERVED       PT_CACHE(UC)                 R,  NX, UC
 *
 * Reserved ranges are identity mapped so a report can read what the firmware
 * put there (tables, logs), but read-only: nothing of ours may write into
 * memory the firmware keeps for itself; and uncached, since "reserved" may
 * well be device memory the map does not call MMIO, and reading such memory
 * through a cacheable mapping (speculatively, even) is what must never
 * happen.
 */
#include <ptlab/plan.h>

#include <string.h>

#include "internal.h"

#define PLAN_NULL_GUARD   PT_PAGE_SIZE
/* The image window: PT_IMAGE_BASE + size must stay below 2^64. */
#define PLAN_IMAGE_LIMIT  (UINT64_C(0) - PT_IMAGE_BASE)
#define PLAN_SECTION_FLAGS (PT_WRITE | PT_EXEC | PT_GLOBAL)

/* Attributes of a memory class (see the table above). */
static unsigned class_flags(enum pt_mem_class c)
{
	switch (c) {
	case PT_MEM_RAM:
	case PT_MEM_FW_DATA:
		return PT_WRITE;
	case PT_MEM_FW_CODE:
		return PT_EXEC;
	case PT_MEM_MMIO:
		return PT_WRITE | PT_CACHE(PT_CACHE_UC);
	case PT_MEM_RESERVED:
	default:
		return PT_CACHE(PT_CACHE_UC);
	}
}

/* Attributes of a memory-map type under @caps (see pt_plan_caps). */
static unsigned type_flags(const struct pt_plan_caps *caps, uint32_t type)
{
	if (caps->boot_services_gone) {
		if (type == PT_EFI_BS_CODE)
			return PT_WRITE;
		if (type == PT_EFI_RT_CODE && !caps->mat)
			return PT_WRITE | PT_EXEC | PT_ALLOW_WX;
	}
	return class_flags(pt_mem_class_of(type));
}

static bool class_in_hhdm(enum pt_mem_class c)
{
	return c == PT_MEM_RAM || c == PT_MEM_FW_CODE || c == PT_MEM_FW_DATA;
}

static bool page_aligned(uint64_t x)
{
	return (x & (PT_PAGE_SIZE - 1)) == 0;
}

struct plan_ctx {
	struct pt_plan *plan;
	const struct pt_plan_caps *caps;
	unsigned extra_done[2];     /* bit per caps->extra placed, per kind */
	enum pt_page_size max_size;
	uint64_t phys_end;      /* 2^maxphyaddr */
	uint64_t hhdm_base;
	uint64_t hhdm_limit;    /* highest pa + 1 the HHDM holds without reaching the image */
	int err;
};

/*
 * Append [va, va+len) -> pa, merging it into the previous entry when that one
 * is of the same kind and attributes and ends exactly where this one starts
 * (virtually and physically).  A merged entry keeps the memory type of its
 * first part.
 */
static void plan_add(struct plan_ctx *c, enum pt_plan_kind kind, uint64_t va, uint64_t pa,
		     uint64_t len, unsigned flags, uint32_t efi_type)
{
	struct pt_plan *p = c->plan;
	struct pt_plan_entry *e;

	if (c->err || len == 0)
		return;
	if (p->n > 0) {
		e = &p->entry[p->n - 1];
		if (e->kind == kind && e->flags == flags && e->max_size == c->max_size &&
		    e->va + e->len == va && e->pa + e->len == pa) {
			e->len += len;
			return;
		}
	}
	if (p->n == p->cap) {
		c->err = PT_ECAPACITY;
		return;
	}
	p->entry[p->n++] = (struct pt_plan_entry){
		.va = va, .pa = pa, .len = len, .flags = flags,
		.max_size = c->max_size, .kind = kind, .efi_type = efi_type,
	};
}

static void plan_range_one(struct plan_ctx *c, enum pt_plan_kind kind, uint64_t pa,
			   uint64_t end, unsigned flags, uint32_t efi_type);

/* Identity entry for physical [pa, end), clipped to [page 1, 2^47) and the physical limit. */
static void plan_identity(struct plan_ctx *c, uint64_t pa, uint64_t end, unsigned flags,
			  uint32_t efi_type)
{
	uint64_t lim = c->phys_end < PT_IDENTITY_END ? c->phys_end : PT_IDENTITY_END;

	if (pa < PLAN_NULL_GUARD)
		pa = PLAN_NULL_GUARD;
	if (end > PT_IDENTITY_END && pa < end)
		c->plan->quirks |= 1u << PT_QUIRK_ABOVE_IDENTITY;
	if (end > lim)
		end = lim;
	if (pa >= end)
		return;
	plan_add(c, PT_PLAN_IDENTITY, pa, pa, end - pa, flags, efi_type);
}

/*
 * Map physical [pa, end) of memory type @type at @va_base + pa (identity:
 * @va_base 0), with the type's attributes - or, for runtime ranges after
 * ExitBootServices with a Memory Attributes Table, piece by piece with the
 * table's attributes where it describes them.
 */
static void plan_range(struct plan_ctx *c, enum pt_plan_kind kind, uint64_t pa, uint64_t end,
		       uint32_t type)
{
	const struct pt_mat *mat = c->caps->mat;
	unsigned fl = type_flags(c->caps, type);

	if (c->caps->boot_services_gone && mat &&
	    (type == PT_EFI_RT_CODE || type == PT_EFI_RT_DATA)) {
		for (unsigned i = 0; i < mat->n && pa < end; i++) {
			const struct pt_mat_range *m = &mat->range[i];
			uint64_t a = m->pa, b = m->pa + m->len;
			unsigned mf = m->flags | (m->rwx ? PT_ALLOW_WX : 0);

			if (b <= pa || a >= end)
				continue;
			if (a > pa)
				plan_range_one(c, kind, pa, a, fl, type);
			if (a < pa)
				a = pa;
			if (b > end)
				b = end;
			if (!m->rp)
				plan_range_one(c, kind, a, b, mf, type);
			pa = b;
		}
	}
	if (pa < end)
		plan_range_one(c, kind, pa, end, fl, type);
}

/*
 * The extra ranges (caps->extra, sorted by the caller or not) that start
 * below @pa and were not placed yet for @kind, in address order, so the
 * plan stays sorted by va.
 */
static void plan_extras_below(struct plan_ctx *c, uint64_t pa, enum pt_plan_kind kind)
{
	for (;;) {
		const struct pt_plan_extra *best = NULL;
		unsigned bi = 0;

		for (unsigned i = 0; i < c->caps->nextra; i++) {
			const struct pt_plan_extra *x = &c->caps->extra[i];

			if (!(c->extra_done[kind] & (1u << i)) && x->pa < pa &&
			    (!best || x->pa < best->pa)) {
				best = x;
				bi = i;
			}
		}
		if (!best)
			return;
		c->extra_done[kind] |= 1u << bi;
		plan_range_one(c, kind, best->pa, best->pa + best->len, best->flags,
			       PT_EFI_MMIO);
	}
}

/*
 * @caps->hhdm_base is 0 (PT_HHDM_BASE) or 1 GiB aligned in the higher half
 * of the paging mode, below the image window.
 */
static bool hhdm_base_ok(const struct pt_plan_caps *caps)
{
	uint64_t b = caps->hhdm_base;
	uint64_t lowest = caps->levels == 5 ? PT_HIGHER_HALF_LA57 : PT_HHDM_BASE;

	return !b || (b % (UINT64_C(1) << 30) == 0 && b >= lowest && b < PT_IMAGE_BASE);
}

/* HHDM entry for physical [pa, end), clipped below the image window and the physical limit. */
static void plan_hhdm(struct plan_ctx *c, uint64_t pa, uint64_t end, unsigned flags,
		      uint32_t efi_type)
{
	uint64_t lim = c->phys_end < c->hhdm_limit ? c->phys_end : c->hhdm_limit;

	if (end > c->hhdm_limit)
		c->plan->quirks |= 1u << PT_QUIRK_ABOVE_IDENTITY;
	if (end > lim)
		end = lim;
	if (pa >= end)
		return;
	plan_add(c, PT_PLAN_HHDM, c->hhdm_base + pa, pa, end - pa, flags, efi_type);
}

static void plan_range_one(struct plan_ctx *c, enum pt_plan_kind kind, uint64_t pa,
			   uint64_t end, unsigned flags, uint32_t efi_type)
{
	if (kind == PT_PLAN_IDENTITY)
		plan_identity(c, pa, end, flags, efi_type);
	else
		plan_hhdm(c, pa, end, flags, efi_type);
}

/*
 * Check @image: sections 4 KiB aligned, non-empty, sorted and contiguous,
 * covering [base, base+size) exactly, W^X, the whole image inside one RAM-like
 * memory-map range, smaller than the 2 GiB image window.  Stores the index
 * of that range in @ri.
 */
static int image_check(const struct pt_memmap *map, const struct pt_image *image, unsigned *ri)
{
	uint64_t at, end;
	unsigned i;

	if (image->nsections == 0 || image->nsections > PT_IMAGE_MAX_SECTIONS)
		return PT_EINVAL;
	if (!page_aligned(image->base) || !page_aligned(image->size) || image->size == 0 ||
	    image->size >= PLAN_IMAGE_LIMIT || image->base + image->size < image->base)
		return PT_EINVAL;
	at = image->base;
	for (i = 0; i < image->nsections; i++) {
		const struct pt_image_section *sec = &image->section[i];

		if (sec->pa != at || sec->len == 0 || !page_aligned(sec->len) ||
		    sec->len > image->base + image->size - at)
			return PT_EINVAL;
		if ((sec->flags & ~PLAN_SECTION_FLAGS) ||
		    (sec->flags & (PT_WRITE | PT_EXEC)) == (PT_WRITE | PT_EXEC))
			return PT_EINVAL;
		at += sec->len;
	}
	if (at != image->base + image->size)
		return PT_EINVAL;

	end = image->base + image->size;
	for (i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];

		if (r->pa <= image->base && end - r->pa <= r->len) {
			if (!class_in_hhdm(pt_mem_class_of(r->type)))
				return PT_EINVAL;
			*ri = i;
			return PT_OK;
		}
	}
	return PT_EINVAL;
}

/* The memory map must be what pt_memmap_normalize produces: sorted, aligned, disjoint. */
static int map_check(const struct pt_memmap *map)
{
	uint64_t prev_end = 0;

	if (map->n > 0 && !map->range)
		return PT_EINVAL;
	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];

		if (!page_aligned(r->pa) || !page_aligned(r->len) || r->len == 0 ||
		    r->pa + r->len < r->pa || (r->pa + r->len == 0))
			return PT_EINVAL;
		if (i > 0 && r->pa < prev_end)
			return PT_EINVAL;
		prev_end = r->pa + r->len;
	}
	return PT_OK;
}

/* Extra ranges: aligned, non-empty, W^X unless allowed, and outside the map. */
static int extra_check(const struct pt_memmap *map, const struct pt_plan_caps *caps)
{
	if (caps->nextra > PT_PLAN_MAX_EXTRA)
		return PT_EINVAL;
	for (unsigned i = 0; i < caps->nextra; i++) {
		const struct pt_plan_extra *x = &caps->extra[i];

		if (!x->len || !page_aligned(x->pa) || !page_aligned(x->len) ||
		    x->pa + x->len < x->pa ||
		    ((x->flags & PT_WRITE) && (x->flags & PT_EXEC)))
			return PT_EINVAL;
		for (unsigned k = 0; k < map->n; k++)
			if (x->pa < map->range[k].pa + map->range[k].len &&
			    map->range[k].pa < x->pa + x->len)
				return PT_EINVAL;
	}
	return PT_OK;
}

int pt_plan_build(const struct pt_memmap *map, const struct pt_image *image,
		  const struct pt_plan_caps *caps, struct pt_plan *plan)
{
	struct plan_ctx c;
	unsigned img_ri = 0;
	unsigned i;
	int err;

	if (!plan)
		return PT_EINVAL;
	*plan = (struct pt_plan){ .entry = plan->entry, .cap = plan->cap };
	if (!map || !caps || (caps->levels != 4 && caps->levels != 5) ||
	    caps->maxphyaddr < 32 || caps->maxphyaddr > 52 || (plan->cap > 0 && !plan->entry) ||
	    !hhdm_base_ok(caps))
		return PT_EINVAL;
	err = map_check(map);
	if (!err)
		err = extra_check(map, caps);
	if (!err && image)
		err = image_check(map, image, &img_ri);
	if (err)
		return err;

	c.plan = plan;
	c.caps = caps;
	c.extra_done[0] = c.extra_done[1] = 0;
	c.max_size = caps->has_1g ? PT_PAGE_1G : PT_PAGE_2M;
	c.phys_end = UINT64_C(1) << caps->maxphyaddr;
	c.hhdm_base = caps->hhdm_base ? caps->hhdm_base : PT_HHDM_BASE;
	c.hhdm_limit = PT_IMAGE_BASE - c.hhdm_base;
	c.err = PT_OK;
	plan->hhdm_base = c.hhdm_base;

	for (i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t end = r->pa + r->len;

		if (end > c.phys_end)
			plan->quirks |= 1u << PT_QUIRK_ABOVE_MAXPHYS;
		plan_extras_below(&c, r->pa, PT_PLAN_IDENTITY);
		if (image && i == img_ri) {
			plan_range(&c, PT_PLAN_IDENTITY, r->pa, image->base, r->type);
			for (unsigned k = 0; k < image->nsections; k++) {
				const struct pt_image_section *sec = &image->section[k];

				plan_identity(&c, sec->pa, sec->pa + sec->len, sec->flags, r->type);
			}
			plan_range(&c, PT_PLAN_IDENTITY, image->base + image->size, end, r->type);
		} else {
			plan_range(&c, PT_PLAN_IDENTITY, r->pa, end, r->type);
		}
	}
	plan_extras_below(&c, UINT64_MAX, PT_PLAN_IDENTITY);

	for (i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];

		plan_extras_below(&c, r->pa, PT_PLAN_HHDM);
		if (class_in_hhdm(pt_mem_class_of(r->type)))
			plan_range(&c, PT_PLAN_HHDM, r->pa, r->pa + r->len, r->type);
	}
	plan_extras_below(&c, UINT64_MAX, PT_PLAN_HHDM);

	if (image) {
		for (i = 0; i < image->nsections; i++) {
			const struct pt_image_section *sec = &image->section[i];

			if (sec->pa + sec->len > c.phys_end) {
				/* pt_map would refuse it: the image itself is unmappable. */
				c.err = PT_EINVAL;
				break;
			}
			plan_add(&c, PT_PLAN_IMAGE, PT_IMAGE_BASE + (sec->pa - image->base),
				 sec->pa, sec->len, sec->flags, PT_EFI_LOADER_CODE);
		}
	}

	if (c.err) {
		plan->n = 0;
		plan->quirks = 0;
		return c.err;
	}

	for (i = 0; i < plan->n; i++) {
		const struct pt_plan_entry *e = &plan->entry[i];

		if (e->kind == PT_PLAN_IDENTITY)
			plan->identity_bytes += e->len;
		else if (e->kind == PT_PLAN_HHDM)
			plan->hhdm_bytes += e->len;
		else
			plan->image_bytes += e->len;
	}
	plan->min_total = pt_plan_min_tables(plan->entry, plan->n, caps->levels, caps->has_1g,
					     plan->min_tables);
	return PT_OK;
}

/* ---- minimum table count ------------------------------------------------ */

/*
 * A largest-fit mapper (pt_map) places, at each va, the largest leaf of size
 * s <= the allowed maximum with va and pa aligned to s and at least s bytes
 * left.  For one entry that makes, per leaf level k with size s_k,
 *
 *   lo_k = pt_align_up(va, s_k),  hi_k = pt_align_down(end, s_k),  usable if lo_k < hi_k
 *
 * (level 0 always usable, lo_0 = va, hi_0 = end; a usable level implies every
 * lower one is, with lo_k <= lo_k+1 < hi_k+1 <= hi_k), and with K the highest
 * usable level the leaves of level k < K fill [lo_k, lo_k+1) and
 * [hi_k+1, hi_k), those of level K fill [lo_K, hi_K).  In va order:
 *
 *   4K [lo_0, lo_1)  2M [lo_1, lo_2)  1G [lo_2, hi_2)  2M [hi_2, hi_1)  4K [hi_1, hi_0)
 *
 * A level-L table (not the root) exists for each aligned region of
 * pt_level_size(L + 1) bytes holding at least one leaf of level <= L.  As the
 * entries are sorted and disjoint, the runs above arrive in ascending va
 * order across the whole plan, so distinct regions are counted by comparing
 * with the last region counted at each level.
 */
struct tcount {
	unsigned levels;
	uint64_t *out;
	uint64_t last[5];
	bool seen[5];
};

/* Leaves of @leaf_level over [va, end): count the new regions at each level above. */
static void tcount_run(struct tcount *t, unsigned leaf_level, uint64_t va, uint64_t end)
{
	if (va >= end)
		return;
	for (unsigned L = leaf_level; L + 1 < t->levels; L++) {
		unsigned shift = PT_PAGE_SHIFT + PT_LEVEL_BITS * (L + 1);
		uint64_t first = va >> shift;
		uint64_t last = (end - 1) >> shift;
		uint64_t n = last - first + 1;

		if (t->seen[L] && t->last[L] == first)
			n--;
		t->out[L] += n;
		t->last[L] = last;
		t->seen[L] = true;
	}
}

static void tcount_entry(struct tcount *t, const struct pt_plan_entry *e, bool has_1g)
{
	uint64_t lo[3], hi[3];
	uint64_t end = e->va + e->len;
	int top = e->max_size;
	int k;

	if (e->len == 0)
		return;
	if (top > PT_PAGE_1G)
		top = PT_PAGE_1G;
	if (!has_1g && top > PT_PAGE_2M)
		top = PT_PAGE_2M;
	/* A leaf of size s needs va and pa congruent modulo s. */
	while (top > 0 && ((e->va ^ e->pa) & (pt_level_size((unsigned)top) - 1)))
		top--;

	lo[0] = e->va;
	hi[0] = end;
	for (k = 1; k <= top; k++) {
		uint64_t s = pt_level_size((unsigned)k);

		lo[k] = pt_align_up(e->va, s);
		hi[k] = pt_align_down(end, s);
		/* lo < va: align_up wrapped at the top of the address space. */
		if (lo[k] < e->va || lo[k] >= hi[k])
			break;
	}
	top = k - 1;

	for (k = 0; k < top; k++)
		tcount_run(t, (unsigned)k, lo[k], lo[k + 1]);
	tcount_run(t, (unsigned)top, lo[top], hi[top]);
	for (k = top - 1; k >= 0; k--)
		tcount_run(t, (unsigned)k, hi[k + 1], hi[k]);
}

uint64_t pt_plan_min_tables(const struct pt_plan_entry *e, unsigned n, unsigned levels,
			    bool has_1g, uint64_t out[5])
{
	struct tcount t;
	uint64_t total = 0;

	memset(out, 0, 5 * sizeof(out[0]));
	if (levels != 4 && levels != 5)
		return 0;
	memset(&t, 0, sizeof(t));
	t.levels = levels;
	t.out = out;
	for (unsigned i = 0; i < n; i++)
		tcount_entry(&t, &e[i], has_1g);
	out[levels - 1] = 1;
	for (unsigned L = 0; L < levels; L++)
		total += out[L];
	return total;
}

/* ---- applying and querying ------------------------------------------------ */

int pt_plan_apply(struct pt_space *s, const struct pt_plan *plan)
{
	unsigned i;
	int err = PT_OK;

	if (!s || !plan || (plan->n > 0 && !plan->entry))
		return PT_EINVAL;
	for (i = 0; i < plan->n; i++) {
		const struct pt_plan_entry *e = &plan->entry[i];

		err = pt_map(s, e->va, e->pa, e->len, e->flags, e->max_size, NULL);
		if (err)
			break;
	}
	if (!err)
		return PT_OK;
	while (i-- > 0)
		(void)pt_unmap(s, plan->entry[i].va, plan->entry[i].len, 0, NULL);
	return err;
}

PT_DEFINE_RANGE_SEARCH(search_entries, struct pt_plan_entry, PT_FIELD_VA, PT_FIELD_LEN)

const struct pt_plan_entry *pt_plan_find(const struct pt_plan *plan, uint64_t va)
{
	return plan && plan->entry ? search_entries_holding(plan->entry, plan->n, va) : NULL;
}

/* ---- another permission for a range of the identity map ---- */

#define IDENTITY_PERM (PT_WRITE | PT_EXEC | PT_ALLOW_WX)

/* Index of the identity entry holding @pa, or @pl->n. */
static unsigned identity_entry(const struct pt_plan *pl, uint64_t pa)
{
	unsigned i;

	for (i = 0; i < pl->n; i++) {
		const struct pt_plan_entry *x = &pl->entry[i];

		if (x->kind == PT_PLAN_IDENTITY && pa >= x->va && pa - x->va < x->len)
			break;
	}
	return i;
}

/* Entries the split of [pa, end) out of entry @e adds (0, 1 or 2). */
static unsigned split_growth(const struct pt_plan_entry *e, uint64_t pa, uint64_t end)
{
	return (e->va < pa) + (end < e->va + e->len);
}

int pt_plan_identity_perm(struct pt_plan *pl, uint64_t pa, uint64_t len, unsigned perm,
			  unsigned levels, bool has_1g)
{
	uint64_t end = pa + len, at;
	unsigned grow = 0;

	if (!pl || (pa | len) & (PT_PAGE_SIZE - 1) || !len || end < pa || (perm & ~IDENTITY_PERM) ||
	    ((perm & PT_WRITE) && (perm & PT_EXEC) && !(perm & PT_ALLOW_WX)))
		return PT_EINVAL;
	/* first pass: every page held by an identity entry, and room for the pieces */
	for (at = pa; at < end;) {
		unsigned i = identity_entry(pl, at);
		const struct pt_plan_entry *e = &pl->entry[i];
		uint64_t cut;

		if (i == pl->n)
			return PT_ENOTMAPPED;
		cut = e->va + e->len < end ? e->va + e->len : end;
		if ((e->flags & IDENTITY_PERM) != perm)
			grow += split_growth(e, at, cut);
		at = cut;
	}
	if (pl->n + grow > pl->cap)
		return PT_ECAPACITY;
	/* second pass: split each entry into before, the range, after */
	for (at = pa; at < end;) {
		unsigned i = identity_entry(pl, at), n = 0;
		struct pt_plan_entry e = pl->entry[i], piece[3];
		uint64_t cut = e.va + e.len < end ? e.va + e.len : end;

		if ((e.flags & IDENTITY_PERM) == perm) {
			at = cut;
			continue;
		}
		if (e.va < at) {
			piece[n] = e;
			piece[n++].len = at - e.va;
		}
		piece[n] = e;
		piece[n].va = at;
		piece[n].pa = e.pa + (at - e.va);
		piece[n].len = cut - at;
		piece[n++].flags = (e.flags & ~IDENTITY_PERM) | perm;
		if (cut < e.va + e.len) {
			piece[n] = e;
			piece[n].va = cut;
			piece[n].pa = e.pa + (cut - e.va);
			piece[n++].len = e.va + e.len - cut;
		}
		for (unsigned k = pl->n; k-- > i + 1;)
			pl->entry[k + n - 1] = pl->entry[k];
		for (unsigned k = 0; k < n; k++)
			pl->entry[i + k] = piece[k];
		pl->n += n - 1;
		at = cut;
	}
	pl->min_total = pt_plan_min_tables(pl->entry, pl->n, levels, has_1g, pl->min_tables);
	return PT_OK;
}
