/* SPDX-License-Identifier: MIT */
/* covers: paging/error.c paging/frames.c paging/memmap.c paging/plan.c paging/pt.c paging/bulk.c paging/query.c paging/space.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Every public call against every bad input that applies to it.
 *
 * One table row per case: the call, its arguments, the variant of the
 * address space or environment it runs on, and the one error it must name.
 * Every row runs against the same populated 4-level space (and a 5-level
 * one), and afterwards the tables, the statistics and the allocator
 * counters must be exactly as before (arena_snap_equal and
 * arena_snap_same_counters): bad input is refused before a frame is even
 * asked for.  Calls that own other state (frame allocators, memory maps,
 * plans, output arguments) also check that state is untouched.
 *
 * Prints "bad_input_cases=N" at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/frames.h>
#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* Highest canonical lower-half page and first upper-half page, 4 and 5 levels. */
#define LO4_TOP UINT64_C(0x00007ffffffff000)
#define HI4_BOT UINT64_C(0xffff800000000000)
#define LO5_TOP UINT64_C(0x00fffffffffff000)
#define HI5_BOT UINT64_C(0xff00000000000000)
#define MAXPHY 46
#define PHYS_TOP (UINT64_C(1) << MAXPHY)

/*
 * The populated space (both level counts):
 *   [1 GiB, 2 GiB)            one 1 GiB leaf -> 8 GiB, RW
 *   [4 GiB, 4 GiB + 2 MiB)    one 2 MiB leaf -> 16 GiB, RW
 *   [4 GiB + 2 MiB, +16 KiB)  four 4 KiB leaves -> 32 GiB, R
 *   [LO top page]             one 4 KiB leaf at the last lower-half page
 *   [HI bottom page]          one 4 KiB leaf at the first upper-half page
 * Everything else is unmapped.
 */
#define VA_1G    G1
#define VA_2M    (4 * G1)
#define VA_4K    (4 * G1 + M2)
#define VA_HOLE  (64 * G1)        /* unmapped */

/* ---- the table ------------------------------------------------------------- */

enum call {
	C_CREATE, C_ENV_CHECK, C_DESTROY, C_MAP, C_UNMAP, C_PROTECT, C_REMAP,
	C_TRANSLATE, C_VISIT, C_VISIT_TABLES, C_LINT,
	C_FRAMES_INIT, C_FRAMES_ALLOC, C_FRAMES_FREE, C_FRAMES_ALLOC_RUN,
	C_FRAMES_FREE_RUN, C_NORMALIZE, C_PLAN_BUILD, C_PLAN_APPLY, C_CACHE_BITS,
};

/* What the call runs on. */
enum variant {
	V_GOOD = 0,        /* the populated 4-level space, a good environment */
	V_GOOD5,           /* the populated 5-level space */
	V_NULL,            /* NULL space / allocator / map / plan / first pointer */
	V_NULL2,           /* NULL second pointer (out, fn, env, caps, ...) */
	V_NULL3,           /* NULL third pointer */
	V_LEVELS3, V_LEVELS6, V_LEVELS0,   /* space or caps with a bad level count */
	V_NOENV,           /* space without env */
	V_NOROOT,          /* space without a root */
	V_NO_ALLOC, V_NO_FREE, V_NO_P2V,   /* environment missing a callback */
	V_MAXPHY_0, V_MAXPHY_31, V_MAXPHY_53, V_MAXPHY_64,
	V_PAT_NO_WB, V_PAT_NO_UC,
	V_SMALL,           /* buffer or capacity one short */
	V_ZERO_CAP_RANGE,  /* output array NULL with a capacity */
	V_OVERLAP, V_WRAP, V_TOO_MANY,     /* frame ranges */
	V_UNSORTED, V_UNALIGNED, V_ZERO_LEN, V_RANGE_WRAP,  /* normalized maps */
	V_IMG_NOSEC, V_IMG_GAP, V_IMG_WX, V_IMG_OUTSIDE, V_IMG_UNALIGNED,
	V_IMG_IN_MMIO, V_IMG_BADFLAG,
	V_EXHAUSTED,       /* frames: every frame in use */
	V_NOT_HANDED_OUT,  /* frames: a frame never allocated */
	V_DOUBLE,          /* frames: freed twice */
	V_OUTSIDE,         /* frames: outside the pool */
	V_PLAN_CONFLICT, V_PLAN_WX, V_PLAN_NONCANON, V_PLAN_NULL_ENTRY,
};

struct bcase {
	const char *name;
	enum call call;
	enum variant v;
	uint64_t va;
	uint64_t pa;        /* map pa, remap new_pa, frame address, run size ... */
	uint64_t len;
	unsigned flags;     /* flags or options; levels for pt_create; count, desc size ... */
	unsigned arg;       /* max_size, desc_size, cache type, level ... */
	int want;
};

#define W PT_WRITE
#define X PT_EXEC

