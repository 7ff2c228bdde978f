/* SPDX-License-Identifier: MIT */
/*
 * The pipeline every mode shares (run.c): the run's start, the memory map,
 * the plan, the frame pool and the data area, the build and every check on
 * it, the churn, the facts, the frames and the time at the end.  The modes
 * (fwmode.c, handoff.c, linux.c) call down into it; where they differ it
 * calls through p->mode (state/mode.h), never a mode's file by name.
 * Functions that call firmware say so (boot services needed); the others
 * make no firmware call of their own.
 */
#ifndef PTLAB_EFI_RUN_H
#define PTLAB_EFI_RUN_H

#include <efi.h>
#include <efilib.h>

#include "state/state.h"

/*
 * Descriptors of room for what the memory map gains after a look at it:
 * a buffer sized from one map must hold a later one.  Every allocation of
 * ours may split a free range, adding up to two descriptors, and the
 * firmware's pool may grow with it.  Between the first look, which sizes
 * the run's buffers (run_prepare), and the final map, a hand-off makes
 * some 30 allocations (the map and plan buffers, the final map, the stack,
 * the RAM bitmap, the frame pool, the data area, the typed window, the
 * 5-level trampoline, a kernel's copy, its stacks and responses, up to 8
 * initrds and 16 modules); firmware mode makes fewer.  16 (the firmware
 * mode's old figure) could run out in a hand-off with modules; 64 holds
 * 32 allocations that each split a range in the middle, for some KiB.
 */
#define RUN_MAP_SLACK_DESC 64u

/*
 * CPU facts, the environment, the TSC (Stall: boot services needed) and the
 * deadline from @t0; the run's boot protocols @protos (NULL-ended) kept in
 * p->protos; the NX requirement and the paging levels (with --kernel and
 * no --levels, a protocol's levels() may choose them: live/la57.h's
 * la57_levels).  False when the run cannot go on (reported).
 */
struct kernel_proto;

bool run_start(struct ptlab *p, uint64_t t0, EFI_LOADED_IMAGE *li,
	       const struct kernel_proto *const *protos);
/* GetMemoryMap into @m, growing its buffer on EFI_BUFFER_TOO_SMALL (boot services). */
EFI_STATUS run_get_map(struct rawmap *m);
/* --dump-memmap: the raw descriptors of @m as "# memmap-raw:" notes on @rep. */
void run_dump_raw_map(struct report *rep, const struct rawmap *m);

/*
 * What a mode does between the map's normalization and the plan (the
 * hand-off's buffers for after ExitBootServices, its protocol's load):
 * @map_cap is the range count p->build.map holds.  PT_OK, or an error
 * run_prepare() returns as it is.
 */
typedef int (*run_between_fn)(struct ptlab *p, const struct mode_boot *b, const struct rawmap *m,
			      unsigned map_cap);

/**
 * run_prepare() - the preparation of a run, the same in every mode
 * @b:       the boot (the loaded image)
 * @m:       the raw map, its buffer grown as needed (the caller frees it)
 * @between: NULL, or the mode's step after the normalization
 * @failed:  on an error, the step that failed, for the report
 *
 * In this order: the map (GetMemoryMap); the map and plan buffers sized
 * from it, with RUN_MAP_SLACK_DESC descriptors of room, in this one place;
 * the image described (p->build.image); the map normalized
 * (p->build.map); @between; the plan for the map with the run's
 * capabilities (the W^X exemption list emptied); the frame pool for its
 * tables and the checks; the data area and the typed window.  Boot
 * services needed.
 *
 * Return: PT_OK, or the error of step *@failed (PT_EMAPBAD when
 * GetMemoryMap failed); nothing is reported here.
 */
int run_prepare(struct ptlab *p, const struct mode_boot *b, struct rawmap *m,
		run_between_fn between, const char **failed);
/*
 * A digest of every leaf of @s (va, pa, size, attributes) in VA order, and
 * their number in *@leaves: two builds with the same translations have the
 * same digest.  run_build_and_check() keeps the build's in p->build.
 */
uint64_t run_digest(const struct pt_space *s, uint64_t *leaves);

/*
 * Build the plan into a fresh hierarchy, run every check on it (live phases
 * through ptlab_live), churn, tear it down.  Boot services are needed in
 * firmware mode only (the SMP checks, through MP services).  @m: the map
 * the plan came from, for the facts.
 */
void run_build_and_check(struct ptlab *p, const struct rawmap *m);
/* The frames test point and the "# frames:" and "# time:" facts (@t0: the run's start). */
void run_report_frames_and_time(struct ptlab *p, uint64_t t0);

/*
 * The pipeline from the final memory map @m on, one sequence for every
 * mode: @m normalized into the run's map (--dump-memmap: its raw
 * descriptors), @frames (NULL: the pool's frames stay the run's) given
 * the normalized map to set the frame allocator up from, the plan with
 * the mode's own step after it (p->mode->plan: a kernel's ranges), the
 * table count it needs against the frames there are, the build and its
 * checks, the facts of frames and time from @t0, and the mode's
 * after_checks (a kernel's hand-over).  Each failure is reported and ends
 * the sequence; nothing is given back here (the mode's end does).
 */
void run_from_final_map(struct ptlab *p, const struct rawmap *m, uint64_t t0,
			int (*frames)(struct ptlab *p));
/*
 * Firmware mode, at the end: give back what run_setup_pool and
 * run_setup_data allocated (in the run's @b and @d), the map's and the
 * plan's buffers and the LA57 trampoline (@live's) (boot services).
 */
void run_release(struct ptlab_build *b, const struct ptlab_data *d, struct ptlab_live *live);

#endif
