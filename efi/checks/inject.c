/* SPDX-License-Identifier: MIT */
/*
 * The per-check faults of --inject (see inject.h).  Each is an ordinary
 * change made with the library's own calls - a page protected, remapped or
 * mapped, a root entry given a reserved bit, a frame kept - and each is
 * recorded so that inject_end() undoes exactly it: tables, frames and TLB
 * as they were, so the rest of the run judges the tables it built.
 *
 * The faults that leave something out (an invlpg, a CR3 reload, a reserved
 * bit, CR0.WP, SMEP, stac/clac) are one condition at their check instead,
 * and typed-alias is made in efi/checks/churn.c (host-tested without this file).
 */
#include "checks/inject.h"
#include "state/state.h"
#include "report/report.h"
#include "cpu/la57.h"

#include <ptlab/pte.h>

#define UNDO_MAX 16u

enum undo_kind { UNDO_PROTECT, UNDO_REMAP, UNDO_MAP, UNDO_ROOT_ENTRY, UNDO_CR3 };

struct undo {
	enum opts_inject v;
	enum undo_kind kind;
	uint64_t va;          /* the page changed */
	uint64_t pa;          /* its own frame (remap), the root entry (root) */
	uint64_t frame;       /* the stand-in frame from the pool, or 0 */
	unsigned flags;       /* the page's attributes (protect) */
};

static struct undo undo[UNDO_MAX];
static unsigned nundo;

/* The copy of our root the first live phase runs on (cr3-copy). */
static uint64_t root_copy[512] __attribute__((aligned(4096)));

bool inject_on(const struct ptlab *p, enum opts_inject v)
{
	return opts_injected(&p->opts, v);
}

static void flush(struct ptlab *p, const struct pt_flushlist *fl)
{
	if (p->live.on)
		ptlab_flush(fl);
}

static struct undo *push(struct ptlab *p, enum opts_inject v, enum undo_kind kind, uint64_t va)
{
	if (nundo == UNDO_MAX) {
		report_note(p->rep, "inject: %s: no room to record the fault; not planted",
			    opts_inject_name(v));
		return NULL;
	}
	undo[nundo] = (struct undo){ .v = v, .kind = kind, .va = va };
	return &undo[nundo++];
}

/* Give the page at @va the attributes @flags (W, X, ...); 0 when done. */
static int protect_page(struct ptlab *p, enum opts_inject v, uint64_t va, unsigned flags)
{
	struct pt_flushlist fl;
	struct pt_leaf l;
	struct undo *u;

	va &= ~(PT_PAGE_SIZE - 1);
	if (pt_translate(&p->build.space, va, &l) != PT_OK || !(u = push(p, v, UNDO_PROTECT, va)))
		return -1;
	u->flags = l.flags;
	if (pt_protect(&p->build.space, va, PT_PAGE_SIZE, flags, &fl) != PT_OK) {
		nundo--;
		return -1;
	}
	flush(p, &fl);
	return 0;
}

/*
 * Point the page at @va at a pool frame holding the complement of every
 * byte its own frame holds, so any read through @va differs.
 */
static int remap_page(struct ptlab *p, enum opts_inject v, uint64_t va)
{
	struct pt_flushlist fl;
	struct pt_leaf l;
	struct undo *u;
	uint64_t f;

	va &= ~(PT_PAGE_SIZE - 1);
	if (pt_translate(&p->build.space, va, &l) != PT_OK ||
	    pt_frames_alloc(&p->build.frames, &f) != PT_OK)
		return -1;
	if (!(u = push(p, v, UNDO_REMAP, va))) {
		pt_frames_free(&p->build.frames, f);
		return -1;
	}
	u->pa = l.pa & ~(PT_PAGE_SIZE - 1);
	u->frame = f;
	for (unsigned i = 0; i < PT_PAGE_SIZE / 8; i++)
		((volatile uint64_t *)(uintptr_t)f)[i] = ~((volatile uint64_t *)(uintptr_t)u->pa)[i];
	if (pt_remap(&p->build.space, va, PT_PAGE_SIZE, f, 0, &fl) != PT_OK) {
		pt_frames_free(&p->build.frames, f);
		nundo--;
		return -1;
	}
	flush(p, &fl);
	return 0;
}

/* Map the unmapped page at @va to a pool frame, writable; 0 when done. */
/*
 * Map the unmapped page at @va to @pa, or to a pool frame of its own when
 * @pa is 0 (given back with the mapping), with @flags; 0 when done.
 */
