/* SPDX-License-Identifier: MIT */
/*
 * A space's life: pt_env_check, pt_create, pt_destroy, pt_table_count.
 */
#include <ptlab/pt.h>

#include <string.h>

#include "entry.h"

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
