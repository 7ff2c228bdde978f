/* SPDX-License-Identifier: MIT */
/*
 * How the churn judges each call (churnjudge.c): by the software walk at
 * the call's key points and by the CPU at a sampled page, against the
 * shadow model; the first disagreement is the churn's failure.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_CHURNJUDGE_H
#define PTLAB_EFI_CHURNJUDGE_H

#include <stdint.h>

#include "checks/churnctx.h"

/*
 * The churn's failure: @what at @va, @want expected and @got observed,
 * reported once (the first one) with the seed and op that replay it.
 */
void churn_fail(const struct churn_ctx *cc, const char *what, uint64_t va, uint64_t want,
		uint64_t got);

/* pt_translate at @va against the model: frame, attributes, or nothing mapped. */
void churn_key_point(const struct churn_ctx *cc, uint64_t va);
/* churn_key_point at [va, va+len)'s first and last page and the pages just outside. */
void churn_key_points(const struct churn_ctx *cc, uint64_t va, uint64_t len);

/*
 * The CPU at the page of @va against the model: a pattern through both
 * aliases, or the fault an unmapped, read-only or NX page must raise.
 */
void churn_sample(const struct churn_ctx *cc, uint64_t va);

#endif
