/* SPDX-License-Identifier: MIT */
/*
 * A software shadow of an address space for the on-machine churn: a sorted
 * array of non-overlapping runs [va, va + len) -> (pa, attrs), kept by its
 * own code, independent of paging/.  It knows nothing of tables or leaf
 * sizes; it is what the churn believes it asked for.  The host tests'
 * shadow of pt.h (tests/unit/shadow.c) keeps its runs in a model too.
 *
 * Firmware-free, no allocation: the caller supplies the run storage.
 */
#ifndef PTLAB_EFI_MODEL_H
#define PTLAB_EFI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

struct model_run {
	uint64_t va;
	uint64_t len;
	uint64_t pa;          /* physical address of va */
	unsigned attrs;       /* PT_* attributes */
};

struct model {
	struct model_run *run;
	unsigned n, cap;
};

void model_init(struct model *m, struct model_run *storage, unsigned cap);

/*
 * Make [va, va+len) unmapped (@mapped false) or mapped to @pa with @attrs.
 * Returns 0, or -1 when the run storage is full (nothing changed).
 */
int model_set(struct model *m, uint64_t va, uint64_t len, bool mapped, uint64_t pa,
	      unsigned attrs);

/* The run holding @va, or NULL. */
const struct model_run *model_find(const struct model *m, uint64_t va);

/* The first run that ends above @va (holding it or after it), or NULL. */
const struct model_run *model_next(const struct model *m, uint64_t va);

/*
 * Join neighbours that continue each other (va and pa contiguous, same
 * attributes), so two models of the same translations have equal arrays.
 * model_set never merges on its own.
 */
void model_merge(struct model *m);

/* Bytes of [va, va+len) that are mapped. */
uint64_t model_mapped_bytes(const struct model *m, uint64_t va, uint64_t len);

#endif /* PTLAB_EFI_MODEL_H */
