/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: plan a fuzzed small memory map and apply it.
 *
 * Input: caps byte (bit 0 has_1g, bit 1 five levels), maxphyaddr byte
 * (32 + b % 21), image bytes (range, offset, size, sections and their
 * flags), then 12-byte descriptors: u8 type, u8 frame number bits 39:32,
 * u16 attribute bits, u32 frame number bits 31:0, u32 pages.  They become a
 * UEFI map of 48-byte descriptors and go through pt_memmap_normalize first.
 *
 * The plan must map nothing twice (entries sorted and disjoint), never map
 * virtual page 0, never be W and X, stay below 2^maxphyaddr, and
 * pt_plan_apply into an empty space must create exactly plan.min_tables
 * per level.  Violations abort().
 *
 * Only plans of at most APPLY_MAX_TABLES table pages are applied: a page
 * costs the apply, lint and destroy up to 512 entries each, and a few
 * thousand of them (easily reached with 32-bit page counts and 2 MiB
 * leaves) made an input take milliseconds.  The seeds need at most 26; every
 * other check runs on every plan.  The arena is allocated once and its
 * allocator reset to the same state before every apply.
 */

#include <ptlab/frames.h>
#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pt.h>

#include "../unit/arena.h"

#define PAGE UINT64_C(4096)
#define HDR 10u
#define REC 12u
#define MAX_DESC 24u
#define APPLY_MAX_TABLES 32u
#define ARENA_FRAMES (2 * APPLY_MAX_TABLES)

#define FUZZ_NAME "fuzz_plan"
#define FUZZ_ARENA_FRAMES ARENA_FRAMES
#include "fuzzkit.h"


