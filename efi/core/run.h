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

/* Descriptors of room added when a map buffer grows, for our own allocations. */
#define RUN_MAP_SLACK_DESC 16u

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
/* Normalize @m into @map (the run's build.map) for a CPU of @maxphyaddr bits; pt_memmap_normalize's result. */
int run_normalize(struct pt_memmap *map, unsigned maxphyaddr, const struct rawmap *m);
/* @img (the run's build.image) from the loaded image @li and the linker's section symbols. */
void run_describe_image(struct pt_image *img, EFI_LOADED_IMAGE *li);
/* The plan for p->build.map with the run's capabilities; the W^X exemption list emptied. */
int run_plan(struct ptlab *p);
/* The frame pool for the plan's tables and the checks (boot services). */
int run_setup_pool(struct ptlab *p);
/* The data area and the typed window (boot services). */
int run_setup_data(struct ptlab *p);
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
