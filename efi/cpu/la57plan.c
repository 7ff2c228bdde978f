/* SPDX-License-Identifier: MIT */
/*
 * Identity-map ranges given other permissions in the plan: the LA57
 * trampoline's code page (RX) and, in hand-off mode, a Linux kernel's
 * init_size range (RWX).  Firmware-free (only the library's headers), so
 * the host tests compile this file as is.
 */
#include <ptlab/plan.h>

#include "cpu/la57plan.h"

#define PERM (PT_WRITE | PT_EXEC | PT_ALLOW_WX)

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

/* Entries the split of [pa, end) out of entry @i adds (0, 1 or 2). */
static unsigned split_growth(const struct pt_plan_entry *e, uint64_t pa, uint64_t end)
{
	return (e->va < pa) + (end < e->va + e->len);
}

int plan_identity_perm(struct pt_plan *pl, uint64_t pa, uint64_t len, unsigned perm,
		       unsigned levels, bool has_1g)
{
	uint64_t end = pa + len, at;
	unsigned grow = 0;

	if ((pa | len) & (PT_PAGE_SIZE - 1) || !len || end < pa || (perm & ~PERM) ||
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
		if ((e->flags & PERM) != perm)
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

		if ((e.flags & PERM) == perm) {
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
		piece[n++].flags = (e.flags & ~PERM) | perm;
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

int la57_plan_exec_page(struct pt_plan *pl, uint64_t code, unsigned levels, bool has_1g)
{
	return plan_identity_perm(pl, code, PT_PAGE_SIZE, PT_EXEC, levels, has_1g);
}