static void check_apply(const struct pt_plan *plan, const struct pt_plan_caps *caps)
{
	struct pt_space s;
	static uint64_t scratch[ARENA_FRAMES];
	struct pt_lint l;
	int err;

	if (plan->min_total > APPLY_MAX_TABLES)
		return;
	fuzz_arena_reset();
	fuzz_arena.env.maxphyaddr = caps->maxphyaddr;
	fuzz_arena.env.has_1g = caps->has_1g;
	if (pt_create(&s, &fuzz_arena.env, caps->levels) != PT_OK)
		fuzz_die("pt_create");
	err = pt_plan_apply(&s, plan);
	if (err != PT_OK) {
		fprintf(stderr, "fuzz_plan: apply: %s\n", pt_strerror(err));
		fuzz_die("a plan from pt_plan_build does not apply");
	}
	for (unsigned L = 0; L < 5; L++)
		if (s.stats.tables[L] != plan->min_tables[L]) {
			fprintf(stderr, "fuzz_plan: level %u: %llu tables, plan says %llu\n", L,
				(unsigned long long)s.stats.tables[L],
				(unsigned long long)plan->min_tables[L]);
			fuzz_die("apply does not use exactly min_tables");
		}
	if (pt_table_count(&s) != plan->min_total)
		fuzz_die("min_total differs from the tables used");
	/* the arena's frames sit below 2^39: lint's reserved-bit check needs that */
	if (caps->maxphyaddr >= 39 &&
	    pt_lint(&s, scratch, ARENA_FRAMES, fuzz_owns, &fuzz_arena, &l) != PT_OK)
		fuzz_die("lint finds the applied plan inconsistent");
	pt_destroy(&s);
	if (fuzz_arena.frames.in_use != 0)
		fuzz_die("frames left in use after destroy");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_plan_caps caps = { .levels = 4 };
	static uint8_t raw[MAX_DESC * 48];
	static struct pt_mem_range range[2 * MAX_DESC];
	static struct pt_plan_entry entry[2 * 2 * MAX_DESC + 2 * PT_IMAGE_MAX_SECTIONS + 4];
	struct pt_memmap map;
	struct pt_image image;
	struct pt_plan plan;
	unsigned n, img_byte;
	uint64_t phys_end;
	int err;

	if (size < HDR)
		return 0;
	caps.has_1g = data[0] & 1;
	caps.levels = data[0] & 2 ? 5 : 4;
	caps.maxphyaddr = 32 + data[1] % 21;
	img_byte = data[2];
	n = (unsigned)((size - HDR) / REC);
	if (n > MAX_DESC)
		n = MAX_DESC;
	memset(raw, 0, sizeof(raw));
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *r = data + HDR + i * REC;
		uint32_t type = r[0] % (PT_EFI_TYPE_COUNT + 2), lo, pages;
		uint16_t a;
		uint64_t start, attr, pg;

		memcpy(&a, r + 2, 2);
		memcpy(&lo, r + 4, 4);
		memcpy(&pages, r + 8, 4);
		start = (((uint64_t)r[1] << 32) | lo) << 12;
		attr = (a & 0x7fff) | ((uint64_t)(a >> 15) << 63);
		pg = pages;
		memcpy(raw + i * 48, &type, 4);
		memcpy(raw + i * 48 + 8, &start, 8);
		memcpy(raw + i * 48 + 24, &pg, 8);
		memcpy(raw + i * 48 + 32, &attr, 8);
	}
	memset(&map, 0, sizeof(map));
	map.range = range;
	map.cap = 2 * MAX_DESC;
	if (pt_memmap_normalize(raw, sizeof(raw), n, 48, caps.maxphyaddr, &map) != PT_OK)
		fuzz_die("normalize refused a well-formed map");

	/* the image: inside one output range, or not there at all */
	memset(&image, 0, sizeof(image));
	if (!(img_byte & 0x80) && map.n) {
		const struct pt_mem_range *r = &map.range[img_byte % map.n];
		uint64_t off = (uint64_t)data[3] * PAGE, sz = (uint64_t)(1 + data[4]) * PAGE;
		unsigned ns = 1 + data[5] % 4;
		uint64_t at;

		image.base = r->pa + off;
		image.size = sz;
		image.nsections = ns;
		at = image.base;
		for (unsigned k = 0; k < ns; k++) {
			uint64_t len = k + 1 < ns ? (uint64_t)(1 + ((data[6] >> (2 * k)) & 3)) * PAGE :
				       image.base + image.size - at;
			static const unsigned fl[4] = { PT_EXEC, 0, PT_WRITE, PT_WRITE | PT_GLOBAL };

			image.section[k].pa = at;
			image.section[k].len = len;
			image.section[k].flags = fl[(data[7] >> (2 * k)) & 3];
			at += len;
		}
	}

	memset(&plan, 0, sizeof(plan));
	plan.entry = entry;
	plan.cap = 2 * map.n + 2 * PT_IMAGE_MAX_SECTIONS + 4;
	err = pt_plan_build(&map, image.nsections ? &image : NULL, &caps, &plan);
	if (err == PT_EINVAL && image.nsections)
		return 0;       /* a bad image (sections, placement): refused as documented */
	if (err != PT_OK) {
		fprintf(stderr, "fuzz_plan: build: %s\n", pt_strerror(err));
		fuzz_die("build refused a normalized map");
	}

	phys_end = UINT64_C(1) << caps.maxphyaddr;
	for (unsigned i = 0; i < plan.n; i++) {
		const struct pt_plan_entry *e = &plan.entry[i];

		if (!e->len || (e->va | e->pa | e->len) & (PAGE - 1))
			fuzz_die("empty or unaligned entry");
		if (e->va + e->len - 1 < e->va || e->pa + e->len - 1 < e->pa)
			fuzz_die("entry wraps");
		if (i && plan.entry[i - 1].va + plan.entry[i - 1].len > e->va)
			fuzz_die("entries not sorted or overlapping: something is mapped twice");
		if (e->va < PAGE)
			fuzz_die("virtual page 0 mapped");
		if ((e->flags & (PT_WRITE | PT_EXEC)) == (PT_WRITE | PT_EXEC) ||
		    (e->flags & PT_ALLOW_WX))
			fuzz_die("W+X entry");
		if (e->flags & ~PT_ATTR_MASK)
			fuzz_die("option bits in an entry");
		if (e->pa + e->len > phys_end)
			fuzz_die("entry reaches above 2^maxphyaddr");
		if (!pt_canonical(e->va, caps.levels) ||
		    !pt_canonical(e->va + e->len - 1, caps.levels) ||
		    (int64_t)(e->va ^ (e->va + e->len - 1)) < 0)
			fuzz_die("entry not canonical or across the hole");
		if (e->kind == PT_PLAN_IDENTITY && e->va != e->pa)
			fuzz_die("identity entry with va != pa");
		if (pt_plan_find(&plan, e->va) != e || pt_plan_find(&plan, e->va + e->len - 1) != e)
			fuzz_die("pt_plan_find misses an entry");
	}
	check_apply(&plan, &caps);
	return 0;
}
