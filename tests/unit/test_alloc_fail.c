/* SPDX-License-Identifier: MIT */
/* covers: paging/frames.c paging/memmap.c paging/plan.c paging/pt.c paging/space.c */
/*
 * Allocator failure at every point of every call that allocates.
 *
 * For each operation: run it once on an identical setup and count the
 * frames it takes (K, from the allocator's 'allocated' counter), then for
 * every N in 1..K arm pt_frames_fail_nth(N) and run it again on the same
 * space: it must return PT_ENOMEM and leave the tables, the statistics and
 * the frames in use exactly as they were (the same space serves the next N,
 * which is only sound because nothing changed).  Finally N = K + 1 must
 * succeed without the armed failure firing.
 *
 * Covered: fresh maps across several tables at each level (4 and 5 levels),
 * large-leaf splits 1G->2M, 2M->4K and 1G->4K by unmap, a remap and a
 * protect that split, pt_create, and the plan for every sample memory map in
 * tests/data/memmap (normalized, planned, applied).  Prints
 * "injection_points=N", the number of failing runs tried.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ptlab/frames.h>
#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pt.h>

#include "arena.h"
#include "samples.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define G512 PT_SIZE_512G
#define T256 (UINT64_C(1) << 48)
#define W PT_WRITE
#define X PT_EXEC

#define DATA_DIR "tests/data/memmap"

static unsigned long injection_points;

struct op {
	const char *name;
	unsigned levels;
	/* Bring the space into the state the operation starts from. */
	void (*prep)(struct pt_space *s);
	/* The operation under test. */
	int (*run)(struct pt_space *s, const void *arg);
	const void *arg;
	uint64_t min_k;            /* the operation must allocate at least this much */
};

/*
 * Count K on a fresh copy, then fail each allocation in turn on a second
 * copy.  Returns K.
 */
static uint64_t inject_every(const struct op *op)
{
	struct arena a;
	struct pt_space s;
	uint64_t k, before;
	int err;

	arena_init(&a, 8192);
	assert_int_equal(pt_create(&s, &a.env, op->levels), PT_OK);
	if (op->prep)
		op->prep(&s);
	before = a.frames.allocated;
	assert_int_equal(op->run(&s, op->arg), PT_OK);
	k = a.frames.allocated - before;
	pt_destroy(&s);
	assert_int_equal(a.frames.in_use, 0);
	arena_fini(&a);
	if (k < op->min_k)
		fail_msg("%s: allocates %llu frames, expected at least %llu", op->name,
			 (unsigned long long)k, (unsigned long long)op->min_k);

	arena_init(&a, 8192);
	assert_int_equal(pt_create(&s, &a.env, op->levels), PT_OK);
	if (op->prep)
		op->prep(&s);
	for (uint64_t n = 1; n <= k; n++) {
		struct arena_snap snap;
		uint64_t failed = a.frames.failed;

		arena_snap_take(&snap, &a, &s);
		pt_frames_fail_nth(&a.frames, n);
		err = op->run(&s, op->arg);
		pt_frames_fail_nth(&a.frames, 0);
		injection_points++;
		if (err != PT_ENOMEM)
			fail_msg("%s: allocation %llu of %llu failed, call returned %s", op->name,
				 (unsigned long long)n, (unsigned long long)k, pt_strerror(err));
		if (a.frames.failed != failed + 1)
			fail_msg("%s: allocation %llu of %llu: the injected failure did not fire",
				 op->name, (unsigned long long)n, (unsigned long long)k);
		if (!arena_snap_equal(&snap, &a, &s) || a.frames.in_use != snap.in_use)
			fail_msg("%s: allocation %llu of %llu failed and the tables, stats or frames in use changed",
				 op->name, (unsigned long long)n, (unsigned long long)k);
		arena_snap_free(&snap);
	}
	/* one more than it needs: the armed failure never comes */
	before = a.frames.failed;
	pt_frames_fail_nth(&a.frames, k + 1);
	err = op->run(&s, op->arg);
	pt_frames_fail_nth(&a.frames, 0);
	if (err != PT_OK || a.frames.failed != before)
		fail_msg("%s: with failure %llu armed: %s, %llu failures", op->name,
			 (unsigned long long)(k + 1), pt_strerror(err),
			 (unsigned long long)(a.frames.failed - before));
	pt_destroy(&s);
	assert_int_equal(a.frames.in_use, 0);
	arena_fini(&a);
	print_message("%s: K=%llu\n", op->name, (unsigned long long)k);
	return k;
}

