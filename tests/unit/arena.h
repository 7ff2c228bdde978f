/* SPDX-License-Identifier: MIT */
/*
 * Simulated physical memory for host tests.
 *
 * A block of host memory stands for physical [ARENA_BASE, ARENA_BASE + size).
 * ARENA_BASE is not zero, so a physical address used as a pointer lands
 * outside any allocation and ASan reports it.  Frames come from the library's
 * own frame allocator (paging/frames.c) over that range.
 */
#ifndef PTLAB_TEST_ARENA_H
#define PTLAB_TEST_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include <ptlab/frames.h>
#include <ptlab/pt.h>

#define ARENA_BASE UINT64_C(0x0000004200000000)

struct arena {
	uint8_t *mem;
	uint64_t base;
	uint64_t size;
	struct pt_frames frames;
	uint64_t *bitmap;
	struct pt_env env;
	unsigned flushes;          /* env->flush calls seen */
	struct pt_flushlist last_flush;
};

/* An arena of @frames 4 KiB frames; env with maxphyaddr 46, 1 GiB pages, default PAT. */
void arena_init(struct arena *a, uint64_t frames);
void arena_fini(struct arena *a);

/* Host pointer for a physical address inside the arena (aborts outside). */
void *arena_p2v(void *ctx, uint64_t pa);

/*
 * Snapshot of every table byte of @s (A/D masked), the space's stats and the
 * allocator counters, to compare before/after a failing call.
 */
struct arena_snap {
	uint64_t *words;      /* table contents, in pt_visit_tables order */
	uint64_t *pas;        /* table frame addresses, same order */
	size_t ntables;
	struct pt_stats stats;
	uint64_t root_pa;
	uint64_t allocated, freed, in_use, failed;
};

void arena_snap_take(struct arena_snap *snap, const struct arena *a, const struct pt_space *s);
/*
 * 1 when every table byte (A/D masked), the space's statistics and the frames
 * in use equal @snap: the library's transactional guarantee.  A call that ran
 * out of frames may have allocated and returned some, so allocated/freed may
 * have grown by the same amount.
 */
int arena_snap_equal(const struct arena_snap *snap, const struct arena *a, const struct pt_space *s);
/* 1 when the allocator's counters are exactly as in @snap (no frame was even asked for). */
int arena_snap_same_counters(const struct arena_snap *snap, const struct arena *a);
void arena_snap_free(struct arena_snap *snap);

#endif