static int map_at(struct ptlab *p, enum opts_inject v, uint64_t va, uint64_t pa, unsigned flags)
{
	struct pt_flushlist fl;
	struct undo *u;
	uint64_t f = 0;

	va &= ~(PT_PAGE_SIZE - 1);
	if (!pa && pt_frames_alloc(&p->build.frames, &f) != PT_OK)
		return -1;
	if (!(u = push(p, v, UNDO_MAP, va)))
		goto fail;
	u->frame = f;
	if (pt_map(&p->build.space, va, f ? f : pa, PT_PAGE_SIZE, flags, PT_PAGE_4K, &fl) != PT_OK) {
		nundo--;
		goto fail;
	}
	flush(p, &fl);
	return 0;
fail:
	if (f)
		pt_frames_free(&p->build.frames, f);
	return -1;
}

/* Map the unmapped page at @va to a pool frame, writable; 0 when done. */
static int map_page(struct ptlab *p, enum opts_inject v, uint64_t va)
{
	return map_at(p, v, va, 0, PT_WRITE);
}

/* The first memory-map range with a page the identity map holds, not page 0, not ours. */
static uint64_t some_range_page(const struct ptlab *p)
{
	for (unsigned i = 0; i < p->build.map.n; i++) {
		const struct pt_mem_range *r = &p->build.map.range[i];

		if (r->pa && r->pa < PT_IDENTITY_END && pt_mem_class_of(r->type) == PT_MEM_RAM &&
		    (r->pa < p->build.image.base || r->pa >= p->build.image.base + p->build.image.size))
			return r->pa;
	}
	return 0;
}

/* The first point check_alias_ram reads: the first RAM range's first page past page 0. */
static uint64_t first_alias_ram_point(const struct ptlab *p)
{
	for (unsigned i = 0; i < p->build.map.n; i++) {
		const struct pt_mem_range *r = &p->build.map.range[i];
		enum pt_mem_class c = pt_mem_class_of(r->type);
		uint64_t pa = r->pa < PT_PAGE_SIZE ? PT_PAGE_SIZE : r->pa;

		if (c == PT_MEM_MMIO || c == PT_MEM_RESERVED || r->pa + r->len > PT_IDENTITY_END)
			continue;
		if (pa < r->pa + r->len)
			return pa;
	}
	return 0;
}

static int plant(struct ptlab *p, enum opts_inject v, uint64_t arg)
{
	struct pt_leaf l;
	uint64_t *root = (uint64_t *)(uintptr_t)p->build.space.root_pa, va, f;
	volatile uint64_t here = 0;
	struct undo *u;
	int bad = 0;

	switch (v) {
	case OPTS_INJECT_LINT:
		/* PS in a root entry is reserved at every level count */
		if (!(u = push(p, v, UNDO_ROOT_ENTRY, 0)))
			return -1;
		u->pa = root[0];
		root[0] |= PTE_PS;
		return 0;
	case OPTS_INJECT_EXTRA_TABLE:
		/* a page outside the plan, in a root slot the plan leaves empty */
		return map_at(p, v, PTLAB_SCRATCH_LOW + (UINT64_C(8) << 30), p->data.pa, 0);
	case OPTS_INJECT_TYPED_ALIAS:
		/* a typed-window frame back in the identity map, write-back, for the churn's audit */
		if (!p->data.typed_len)
			return -1;
		return map_at(p, v, p->data.typed_pa, p->data.typed_pa, PT_WRITE);
	case OPTS_INJECT_PLAN_POINT:
		if (!p->build.plan.n || pt_translate(&p->build.space, p->build.plan.entry[0].va, &l) != PT_OK)
			return -1;
		return protect_page(p, v, p->build.plan.entry[0].va, l.flags ^ PT_WRITE);
	case OPTS_INJECT_MEMMAP_POINT:
		va = some_range_page(p);
		if (!va || pt_translate(&p->build.space, va, &l) != PT_OK)
			return -1;
		return protect_page(p, v, va, l.flags ^ PT_WRITE);
	case OPTS_INJECT_WX_PAGE:
		va = some_range_page(p);
		if (!va || pt_translate(&p->build.space, va, &l) != PT_OK)
			return -1;
		return protect_page(p, v, va, l.flags | PT_WRITE | PT_EXEC | PT_ALLOW_WX);
	case OPTS_INJECT_STACK_RO:
		/* a few pages around this frame's stack: the caller's RSP is among them */
		for (int k = -2; k <= 2; k++) {
			va = ((uint64_t)(uintptr_t)&here & ~(PT_PAGE_SIZE - 1)) + (uint64_t)(int64_t)k * PT_PAGE_SIZE;
			if (pt_translate(&p->build.space, va, &l) == PT_OK)
				bad |= protect_page(p, v, va, l.flags & ~PT_WRITE);
		}
		return bad;
	case OPTS_INJECT_LEAK_FRAME:
		/* taken and never given back */
		if (pt_frames_alloc(&p->build.frames, &f) != PT_OK)
			return -1;
		report_note(p->rep, "inject: leak-frame: frame 0x%llx is never returned",
			    (unsigned long long)f);
		return 0;
	case OPTS_INJECT_CR3_COPY:
		/* the same translations under another root: CR3 no longer holds ours */
		if (!(u = push(p, v, UNDO_CR3, 0)))
			return -1;
		for (unsigned i = 0; i < 512; i++)
			root_copy[i] = root[i];
		write_cr3((uint64_t)(uintptr_t)root_copy);
		return 0;
	case OPTS_INJECT_ALIAS_POOL:
		return remap_page(p, v, PT_HHDM_BASE + arg);
	case OPTS_INJECT_ALIAS_RAM:
		va = first_alias_ram_point(p);
		return va ? remap_page(p, v, PT_HHDM_BASE + va) : -1;
	case OPTS_INJECT_IMAGE_ALIAS:
	case OPTS_INJECT_AP_ALIAS:
		return remap_page(p, v, arg);
	case OPTS_INJECT_PF_MAPPED:
		/* the unmapped probe page mapped; read-only text or an NX frame made W+X */
		if (pt_translate(&p->build.space, arg, &l) != PT_OK)
			return map_page(p, v, arg);
		return protect_page(p, v, arg, l.flags | PT_WRITE | PT_EXEC | PT_ALLOW_WX);
	case OPTS_INJECT_AP_PF_MAPPED:
	case OPTS_INJECT_FAR_UNFLUSHED:
	case OPTS_INJECT_SWEEP_UNFLUSHED:
		/* the far and sweep pages: a neighbour keeps their table, so no unmap frees it
		 * (which would flush the TLB on its own) */
		return map_page(p, v, arg);
	default:
		return -1;
	}
}