/* ---- operations ------------------------------------------------------------ */

struct range {
	uint64_t va, pa, len;
	unsigned flags;
	enum pt_page_size max;
};

static int op_map(struct pt_space *s, const void *arg)
{
	const struct range *r = arg;

	return pt_map(s, r->va, r->pa, r->len, r->flags, r->max, NULL);
}

static int op_unmap(struct pt_space *s, const void *arg)
{
	const struct range *r = arg;

	return pt_unmap(s, r->va, r->len, 0, NULL);
}

static int op_protect(struct pt_space *s, const void *arg)
{
	const struct range *r = arg;

	return pt_protect(s, r->va, r->len, r->flags, NULL);
}

static int op_remap(struct pt_space *s, const void *arg)
{
	const struct range *r = arg;

	return pt_remap(s, r->va, r->len, r->pa, 0, NULL);
}

/* Two 1 GiB leaves at [3 GiB, 5 GiB) and two 2 MiB leaves at [8 GiB, 8 GiB + 4 MiB). */
static void prep_large(struct pt_space *s)
{
	assert_int_equal(pt_map(s, 3 * G1, 3 * G1, 2 * G1, W, PT_PAGE_1G, NULL), PT_OK);
	assert_int_equal(pt_map(s, 8 * G1, 10 * G1, 2 * M2, W, PT_PAGE_2M, NULL), PT_OK);
	assert_int_equal(s->stats.leaves[2], 2);
	assert_int_equal(s->stats.leaves[1], 2);
}

/* 4 KiB leaves across two 512 GiB regions, 1 GiB regions and four PTs. */
static const struct range fresh_4k = { G512 - M2 - 2 * K4, 0x40000000, 2 * M2 + 4 * K4, W, PT_PAGE_4K };
/* Largest fit across a 512 GiB boundary: 4K, 2M, 1G, 2M and 4K leaves on both sides. */
static const struct range fresh_mixed = { G512 - G1 - M2 - 2 * K4, G1 - M2 - 2 * K4,
					  2 * G1 + 2 * M2 + 4 * K4, X, PT_PAGE_1G };
/* 5 levels: across a 256 TiB boundary (two level-3 tables below the root). */
static const struct range fresh_5l = { T256 - M2 - 2 * K4, 0x40000000, 2 * M2 + 4 * K4, W, PT_PAGE_4K };
/* 5 levels, upper half: below the last page of the address space. */
static const struct range fresh_5l_high = { UINT64_C(0xffffffffffe00000) - 3 * K4, 0x40000000,
					    3 * K4 + M2 - K4, 0, PT_PAGE_2M };

static const struct range split_1g_2m = { 3 * G1 + 4 * M2, 0, M2, 0, 0 };
static const struct range split_2m_4k = { 8 * G1 + 5 * K4, 0, K4, 0, 0 };
static const struct range split_1g_4k = { 3 * G1 + 7 * K4, 0, K4, 0, 0 };
/* cuts both 1 GiB leaves down to 4 KiB at each end */
static const struct range split_both = { 3 * G1 + G1 - 3 * K4, 0, 6 * K4, 0, 0 };
static const struct range remap_split = { 3 * G1 + M2 + K4, 0x7000000, 2 * K4, 0, 0 };
static const struct range remap_whole_2m = { 8 * G1, 0x7001000, M2, 0, 0 };
static const struct range protect_split = { 4 * G1 - M2 - K4, 0, 2 * K4 + 2 * M2, 0, 0 };
static const struct range protect_2m = { 8 * G1 + M2 - K4, 0, 2 * K4, X, 0 };

static int op_create(struct pt_space *s, const void *arg)
{
	struct pt_space fresh;
	int err;

	(void)arg;
	err = pt_create(&fresh, s->env, 5);
	if (err == PT_OK)
		pt_destroy(&fresh);
	return err;
}

