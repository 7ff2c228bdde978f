/* SPDX-License-Identifier: MIT */
/*
 * The churn's memory types (churntype.c): the type a change may give
 * frames, the typed window taken out of our identity map and HHDM and put
 * back, and the audit of the rule on the scratch windows.  Firmware-free.
 */
#ifndef PTLAB_EFI_CHURNTYPE_H
#define PTLAB_EFI_CHURNTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

#include "checks/churnctx.h"
#include "state/state.h"

/*
 * The attributes a change of VA [va, va+len) to frames [pa, pa+len) may
 * have: *@attrs, made write-back outside the typed window or the type the
 * frames already have elsewhere.  False when no type fits.
 */
bool churn_fit_type(const struct churn_ctx *cc, uint64_t va, uint64_t len, uint64_t pa,
		    unsigned *attrs);

/*
 * [va, va+len) (the typed window's identity or HHDM alias) out of @sp,
 * how it was mapped kept in @o; false when it was mapped unevenly or the
 * unmap failed (it then stays).
 */
bool churn_typed_take_out(struct pt_space *sp, uint64_t va, uint64_t len,
			  struct ptlab_churn_typed *o);
/* [va, va+len) mapped again as @o says it was. */
void churn_typed_put_back(const struct churn_ctx *cc, uint64_t va, uint64_t len,
			  const struct ptlab_churn_typed *o);
/* The large leaf @o's window was taken from, whole again. */
void churn_typed_merge(const struct churn_ctx *cc, const struct ptlab_churn_typed *o);

/* The memory-type rule on every leaf of the scratch windows; its counts into cc->c. */
void churn_audit_types(const struct churn_ctx *cc);

#endif
