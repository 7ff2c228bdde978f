/* SPDX-License-Identifier: MIT */
/*
 * What the churn's files (churn.c, churnjudge.c, churntype.c) share: the
 * context an entry point makes of the run, the scratch windows, and where a
 * frame comes from (our data area, the typed window) with its memory type.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_CHURNCTX_H
#define PTLAB_EFI_CHURNCTX_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "state/state.h"

/* The two scratch windows the churn works in, each WINDOW bytes. */
#define WINDOW           PTLAB_SCRATCH_BYTES

static const uint64_t window_base[2] = { PTLAB_SCRATCH_LOW, PTLAB_SCRATCH_HIGH };

/*
 * What the churn works on: the parts of the run it reads or changes,
 * made from the run by churn_ctx_of() at each entry point.  Between entry
 * points the churn's state lives in @c (the run's own), never here.
 */
struct churn_ctx {
	struct ptlab_churn *c;       /* its sequence, shadow model and counts */
	struct ptlab_build *b;       /* the live hierarchy, its frame pool and environment */
	struct ptlab_data *d;        /* the frames mappings point at (typed_len may drop to 0) */
	const struct opts *o;        /* --seed, --inject, --fail-alloc */
	struct report *rep;
	const struct ptlab_wx *wx;   /* W+X exemptions, for putting back what it took out */
};

/* ---- where frames come from ---- */

/* Is @pa in the data area (our frames, written through test mappings)? */
static inline bool in_data(const struct ptlab_data *d, uint64_t pa)
{
	return pa >= d->pa && pa - d->pa < d->len;
}

/* Is all of [pa, pa+len) in the typed window (false when there is none)? */
static inline bool in_typed(const struct ptlab_data *d, uint64_t pa, uint64_t len)
{
	return d->typed_len && pa >= d->typed_pa && pa + len <= d->typed_pa + d->typed_len;
}

/* Does [pa, pa+len) share a frame with the typed window? */
static inline bool touches_typed(const struct ptlab_data *d, uint64_t pa, uint64_t len)
{
	return d->typed_len && pa < d->typed_pa + d->typed_len && d->typed_pa < pa + len;
}

static inline enum pt_cache cache_of(unsigned attrs)
{
	return PT_CACHE_OF(attrs);
}

static inline unsigned with_cache(unsigned attrs, enum pt_cache t)
{
	return (attrs & ~PT_CACHE_MASK) | PT_CACHE(t);
}

/* Our memory at @pa, through the environment (the identity map in the app). */
static inline void *phys(const struct ptlab_build *b, uint64_t pa)
{
	return b->env.phys_to_virt(b->env.ctx, pa);
}

#endif
