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

/**
 * pt_frames_bitmap_bytes - bitmap storage pt_frames_init needs
 * @ranges: physical ranges (va field = pa, len in bytes)
 * @n: number of ranges
 *
 * Returns the bytes of bitmap for the frames left after trimming each range
 * inwards to whole frames (empty and wrapping ranges count nothing), padding
 * included.  0 when no frame is left.
 */
size_t pt_frames_bitmap_bytes(const struct pt_range *ranges, unsigned n);

/**
 * pt_frames_init - set up a frame allocator
 * @f: allocator to initialise
 * @ranges: free physical ranges, va field = pa, len in bytes (any order)
 * @n: number of ranges, at most PT_FRAMES_MAX_RANGES
 * @bitmap: caller storage, pt_frames_bitmap_bytes(@ranges, @n) bytes
 * @bitmap_bytes: its size
 * @phys_to_virt: where a frame can be written (to zero it)
 * @p2v_ctx: context for @phys_to_virt
 *
 * Unaligned edges are trimmed inwards to whole frames, empty ranges dropped;
 * the ranges are kept sorted by address.  Returns PT_OK, PT_EINVAL (NULL
 * argument, too many ranges, a range wrapping past 2^64, two ranges sharing
 * a byte) or PT_ECAPACITY (bitmap too small).  On error neither @f nor
 * @bitmap is written.
 */
int pt_frames_init(struct pt_frames *f, const struct pt_range *ranges, unsigned n,
		   uint64_t *bitmap, size_t bitmap_bytes,
		   void *(*phys_to_virt)(void *ctx, uint64_t pa), void *p2v_ctx);

/**
 * pt_frames_alloc - hand out one 4 KiB frame, zeroed unless zeroing is off
 * @f: the struct pt_frames (void * to fit struct pt_env)
 * @pa: receives the frame's physical address
 *
 * Next fit from the frame after the last one handed out.  Returns PT_OK, or
 * PT_ENOMEM when every frame is in use, an injected failure is due, or
 * (when zeroing) phys_to_virt gave no address to zero the frame through.
 * On failure only the 'failed' counter (and the injection countdown)
 * changes; *@pa is not written.
 */
int pt_frames_alloc(void *f, uint64_t *pa);

/**
 * pt_frames_set_zeroing - zero frames before handing them out, or not
 * @f: allocator
 * @zero: true (the default) to zero them
 *
 * With zeroing off, pt_frames_alloc neither writes nor maps the frame
 * (never calls phys_to_virt); the user (struct pt_env with frames_dirty)
 * clears what it needs.  Choose the mode BEFORE pt_frames_env(): once it
 * has copied the mode into an env, a change would leave that env's
 * frames_dirty wrong (a library that expects zeroed frames and gets dirty
 * ones builds corrupt tables), so it is refused: PT_EINVAL, nothing
 * changed.  Asking for the current mode is always PT_OK.  An env filled by
 * hand (not by pt_frames_env) is the caller's to keep in step.
 */
int pt_frames_set_zeroing(struct pt_frames *f, bool zero);

/**
 * pt_frames_free - return one frame (struct pt_env free_frame)
 * @f: the struct pt_frames (void * to fit struct pt_env)
 * @pa: the frame's address
 *
 * As pt_frames_free_checked, with the verdict only counted in 'bad_frees'.
 */
void pt_frames_free(void *f, uint64_t pa);

/**
 * pt_frames_free_checked - return one frame
 * @f: allocator
 * @pa: the frame's address as handed out
 *
 * Returns PT_OK, or PT_EFRAME when @pa is unaligned, outside the managed
 * ranges or not handed out (double free); then only 'bad_frees' changes.
 */
int pt_frames_free_checked(struct pt_frames *f, uint64_t pa);

/**
 * pt_frames_alloc_run - hand out a naturally aligned run of frames
 * @f: allocator
 * @size: PT_SIZE_4K, PT_SIZE_2M or PT_SIZE_1G
 * @pa: receives the run's physical address (a multiple of @size)
 *
 * First fit from the lowest address; the frames are marked in use but not
 * zeroed.  Counts as one allocation for pt_frames_fail_nth.  Returns PT_OK,
 * PT_EINVAL (other sizes; nothing changes), or PT_ENOMEM (no free aligned
 * run, or an injected failure: only 'failed' changes).
 */
int pt_frames_alloc_run(struct pt_frames *f, uint64_t size, uint64_t *pa);

/**
 * pt_frames_free_run - return a run from pt_frames_alloc_run
 * @f: allocator
 * @pa: the run's address
 * @size: its size
 *
 * Returns PT_OK, or PT_EFRAME when @size is not a run size, @pa not aligned
 * to it, the run not inside one managed range or any of its frames not in
 * use; then only 'bad_frees' changes.
 */
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
