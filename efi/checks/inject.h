/* SPDX-License-Identifier: MIT */
/*
 * --inject=FAULT,...: one test-only fault per check, so that a test can show
 * each check failing (tests/boot/faults.tsv says which boot does).  A check's fault
 * is part of its registry entry (registry.h): its name, what it breaks and
 * how it is planted.  Every function here does nothing unless the fault
 * was asked for.  A fault that changes the tables or the CPU state is
 * planted by inject_begin() - from the runner right before its check, or
 * from the check's body - and taken back by inject_end() right after it, so
 * no other check sees it.
 */
#ifndef PTLAB_EFI_INJECT_H
#define PTLAB_EFI_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "checks/registry.h"

struct opts;

/* Whether the run was asked for @c's fault. */
bool inject_on(const struct opts *o, const struct ptlab_check *c);

/*
 * Plant @c's fault (when asked for) with its plant function.  @arg is what
 * the fault needs to know of the check: the va of the page it changes, or 0.
 */
void inject_begin(struct check_run *run, const struct ptlab_check *c, uint64_t arg);

/* Take @c's fault back: tables, frames and CR3 as before inject_begin(). */
void inject_end(struct check_run *run, const struct ptlab_check *c);

/*
 * The changes a plant function makes to the run's tables (run->build),
 * each recorded in run->inject so that inject_end(run, @c) takes it back;
 * 0 when done, -1 when not made.
 */

/* Give the page at @va the attributes @flags (W, X, ...). */
int inject_protect(struct check_run *run, const struct ptlab_check *c, uint64_t va,
		   unsigned flags);

/*
 * Point the page at @va at a pool frame holding the complement of every
 * byte its own frame holds, so any read through @va differs.
 */
int inject_remap(struct check_run *run, const struct ptlab_check *c, uint64_t va);

/*
 * Map the unmapped page at @va to @pa, or to a pool frame of its own when
 * @pa is 0 (given back with the mapping), with @flags.
 */
int inject_map(struct check_run *run, const struct ptlab_check *c, uint64_t va, uint64_t pa,
	       unsigned flags);

/* Set @bits in entry @index of our root (the whole TLB is flushed both ways). */
int inject_root_bits(struct check_run *run, const struct ptlab_check *c, unsigned index,
		     uint64_t bits);

/*
 * Load a copy of our root, in a pool frame, into CR3: the same
 * translations under another root (inject_end loads ours again).
 */
int inject_root_copy(struct check_run *run, const struct ptlab_check *c);

#endif
