/* SPDX-License-Identifier: MIT */
/*
 * The entry helpers every file of the page tables reads entries with
 * (pt.c, bulk.c, flush.c, query.c, space.c): the table access, a leaf's
 * address and permission bits, an intermediate entry, a live space.
 * Inline only: including it adds no call between files.  Not installed.
 */
#ifndef PTLAB_PAGING_ENTRY_H
#define PTLAB_PAGING_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "internal.h"

/*
 * The table at @pa: pa + p2v_offset with a linear mapping, else what
 * phys_to_virt says.  Every table access of these files goes through here.
 */
static inline uint64_t *tab(const struct pt_env *env, uint64_t pa)
{
	if (env->p2v_linear)
		return (uint64_t *)(uintptr_t)(pa + env->p2v_offset);
	return env->phys_to_virt(env->ctx, pa);
}

/* ---- entries ---------------------------------------------------------- */

static inline bool is_leaf(uint64_t e, unsigned level)
{
	return level == 0 || (e & PTE_PS);
}

/* Address bits of a leaf at @level (a large leaf's low bits hold PAT and reserved bits). */
static inline uint64_t leaf_addr_mask(unsigned level)
{
	return PTE_ADDR_MASK & ~(pt_level_size(level) - 1);
}

/*
 * The leaf bit each PT_* permission stands for.  XD is the one inverted:
 * PT_EXEC is its absence, so both directions work on e ^ PTE_NX.
 */
static const struct { unsigned flag; uint64_t bit; } pt_perm_bits[] = {
	{ PT_WRITE, PTE_W }, { PT_USER, PTE_US }, { PT_GLOBAL, PTE_G }, { PT_EXEC, PTE_NX },
};

/* The W, U/S, G and XD bits of a leaf with the PT_* permissions @flags. */
static inline uint64_t perm_bits(unsigned flags)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < sizeof(pt_perm_bits) / sizeof(pt_perm_bits[0]); i++)
		b |= flags & pt_perm_bits[i].flag ? pt_perm_bits[i].bit : 0;
	return b ^ PTE_NX;
}

/* The PT_* permissions of leaf @e (perm_bits undone). */
static inline unsigned perm_flags(uint64_t e)
{
	unsigned f = 0;

	e ^= PTE_NX;
	for (unsigned i = 0; i < sizeof(pt_perm_bits) / sizeof(pt_perm_bits[0]); i++)
		f |= e & pt_perm_bits[i].bit ? pt_perm_bits[i].flag : 0;
	return f;
}

/* Intermediate entries are permissive; leaves carry the permissions. */
static inline uint64_t table_entry(uint64_t pa, bool user)
{
	return pa | PTE_P | PTE_W | (user ? PTE_US : 0);
}

/* Is @s a space pt_create made (and pt_destroy has not undone)? */
static inline bool space_ok(const struct pt_space *s)
{
	return s && s->env && s->root_pa && (s->levels == 4 || s->levels == 5);
}

#endif
