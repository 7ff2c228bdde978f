/* SPDX-License-Identifier: MIT */
/* Randomized churn of the live hierarchy (churn.c). */
#ifndef PTLAB_EFI_CHURN_H
#define PTLAB_EFI_CHURN_H

#include <stdbool.h>
#include <stdint.h>

#include "state/state.h"

/*
 * The churn keeps its state in p->churn (struct ptlab_churn, state.h).
 * Reset it for p->opts.seed / p->opts.iterations (firmware CR3).
 */
void churn_start(struct ptlab *p);
/* Run operations for about a second of live time (our CR3; via ptlab_live). */
int churn_slice(struct ptlab *p);
/* CPU samples taken so far (each one a check the CPU decided). */
uint64_t churn_samples(const struct ptlab *p);

/* Where the churn is: counts of its calls and how an --inject went. */
struct churn_stats {
	uint64_t op, ops;            /* ops started (the one it stopped in counts), ops asked */
	uint64_t maps, unmaps, protects, remaps, refused;
	uint64_t inject_at;          /* --inject: the first op that may damage something */
	uint64_t inject_op;          /* the op of the last "inject:" note (UINT64_MAX: none) */
	bool failed, done, injected;
};
void churn_stats(const struct ptlab *p, struct churn_stats *s);
/* Operations left and nothing failed? */
bool churn_running(const struct ptlab *p);
/* A "# progress:" line. */
void churn_progress(struct ptlab *p, uint64_t elapsed_us);
/* Unmap the scratch windows, check tables and frames came back, report (live). */
int churn_finish(struct ptlab *p);

/*
 * After churn_finish, with our tables not live (their identity map is what
 * reaches them): the large identity and HHDM leaves that held the typed
 * window are put back whole, so the tree is again the one built.
 */
void churn_merge_back(struct ptlab *p);

#endif
