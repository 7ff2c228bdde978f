/* SPDX-License-Identifier: MIT */
/*
 * Structural lint of an address space.
 *
 * Reserved bits per SDM Vol. 3A §4.5 (tables 4-15 to 4-19): address bits
 * from MAXPHYADDR to 51 in every present entry; PS in a PML4E (and PML5E);
 * PS in a PDPTE where the CPU has no 1 GiB pages; bits 20:13 of a 2 MiB leaf
 * and 29:13 of a 1 GiB leaf.  Beyond the CPU's rules, ptlab's own invariants:
 * no non-root table is empty, every table frame is referenced once, the
 * counts match the space's statistics, and a level-1 link marked
 * PTE_SW_FULL (pte.h) leads to a page table whose 512 entries are all
 * present and none global.
 */
#include <ptlab/pt.h>

#include "internal.h"

struct lint_walk {
	const struct pt_space *s;
	uint64_t *scratch;
	size_t cap;
	size_t n;
	bool (*owns)(void *ctx, uint64_t pa);
	void *owns_ctx;
	struct pt_lint *out;
	struct pt_stats seen;
};

static void problem(struct lint_walk *lw, uint64_t *counter, uint64_t va, unsigned level)
{
	if (!lw->out->errors) {
		lw->out->first_bad_va = va;
		lw->out->first_bad_level = (int)level;
	}
	(*counter)++;
	lw->out->errors++;
}

static uint64_t sign_extend(uint64_t va, unsigned levels)
{
	unsigned bits = PT_PAGE_SHIFT + PT_LEVEL_BITS * levels;

	return (uint64_t)((int64_t)(va << (64 - bits)) >> (64 - bits));
}

/* Are all 512 entries of @t present and none global (what PTE_SW_FULL claims)? */
static bool full_nonglobal(const uint64_t *t)
{
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if ((t[i] & (PTE_P | PTE_G)) != PTE_P)
			return false;
	return true;
}

static void lint_table(struct lint_walk *lw, unsigned level, uint64_t pa, uint64_t base)
{
	const struct pt_space *s = lw->s;
	const uint64_t *t = s->env->phys_to_virt(s->env->ctx, pa);
	uint64_t high = PTE_ADDR_MASK & ~((UINT64_C(1) << s->env->maxphyaddr) - 1);
	bool top = level == s->levels - 1, any = false;

	lw->out->tables++;
	lw->seen.tables[level]++;
	if (lw->n < lw->cap)
		lw->scratch[lw->n] = pa;
	lw->n++;
	if (lw->owns && !lw->owns(lw->owns_ctx, pa))
		problem(lw, &lw->out->foreign_tables, base, level);

	for (unsigned i = 0; i < PT_ENTRIES; i++) {
		uint64_t e = t[i], va = sign_extend(base + (uint64_t)i * pt_level_size(level), s->levels);

		if (!(e & PTE_P))
			continue;
		any = true;
		if (e & high)
			problem(lw, &lw->out->reserved_bits, va, level);
		if (level == 0) {
			lw->seen.leaves[0]++;
			continue;
		}
		if (e & PTE_PS) {
			uint64_t low = (pt_level_size(level) - 1) & PTE_ADDR_MASK & ~PTE_PAT_LARGE;

			if (level >= 3 || (level == 2 && !s->env->has_1g)) {
				problem(lw, &lw->out->bad_ps, va, level);
				continue;
			}
			if (e & low)
				problem(lw, &lw->out->reserved_bits, va, level);
			lw->seen.leaves[level]++;
			continue;
		}
		if (level == 1 && (e & PTE_SW_FULL) &&
		    !full_nonglobal(s->env->phys_to_virt(s->env->ctx, e & PTE_ADDR_MASK)))
			problem(lw, &lw->out->bad_hints, va, level);
		lint_table(lw, level - 1, e & PTE_ADDR_MASK, va);
	}
	if (!any && !top)
		problem(lw, &lw->out->empty_tables, base, level);
}

#define KEY_SELF(x) (x)
PT_DEFINE_HEAPSORT(heapsort_u64, uint64_t, KEY_SELF)

int pt_lint(const struct pt_space *s, uint64_t *scratch, size_t scratch_len,
	    bool (*owns)(void *ctx, uint64_t pa), void *owns_ctx, struct pt_lint *out)
{
	struct lint_walk lw = {
		.s = s, .scratch = scratch, .cap = scratch_len,
		.owns = owns, .owns_ctx = owns_ctx, .out = out,
	};

	if (!s || !s->env || !s->root_pa || !out || (s->levels != 4 && s->levels != 5))
		return PT_EINVAL;
	*out = (struct pt_lint){ 0 };
	out->first_bad_level = -1;
	lint_table(&lw, s->levels - 1, s->root_pa, 0);
	if (lw.n > scratch_len)
		return PT_ECAPACITY;
	heapsort_u64(scratch, lw.n);
	for (size_t i = 1; i < lw.n; i++)
		if (scratch[i] == scratch[i - 1])
			problem(&lw, &out->shared_tables, 0, 0);
	for (unsigned l = 0; l < 5; l++)
		if (lw.seen.tables[l] != s->stats.tables[l])
			problem(&lw, &out->stats_mismatch, 0, l);
	for (unsigned l = 0; l < 3; l++)
		if (lw.seen.leaves[l] != s->stats.leaves[l])
			problem(&lw, &out->stats_mismatch, 0, l);
	if (s->stats.reserve_unused)
		problem(&lw, &out->reserve_unused, 0, 0);
	return out->errors ? PT_ECORRUPT : PT_OK;
}
