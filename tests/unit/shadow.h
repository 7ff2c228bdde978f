/* SPDX-License-Identifier: MIT */
/*
 * Shadow address space: an independent model of what pt.h promises.
 *
 * The model knows nothing about tables or leaf sizes.  It keeps a sorted
 * array of non-overlapping runs [va, va + len) -> (pa, attrs) - the
 * churn's model (efi/lib/model.c) does the interval work, in storage that
 * grows here - merged whenever two neighbours continue each other (va and
 * pa contiguous, same attributes), so two models describing the same
 * translations have equal arrays.  It predicts the result of pt_map / pt_unmap / pt_protect /
 * pt_remap from the documented check order (pt.h, "Checks run in this
 * order"), except PT_EBLOCKED and PT_ENOMEM: those depend on leaf sizes and
 * on the frame allocator, which the model does not see.  PT_NOSPLIT is
 * accepted and ignored.
 *
 * A failing call changes nothing, as the library promises.
 */
#ifndef PTLAB_TEST_SHADOW_H
#define PTLAB_TEST_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "../../efi/lib/model.h"

/* Runs are struct model_run; here attrs holds PT_ATTR_MASK bits only. */
struct shadow {
	struct model_run *run;
	size_t n;
	size_t cap;
	unsigned levels;      /* 4 or 5: 48- or 57-bit canonical addresses */
	unsigned maxphyaddr;
	struct pt_pat pat;    /* cache types without a PAT entry are PT_EFLAGS */
};

void shadow_init(struct shadow *m, unsigned levels, unsigned maxphyaddr,
		 const struct pt_pat *pat);
void shadow_fini(struct shadow *m);
/* Make @dst an independent copy of @src (dst initialised or zeroed). */
void shadow_copy(struct shadow *dst, const struct shadow *src);

/* Predicted result of the call; on PT_OK the model has been changed. */
int shadow_map(struct shadow *m, uint64_t va, uint64_t pa, uint64_t len,
	       unsigned flags);
int shadow_unmap(struct shadow *m, uint64_t va, uint64_t len, unsigned opts);
int shadow_protect(struct shadow *m, uint64_t va, uint64_t len, unsigned flags);
int shadow_remap(struct shadow *m, uint64_t va, uint64_t len, uint64_t new_pa,
		 unsigned opts);

/* Same checks without changing the model. */
int shadow_check_map(const struct shadow *m, uint64_t va, uint64_t pa,
		     uint64_t len, unsigned flags);
int shadow_check_unmap(const struct shadow *m, uint64_t va, uint64_t len,
		       unsigned opts);
int shadow_check_protect(const struct shadow *m, uint64_t va, uint64_t len,
			 unsigned flags);
int shadow_check_remap(const struct shadow *m, uint64_t va, uint64_t len,
		       uint64_t new_pa, unsigned opts);

/* Is @va mapped?  Then *pa (of @va itself) and *attrs when non-NULL. */
bool shadow_lookup(const struct shadow *m, uint64_t va, uint64_t *pa,
		   unsigned *attrs);
/* The run holding @va, or NULL. */
const struct model_run *shadow_run_at(const struct shadow *m, uint64_t va);
/* Bytes of [va, va + len) that are mapped. */
uint64_t shadow_mapped_bytes(const struct shadow *m, uint64_t va, uint64_t len);
/* Is @va canonical for the model's level count? */
bool shadow_canonical(const struct shadow *m, uint64_t va);

/*
 * Call @fn for every maximal range where @a and @b translate differently
 * (mapped or not, pa, attrs), in VA order; @fn gets the state in each model
 * (attrs -1 when unmapped).  A non-zero return stops and is returned.
 */
typedef int (*shadow_diff_fn)(void *arg, uint64_t va, uint64_t len,
			      int attrs_a, int attrs_b);
int shadow_diff(const struct shadow *a, const struct shadow *b,
		shadow_diff_fn fn, void *arg);

/* Internal consistency: sorted, non-overlapping, maximally merged. */
bool shadow_sane(const struct shadow *m);

#endif
