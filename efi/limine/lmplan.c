/* SPDX-License-Identifier: MIT */
/*
 * The Limine hand-off's entries in ptlab's plan (see lmplan.h).
 */
#include <ptlab/pte.h>

#include "limine/limine.h"
#include "limine/lmplan.h"

#define FOUR_GIB (UINT64_C(1) << 32)

/* The protocol's HHDM and identity map: supervisor RWX, WB at the table level. */
#define PROTOCOL_WB (PT_WRITE | PT_EXEC | PT_ALLOW_WX | PT_CACHE(PT_CACHE_WB))
#define PROTOCOL_WC (PT_WRITE | PT_EXEC | PT_ALLOW_WX | PT_CACHE(PT_CACHE_WC))

/* Insert @e into @pl, kept sorted by va; PT_ECAPACITY, or PT_EEXIST on an overlap. */
static int insert(struct pt_plan *pl, const struct pt_plan_entry *e)
{
	unsigned i = 0;

	if (pl->n == pl->cap)
		return PT_ECAPACITY;
	while (i < pl->n && pl->entry[i].va < e->va)
		i++;
	if ((i < pl->n && e->va + e->len > pl->entry[i].va) ||
	    (i > 0 && pl->entry[i - 1].va + pl->entry[i - 1].len > e->va))
		return PT_EEXIST;
	for (unsigned k = pl->n; k > i; k--)
		pl->entry[k] = pl->entry[k - 1];
	pl->entry[i] = *e;
	pl->n++;
	return PT_OK;
}

/*
 * The image entries moved down to LM_IMAGE_ALIAS_VA: the plan's highest
 * before, and still above every other entry (the HHDM and the scratch
 * windows end below PML4 slot 511), so the order holds; what is inserted
 * after is checked against them by insert().
 */
static void move_alias(struct pt_plan *pl)
{
	for (unsigned i = 0; i < pl->n; i++)
		if (pl->entry[i].kind == PT_PLAN_IMAGE)
			pl->entry[i].va = pl->entry[i].va - PT_IMAGE_BASE + LM_IMAGE_ALIAS_VA;
}

static unsigned seg_flags(uint32_t f)
{
	return (f & LM_SEG_W ? PT_WRITE : 0) | (f & LM_SEG_X ? PT_EXEC : 0);
}

static int add_segments(struct pt_plan *pl, const struct lm_plan_in *in)
{
	const struct lm_elf *e = in->elf;

	for (unsigned i = 0; i < e->nseg; i++) {
		const struct lm_seg *s = &e->seg[i];
		uint64_t a = pt_align_down(s->va, PT_PAGE_SIZE);
		uint64_t b = pt_align_up(s->va + s->memsz, PT_PAGE_SIZE);
		struct pt_plan_entry x;
		int err;

		if ((s->flags & (LM_SEG_W | LM_SEG_X)) == (LM_SEG_W | LM_SEG_X))
			return PT_EINVAL;
		/* a page the previous segment (same permissions) mapped already */
		if (i && a < pt_align_up(e->seg[i - 1].va + e->seg[i - 1].memsz, PT_PAGE_SIZE))
			a += PT_PAGE_SIZE;
		if (a >= b)
			continue;
		x = (struct pt_plan_entry){ .va = a, .pa = in->block_pa + (a - e->va), .len = b - a,
					    .flags = seg_flags(s->flags), .max_size = PT_PAGE_2M,
					    .kind = PT_PLAN_IMAGE, .efi_type = PT_EFI_LOADER_DATA };
		err = insert(pl, &x);
		if (err)
			return err;
	}
	return PT_OK;
}

/* [from, 4 GiB) completed in the entries of @kind (va = @base + pa). */
static int fill_low(struct pt_plan *pl, enum pt_plan_kind kind, uint64_t base, uint64_t from,
		    unsigned flags, bool has_1g)
{
	uint64_t at = from;

	while (at < FOUR_GIB) {
		uint64_t next = FOUR_GIB;
		bool moved = false;
		struct pt_plan_entry x;
		int err;

		for (unsigned i = 0; i < pl->n; i++) {
			const struct pt_plan_entry *y = &pl->entry[i];
			uint64_t pa = y->va - base;

			if (y->kind != kind || y->va < base || pa + y->len <= at)
				continue;
			if (pa <= at) {
				at = pa + y->len;   /* covered up to there: look again */
				moved = true;
				break;
			}
			if (pa < next)
				next = pa;
		}
		if (moved)
			continue;
		x = (struct pt_plan_entry){ .va = base + at, .pa = at, .len = next - at,
					    .flags = flags,
					    .max_size = has_1g ? PT_PAGE_1G : PT_PAGE_2M,
					    .kind = kind, .efi_type = PT_EFI_RESERVED };
		err = insert(pl, &x);
		if (err)
			return err;
		at = next;
	}
	return PT_OK;
}

