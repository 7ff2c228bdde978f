// SPDX-License-Identifier: MIT
/* covers: paging/plan.c */
/*
 * Minimal tables on real firmware maps: for each OVMF memory map captured
 * with tests/data/memmap/capture.sh (q35, -cpu max, 256M/2G/8G/16G), the
 * plan built for it is applied to an empty space, and the tables the
 * library builds per level must equal the plan's arithmetic minimum
 * (pt_plan_min_tables), with and without 1 GiB leaves, for 4 and 5 levels.
 * The arena holds exactly min_total frames plus a little, and the frame
 * peak must equal min_total: no call reserved a frame it did not keep.
 *
 * The brute-force cross-check of pt_plan_min_tables on small synthetic maps
 * is in test_plan.c; this file only pins the real maps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/memmap.h>
#include <ptlab/plan.h>

#include "arena.h"
#include "samples.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

#define OVMF_DESC_SIZE 48u
#define MAX_DESC 1024u
#define IMAGE_TEXT 0x14000u
#define IMAGE_DATA 0xc000u

struct fx {
	struct pt_mem_range range[2 * MAX_DESC];
	struct pt_memmap map;
	struct pt_image image;
	struct pt_plan_entry entry[4 * MAX_DESC + 2 * PT_IMAGE_MAX_SECTIONS + 4];
	struct pt_plan plan;
};


/* Normalize @name into x->map and place the image in its first LoaderCode range. */
static void load(struct fx *x, const char *name)
{
	const struct pt_mem_range *lc = NULL;
	size_t len;
	void *raw = sample_read(name, &len);
	unsigned count = (unsigned)(len / OVMF_DESC_SIZE);
	uint64_t base;

	assert_int_equal(len % OVMF_DESC_SIZE, 0);
	assert_true(count > 0 && count <= MAX_DESC);
	memset(x, 0, sizeof(*x));
	x->map.range = x->range;
	x->map.cap = NR(x->range);
	assert_int_equal(pt_memmap_normalize(raw, len, count, OVMF_DESC_SIZE, 46, &x->map), PT_OK);
	free(raw);
	assert_true(x->map.n > 0);

	for (unsigned i = 0; i < x->map.n && !lc; i++)
		if (x->range[i].type == PT_EFI_LOADER_CODE)
			lc = &x->range[i];
	if (!lc)
		fail_msg("%s: no LoaderCode range", name);
	/* one page in, as PE images sit behind their headers; text then data */
	base = lc->pa + PT_PAGE_SIZE;
	if (lc->len < PT_PAGE_SIZE + IMAGE_TEXT + IMAGE_DATA)
		fail_msg("%s: LoaderCode range of 0x%llx bytes is too small for the image", name,
			 (unsigned long long)lc->len);
	x->image.base = base;
	x->image.size = IMAGE_TEXT + IMAGE_DATA;
	x->image.nsections = 2;
	x->image.section[0] = (struct pt_image_section){ base, IMAGE_TEXT, PT_EXEC };
	x->image.section[1] = (struct pt_image_section){ base + IMAGE_TEXT, IMAGE_DATA, PT_WRITE };
	x->plan.entry = x->entry;
	x->plan.cap = NR(x->entry);
}

static void check_minimal(const char *name, bool has_1g, unsigned levels)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct pt_plan_caps caps = { .has_1g = has_1g, .levels = levels, .maxphyaddr = 46 };
	struct pt_lint lint;
	struct arena a;
	struct pt_space s;
	uint64_t *scratch;

	assert_non_null(x);
	load(x, name);
	assert_int_equal(pt_plan_build(&x->map, &x->image, &caps, &x->plan), PT_OK);
	assert_int_equal(x->plan.min_tables[levels - 1], 1);

	arena_init(&a, x->plan.min_total + 16);
	a.env.has_1g = has_1g;
	assert_int_equal(pt_create(&s, &a.env, levels), PT_OK);
	assert_int_equal(pt_plan_apply(&s, &x->plan), PT_OK);

	print_message("%-14s has_1g=%d levels=%u: %2u ranges, %3u entries, tables L4 %llu L3 %llu "
		      "L2 %llu L1 %llu L0 %llu = %llu (min: %llu %llu %llu %llu %llu = %llu)\n",
		      name, has_1g, levels, x->map.n, x->plan.n,
		      (unsigned long long)s.stats.tables[4], (unsigned long long)s.stats.tables[3],
		      (unsigned long long)s.stats.tables[2], (unsigned long long)s.stats.tables[1],
		      (unsigned long long)s.stats.tables[0], (unsigned long long)pt_table_count(&s),
		      (unsigned long long)x->plan.min_tables[4],
		      (unsigned long long)x->plan.min_tables[3],
		      (unsigned long long)x->plan.min_tables[2],
		      (unsigned long long)x->plan.min_tables[1],
		      (unsigned long long)x->plan.min_tables[0],
		      (unsigned long long)x->plan.min_total);
	for (unsigned l = 0; l < 5; l++)
		if (s.stats.tables[l] != x->plan.min_tables[l])
			fail_msg("%s has_1g=%d levels=%u: level %u has %llu tables, minimum %llu",
				 name, has_1g, levels, l, (unsigned long long)s.stats.tables[l],
				 (unsigned long long)x->plan.min_tables[l]);
	assert_int_equal(pt_table_count(&s), x->plan.min_total);
	assert_int_equal(a.frames.in_use, x->plan.min_total);
	assert_int_equal(a.frames.peak, x->plan.min_total);
	if (!has_1g)
		assert_int_equal(s.stats.leaves[PT_PAGE_1G], 0);

	/* and the hierarchy is sound: no empty or shared table, counts agree */
	scratch = calloc(x->plan.min_total, sizeof(*scratch));
	assert_non_null(scratch);
	assert_int_equal(pt_lint(&s, scratch, x->plan.min_total, NULL, NULL, &lint), PT_OK);
	free(scratch);

	pt_destroy(&s);
	assert_int_equal(a.frames.in_use, 0);
	arena_fini(&a);
	free(x);
}

static const char *const maps[] = {
	"ovmf-256M.bin",
	"ovmf-2G.bin",
	"ovmf-8G.bin",
	"ovmf-16G.bin",
};

static void test_ovmf_maps_build_minimal_tables_with_1g(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NR(maps); i++) {
		check_minimal(maps[i], true, 4);
		check_minimal(maps[i], true, 5);
	}
}

static void test_ovmf_maps_build_minimal_tables_without_1g(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NR(maps); i++) {
		check_minimal(maps[i], false, 4);
		check_minimal(maps[i], false, 5);
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_ovmf_maps_build_minimal_tables_with_1g),
	cmocka_unit_test(test_ovmf_maps_build_minimal_tables_without_1g))
