/* SPDX-License-Identifier: MIT */
/*
 * Frame allocator over a list of free physical ranges.
 *
 * One bit per 4 KiB frame of each range, in a bitmap the caller supplies
 * (pt_frames_bitmap_bytes() says how large).  Frames are zeroed through
 * phys_to_virt before they are handed out, unless pt_frames_set_zeroing()
 * turned that off.  Double frees and frees of frames never handed out are
 * refused with PT_EFRAME and change nothing.
 *
 * Its pt_frames_alloc / pt_frames_free fit struct pt_env's alloc_frame /
 * free_frame with the struct pt_frames as context (see pt_frames_env()).
 * pt_frames_env() also fixes the zeroing mode: set it with
 * pt_frames_set_zeroing() first, later changes are refused (PT_EINVAL).
 */
#ifndef PTLAB_FRAMES_H
#define PTLAB_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt.h"

#define PT_FRAMES_MAX_RANGES 256u

struct pt_frames_range {
	uint64_t pa;          /* 4 KiB aligned */
	uint64_t frames;      /* number of 4 KiB frames */
	uint64_t bit0;        /* index of its first frame in the bitmap */
};

struct pt_frames {
	struct pt_frames_range range[PT_FRAMES_MAX_RANGES];
	unsigned nranges;
	uint64_t *bitmap;     /* 1 = handed out */
	uint64_t total;       /* frames managed */
	uint64_t cursor;      /* next-fit position (bitmap index) */
	void *(*phys_to_virt)(void *ctx, uint64_t pa);
	void *p2v_ctx;

	/* counters */
	uint64_t allocated;   /* successful single-frame allocations + frames in runs */
	uint64_t freed;
	uint64_t in_use;
	uint64_t peak;
	uint64_t failed;      /* allocations refused (exhausted or injected) */
	uint64_t bad_frees;   /* refused frees */

	/* failure injection: when non-zero, the fail_at-th allocation from now fails */
	uint64_t fail_at;

	/* pt_frames_alloc hands frames out as they are (pt_frames_set_zeroing) */
	bool dirty;
	/* pt_frames_env() copied @dirty into an env: the zeroing mode is fixed */
	bool env_bound;
};

/*
 * Bytes of bitmap needed for @n ranges (pa, len in bytes; unaligned edges are
 * trimmed inwards to whole frames).
 */
size_t pt_frames_bitmap_bytes(const struct pt_range *ranges, unsigned n);

/*
 * Initialise @f over @n physical ranges ([va field = pa, len]) with @bitmap of
 * @bitmap_bytes.  Unaligned edges are trimmed to whole frames; empty ranges
 * dropped.  PT_EINVAL (overlapping ranges, too many ranges, NULL callback),
 * PT_ECAPACITY (bitmap too small).  On error @f is left untouched.
 */
int pt_frames_init(struct pt_frames *f, const struct pt_range *ranges, unsigned n,
		   uint64_t *bitmap, size_t bitmap_bytes,
		   void *(*phys_to_virt)(void *ctx, uint64_t pa), void *p2v_ctx);

/*
 * A frame, zeroed unless zeroing is off: PT_OK, or PT_ENOMEM (exhausted or
 * injected failure).
 */
int pt_frames_alloc(void *f, uint64_t *pa);

/*
 * Whether pt_frames_alloc zeroes the frames it hands out (@zero true, the
 * default after pt_frames_init) or hands them out with whatever they hold
 * and never calls phys_to_virt.
 *
 * Choose the mode BEFORE pt_frames_env(): that call copies it into the
 * env's frames_dirty, and from then on a change is refused with PT_EINVAL
 * and nothing changed (a library that expects zeroed frames and gets dirty
 * ones builds corrupt tables).  Asking for the mode already set is PT_OK.
 * An env filled by hand (not by pt_frames_env) is the caller's to keep in
 * step.
 */
int pt_frames_set_zeroing(struct pt_frames *f, bool zero);

/* Return a frame; counts a bad free (and changes nothing else) when refused. */
void pt_frames_free(void *f, uint64_t pa);

/* As pt_frames_free, with the verdict: PT_OK or PT_EFRAME. */
int pt_frames_free_checked(struct pt_frames *f, uint64_t pa);

/*
 * A naturally aligned run of @size bytes (2 MiB or 1 GiB; 4 KiB also works)
 * of free frames, marked in use but NOT zeroed (too slow for 1 GiB; callers
 * zero what they use).  PT_ENOMEM when no such run exists.
 */
int pt_frames_alloc_run(struct pt_frames *f, uint64_t size, uint64_t *pa);

/* Return a run obtained from pt_frames_alloc_run (PT_EFRAME if not one). */
int pt_frames_free_run(struct pt_frames *f, uint64_t pa, uint64_t size);

/* Is @pa inside the managed ranges?  Is it currently handed out? */
bool pt_frames_contains(const struct pt_frames *f, uint64_t pa);
bool pt_frames_in_use(const struct pt_frames *f, uint64_t pa);

/* Fail the @n-th allocation from now (1 = the next one); 0 disarms. */
void pt_frames_fail_nth(struct pt_frames *f, uint64_t n);

/* Frames currently free. */
uint64_t pt_frames_available(const struct pt_frames *f);

/*
 * Fill @env's ctx, alloc_frame, free_frame and phys_to_virt from @f, and set
 * frames_dirty when @f does not zero frames (cleared otherwise); the caller
 * sets flush, maxphyaddr, has_1g, pat and the p2v_linear fields.  Fixes
 * @f's zeroing mode for good: pt_frames_set_zeroing() refuses changes
 * afterwards, so @env's frames_dirty never goes stale.
 */
void pt_frames_env(struct pt_frames *f, struct pt_env *env);

#endif /* PTLAB_FRAMES_H */
