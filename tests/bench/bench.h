// SPDX-License-Identifier: MIT
/*
 * The benchmark's shared declarations (tests/bench/): the arena and its
 * helpers (bench.c), the statistics (stats.c), the references the library
 * is timed against (ref.c) and the report (report.c).  bench.c's opening
 * comment says what is measured and how.  Every file is compiled with
 * -DBENCH_SCALAR in the scalar build (mk/bench.mk), so SCALAR is the same
 * in all of them.
 */
#ifndef PTLAB_TESTS_BENCH_H
#define PTLAB_TESTS_BENCH_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ptlab/frames.h>
#include <ptlab/pt.h>
#include <ptlab/pte.h>

#define BENCH_BASE  UINT64_C(0x0000004200000000)   /* fake physical base, not 0 */
#define BENCH_REPS  11u                            /* repetitions a case takes at least */
#define REPS_MAX    151u                           /* ... at most, for SPREAD_GOAL */
#define SPREAD_GOAL 0.05                           /* 5 %: a goal figure's spread */
#define SWEEP_REPS  5u
#define BENCH_SAMPLE_NS UINT64_C(10000000)         /* 10 ms */
#define NTRANSLATE  1000000u
#define MAX_BATCH   4096u
#define BATCH_FRAMES 128u                          /* 512 KiB of tables per batch */

#define VA0  UINT64_C(0x0000100000000000)          /* mappings start here (16 TiB) */
#define PA0  UINT64_C(0x0000200000000000)          /* ... pointing here (never touched) */

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

#ifdef BENCH_SCALAR
#define SCALAR 1
#define BUILD_NAME "scalar (paging/ built with -mno-sse)"
#else
#define SCALAR 0
#define BUILD_NAME "host (paging/ built -O2, SSE2 allowed)"
#endif

/* translate_vs_walk: pt_translate_many at most this many times the baseline, every goal case */
#define XLATE_GOAL 1.2

/* ---- the arena (bench.c) ---- */

struct bench {
	uint8_t *mem;
	uint64_t base;
	uint64_t size;
	struct pt_frames frames;
	uint64_t *bitmap;
	struct pt_env env_fast;
	struct pt_env env_cb;
	const struct pt_env *env;   /* the one new_space uses */
	uint8_t *ref;          /* the memset reference's buffer */
	uint64_t ref_bytes;
};

extern struct bench B;
extern int failures;          /* wrong results seen; the exit status says so */

void die(const char *what, int err) __attribute__((noreturn));
void frames_rewind(void);

static inline uint64_t *tbl(uint64_t pa)
{
	return (uint64_t *)(void *)(B.mem + (pa - B.base));
}

/* ---- time and statistics (stats.c) ---- */

struct stat3 {
	double med, min, max;    /* nanoseconds per call */
};

/* The paired ratio of two sides of a case, its median and interval (stats.c: paired). */
struct ratio {
	double med, lo, hi;
	unsigned n;
};

uint64_t now_ns(void);
struct stat3 stat_of(double *t, unsigned n);
struct ratio paired(const double *num, const double *den, unsigned n);
double spread(struct ratio x);

/* ---- the map references (ref.c) ---- */

void fill_map(uint64_t root, unsigned levels, uint64_t va, uint64_t pa, uint64_t len,
	      unsigned max_level);
void perpage_map(uint64_t root, unsigned levels, uint64_t va, uint64_t pa, uint64_t len,
		 unsigned max_level);

/* ---- the cases' results (bench.c) ---- */

struct map_case {
	const char *name;
	const char *what;
	uint64_t va, pa, len;
	enum pt_page_size max_size;
};

enum side { SIDE_MAP, SIDE_FILL, SIDE_PERPAGE, SIDE_COUNT };

struct map_result {
	struct stat3 t[SIDE_COUNT], unmap, memset_ref;
	/* paired ratios: map/fill, map/memset, perpage/map (0 without it), unmap/map */
	struct ratio map_fill, map_memset, perpage_map, unmap_map;
	unsigned reps;
	uint64_t created;            /* table pages one map call created */
	uint64_t min_tables;         /* the fewest table pages those leaves need (root excluded) */
	uint64_t peak_map;           /* frames in use at the peak of pt_map, root included */
	uint64_t peak_unmap;         /* ... of pt_unmap */
	uint64_t fill_created;       /* table pages the fill reference created */
	struct pt_stats stats;
};

struct xlate_result {
	struct stat3 one, many, ref;   /* pt_translate, pt_translate_many, the baseline */
	struct ratio one_ref, many_ref;   /* paired: pt_translate/walk, pt_translate_many/walk */
	unsigned reps;
	uint64_t unmapped;
};

/* The goal's lookup cases: the mixed table set with 4 and 5 levels, addresses random and ascending. */
enum { XL_4_RANDOM, XL_4_SEQ, XL_5_RANDOM, XL_5_SEQ, XL_GOAL_CASES };

struct xl_goal_case {
	const char *name, *what;
};

extern const struct xl_goal_case xl_case[XL_GOAL_CASES];
struct ratio worst_ratio(const struct xlate_result *r, unsigned n);

/* ---- the report (report.c) ---- */

/* The range sweep for the plot: ns per 4 KiB page against the range's size. */
struct sweep {
	const char *label;
	enum pt_page_size size;
	uint64_t len[8];
	unsigned n;
	double ns[SIDE_COUNT][8];
};

/* A row of the plot's lookup panel: ns per lookup of each side; goal > 0 draws the goal's limit. */
struct lookup_row {
	const char *label;
	const struct xlate_result *r;
	double goal;
};

void goal(const char *name, struct ratio x, const char *op, double target);
int report(const char *md_path, const char *svg_path, bool maps_only,
	   const struct map_case *c, const struct map_result *res, unsigned n,
	   struct sweep *sw, unsigned nsw, const struct lookup_row *row, unsigned nrow);
void report_goals(const struct map_result *res, const struct map_result *cb,
		  const struct xlate_result *mixed, const struct xlate_result *cached);

#endif
