/* SPDX-License-Identifier: MIT */
/*
 * The plan's RX page for the LA57 trampoline.  Firmware-free (only the
 * library's headers), so the host tests compile this file as is.
 */
#include <ptlab/plan.h>

#include "la57plan.h"

int la57_plan_exec_page(struct pt_plan *pl, uint64_t code, unsigned levels, bool has_1g)
{
	struct pt_plan_entry e, piece[3];
	unsigned i, n = 0;

	if (code & (PT_PAGE_SIZE - 1))
		return PT_EINVAL;
	for (i = 0; i < pl->n; i++) {
		const struct pt_plan_entry *x = &pl->entry[i];

		if (x->kind == PT_PLAN_IDENTITY && code >= x->va && code - x->va < x->len)
			break;
	}
	if (i == pl->n)
		return PT_ENOTMAPPED;
	e = pl->entry[i];
	if ((e.flags & PT_EXEC) && !(e.flags & PT_WRITE))
		return PT_OK;   /* already RX */
	if (e.va < code) {
		piece[n] = e;
		piece[n++].len = code - e.va;
	}
	piece[n] = e;
	piece[n].va = piece[n].pa = code;
	piece[n].len = PT_PAGE_SIZE;
	piece[n++].flags = (e.flags & ~PT_WRITE) | PT_EXEC;
	if (code + PT_PAGE_SIZE < e.va + e.len) {
		piece[n] = e;
		piece[n].va = piece[n].pa = code + PT_PAGE_SIZE;
		piece[n++].len = e.va + e.len - code - PT_PAGE_SIZE;
	}
	if (pl->n + n - 1 > pl->cap)
		return PT_ECAPACITY;
	for (unsigned k = pl->n; k-- > i + 1;)
		pl->entry[k + n - 1] = pl->entry[k];
	for (unsigned k = 0; k < n; k++)
		pl->entry[i + k] = piece[k];
	pl->n += n - 1;
	pl->min_total = pt_plan_min_tables(pl->entry, pl->n, levels, has_1g, pl->min_tables);
	return PT_OK;
}
