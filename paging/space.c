/* SPDX-License-Identifier: MIT */
/*
 * A space's life and what every changing call checks before it walks:
 * pt_env_check, pt_create, pt_destroy, pt_table_count, and the argument
 * checks of map, unmap, protect and remap (pt_check_flags, pt_check_args).
 */
#include <ptlab/pt.h>

#include <string.h>

#include "pt_internal.h"

/* ---- argument checks ---------------------------------------------------------- */

int pt_check_flags(unsigned flags, unsigned allowed)
{
	if (flags & ~allowed)
		return PT_EFLAGS;
	if (PT_CACHE_OF(flags) >= PT_CACHE_COUNT)
		return PT_EFLAGS;
	if ((flags & PT_WRITE) && (flags & PT_EXEC) && !(flags & PT_ALLOW_WX))
		return PT_EFLAGS;
	return PT_OK;
}

static int check_va(const struct pt_space *s, uint64_t va)
{
	if (!pt_canonical(va, s->levels))
		return PT_ENONCANON;
	if (va & (PT_PAGE_SIZE - 1))
		return PT_EALIGN_VA;
	return PT_OK;
}

static int check_len(const struct pt_space *s, uint64_t va, uint64_t len)
{
	uint64_t last = va + len - 1;

	if (len & (PT_PAGE_SIZE - 1))
		return PT_EALIGN_LEN;
	if (!len || last < va)
		return PT_ELEN;
	if (!pt_canonical(last, s->levels) || (int64_t)(va ^ last) < 0)
		return PT_ENONCANON;
	return PT_OK;
}

static int check_pa(const struct pt_space *s, uint64_t pa, uint64_t len)
{
	uint64_t last = pa + len - 1;

	if (last < pa)
		return PT_ELEN;
	if (s->env->maxphyaddr < 64 && (last >> s->env->maxphyaddr))
		return PT_EPHYS;
	return PT_OK;
}

/*
 * Check everything but the tables, in the documented order; @pa is ignored
 * unless @has_pa.
 */
int pt_check_args(const struct pt_space *s, uint64_t va, uint64_t len,
		  bool has_pa, uint64_t pa)
{
	int err = check_va(s, va);

	if (!err && has_pa && (pa & (PT_PAGE_SIZE - 1)))
		err = PT_EALIGN_PA;
	if (!err)
		err = check_len(s, va, len);
	if (!err && has_pa)
		err = check_pa(s, pa, len);
	return err;
}

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