static void test_every_allocation_of_map_split_remap_protect(void **state)
{
	const struct op ops[] = {
		{ "create", 4, NULL, op_create, NULL, 1 },
		{ "map 4K leaves across 512G, 1G and 2M boundaries", 4, NULL, op_map, &fresh_4k, 7 },
		{ "map largest fit across a 512G boundary", 4, NULL, op_map, &fresh_mixed, 6 },
		{ "map 5 levels across a 256T boundary", 5, NULL, op_map, &fresh_5l, 9 },
		{ "map 5 levels at the top of the upper half", 5, NULL, op_map, &fresh_5l_high, 5 },
		{ "map 4K leaves, 5 levels, lower half", 5, NULL, op_map, &fresh_4k, 8 },
		{ "unmap splits 1G into 2M", 4, prep_large, op_unmap, &split_1g_2m, 1 },
		{ "unmap splits 2M into 4K", 4, prep_large, op_unmap, &split_2m_4k, 1 },
		{ "unmap splits 1G into 4K", 4, prep_large, op_unmap, &split_1g_4k, 2 },
		{ "unmap splits two 1G leaves into 4K", 4, prep_large, op_unmap, &split_both, 4 },
		{ "unmap splits 1G into 4K, 5 levels", 5, prep_large, op_unmap, &split_1g_4k, 2 },
		{ "remap splits 1G into 4K", 4, prep_large, op_remap, &remap_split, 2 },
		{ "remap of a whole 2M leaf to a 4K-aligned pa", 4, prep_large, op_remap, &remap_whole_2m, 1 },
		{ "protect splits 1G into 4K", 4, prep_large, op_protect, &protect_split, 4 },
		{ "protect splits two 2M leaves", 4, prep_large, op_protect, &protect_2m, 2 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		inject_every(&ops[i]);
}

/* ---- plans for the sample memory maps ---------------------------------------- */

struct plan_arg {
	struct pt_plan plan;
	struct pt_plan_entry entry[1024];
};

static int op_plan(struct pt_space *s, const void *arg)
{
	return pt_plan_apply(s, &((const struct plan_arg *)arg)->plan);
}


static void plan_for(const char *file, unsigned levels, bool has_1g, unsigned *maps)
{
	char name[640];
	size_t len;
	unsigned ds = strstr(file, "desc56") ? 56 : 48;
	void *raw;
	unsigned count;
	struct pt_memmap map;
	struct pt_mem_range *range;
	struct pt_plan_caps caps = { .has_1g = has_1g, .levels = levels, .maxphyaddr = 46 };
	struct plan_arg *pa = calloc(1, sizeof(*pa));
	struct op op = { name, levels, NULL, op_plan, pa, 1 };
	uint64_t k;

	assert_non_null(pa);
	raw = sample_read(file, &len);
	count = (unsigned)(len / ds);
	range = calloc(2 * count + 2, sizeof(*range));
	assert_non_null(range);
	memset(&map, 0, sizeof(map));
	map.range = range;
	map.cap = 2 * count + 2;
	assert_int_equal(pt_memmap_normalize(raw, len, count, ds, 46, &map), PT_OK);
	pa->plan.entry = pa->entry;
	pa->plan.cap = 1024;
	assert_int_equal(pt_plan_build(&map, NULL, &caps, &pa->plan), PT_OK);
	assert_true(pa->plan.n > 0);
	snprintf(name, sizeof(name), "plan %s, %u levels, %s", file, levels,
		 has_1g ? "1G" : "no 1G");
	/* the arena's environment has 1 GiB pages; plans without carry max_size 2M */
	k = inject_every(&op);
	/* apply takes exactly the tables the plan says, less the root */
	assert_int_equal(k, pa->plan.min_total - 1);
	(*maps)++;
	free(range);
	free(raw);
	free(pa);
}

static void test_every_allocation_of_plan_apply_for_sample_maps(void **state)
{
	DIR *d = opendir(DATA_DIR);
	struct dirent *de;
	unsigned maps = 0;

	(void)state;
	if (!d)
		fail_msg("cannot open %s (run from the top of the tree)", DATA_DIR);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".bin"))
			continue;
		plan_for(de->d_name, 4, true, &maps);
		plan_for(de->d_name, 4, false, &maps);
		plan_for(de->d_name, 5, true, &maps);
	}
	closedir(d);
	/* at least the committed ovmf-q35-256m maps and quirks.bin */
	assert_true(maps >= 3 * 3);
}

static int report(void **state)
{
	(void)state;
	print_message("injection_points=%lu\n", injection_points);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation_of_map_split_remap_protect),
		cmocka_unit_test(test_every_allocation_of_plan_apply_for_sample_maps),
	};

	return cmocka_run_group_tests(tests, NULL, report);
}
