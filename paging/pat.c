/* SPDX-License-Identifier: MIT */
/*
 * Cache types and the PAT (SDM Vol. 3A §11.12).
 *
 * A leaf selects PAT entry PAT:PCD:PWT, where the PAT bit is bit 7 of a
 * 4 KiB PTE and bit 12 of a 2 MiB / 1 GiB leaf (bit 7 is PS there).  The
 * memory type is whatever the caller programmed into that entry, so cache
 * types are encoded against a layout, never against fixed bits.
 */
#include <ptlab/pt.h>

static const uint8_t pat_code[PT_CACHE_COUNT] = {
	[PT_CACHE_WB] = PT_PAT_WB,
	[PT_CACHE_WT] = PT_PAT_WT,
	[PT_CACHE_UCM] = PT_PAT_UCM,
	[PT_CACHE_UC] = PT_PAT_UC,
	[PT_CACHE_WC] = PT_PAT_WC,
	[PT_CACHE_WP] = PT_PAT_WP,
};

static void pat_set(struct pt_pat *pat, const uint8_t t[8])
{
	for (unsigned i = 0; i < 8; i++)
		pat->type[i] = t[i];
}

void pt_pat_default(struct pt_pat *pat)
{
	static const uint8_t t[8] = { PT_PAT_WB, PT_PAT_WT, PT_PAT_UCM, PT_PAT_UC,
				      PT_PAT_WB, PT_PAT_WT, PT_PAT_UCM, PT_PAT_UC };

	pat_set(pat, t);
}

void pt_pat_ptlab(struct pt_pat *pat)
{
	/* Entries 0-3 as at power-on, so PAT=0 leaves mean the same under either layout. */
	static const uint8_t t[8] = { PT_PAT_WB, PT_PAT_WT, PT_PAT_UCM, PT_PAT_UC,
				      PT_PAT_WB, PT_PAT_WT, PT_PAT_WC, PT_PAT_WP };

	pat_set(pat, t);
}

uint64_t pt_pat_msr(const struct pt_pat *pat)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)(pat->type[i] & 7) << (8 * i);
	return v;
}

int pt_cache_bits(const struct pt_pat *pat, enum pt_cache cache, unsigned level,
		  uint64_t *bits)
{
	if ((unsigned)cache >= PT_CACHE_COUNT)
		return PT_EFLAGS;
	/* The lowest matching index, so WB/UC never need the PAT bit. */
	for (unsigned i = 0; i < 8; i++) {
		uint64_t b = 0;

		if (pat->type[i] != pat_code[cache])
			continue;
		if (i & 1)
			b |= PTE_PWT;
		if (i & 2)
			b |= PTE_PCD;
		if (i & 4)
			b |= level ? PTE_PAT_LARGE : PTE_PAT_4K;
		*bits = b;
		return PT_OK;
	}
	return PT_EFLAGS;
}

int pt_cache_of_entry(const struct pt_pat *pat, uint64_t entry, unsigned level)
{
	unsigned i = (entry & PTE_PWT ? 1 : 0) | (entry & PTE_PCD ? 2 : 0) |
		     (entry & (level ? PTE_PAT_LARGE : PTE_PAT_4K) ? 4 : 0);

	for (unsigned c = 0; c < PT_CACHE_COUNT; c++)
		if (pat_code[c] == pat->type[i])
			return (int)c;
	return -1;
}
