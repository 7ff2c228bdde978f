/* SPDX-License-Identifier: MIT */
/*
 * TLB and cache maintenance for the tables in CR3: the invalidations the
 * library's flush lists ask for, invlpg and wbinvd.  The checks, the churn,
 * fault injection and the SMP checks call these (live.h declares them);
 * they call nothing but cpu/, so every file above can use them without a
 * cycle of calls.  Host tests link their own versions (link seams).
 */
#include "live/flush.h"
#include "state/state.h"

#include <ptlab/pte.h>

/* Above this many pages a CR3 reload is cheaper than invlpg per page. */
#define FLUSH_INVLPG_MAX 64u

void ptlab_invlpg(uint64_t va)
{
	invlpg(va);
}

void ptlab_wbinvd(void)
{
	wbinvd();
}

void ptlab_flush(const struct pt_flushlist *fl)
{
	if (fl->all || fl->global) {
		/* a CR3 reload keeps global translations; a PGE toggle drops them */
		if (fl->global && (read_cr4() & CR4_PGE))
			cpu_flush_tlb_all();
		else
			cpu_flush_tlb();
		return;
	}
	for (unsigned i = 0; i < fl->n; i++) {
		uint64_t pages = fl->r[i].len >> PT_PAGE_SHIFT;

		if (pages > FLUSH_INVLPG_MAX) {
			cpu_flush_tlb();
			return;
		}
	}
	for (unsigned i = 0; i < fl->n; i++)
		for (uint64_t off = 0; off < fl->r[i].len; off += PT_PAGE_SIZE)
			invlpg(fl->r[i].va + off);
}
