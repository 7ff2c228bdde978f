/* SPDX-License-Identifier: MIT */
/*
 * --inject=FAULT,...: one test-only fault per check, so that a test can show
 * each check failing (docs/faults.md, "Which fault proves which check";
 * tests/boot/faults.tsv is the table).  Every function here does nothing
 * unless its fault was asked for.  A fault that changes the tables or the
 * CPU state is planted by inject_begin() right before the check it names
 * and taken back by inject_end() right after it, so no other check sees it.
 */
#ifndef PTLAB_EFI_INJECT_H
#define PTLAB_EFI_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "opts/opts.h"

struct ptlab;

/* Whether the run was asked for fault @v. */
bool inject_on(const struct ptlab *p, enum opts_inject v);

/*
 * Plant fault @v (when asked for).  @arg is what the fault needs to know
 * of the check: the va of the page it changes, or 0.
 */
void inject_begin(struct ptlab *p, enum opts_inject v, uint64_t arg);

/* Take fault @v back: tables, frames and CR3 as before inject_begin(). */
void inject_end(struct ptlab *p, enum opts_inject v);

/*
 * --inject=canonical-probe: @va made canonical at the run's paging levels
 * (the probe then meets a #PF or a mapping, not #GP); @va otherwise.
 */
uint64_t inject_canonical(const struct ptlab *p, uint64_t va);

/* --inject=la57-refuse|la57-refuse-later: why the next switch is refused, or NULL. */
const char *inject_la57_refusal(const struct ptlab *p);

#endif