/*
 * Every entry of @kind given the protocol's attributes: PROTOCOL_WC where
 * it maps the framebuffer [@fb_pa, @fb_pa + @fb_len), else PROTOCOL_WB;
 * an entry crossing an end of the framebuffer is split there first.
 */
static int protocol_attrs(struct pt_plan *pl, enum pt_plan_kind kind, uint64_t fb_pa,
			  uint64_t fb_len)
{
	uint64_t fb_end = fb_pa + fb_len;

	for (unsigned i = 0; i < pl->n; i++) {
		struct pt_plan_entry *e = &pl->entry[i];
		uint64_t end = e->pa + e->len, cut = 0;

		if (e->kind != kind)
			continue;
		if (fb_len && e->pa < fb_pa && fb_pa < end)
			cut = fb_pa;
		else if (fb_len && e->pa < fb_end && fb_end < end)
			cut = fb_end;
		if (cut) {
			/* the tail goes right after @e: the next turn of the loop */
			struct pt_plan_entry tail = *e;
			int err;

			tail.va += cut - e->pa;
			tail.pa = cut;
			tail.len = end - cut;
			e->len = cut - e->pa;
			err = insert(pl, &tail);
			if (err)
				return err;
			e = &pl->entry[i];
		}
		e->flags = fb_len && e->pa < fb_end && fb_pa < e->pa + e->len ? PROTOCOL_WC :
			   PROTOCOL_WB;
	}
	return PT_OK;
}

uint64_t lm_plan_end(const struct pt_plan *pl, enum pt_plan_kind kind)
{
	uint64_t end = 0;

	for (unsigned i = 0; pl && i < pl->n; i++)
		if (pl->entry[i].kind == kind && pl->entry[i].pa + pl->entry[i].len > end)
			end = pl->entry[i].pa + pl->entry[i].len;
	return end;
}

int lm_plan_add(struct pt_plan *pl, const struct lm_plan_in *in)
{
	int err;

	if (!pl || !in || !in->elf || (in->levels != 4 && in->levels != 5) ||
	    pl->hhdm_base != lm_hhdm_offset(in->levels) ||
	    ((in->fb_pa | in->fb_len) & (PT_PAGE_SIZE - 1)) || in->fb_pa + in->fb_len < in->fb_pa)
		return PT_EINVAL;
	move_alias(pl);
	err = add_segments(pl, in);
	if (!err)
		err = fill_low(pl, PT_PLAN_HHDM, pl->hhdm_base, 0, PROTOCOL_WB, in->has_1g);
	if (!err && in->identity_low)
		err = fill_low(pl, PT_PLAN_IDENTITY, 0, PT_PAGE_SIZE, PT_WRITE | PT_CACHE(PT_CACHE_UC),
			       in->has_1g);
	if (!err)
		err = protocol_attrs(pl, PT_PLAN_HHDM, in->fb_pa, in->fb_len);
	/*
	 * The identity map keeps ptlab's attributes (its own checks fault
	 * through it); its holes below 4 GiB are writable, uncached, NX.
	 */
	if (err)
		return err;
	pl->min_total = pt_plan_min_tables(pl->entry, pl->n, in->levels, in->has_1g, pl->min_tables);
	return PT_OK;
}

const char *lm_layout_check(const struct lm_layout_in *in, struct lm_layout_out *out)
{
	uint64_t off, span, end = 0;
	bool fits;

	if (!in || !out || !in->plan || (in->levels != 4 && in->levels != 5) ||
	    in->maxphyaddr < 32 || in->maxphyaddr > 52)
		return "no layout to judge";
	off = lm_hhdm_offset(in->levels);
	if (in->hhdm_offset != off)
		return "the HHDM offset is not the reference loader's for the paging mode";
	if (in->have_paging_mode &&
	    in->paging_mode != (in->levels == 5 ? LM_PAGING_5LVL : LM_PAGING_4LVL))
		return "the paging mode response names another mode than the tables'";
	if (in->plan->hhdm_base != off)
		return "the tables' HHDM is not at the offset the response gives";
	if (in->kernel_va < PT_IMAGE_BASE)
		return "the kernel lies below 0xffffffff80000000";
	for (unsigned i = 0; i < in->plan->n; i++) {
		const struct pt_plan_entry *e = &in->plan->entry[i];

		if (e->kind != PT_PLAN_HHDM)
			continue;
		if (e->va != off + e->pa || e->va < off)
			return "an HHDM entry does not map offset + pa";
		if (e->va + e->len > in->kernel_va || e->va + e->len < e->va)
			return "an HHDM entry reaches the kernel's window";
		if (e->va + e->len > end)
			end = e->va + e->len;
	}
	span = UINT64_C(1) << in->maxphyaddr;
	fits = span <= PT_IMAGE_BASE - off;
	if (in->levels == 5 && !fits)
		return "the HHDM cannot hold every physical address below the kernel's window";
	out->hhdm_end = end;
	out->all_phys = fits;
	return NULL;
}