void inject_begin(struct ptlab *p, enum opts_inject v, uint64_t arg)
{
	if (!inject_on(p, v))
		return;
	if (plant(p, v, arg))
		report_note(p->rep, "inject: %s could not be planted (va 0x%llx)", opts_inject_name(v),
			    (unsigned long long)arg);
	else
		report_note(p->rep, "inject: %s planted", opts_inject_name(v));
}

void inject_end(struct ptlab *p, enum opts_inject v)
{
	struct pt_flushlist fl;

	if (!inject_on(p, v))
		return;
	for (unsigned i = nundo; i-- > 0;) {
		struct undo *u = &undo[i];
		int err = PT_OK;

		if (u->v != v)
			continue;
		switch (u->kind) {
		case UNDO_PROTECT:
			err = pt_protect(&p->build.space, u->va, PT_PAGE_SIZE, u->flags, &fl);
			break;
		case UNDO_REMAP:
			err = pt_remap(&p->build.space, u->va, PT_PAGE_SIZE, u->pa, 0, &fl);
			break;
		case UNDO_MAP:
			err = pt_unmap(&p->build.space, u->va, PT_PAGE_SIZE, 0, &fl);
			break;
		case UNDO_ROOT_ENTRY:
			((uint64_t *)(uintptr_t)p->build.space.root_pa)[0] = u->pa;
			fl = (struct pt_flushlist){ .all = true };
			break;
		case UNDO_CR3:
			write_cr3(p->build.our_cr3);
			fl = (struct pt_flushlist){ .n = 0 };
			break;
		}
		if (err != PT_OK)
			report_note(p->rep, "inject: %s: undoing it at 0x%llx failed: %s",
				    opts_inject_name(v), (unsigned long long)u->va, pt_strerror(err));
		else if (u->kind != UNDO_CR3)
			flush(p, &fl);
		if (u->frame && err == PT_OK)
			pt_frames_free(&p->build.frames, u->frame);
		/* close the gap */
		for (unsigned k = i; k + 1 < nundo; k++)
			undo[k] = undo[k + 1];
		nundo--;
	}
}

uint64_t inject_canonical(const struct ptlab *p, uint64_t va)
{
	if (!inject_on(p, OPTS_INJECT_CANONICAL))
		return va;
	return va & ((UINT64_C(1) << (p->build.levels == 5 ? 56 : 47)) - 1);
}

const char *inject_la57_refusal(const struct ptlab *p)
{
	if (inject_on(p, OPTS_INJECT_LA57_REFUSE))
		return "--inject=la57-refuse";
	if (inject_on(p, OPTS_INJECT_LA57_REFUSE_LATER) && p->live.la57_switches)
		return "--inject=la57-refuse-later";
	return NULL;
}