static const struct bcase cases[] = {
	/* pt_create: space, level count, environment */
	{ "create NULL space", C_CREATE, V_NULL, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create 3 levels", C_CREATE, V_GOOD, 0, 0, 0, 3, 0, PT_EINVAL },
	{ "create 6 levels", C_CREATE, V_GOOD, 0, 0, 0, 6, 0, PT_EINVAL },
	{ "create 0 levels", C_CREATE, V_GOOD, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "create NULL env", C_CREATE, V_NULL2, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create env without alloc_frame", C_CREATE, V_NO_ALLOC, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create env without free_frame", C_CREATE, V_NO_FREE, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create env without phys_to_virt", C_CREATE, V_NO_P2V, 0, 0, 0, 5, 0, PT_EINVAL },
	{ "create maxphyaddr 0", C_CREATE, V_MAXPHY_0, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create maxphyaddr 31", C_CREATE, V_MAXPHY_31, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create maxphyaddr 53", C_CREATE, V_MAXPHY_53, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create maxphyaddr 64", C_CREATE, V_MAXPHY_64, 0, 0, 0, 5, 0, PT_EINVAL },
	{ "create PAT without WB", C_CREATE, V_PAT_NO_WB, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create PAT without UC", C_CREATE, V_PAT_NO_UC, 0, 0, 0, 4, 0, PT_EINVAL },
	{ "create 3 levels and NULL env", C_CREATE, V_NULL2, 0, 0, 0, 3, 0, PT_EINVAL },

	/* pt_env_check */
	{ "env_check NULL", C_ENV_CHECK, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check without alloc_frame", C_ENV_CHECK, V_NO_ALLOC, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check without free_frame", C_ENV_CHECK, V_NO_FREE, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check without phys_to_virt", C_ENV_CHECK, V_NO_P2V, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check maxphyaddr 31", C_ENV_CHECK, V_MAXPHY_31, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check maxphyaddr 53", C_ENV_CHECK, V_MAXPHY_53, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "env_check PAT without WB", C_ENV_CHECK, V_PAT_NO_WB, 0, 0, 0, 0, 0, PT_EINVAL },

	/* pt_destroy on spaces it must not touch (returns nothing; nothing may change) */
	{ "destroy NULL", C_DESTROY, V_NULL, 0, 0, 0, 0, 0, PT_OK },
	{ "destroy 3 levels", C_DESTROY, V_LEVELS3, 0, 0, 0, 0, 0, PT_OK },
	{ "destroy 6 levels", C_DESTROY, V_LEVELS6, 0, 0, 0, 0, 0, PT_OK },
	{ "destroy without env", C_DESTROY, V_NOENV, 0, 0, 0, 0, 0, PT_OK },
	{ "destroy without root", C_DESTROY, V_NOROOT, 0, 0, 0, 0, 0, PT_OK },

	/* pt_map: space */
	{ "map NULL space", C_MAP, V_NULL, VA_HOLE, 0, K4, W, PT_PAGE_4K, PT_EINVAL },
	{ "map 3-level space", C_MAP, V_LEVELS3, VA_HOLE, 0, K4, W, PT_PAGE_4K, PT_EINVAL },
	{ "map 6-level space", C_MAP, V_LEVELS6, VA_HOLE, 0, K4, W, PT_PAGE_4K, PT_EINVAL },
	{ "map space without env", C_MAP, V_NOENV, VA_HOLE, 0, K4, W, PT_PAGE_4K, PT_EINVAL },
	{ "map space without root", C_MAP, V_NOROOT, VA_HOLE, 0, K4, W, PT_PAGE_4K, PT_EINVAL },
	{ "map max_size 3", C_MAP, V_GOOD, VA_HOLE, 0, K4, W, 3, PT_EINVAL },
	/* pt_map: flags */
	{ "map unknown flag bit 11", C_MAP, V_GOOD, VA_HOLE, 0, K4, W | (1u << 11), 0, PT_EFLAGS },
	{ "map unknown flag bit 31", C_MAP, V_GOOD, VA_HOLE, 0, K4, 1u << 31, 0, PT_EFLAGS },
	{ "map with option NOSPLIT", C_MAP, V_GOOD, VA_HOLE, 0, K4, PT_NOSPLIT, 0, PT_EFLAGS },
	{ "map with option SPARSE", C_MAP, V_GOOD, VA_HOLE, 0, K4, PT_SPARSE, 0, PT_EFLAGS },
	{ "map cache type 6", C_MAP, V_GOOD, VA_HOLE, 0, K4, PT_CACHE(6), 0, PT_EFLAGS },
	{ "map cache type 7", C_MAP, V_GOOD, VA_HOLE, 0, K4, PT_CACHE(7), 0, PT_EFLAGS },
	{ "map WC under power-on PAT", C_MAP, V_GOOD, VA_HOLE, 0, K4, PT_CACHE(PT_CACHE_WC), 0, PT_EFLAGS },
	{ "map W+X", C_MAP, V_GOOD, VA_HOLE, 0, K4, W | X, 0, PT_EFLAGS },
	{ "map W+X user global", C_MAP, V_GOOD, VA_HOLE, 0, K4, W | X | PT_USER | PT_GLOBAL, 2, PT_EFLAGS },
	{ "map W+X beats non-canonical va", C_MAP, V_GOOD, LO4_TOP + K4, 0, K4, W | X, 0, PT_EFLAGS },
	/* pt_map: va */
	{ "map va above lower half", C_MAP, V_GOOD, LO4_TOP + K4, 0, K4, W, 0, PT_ENONCANON },
	{ "map va below upper half", C_MAP, V_GOOD, HI4_BOT - K4, 0, K4, W, 0, PT_ENONCANON },
	{ "map va bit 63 only", C_MAP, V_GOOD, UINT64_C(1) << 63, 0, K4, W, 0, PT_ENONCANON },
	{ "map 5-level va above lower half", C_MAP, V_GOOD5, LO5_TOP + K4, 0, K4, W, 0, PT_ENONCANON },
	{ "map 5-level va below upper half", C_MAP, V_GOOD5, HI5_BOT - K4, 0, K4, W, 0, PT_ENONCANON },
	{ "map non-canonical beats misaligned", C_MAP, V_GOOD, LO4_TOP + K4 + 1, 1, 1, W, 0, PT_ENONCANON },
	{ "map misaligned va", C_MAP, V_GOOD, VA_HOLE + 8, 0, K4, W, 0, PT_EALIGN_VA },
	{ "map misaligned va beats pa", C_MAP, V_GOOD, VA_HOLE + 0x800, 0x800, K4, W, 0, PT_EALIGN_VA },
	{ "map misaligned pa", C_MAP, V_GOOD, VA_HOLE, 0x10, K4, W, 0, PT_EALIGN_PA },
	{ "map misaligned pa beats len", C_MAP, V_GOOD, VA_HOLE, 0xfff, 1, W, 0, PT_EALIGN_PA },
	{ "map misaligned len", C_MAP, V_GOOD, VA_HOLE, 0, K4 + 1, W, 0, PT_EALIGN_LEN },
	{ "map len 1", C_MAP, V_GOOD, VA_HOLE, 0, 1, W, 0, PT_EALIGN_LEN },
	{ "map zero len", C_MAP, V_GOOD, VA_HOLE, 0, 0, W, 0, PT_ELEN },
	{ "map va+len wraps past 2^64", C_MAP, V_GOOD, UINT64_C(0xfffffffffffff000), 0, 2 * K4, W, 0, PT_ELEN },
	{ "map len 2^64 - 4K", C_MAP, V_GOOD, 2 * K4, 0, UINT64_C(0xfffffffffffff000), W, 0, PT_ELEN },
	{ "map crosses into the hole", C_MAP, V_GOOD, LO4_TOP, 0, 2 * K4, W, 0, PT_ENONCANON },
	{ "map spans the hole to the upper half", C_MAP, V_GOOD, LO4_TOP, 0, HI4_BOT - LO4_TOP + K4, W, 0, PT_ENONCANON },
	{ "map 5-level crosses into the hole", C_MAP, V_GOOD5, LO5_TOP, 0, 2 * K4, W, 0, PT_ENONCANON },
	/* pt_map: pa */
	{ "map pa at MAXPHYADDR", C_MAP, V_GOOD, VA_HOLE, PHYS_TOP, K4, W, 0, PT_EPHYS },
	{ "map pa end crosses MAXPHYADDR", C_MAP, V_GOOD, VA_HOLE, PHYS_TOP - K4, 2 * K4, W, 0, PT_EPHYS },
	{ "map pa far above MAXPHYADDR", C_MAP, V_GOOD, VA_HOLE, UINT64_C(1) << 62, K4, W, 0, PT_EPHYS },
	{ "map pa+len wraps", C_MAP, V_GOOD, VA_HOLE, UINT64_C(0xfffffffffffff000), 2 * K4, W, 0, PT_ELEN },
	/* pt_map: the tables */
	{ "map over a 4K leaf", C_MAP, V_GOOD, VA_4K, 0, K4, W, 0, PT_EEXIST },
	{ "map hole then 2M leaf", C_MAP, V_GOOD, VA_4K - M2 - 8 * K4, 0, M2 + 16 * K4, W, 1, PT_EEXIST },
	{ "map inside a 1G leaf", C_MAP, V_GOOD, VA_1G + 5 * M2, 0, K4, W, 0, PT_EEXIST },
	{ "map over a 2M leaf", C_MAP, V_GOOD, VA_2M, 0, M2, W, 1, PT_EEXIST },
	{ "map hole then 1G leaf", C_MAP, V_GOOD, 0, 0, 2 * G1, W, 2, PT_EEXIST },
	{ "map over the upper-half page", C_MAP, V_GOOD, HI4_BOT, 0, K4, W, 0, PT_EEXIST },
	{ "map 5-level over a 2M leaf", C_MAP, V_GOOD5, VA_2M + M2 - K4, 0, 2 * K4, W, 0, PT_EEXIST },

	/* pt_unmap */
	{ "unmap NULL space", C_UNMAP, V_NULL, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "unmap 3-level space", C_UNMAP, V_LEVELS3, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "unmap 6-level space", C_UNMAP, V_LEVELS6, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "unmap space without root", C_UNMAP, V_NOROOT, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "unmap attribute as option", C_UNMAP, V_GOOD, VA_4K, 0, K4, W, 0, PT_EFLAGS },
	{ "unmap ALLOW_WX as option", C_UNMAP, V_GOOD, VA_4K, 0, K4, PT_ALLOW_WX, 0, PT_EFLAGS },
	{ "unmap unknown option bit", C_UNMAP, V_GOOD, VA_4K, 0, K4, 1u << 12, 0, PT_EFLAGS },
	{ "unmap va above lower half", C_UNMAP, V_GOOD, LO4_TOP + K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "unmap va below upper half", C_UNMAP, V_GOOD, HI4_BOT - K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "unmap misaligned va", C_UNMAP, V_GOOD, VA_4K + 1, 0, K4, 0, 0, PT_EALIGN_VA },
	{ "unmap misaligned len", C_UNMAP, V_GOOD, VA_4K, 0, K4 - 1, 0, 0, PT_EALIGN_LEN },
	{ "unmap zero len", C_UNMAP, V_GOOD, VA_4K, 0, 0, 0, 0, PT_ELEN },
	{ "unmap wraps past 2^64", C_UNMAP, V_GOOD, UINT64_C(0xffffffffffffe000), 0, 4 * K4, 0, 0, PT_ELEN },
	{ "unmap crosses the hole", C_UNMAP, V_GOOD, LO4_TOP, 0, 2 * K4, PT_SPARSE, 0, PT_ENONCANON },
	{ "unmap lower top to upper bottom", C_UNMAP, V_GOOD, LO4_TOP, 0, HI4_BOT - LO4_TOP + K4, PT_SPARSE, 0, PT_ENONCANON },
	{ "unmap not mapped", C_UNMAP, V_GOOD, VA_HOLE, 0, K4, 0, 0, PT_ENOTMAPPED },
	{ "unmap 4K leaves then hole", C_UNMAP, V_GOOD, VA_4K, 0, 8 * K4, 0, 0, PT_ENOTMAPPED },
	{ "unmap hole then 1G leaf", C_UNMAP, V_GOOD, 0, 0, 2 * G1, 0, 0, PT_ENOTMAPPED },
	{ "unmap NOSPLIT cuts 1G leaf", C_UNMAP, V_GOOD, VA_1G + M2, 0, M2, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "unmap NOSPLIT cuts 1G leaf to 4K", C_UNMAP, V_GOOD, VA_1G, 0, K4, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "unmap NOSPLIT cuts 2M leaf", C_UNMAP, V_GOOD, VA_2M + K4, 0, K4, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "unmap NOSPLIT|SPARSE cuts 2M leaf", C_UNMAP, V_GOOD, VA_2M - K4, 0, 2 * K4, PT_NOSPLIT | PT_SPARSE, 0, PT_EBLOCKED },
	{ "unmap 5-level NOSPLIT cuts 1G leaf", C_UNMAP, V_GOOD5, VA_1G + G1 - K4, 0, K4, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "unmap 5-level not mapped", C_UNMAP, V_GOOD5, LO5_TOP - K4, 0, K4, 0, 0, PT_ENOTMAPPED },

	/* pt_protect */
	{ "protect NULL space", C_PROTECT, V_NULL, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "protect 6-level space", C_PROTECT, V_LEVELS6, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "protect space without env", C_PROTECT, V_NOENV, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "protect unknown flag bit", C_PROTECT, V_GOOD, VA_4K, 0, K4, 1u << 15, 0, PT_EFLAGS },
	{ "protect cache type 7", C_PROTECT, V_GOOD, VA_4K, 0, K4, PT_CACHE(7), 0, PT_EFLAGS },
	{ "protect WP under power-on PAT", C_PROTECT, V_GOOD, VA_4K, 0, K4, PT_CACHE(PT_CACHE_WP), 0, PT_EFLAGS },
	{ "protect W+X", C_PROTECT, V_GOOD, VA_4K, 0, K4, W | X, 0, PT_EFLAGS },
	{ "protect W+X with NOSPLIT", C_PROTECT, V_GOOD, VA_1G, 0, K4, W | X | PT_NOSPLIT, 0, PT_EFLAGS },
	{ "protect va above lower half", C_PROTECT, V_GOOD, LO4_TOP + K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "protect va below upper half", C_PROTECT, V_GOOD, HI4_BOT - 2 * K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "protect misaligned va", C_PROTECT, V_GOOD, VA_4K + 0x100, 0, K4, 0, 0, PT_EALIGN_VA },
	{ "protect misaligned len", C_PROTECT, V_GOOD, VA_4K, 0, 3, 0, 0, PT_EALIGN_LEN },
	{ "protect zero len", C_PROTECT, V_GOOD, VA_4K, 0, 0, 0, 0, PT_ELEN },
	{ "protect wraps past 2^64", C_PROTECT, V_GOOD, UINT64_C(0xfffffffffffff000), 0, K4 * 2, 0, 0, PT_ELEN },
	{ "protect crosses the hole", C_PROTECT, V_GOOD, LO4_TOP, 0, K4 * 2, 0, 0, PT_ENONCANON },
	{ "protect not mapped", C_PROTECT, V_GOOD, VA_HOLE, 0, K4, 0, 0, PT_ENOTMAPPED },
	{ "protect 2M leaf then 4K leaves then hole", C_PROTECT, V_GOOD, VA_2M, 0, M2 + 5 * K4, 0, 0, PT_ENOTMAPPED },
	{ "protect NOSPLIT cuts 1G leaf", C_PROTECT, V_GOOD, VA_1G, 0, M2, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "protect NOSPLIT cuts 2M leaf", C_PROTECT, V_GOOD, VA_2M + M2 - K4, 0, K4, X | PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "protect 5-level NOSPLIT cuts 2M leaf", C_PROTECT, V_GOOD5, VA_2M, 0, K4, PT_NOSPLIT, 0, PT_EBLOCKED },

	/* pt_remap */
	{ "remap NULL space", C_REMAP, V_NULL, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "remap 3-level space", C_REMAP, V_LEVELS3, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "remap space without root", C_REMAP, V_NOROOT, VA_4K, 0, K4, 0, 0, PT_EINVAL },
	{ "remap attribute as option", C_REMAP, V_GOOD, VA_4K, 0, K4, X, 0, PT_EFLAGS },
	{ "remap unknown option bit", C_REMAP, V_GOOD, VA_4K, 0, K4, 1u << 20, 0, PT_EFLAGS },
	{ "remap va above lower half", C_REMAP, V_GOOD, LO4_TOP + K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "remap va below upper half", C_REMAP, V_GOOD, HI4_BOT - K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "remap misaligned va", C_REMAP, V_GOOD, VA_4K + 4, 0, K4, 0, 0, PT_EALIGN_VA },
	{ "remap misaligned new pa", C_REMAP, V_GOOD, VA_4K, 0x1004, K4, 0, 0, PT_EALIGN_PA },
	{ "remap misaligned len", C_REMAP, V_GOOD, VA_4K, 0, 0x1800, 0, 0, PT_EALIGN_LEN },
	{ "remap zero len", C_REMAP, V_GOOD, VA_4K, 0, 0, 0, 0, PT_ELEN },
	{ "remap wraps past 2^64", C_REMAP, V_GOOD, UINT64_C(0xfffffffffffff000), 0, 2 * K4, 0, 0, PT_ELEN },
	{ "remap crosses the hole", C_REMAP, V_GOOD, LO4_TOP, 0, 2 * K4, 0, 0, PT_ENONCANON },
	{ "remap new pa at MAXPHYADDR", C_REMAP, V_GOOD, VA_4K, PHYS_TOP, K4, 0, 0, PT_EPHYS },
	{ "remap new pa crosses MAXPHYADDR", C_REMAP, V_GOOD, VA_4K, PHYS_TOP - K4, 2 * K4, 0, 0, PT_EPHYS },
	{ "remap new pa wraps", C_REMAP, V_GOOD, VA_4K, UINT64_C(0xfffffffffffff000), 2 * K4, 0, 0, PT_ELEN },
	{ "remap not mapped", C_REMAP, V_GOOD, VA_HOLE, 0, K4, 0, 0, PT_ENOTMAPPED },
	{ "remap 4K leaves then hole", C_REMAP, V_GOOD, VA_4K, 0, 5 * K4, 0, 0, PT_ENOTMAPPED },
	{ "remap NOSPLIT cuts 1G leaf", C_REMAP, V_GOOD, VA_1G + M2, 0, M2, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "remap NOSPLIT whole 1G leaf to 2M-aligned pa", C_REMAP, V_GOOD, VA_1G, M2, G1, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "remap NOSPLIT whole 2M leaf to 4K-aligned pa", C_REMAP, V_GOOD, VA_2M, K4, M2, PT_NOSPLIT, 0, PT_EBLOCKED },
	{ "remap 5-level new pa at MAXPHYADDR", C_REMAP, V_GOOD5, VA_4K, PHYS_TOP, K4, 0, 0, PT_EPHYS },

	/* pt_translate */
	{ "translate NULL space", C_TRANSLATE, V_NULL, VA_4K, 0, 0, 0, 0, PT_EINVAL },
	{ "translate NULL out", C_TRANSLATE, V_NULL2, VA_4K, 0, 0, 0, 0, PT_EINVAL },
	{ "translate 6-level space", C_TRANSLATE, V_LEVELS6, VA_4K, 0, 0, 0, 0, PT_EINVAL },
	{ "translate space without root", C_TRANSLATE, V_NOROOT, VA_4K, 0, 0, 0, 0, PT_EINVAL },
	{ "translate va above lower half", C_TRANSLATE, V_GOOD, LO4_TOP + K4, 0, 0, 0, 0, PT_ENONCANON },
	{ "translate va below upper half", C_TRANSLATE, V_GOOD, HI4_BOT - 1, 0, 0, 0, 0, PT_ENONCANON },
	{ "translate 5-level va above lower half", C_TRANSLATE, V_GOOD5, LO5_TOP + K4, 0, 0, 0, 0, PT_ENONCANON },
	{ "translate not mapped", C_TRANSLATE, V_GOOD, VA_HOLE + 123, 0, 0, 0, 0, PT_ENOTMAPPED },
	{ "translate next to a 4K leaf", C_TRANSLATE, V_GOOD, VA_4K + 4 * K4, 0, 0, 0, 0, PT_ENOTMAPPED },

	/* pt_visit */
	{ "visit NULL space", C_VISIT, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit NULL fn", C_VISIT, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit 3-level space", C_VISIT, V_LEVELS3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit wraps past 2^64", C_VISIT, V_GOOD, UINT64_C(0xfffffffffffff000), 0, 2 * K4, 0, 0, PT_ELEN },
	{ "visit va above lower half", C_VISIT, V_GOOD, LO4_TOP + K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "visit va below upper half", C_VISIT, V_GOOD, HI4_BOT - K4, 0, K4, 0, 0, PT_ENONCANON },
	{ "visit crosses the hole", C_VISIT, V_GOOD, LO4_TOP, 0, 2 * K4, 0, 0, PT_ENONCANON },
	{ "visit lower top to upper bottom", C_VISIT, V_GOOD, LO4_TOP, 0, HI4_BOT - LO4_TOP + K4, 0, 0, PT_ENONCANON },
	{ "visit 5-level crosses the hole", C_VISIT, V_GOOD5, LO5_TOP, 0, 2 * K4, 0, 0, PT_ENONCANON },

	/* pt_visit_tables */
	{ "visit_tables NULL space", C_VISIT_TABLES, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit_tables NULL fn", C_VISIT_TABLES, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit_tables 6-level space", C_VISIT_TABLES, V_LEVELS6, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "visit_tables space without env", C_VISIT_TABLES, V_NOENV, 0, 0, 0, 0, 0, PT_EINVAL },

	/* pt_lint */
	{ "lint NULL space", C_LINT, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "lint NULL out", C_LINT, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "lint 3-level space", C_LINT, V_LEVELS3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "lint 0-level space", C_LINT, V_LEVELS0, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "lint space without root", C_LINT, V_NOROOT, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "lint scratch one short", C_LINT, V_SMALL, 0, 0, 0, 0, 0, PT_ECAPACITY },
	{ "lint no scratch", C_LINT, V_NULL3, 0, 0, 0, 0, 0, PT_ECAPACITY },

	/* pt_frames_init */
	{ "frames_init NULL allocator", C_FRAMES_INIT, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init NULL phys_to_virt", C_FRAMES_INIT, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init NULL ranges", C_FRAMES_INIT, V_NULL3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init overlapping ranges", C_FRAMES_INIT, V_OVERLAP, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init wrapping range", C_FRAMES_INIT, V_WRAP, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init too many ranges", C_FRAMES_INIT, V_TOO_MANY, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_init bitmap one word short", C_FRAMES_INIT, V_SMALL, 0, 0, 0, 0, 0, PT_ECAPACITY },
	{ "frames_init NULL bitmap", C_FRAMES_INIT, V_ZERO_CAP_RANGE, 0, 0, 0, 0, 0, PT_EINVAL },

	/* pt_frames_alloc */
	{ "frames_alloc exhausted", C_FRAMES_ALLOC, V_EXHAUSTED, 0, 0, 0, 0, 0, PT_ENOMEM },

	/* pt_frames_free_checked */
	{ "frames_free misaligned", C_FRAMES_FREE, V_GOOD, 0, 0x10, 0, 0, 0, PT_EFRAME },
	{ "frames_free never handed out", C_FRAMES_FREE, V_NOT_HANDED_OUT, 0, 0, 0, 0, 0, PT_EFRAME },
	{ "frames_free twice", C_FRAMES_FREE, V_DOUBLE, 0, 0, 0, 0, 0, PT_EFRAME },
	{ "frames_free below the pool", C_FRAMES_FREE, V_OUTSIDE, 0, 0, 0, 0, 0, PT_EFRAME },
	{ "frames_free above the pool", C_FRAMES_FREE, V_OUTSIDE, 0, 1, 0, 0, 0, PT_EFRAME },
	{ "frames_free address 0", C_FRAMES_FREE, V_GOOD, 0, 0, 0, 0, 0, PT_EFRAME },

	/* pt_frames_alloc_run */
	{ "frames_alloc_run size 0", C_FRAMES_ALLOC_RUN, V_GOOD, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "frames_alloc_run size 8K", C_FRAMES_ALLOC_RUN, V_GOOD, 0, 2 * K4, 0, 0, 0, PT_EINVAL },
	{ "frames_alloc_run size 4M", C_FRAMES_ALLOC_RUN, V_GOOD, 0, 2 * M2, 0, 0, 0, PT_EINVAL },
	{ "frames_alloc_run size 2^63", C_FRAMES_ALLOC_RUN, V_GOOD, 0, UINT64_C(1) << 63, 0, 0, 0, PT_EINVAL },
	{ "frames_alloc_run 1G from a small pool", C_FRAMES_ALLOC_RUN, V_GOOD, 0, G1, 0, 0, 0, PT_ENOMEM },
	{ "frames_alloc_run exhausted", C_FRAMES_ALLOC_RUN, V_EXHAUSTED, 0, K4, 0, 0, 0, PT_ENOMEM },

	/* pt_frames_free_run */
	{ "frames_free_run bad size", C_FRAMES_FREE_RUN, V_GOOD, 0, 3 * K4, 0, 0, 0, PT_EFRAME },
	{ "frames_free_run misaligned", C_FRAMES_FREE_RUN, V_GOOD, 0, M2, K4, 0, 0, PT_EFRAME },
	{ "frames_free_run not a run", C_FRAMES_FREE_RUN, V_NOT_HANDED_OUT, 0, M2, 0, 0, 0, PT_EFRAME },
	{ "frames_free_run twice", C_FRAMES_FREE_RUN, V_DOUBLE, 0, M2, 0, 0, 0, PT_EFRAME },
	{ "frames_free_run outside the pool", C_FRAMES_FREE_RUN, V_OUTSIDE, 0, M2, 0, 0, 0, PT_EFRAME },
	{ "frames_free_run past the range end", C_FRAMES_FREE_RUN, V_GOOD, 0, G1, 0, 0, 0, PT_EFRAME },

	/* pt_memmap_normalize: flags = count, arg = desc_size, va = raw_len */
	{ "normalize NULL out", C_NORMALIZE, V_NULL2, 96, 0, 0, 2, 48, PT_EINVAL },
	{ "normalize NULL range with capacity", C_NORMALIZE, V_ZERO_CAP_RANGE, 96, 0, 0, 2, 48, PT_EINVAL },
	{ "normalize desc size 0", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 0, PT_EMAPBAD },
	{ "normalize desc size 8", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 8, PT_EMAPBAD },
	{ "normalize desc size 32", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 32, PT_EMAPBAD },
	{ "normalize desc size 39", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 39, PT_EMAPBAD },
	{ "normalize desc size 44", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 44, PT_EMAPBAD },
	{ "normalize desc size 49", C_NORMALIZE, V_GOOD, 98, 0, 0, 2, 49, PT_EMAPBAD },
	{ "normalize desc size 4104", C_NORMALIZE, V_GOOD, 96, 0, 0, 0, 4104, PT_EMAPBAD },
	{ "normalize desc size 2^32-8", C_NORMALIZE, V_GOOD, 96, 0, 0, 1, 0xfffffff8u, PT_EMAPBAD },
	{ "normalize count 65537", C_NORMALIZE, V_GOOD, 96, 0, 0, 65537, 48, PT_EMAPBAD },
	{ "normalize count 2^32-1", C_NORMALIZE, V_GOOD, 96, 0, 0, 0xffffffffu, 48, PT_EMAPBAD },
	{ "normalize raw too short", C_NORMALIZE, V_GOOD, 95, 0, 0, 2, 48, PT_EMAPBAD },
	{ "normalize raw too short for stride", C_NORMALIZE, V_GOOD, 96, 0, 0, 2, 56, PT_EMAPBAD },
	{ "normalize NULL raw", C_NORMALIZE, V_NULL, 96, 0, 0, 2, 48, PT_EMAPBAD },
	{ "normalize capacity too small", C_NORMALIZE, V_SMALL, 96, 0, 0, 2, 48, PT_ECAPACITY },

	/* pt_plan_build */
	{ "plan_build NULL plan", C_PLAN_BUILD, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build NULL map", C_PLAN_BUILD, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build NULL caps", C_PLAN_BUILD, V_NULL3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build 3 levels", C_PLAN_BUILD, V_LEVELS3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build 6 levels", C_PLAN_BUILD, V_LEVELS6, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build maxphyaddr 31", C_PLAN_BUILD, V_MAXPHY_31, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build maxphyaddr 53", C_PLAN_BUILD, V_MAXPHY_53, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build NULL entries with capacity", C_PLAN_BUILD, V_ZERO_CAP_RANGE, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build unsorted map", C_PLAN_BUILD, V_UNSORTED, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build overlapping map", C_PLAN_BUILD, V_OVERLAP, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build unaligned map", C_PLAN_BUILD, V_UNALIGNED, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build zero-length range", C_PLAN_BUILD, V_ZERO_LEN, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build range wrapping", C_PLAN_BUILD, V_RANGE_WRAP, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image without sections", C_PLAN_BUILD, V_IMG_NOSEC, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image with a gap", C_PLAN_BUILD, V_IMG_GAP, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image section W+X", C_PLAN_BUILD, V_IMG_WX, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image outside RAM", C_PLAN_BUILD, V_IMG_OUTSIDE, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image unaligned", C_PLAN_BUILD, V_IMG_UNALIGNED, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image in MMIO", C_PLAN_BUILD, V_IMG_IN_MMIO, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build image section user", C_PLAN_BUILD, V_IMG_BADFLAG, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_build capacity one short", C_PLAN_BUILD, V_SMALL, 0, 0, 0, 0, 0, PT_ECAPACITY },

	/* pt_plan_apply (the bad entry comes first: nothing is mapped before it fails) */
	{ "plan_apply NULL space", C_PLAN_APPLY, V_NULL, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_apply NULL plan", C_PLAN_APPLY, V_NULL2, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_apply NULL entries", C_PLAN_APPLY, V_PLAN_NULL_ENTRY, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_apply 3-level space", C_PLAN_APPLY, V_LEVELS3, 0, 0, 0, 0, 0, PT_EINVAL },
	{ "plan_apply over a mapping", C_PLAN_APPLY, V_PLAN_CONFLICT, 0, 0, 0, 0, 0, PT_EEXIST },
	{ "plan_apply W+X entry", C_PLAN_APPLY, V_PLAN_WX, 0, 0, 0, 0, 0, PT_EFLAGS },
	{ "plan_apply non-canonical entry", C_PLAN_APPLY, V_PLAN_NONCANON, 0, 0, 0, 0, 0, PT_ENONCANON },

	/* pt_cache_bits: arg = cache type, flags = level */
	{ "cache_bits type 6", C_CACHE_BITS, V_GOOD, 0, 0, 0, 0, 6, PT_EFLAGS },
	{ "cache_bits type 7", C_CACHE_BITS, V_GOOD, 0, 0, 0, 1, 7, PT_EFLAGS },
	{ "cache_bits type -1", C_CACHE_BITS, V_GOOD, 0, 0, 0, 0, (unsigned)-1, PT_EFLAGS },
	{ "cache_bits WC under power-on PAT", C_CACHE_BITS, V_GOOD, 0, 0, 0, 0, PT_CACHE_WC, PT_EFLAGS },
	{ "cache_bits WP under power-on PAT at level 2", C_CACHE_BITS, V_GOOD, 0, 0, 0, 2, PT_CACHE_WP, PT_EFLAGS },
};

/* ---- fixture ---------------------------------------------------------------- */

struct fx {
	struct arena a;
	struct pt_space s4, s5;
};

static void populate(struct pt_space *s)
{
	uint64_t lo_top = s->levels == 5 ? LO5_TOP : LO4_TOP;
	uint64_t hi_bot = s->levels == 5 ? HI5_BOT : HI4_BOT;

	assert_int_equal(pt_map(s, VA_1G, 8 * G1, G1, W, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_map(s, VA_2M, 16 * G1, M2, W, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(pt_map(s, VA_4K, 32 * G1, 4 * K4, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(s, lo_top, 33 * G1, K4, W, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(s, hi_bot, 34 * G1, K4, W, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(s->stats.leaves[2], 1);
	assert_int_equal(s->stats.leaves[1], 1);
	assert_int_equal(s->stats.leaves[0], 6);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	arena_init(&f->a, 512);
	assert_int_equal(pt_create(&f->s4, &f->a.env, 4), PT_OK);
	assert_int_equal(pt_create(&f->s5, &f->a.env, 5), PT_OK);
	populate(&f->s4);
	populate(&f->s5);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pt_destroy(&f->s4);
	pt_destroy(&f->s5);
	assert_int_equal(f->a.frames.in_use, 0);
	arena_fini(&f->a);
	free(f);
	return 0;
}

/* ---- running one case ----------------------------------------------------------- */

/* A refused walk calls nothing back: a call is a failure, named where it happened. */
static int never_called(void *arg, const struct pt_leaf *leaf)
{
	(void)arg;
	fail_msg("refused pt_visit called back for the leaf at 0x%llx",
		 (unsigned long long)leaf->va);
	return 0;
}

static int never_called_table(void *arg, unsigned level, uint64_t pa)
{
	(void)arg;
	fail_msg("refused pt_visit_tables called back for the level-%u table at 0x%llx", level,
		 (unsigned long long)pa);
	return 0;
}

static void *plain_p2v(void *ctx, uint64_t pa)
{
	return arena_p2v(ctx, pa);
}

/* A space of the variant (a copy: the real one is never handed over broken). */
static struct pt_space *space_of(struct fx *f, const struct bcase *c, struct pt_space *tmp)
{
	*tmp = f->s4;
	switch (c->v) {
	case V_GOOD5:
		return &f->s5;
	case V_NULL:
		return NULL;
	case V_LEVELS3:
		tmp->levels = 3;
		return tmp;
	case V_LEVELS6:
		tmp->levels = 6;
		return tmp;
	case V_LEVELS0:
		tmp->levels = 0;
		return tmp;
	case V_NOENV:
		tmp->env = NULL;
		return tmp;
	case V_NOROOT:
		tmp->root_pa = 0;
		return tmp;
	default:
		return &f->s4;
	}
}

/* the MAXPHYADDR each V_MAXPHY_* variant gives */
static const unsigned maxphy_of[] = {
	[V_MAXPHY_0] = 0, [V_MAXPHY_31] = 31, [V_MAXPHY_53] = 53, [V_MAXPHY_64] = 64,
};

static void env_of(struct fx *f, enum variant v, struct pt_env *env)
{
	*env = f->a.env;
	switch (v) {
	case V_NO_ALLOC:
		env->alloc_frame = NULL;
		break;
	case V_NO_FREE:
		env->free_frame = NULL;
		break;
	case V_NO_P2V:
		env->phys_to_virt = NULL;
		break;
	case V_MAXPHY_0:
	case V_MAXPHY_31:
	case V_MAXPHY_53:
	case V_MAXPHY_64:
		env->maxphyaddr = maxphy_of[v];
		break;
	case V_PAT_NO_WB:
		for (unsigned i = 0; i < 8; i++)
			if (env->pat.type[i] == PT_PAT_WB)
				env->pat.type[i] = PT_PAT_WT;
		break;
	case V_PAT_NO_UC:
		for (unsigned i = 0; i < 8; i++)
			if (env->pat.type[i] == PT_PAT_UC)
				env->pat.type[i] = PT_PAT_UCM;
		break;
	default:
		break;
	}
}

static int run_create(struct fx *f, const struct bcase *c)
{
	struct pt_space s, pristine;
	struct pt_env env;
	int err;

	env_of(f, c->v, &env);
	memset(&s, 0x5a, sizeof(s));
	pristine = s;
	err = pt_create(c->v == V_NULL ? NULL : &s, c->v == V_NULL2 ? NULL : &env, c->flags);
	if (err == PT_OK)
		pt_destroy(&s);
	else
		assert_memory_equal(&s, &pristine, sizeof(s));
	return err;
}

static int run_lint(struct fx *f, const struct bcase *c)
{
	struct pt_space tmp, *s = space_of(f, c, &tmp);
	uint64_t scratch[64];
	size_t len = NR(scratch);
	struct pt_lint out;

	if (c->v == V_SMALL)
		len = (size_t)pt_table_count(&f->s4) - 1;
	if (c->v == V_NULL3)
		return pt_lint(s, NULL, 0, NULL, NULL, &out);
	return pt_lint(s, scratch, len, NULL, NULL, c->v == V_NULL2 ? NULL : &out);
}

/*
 * A small allocator of its own, over host memory of its own at a fake
 * physical base (1 GiB aligned): 2 MiB + 8 KiB of frames.  It never touches
 * the arena, so the arena's counters must not move.
 */
#define POOL_BASE UINT64_C(0x0000100000000000)
#define POOL_LEN (M2 + 2 * K4)

static uint8_t pool_mem[POOL_LEN] __attribute__((aligned(4096)));

static void *pool_p2v(void *ctx, uint64_t pa)
{
	(void)ctx;
	if (pa < POOL_BASE || pa - POOL_BASE >= POOL_LEN)
		abort();
	return pool_mem + (pa - POOL_BASE);
}

struct small_pool {
	struct pt_frames fr;
	uint64_t bitmap[16];
	struct pt_range r;
};

static void pool_init(struct small_pool *p)
{
	p->r.va = POOL_BASE;
	p->r.len = POOL_LEN;
	assert_int_equal(pt_frames_init(&p->fr, &p->r, 1, p->bitmap, sizeof(p->bitmap),
					pool_p2v, NULL), PT_OK);
}

static int run_frames_init(struct fx *f, const struct bcase *c)
{
	struct pt_frames fr, pristine;
	static struct pt_range many[PT_FRAMES_MAX_RANGES + 1];
	struct pt_range r[2] = { { ARENA_BASE, 16 * K4 }, { ARENA_BASE + 32 * K4, 16 * K4 } };
	uint64_t bitmap[8], bm_pristine[8];
	const struct pt_range *rp = r;
	unsigned n = 2;
	size_t bytes = sizeof(bitmap);
	uint64_t *bm = bitmap;
	int err;

	memset(&fr, 0x77, sizeof(fr));
	pristine = fr;
	memset(bitmap, 0x33, sizeof(bitmap));
	memcpy(bm_pristine, bitmap, sizeof(bitmap));
	switch (c->v) {
	case V_NULL3:
		rp = NULL;
		break;
	case V_OVERLAP:
		r[1].va = ARENA_BASE + 15 * K4;
		break;
	case V_WRAP:
		r[1].va = UINT64_C(0xffffffffffff0000);
		r[1].len = 0x20000;
		break;
	case V_TOO_MANY:
		for (unsigned i = 0; i < NR(many); i++) {
			many[i].va = ARENA_BASE + 2 * i * K4;
			many[i].len = K4;
		}
		rp = many;
		n = NR(many);
		break;
	case V_SMALL:
		bytes = pt_frames_bitmap_bytes(r, 2) - sizeof(uint64_t);
		break;
	case V_ZERO_CAP_RANGE:
		bm = NULL;
		break;
	default:
		break;
	}
	err = pt_frames_init(c->v == V_NULL ? NULL : &fr, rp, n, bm, bytes,
			     c->v == V_NULL2 ? NULL : plain_p2v, &f->a);
	assert_memory_equal(&fr, &pristine, sizeof(fr));
	assert_memory_equal(bitmap, bm_pristine, sizeof(bitmap));
	return err;
}

/* pt_frames_* calls on a pool: only 'failed' or 'bad_frees' may change. */
static int run_frames(const struct bcase *c)
{
	struct small_pool p;
	struct pt_frames before;
	uint64_t bm_before[16], pa = 0, out = 0x1234;
	int err = PT_OK;

	pool_init(&p);
	if (c->v == V_EXHAUSTED)
		while (pt_frames_alloc(&p.fr, &pa) == PT_OK)
			;
	if (c->v == V_DOUBLE || c->v == V_NOT_HANDED_OUT) {
		if (c->call == C_FRAMES_FREE_RUN) {
			assert_int_equal(pt_frames_alloc_run(&p.fr, M2, &pa), PT_OK);
			if (c->v == V_NOT_HANDED_OUT)
				assert_int_equal(pt_frames_free_checked(&p.fr, pa + 7 * K4), PT_OK);
			else
				assert_int_equal(pt_frames_free_run(&p.fr, pa, M2), PT_OK);
		} else {
			assert_int_equal(pt_frames_alloc(&p.fr, &pa), PT_OK);
			if (c->v == V_NOT_HANDED_OUT)
				pa += K4;
			else
				assert_int_equal(pt_frames_free_checked(&p.fr, pa), PT_OK);
		}
	}
	if (c->v == V_OUTSIDE)
		pa = c->pa ? p.r.va + p.r.len : p.r.va - M2;
	before = p.fr;
	memcpy(bm_before, p.bitmap, sizeof(bm_before));

	switch (c->call) {
	case C_FRAMES_ALLOC:
		err = pt_frames_alloc(&p.fr, &out);
		before.failed++;
		break;
	case C_FRAMES_FREE:
		if (c->v == V_GOOD)
			pa = c->pa ? p.r.va + c->pa : 0;
		err = pt_frames_free_checked(&p.fr, pa);
		before.bad_frees++;
		break;
	case C_FRAMES_ALLOC_RUN:
		err = pt_frames_alloc_run(&p.fr, c->pa, &out);
		if (err == PT_ENOMEM)
			before.failed++;
		break;
	case C_FRAMES_FREE_RUN:
		if (c->v == V_GOOD)
			pa = p.r.va + c->len;
		err = pt_frames_free_run(&p.fr, pa, c->pa);
		before.bad_frees++;
		break;
	default:
		fail();
	}
	assert_memory_equal(&p.fr, &before, sizeof(before));
	assert_memory_equal(p.bitmap, bm_before, sizeof(bm_before));
	assert_int_equal(out, 0x1234);
	return err;
}

static int run_normalize(const struct bcase *c)
{
	/* two good descriptors of 48 bytes (or of the stride asked for) */
	static uint8_t raw[2 * 4096];
	struct pt_mem_range range[8];
	struct pt_memmap out;
	unsigned ds = c->arg >= 40 && c->arg <= 4096 ? c->arg : 48;
	int err;

	memset(raw, 0, sizeof(raw));
	for (unsigned i = 0; i < 2; i++) {
		uint32_t type = PT_EFI_CONVENTIONAL;
		uint64_t start = 0x100000 * (i + 1), pages = 16;

		memcpy(raw + i * ds, &type, 4);
		memcpy(raw + i * ds + 8, &start, 8);
		memcpy(raw + i * ds + 24, &pages, 8);
	}
	memset(&out, 0, sizeof(out));
	out.range = c->v == V_ZERO_CAP_RANGE ? NULL : range;
	out.cap = c->v == V_SMALL ? 3 : NR(range);
	out.n = 99;
	err = pt_memmap_normalize(c->v == V_NULL ? NULL : raw, (size_t)c->va, c->flags, c->arg,
				  MAXPHY, c->v == V_NULL2 ? NULL : &out);
	if (c->v != V_NULL2 && out.n != 0)
		fail_msg("\"%s\": %s left out.n = %u, not 0", c->name, pt_strerror(err), out.n);
	return err;
}

static const struct pt_mem_range good_map[] = {
	{ 0x00000000, 0x000a0000, PT_EFI_CONVENTIONAL, 0xf },
	{ 0x00100000, 0x00f00000, PT_EFI_CONVENTIONAL, 0xf },
	{ 0x01000000, 0x00100000, PT_EFI_LOADER_CODE, 0xf },
	{ 0x01100000, 0x00100000, PT_EFI_BS_CODE, 0xf },
	{ 0xfec00000, 0x00001000, PT_EFI_MMIO, 0x1 },
};

static int run_plan_build(const struct bcase *c)
{
	struct pt_mem_range range[NR(good_map)];
	struct pt_memmap map;
	struct pt_image img;
	struct pt_plan_caps caps = { .has_1g = true, .levels = 4, .maxphyaddr = MAXPHY };
	struct pt_plan_entry entry[64];
	struct pt_plan plan;
	const struct pt_image *ip = &img;
	int err;

	memcpy(range, good_map, sizeof(range));
	memset(&map, 0, sizeof(map));
	map.range = range;
	map.cap = map.n = NR(range);
	memset(&img, 0, sizeof(img));
	img.base = 0x01010000;
	img.size = 0x6000;
	img.nsections = 2;
	img.section[0] = (struct pt_image_section){ 0x01010000, 0x4000, PT_EXEC };
	img.section[1] = (struct pt_image_section){ 0x01014000, 0x2000, PT_WRITE };
	memset(&plan, 0, sizeof(plan));
	plan.entry = entry;
	plan.cap = NR(entry);

	switch (c->v) {
	case V_LEVELS3:
		caps.levels = 3;
		break;
	case V_LEVELS6:
		caps.levels = 6;
		break;
	case V_MAXPHY_31:
	case V_MAXPHY_53:
		caps.maxphyaddr = maxphy_of[c->v];
		break;
	case V_ZERO_CAP_RANGE:
		plan.entry = NULL;
		break;
	case V_UNSORTED:
		range[1] = good_map[0];
		range[0] = good_map[1];
		break;
	case V_OVERLAP:
		range[1].pa = 0x00090000;
		break;
	case V_UNALIGNED:
		range[4].pa += 0x800;
		break;
	case V_ZERO_LEN:
		range[3].len = 0;
		break;
	case V_RANGE_WRAP:
		range[4].pa = UINT64_C(0xfffffffffffff000);
		range[4].len = 0x2000;
		break;
	case V_IMG_NOSEC:
		img.nsections = 0;
		break;
	case V_IMG_GAP:
		img.section[1].pa += K4;
		img.section[1].len -= K4;
		break;
	case V_IMG_WX:
		img.section[1].flags = W | X;
		break;
	case V_IMG_OUTSIDE:
		img.base = 0x00fff000;
		img.section[0].pa = img.base;
		img.section[0].len = 0x5000;
		img.section[1].pa = img.base + 0x5000;
		img.section[1].len = 0x1000;
		break;
	case V_IMG_UNALIGNED:
		img.base += 0x10;
		break;
	case V_IMG_IN_MMIO:
		img.base = 0xfec00000;
		img.size = K4;
		img.nsections = 1;
		img.section[0] = (struct pt_image_section){ 0xfec00000, K4, X };
		break;
	case V_IMG_BADFLAG:
		img.section[0].flags |= PT_USER;
		break;
	case V_SMALL:
		/* find the size it needs, then offer one less */
		assert_int_equal(pt_plan_build(&map, ip, &caps, &plan), PT_OK);
		plan.cap = plan.n - 1;
		break;
	default:
		break;
	}
	plan.n = 77;
	err = pt_plan_build(c->v == V_NULL2 ? NULL : &map, ip, c->v == V_NULL3 ? NULL : &caps,
			    c->v == V_NULL ? NULL : &plan);
	if (c->v != V_NULL && (plan.n != 0 || plan.min_total != 0))
		fail_msg("\"%s\": %s left plan.n = %u, min_total = %llu", c->name,
			 pt_strerror(err), plan.n, (unsigned long long)plan.min_total);
	return err;
}

static int run_plan_apply(struct fx *f, const struct bcase *c)
{
	struct pt_space tmp, *s = space_of(f, c, &tmp);
	struct pt_plan_entry entry[2] = {
		{ VA_HOLE, 0x100000, M2, W, PT_PAGE_2M, PT_PLAN_IDENTITY, PT_EFI_CONVENTIONAL },
		{ VA_HOLE + G1, 0x400000, 4 * K4, X, PT_PAGE_4K, PT_PLAN_IDENTITY, PT_EFI_CONVENTIONAL },
	};
	struct pt_plan plan;

	memset(&plan, 0, sizeof(plan));
	plan.entry = entry;
	plan.n = plan.cap = 2;
	switch (c->v) {
	case V_PLAN_CONFLICT:
		entry[0].va = VA_2M;
		break;
	case V_PLAN_WX:
		entry[0].flags = W | X;
		break;
	case V_PLAN_NONCANON:
		entry[0].va = LO4_TOP + K4;
		break;
	case V_PLAN_NULL_ENTRY:
		plan.entry = NULL;
		break;
	default:
		break;
	}
	return pt_plan_apply(s, c->v == V_NULL2 ? NULL : &plan);
}

static int run_case(struct fx *f, const struct bcase *c)
{
	struct pt_space tmp, *s;
	struct pt_env env;
	struct pt_leaf leaf;
	uint64_t bits = 0x5555;
	int err;

	switch (c->call) {
	case C_CREATE:
		return run_create(f, c);
	case C_ENV_CHECK:
		env_of(f, c->v, &env);
		return pt_env_check(c->v == V_NULL ? NULL : &env);
	case C_DESTROY:
		s = space_of(f, c, &tmp);
		if (s == &tmp) {
			struct pt_space copy = tmp;

			pt_destroy(s);
			assert_memory_equal(&tmp, &copy, sizeof(copy));
		} else {
			pt_destroy(s);
		}
		return PT_OK;
	case C_MAP:
		s = space_of(f, c, &tmp);
		return pt_map(s, c->va, c->pa, c->len, c->flags, (enum pt_page_size)c->arg, NULL);
	case C_UNMAP:
		s = space_of(f, c, &tmp);
		return pt_unmap(s, c->va, c->len, c->flags, NULL);
	case C_PROTECT:
		s = space_of(f, c, &tmp);
		return pt_protect(s, c->va, c->len, c->flags, NULL);
	case C_REMAP:
		s = space_of(f, c, &tmp);
		return pt_remap(s, c->va, c->len, c->pa, c->flags, NULL);
	case C_TRANSLATE:
		s = space_of(f, c, &tmp);
		return pt_translate(s, c->va, c->v == V_NULL2 ? NULL : &leaf);
	case C_VISIT:
		s = space_of(f, c, &tmp);
		err = pt_visit(s, c->va, c->len, c->v == V_NULL2 ? NULL : never_called, NULL);
		return err;
	case C_VISIT_TABLES:
		s = space_of(f, c, &tmp);
		err = pt_visit_tables(s, c->v == V_NULL2 ? NULL : never_called_table, NULL);
		return err;
	case C_LINT:
		return run_lint(f, c);
	case C_FRAMES_INIT:
		return run_frames_init(f, c);
	case C_FRAMES_ALLOC:
	case C_FRAMES_FREE:
	case C_FRAMES_ALLOC_RUN:
	case C_FRAMES_FREE_RUN:
		return run_frames(c);
	case C_NORMALIZE:
		return run_normalize(c);
	case C_PLAN_BUILD:
		return run_plan_build(c);
	case C_PLAN_APPLY:
		return run_plan_apply(f, c);
	case C_CACHE_BITS:
		err = pt_cache_bits(&f->a.env.pat, (enum pt_cache)c->arg, c->flags, &bits);
		assert_int_equal(bits, 0x5555);
		return err;
	}
	fail();
	return PT_OK;
}

static void test_every_bad_input_is_refused_and_changes_nothing(void **state)
{
	struct fx *f = *state;
	unsigned failed = 0;

	for (unsigned i = 0; i < NR(cases); i++) {
		const struct bcase *c = &cases[i];
		struct arena_snap snap4, snap5;
		unsigned flushes = f->a.flushes;
		int got;

		arena_snap_take(&snap4, &f->a, &f->s4);
		arena_snap_take(&snap5, &f->a, &f->s5);
		got = run_case(f, c);
		if (got != c->want) {
			print_error("case %u \"%s\": expected %s, got %s\n", i, c->name,
				    pt_strerror(c->want), pt_strerror(got));
			failed++;
		}
		if (!arena_snap_equal(&snap4, &f->a, &f->s4) ||
		    !arena_snap_equal(&snap5, &f->a, &f->s5)) {
			print_error("case %u \"%s\": tables or stats changed\n", i, c->name);
			failed++;
		}
		/* the small frame pools live in the arena but never use its allocator */
		if (!arena_snap_same_counters(&snap4, &f->a)) {
			print_error("case %u \"%s\": allocator counters changed\n", i, c->name);
			failed++;
		}
		if (f->a.flushes != flushes) {
			print_error("case %u \"%s\": flush called\n", i, c->name);
			failed++;
		}
		arena_snap_free(&snap4);
		arena_snap_free(&snap5);
	}
	print_message("bad_input_cases=%u\n", NR(cases));
	assert_int_equal(failed, 0);
}

/* The table is not vacuous: the same calls with the bad part fixed succeed. */
static void test_good_neighbours_of_bad_cases_succeed(void **state)
{
	struct fx *f = *state;
	struct pt_leaf leaf;

	assert_int_equal(pt_map(&f->s4, VA_HOLE, 0, K4, W, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s4, VA_HOLE + K4, 0, K4, W | X | PT_ALLOW_WX, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_map(&f->s4, VA_HOLE + 2 * K4, PHYS_TOP - K4, K4, W, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_translate(&f->s4, VA_HOLE + K4, &leaf), PT_OK);
	assert_int_equal(leaf.flags & (W | X), W | X);
	assert_int_equal(pt_protect(&f->s4, VA_1G, M2, 0, NULL), PT_OK);
	assert_int_equal(pt_remap(&f->s4, VA_2M, M2, K4, 0, NULL), PT_OK);
	assert_int_equal(pt_unmap(&f->s4, VA_HOLE, 3 * K4, 0, NULL), PT_OK);
	assert_int_equal(pt_unmap(&f->s4, VA_4K, 8 * K4, PT_SPARSE, NULL), PT_OK);
}

UNIT_MAIN(
	cmocka_unit_test_setup_teardown(test_every_bad_input_is_refused_and_changes_nothing,
					setup, teardown),
	cmocka_unit_test_setup_teardown(test_good_neighbours_of_bad_cases_succeed,
					setup, teardown))
