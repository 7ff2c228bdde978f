// SPDX-License-Identifier: MIT
/* covers: paging/memmap.c */
/*
 * Host tests for paging/memmap.c.
 *
 * Maps are built byte by byte at the UEFI offsets with strides of 40, 48 and
 * 64 bytes; the padding between descriptors is filled with garbage so a
 * reader that assumes a struct layout or stride is caught.
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
#include "memmapfx.h"

#include <ptlab/memmap.h>
#include <ptlab/pt.h>
#include "../../efi/lib/prng.h"

#define PG UINT64_C(4096)
#define WB UINT64_C(0xf)
#define RT PT_EFI_MEMORY_RUNTIME

struct desc {
	uint32_t type;
	uint64_t pa;
	uint64_t pages;
	uint64_t attr;
};

/* Raw map bytes for @n descriptors at stride @size (caller frees). */
static uint8_t *build(const struct desc *d, unsigned n, unsigned size)
{
	uint8_t *raw = malloc((size_t)n * size + 1);

	assert_non_null(raw);
	memset(raw, 0xcc, (size_t)n * size + 1);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = raw + (size_t)i * size;
		uint64_t va = UINT64_C(0xdeadbeefcafe0000) + i;

		memcpy(p + 0, &d[i].type, 4);
		memcpy(p + 8, &d[i].pa, 8);
		memcpy(p + 16, &va, 8);
		memcpy(p + 24, &d[i].pages, 8);
		memcpy(p + 32, &d[i].attr, 8);
	}
	return raw;
}

struct result {
	struct pt_memmap m;
	struct pt_mem_range r[256];
	int err;
};

static void run(struct result *res, const struct desc *d, unsigned n, unsigned size,
		unsigned maxphyaddr)
{
	uint8_t *raw = build(d, n, size);

	memset(res, 0, sizeof(*res));
	res->m.range = res->r;
	res->m.cap = 256;
	res->err = pt_memmap_normalize(raw, (size_t)n * size, n, size, maxphyaddr, &res->m);
	free(raw);
}

static void expect_range(const struct result *res, unsigned i, uint64_t pa, uint64_t end,
			 uint32_t type, uint64_t attr)
{
	assert_true(i < res->m.n);
	assert_int_equal(res->m.range[i].pa, pa);
	assert_int_equal(res->m.range[i].pa + res->m.range[i].len, end);
	assert_int_equal(res->m.range[i].type, type);
	assert_int_equal(res->m.range[i].attr, attr);
}

static const unsigned sizes[] = { 40, 48, 64 };

/* ---- basic shape -------------------------------------------------------- */

static void test_same_output_for_descriptor_sizes_40_48_64(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x1000, 0x9f, WB },
		{ PT_EFI_BS_DATA, 0x100000, 0x10, WB },
		{ PT_EFI_MMIO, 0xfec00000, 1, PT_EFI_MEMORY_UC },
	};
	struct result res;

	(void)state;
	for (unsigned s = 0; s < 3; s++) {
		run(&res, d, 3, sizes[s], 52);
		assert_int_equal(res.err, PT_OK);
		assert_int_equal(res.m.n, 3);
		assert_int_equal(res.m.descriptors, 3);
		assert_int_equal(res.m.desc_size, sizes[s]);
		assert_int_equal(res.m.quirks, 0);
		expect_range(&res, 0, 0x1000, 0xa0000, PT_EFI_CONVENTIONAL, WB);
		expect_range(&res, 1, 0x100000, 0x110000, PT_EFI_BS_DATA, WB);
		expect_range(&res, 2, 0xfec00000, 0xfec01000, PT_EFI_MMIO, PT_EFI_MEMORY_UC);
		assert_int_equal(res.m.usable_bytes, 0x9f000 + 0x10000);
	}
}

/*
 * A map of 40-byte descriptors in a buffer of exactly count * 40 bytes: the
 * last field of the last descriptor (Attribute, bytes 32..39) is read
 * without touching byte 40 (ASan reports a read past the allocation).
 */
static void test_exact_40_byte_map_is_read_within_its_bytes(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x1000, 0x9f, WB },
		{ PT_EFI_MMIO, 0xfec00000, 1, PT_EFI_MEMORY_UC | RT },
	};
	uint8_t *tmp = build(d, 2, 40), *raw = malloc(80);
	struct pt_mem_range r[8];
	struct pt_memmap m = { .range = r, .cap = 8 };

	(void)state;
	assert_non_null(raw);
	memcpy(raw, tmp, 80);
	free(tmp);
	assert_int_equal(pt_memmap_normalize(raw, 80, 2, 40, 52, &m), PT_OK);
	free(raw);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.range[1].pa, 0xfec00000);
	assert_int_equal(m.range[1].attr, PT_EFI_MEMORY_UC | RT);
}

static void test_unsorted_input_is_sorted_and_counted(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_BS_DATA, 0x200000, 1, WB },
		{ PT_EFI_CONVENTIONAL, 0x1000, 1, WB },
		{ PT_EFI_LOADER_CODE, 0x100000, 1, WB },
		{ PT_EFI_RT_DATA, 0x300000, 1, WB | RT },
	};
	struct result res;

	(void)state;
	run(&res, d, 4, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 4);
	expect_range(&res, 0, 0x1000, 0x2000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, 0x100000, 0x101000, PT_EFI_LOADER_CODE, WB);
	expect_range(&res, 2, 0x200000, 0x201000, PT_EFI_BS_DATA, WB);
	expect_range(&res, 3, 0x300000, 0x301000, PT_EFI_RT_DATA, WB | RT);
	assert_int_equal(res.m.quirks, 1u << PT_QUIRK_UNSORTED);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNSORTED], 1);
}

/* Two descriptors starting at the same address, in order: an overlap, not disorder. */
static void test_equal_starts_overlap_but_are_not_unsorted(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x100000, 2, WB },
		{ PT_EFI_CONVENTIONAL, 0x100000, 1, WB },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, 0x100000, 0x102000, PT_EFI_CONVENTIONAL, WB);
	assert_int_equal(res.m.quirks, 1u << PT_QUIRK_OVERLAP);
}

static void test_reserved_inside_ram_gives_three_ranges_reserved_wins(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x100000, 0x100, WB },
		{ PT_EFI_RESERVED, 0x180000, 0x10, 0 },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 3);
	expect_range(&res, 0, 0x100000, 0x180000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, 0x180000, 0x190000, PT_EFI_RESERVED, 0);
	expect_range(&res, 2, 0x190000, 0x200000, PT_EFI_CONVENTIONAL, WB);
	assert_int_equal(res.m.quirks, 1u << PT_QUIRK_OVERLAP);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 1);
	assert_int_equal(res.m.usable_bytes, 0x100000 - 0x10000);
}

static void test_overlap_resolves_to_the_more_restrictive_type_either_order(void **state)
{
	/* { loser, winner } pairs along the restrictiveness order. */
	const uint32_t pairs[][2] = {
		{ PT_EFI_CONVENTIONAL, PT_EFI_PERSISTENT },
		{ PT_EFI_CONVENTIONAL, PT_EFI_BS_DATA },
		{ PT_EFI_LOADER_DATA, PT_EFI_LOADER_CODE },
		{ PT_EFI_BS_DATA, PT_EFI_ACPI_RECLAIM },
		{ PT_EFI_ACPI_RECLAIM, PT_EFI_BS_CODE },
		{ PT_EFI_BS_CODE, PT_EFI_PAL_CODE },
		{ PT_EFI_PAL_CODE, PT_EFI_RT_DATA },
		{ PT_EFI_RT_DATA, PT_EFI_RT_CODE },
		{ PT_EFI_RT_CODE, PT_EFI_ACPI_NVS },
		{ PT_EFI_ACPI_NVS, PT_EFI_MMIO },
		{ PT_EFI_MMIO_PORT, PT_EFI_MMIO },
		{ PT_EFI_MMIO, PT_EFI_UNACCEPTED },
		{ PT_EFI_MMIO, PT_EFI_UNUSABLE },
		{ PT_EFI_UNUSABLE, PT_EFI_RESERVED },
		{ PT_EFI_CONVENTIONAL, PT_EFI_RESERVED },
	};
	struct result res;

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		for (int order = 0; order < 2; order++) {
			struct desc d[2] = {
				{ pairs[i][0], 0x10000, 4, 0x1 },
				{ pairs[i][1], 0x10000, 4, 0x8 },
			};

			if (order) {
				struct desc t = d[0];

				d[0] = d[1];
				d[1] = t;
			}
			run(&res, d, 2, 40, 52);
			assert_int_equal(res.err, PT_OK);
			assert_int_equal(res.m.n, 1);
			/* The winner's attributes come along. */
			expect_range(&res, 0, 0x10000, 0x14000, pairs[i][1], 0x8);
			assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 1);
		}
	}
}

static void test_same_type_overlap_keeps_every_attribute_bit(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_RT_DATA, 0x10000, 4, WB | RT },
		{ PT_EFI_RT_DATA, 0x12000, 4, WB },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 2);
	expect_range(&res, 0, 0x10000, 0x14000, PT_EFI_RT_DATA, WB | RT);
	expect_range(&res, 1, 0x14000, 0x16000, PT_EFI_RT_DATA, WB);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 1);
}

static void test_zero_length_descriptor_is_dropped_and_counted(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x1000, 1, WB },
		{ PT_EFI_RESERVED, 0x1000, 0, 0 },
		{ PT_EFI_CONVENTIONAL, 0x2000, 1, WB },
	};
	struct result res;

	(void)state;
	run(&res, d, 3, 64, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, 0x1000, 0x3000, PT_EFI_CONVENTIONAL, WB);
	assert_int_equal(res.m.quirks, 1u << PT_QUIRK_ZERO_LENGTH);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_ZERO_LENGTH], 1);

	/* the same struct reused for a clean map: every count starts again at 0 */
	{
		uint8_t *raw = build(d, 1, 64);

		assert_int_equal(pt_memmap_normalize(raw, 64, 1, 64, 52, &res.m), PT_OK);
		free(raw);
		assert_int_equal(res.m.n, 1);
		assert_int_equal(res.m.quirks, 0);
		for (unsigned q = 0; q < PT_QUIRK_COUNT; q++)
			assert_int_equal(res.m.quirk_count[q], 0);
	}
}

static void test_ranges_above_4g_are_kept(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, UINT64_C(0x100000000), 0x40000, WB },
		{ PT_EFI_MMIO, UINT64_C(0x8000000000), 0x100, PT_EFI_MEMORY_UC },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 46);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 2);
	expect_range(&res, 0, UINT64_C(0x100000000), UINT64_C(0x140000000), PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, UINT64_C(0x8000000000), UINT64_C(0x8000100000), PT_EFI_MMIO,
		     PT_EFI_MEMORY_UC);
	assert_int_equal(res.m.usable_bytes, UINT64_C(0x40000000));
	assert_int_equal(res.m.quirks, 0);
}

static void test_adjacent_same_type_merge_but_not_across_attributes(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x0000, 1, WB },
		{ PT_EFI_CONVENTIONAL, 0x1000, 2, WB },
		{ PT_EFI_CONVENTIONAL, 0x3000, 1, WB | PT_EFI_MEMORY_XP },
		{ PT_EFI_BS_DATA, 0x4000, 1, WB | PT_EFI_MEMORY_XP },
		{ PT_EFI_BS_DATA, 0x6000, 1, WB | PT_EFI_MEMORY_XP },   /* gap: not adjacent */
	};
	struct result res;

	(void)state;
	run(&res, d, 5, 40, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 4);
	expect_range(&res, 0, 0x0000, 0x3000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, 0x3000, 0x4000, PT_EFI_CONVENTIONAL, WB | PT_EFI_MEMORY_XP);
	expect_range(&res, 2, 0x4000, 0x5000, PT_EFI_BS_DATA, WB | PT_EFI_MEMORY_XP);
	expect_range(&res, 3, 0x6000, 0x7000, PT_EFI_BS_DATA, WB | PT_EFI_MEMORY_XP);
	assert_int_equal(res.m.quirks, 0);
}

static void test_unknown_type_becomes_reserved_with_quirk(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x0000, 4, WB },
		{ 0x70000000, 0x1000, 1, WB },      /* OEM range type */
		{ PT_EFI_TYPE_COUNT, 0x8000, 1, 0 },
	};
	struct result res;

	(void)state;
	run(&res, d, 3, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 4);
	expect_range(&res, 0, 0x0000, 0x1000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, 0x1000, 0x2000, PT_EFI_RESERVED, WB);
	expect_range(&res, 2, 0x2000, 0x4000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 3, 0x8000, 0x9000, PT_EFI_RESERVED, 0);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNKNOWN_TYPE], 2);
	assert_int_equal(res.m.usable_bytes, 0x3000);
}

static void test_unaligned_start_is_trimmed_inwards(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x10800, 4, WB },   /* [0x10800, 0x14800) */
		{ PT_EFI_CONVENTIONAL, 0x20010, 1, WB },   /* less than a page once trimmed */
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, 0x11000, 0x14000, PT_EFI_CONVENTIONAL, WB);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 2);
}

static void test_unaligned_reserved_in_a_ram_page_makes_it_reserved(void **state)
{
	/*
	 * The reserved descriptor holds [0x11800, 0x12800): half of page
	 * 0x11000 and half of page 0x12000, the other halves RAM.  Both pages
	 * hold reserved bytes, so both are reserved; trimmed inwards the
	 * descriptor would vanish and both pages would come out as RAM.
	 */
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x10000, 4, WB },
		{ PT_EFI_RESERVED, 0x11800, 1, 0 },
	};
	struct result res;

	(void)state;
	for (unsigned s = 0; s < 3; s++) {
		run(&res, d, 2, sizes[s], 52);
		assert_int_equal(res.err, PT_OK);
		assert_int_equal(res.m.n, 3);
		expect_range(&res, 0, 0x10000, 0x11000, PT_EFI_CONVENTIONAL, WB);
		expect_range(&res, 1, 0x11000, 0x13000, PT_EFI_RESERVED, 0);
		expect_range(&res, 2, 0x13000, 0x14000, PT_EFI_CONVENTIONAL, WB);
		assert_int_equal(res.m.usable_bytes, 2 * PG);
		assert_int_equal(res.m.quirks,
				 (1u << PT_QUIRK_UNALIGNED) | (1u << PT_QUIRK_OVERLAP));
		assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 1);
		assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 1);
	}
}

static void test_unaligned_descriptor_rounds_by_class_for_every_type(void **state)
{
	/*
	 * Over eight pages of conventional memory, a one-page descriptor of
	 * each type at 0x13010: RAM types are trimmed inwards to nothing and
	 * leave the RAM whole; every other type (unknown ones too) takes both
	 * pages it touches, 0x13000 and 0x14000.
	 */
	struct result res;

	(void)state;
	for (uint32_t t = 0; t <= PT_EFI_TYPE_COUNT; t++) {
		const uint32_t type = t == PT_EFI_TYPE_COUNT ? 0x80000001u : t;
		const uint32_t seen = t == PT_EFI_TYPE_COUNT ? PT_EFI_RESERVED : t;
		const struct desc d[] = {
			{ PT_EFI_CONVENTIONAL, 0x10000, 8, WB },
			{ type, 0x13010, 1, PT_EFI_MEMORY_UC },
		};

		run(&res, d, 2, 48, 52);
		assert_int_equal(res.err, PT_OK);
		assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 1);
		if (pt_mem_class_of(seen) == PT_MEM_RAM) {
			assert_int_equal(res.m.n, 1);
			expect_range(&res, 0, 0x10000, 0x18000, PT_EFI_CONVENTIONAL, WB);
			assert_int_equal(res.m.usable_bytes, 8 * PG);
			assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 0);
			continue;
		}
		assert_int_equal(res.m.n, 3);
		expect_range(&res, 0, 0x10000, 0x13000, PT_EFI_CONVENTIONAL, WB);
		expect_range(&res, 1, 0x13000, 0x15000, seen, PT_EFI_MEMORY_UC);
		expect_range(&res, 2, 0x15000, 0x18000, PT_EFI_CONVENTIONAL, WB);
		assert_int_equal(res.m.usable_bytes, 6 * PG);
		assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 1);
	}
}

static void test_unaligned_non_ram_is_rounded_outwards_at_the_edges(void **state)
{
	const struct desc d[] = {
		/* alone: both pages it touches, no overlap */
		{ PT_EFI_MMIO, 0xfec00800, 1, PT_EFI_MEMORY_UC },
		/* RAM page 0x20000 holds its last byte: that page is ACPI NVS */
		{ PT_EFI_ACPI_NVS, 0x1f001, 1, WB },
		{ PT_EFI_BS_DATA, 0x20000, 2, WB },
		/* a RAM page entirely outside the rounded range is left alone */
		{ PT_EFI_RT_DATA, 0x30ff8, 1, WB | RT },
		{ PT_EFI_CONVENTIONAL, 0x2f000, 2, WB },
		{ PT_EFI_CONVENTIONAL, 0x32000, 1, WB },
	};
	struct result res;

	(void)state;
	run(&res, d, 6, 64, 52);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 6);
	expect_range(&res, 0, 0x1f000, 0x21000, PT_EFI_ACPI_NVS, WB);
	expect_range(&res, 1, 0x21000, 0x22000, PT_EFI_BS_DATA, WB);
	expect_range(&res, 2, 0x2f000, 0x30000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 3, 0x30000, 0x32000, PT_EFI_RT_DATA, WB | RT);
	expect_range(&res, 4, 0x32000, 0x33000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 5, 0xfec00000, 0xfec02000, PT_EFI_MMIO, PT_EFI_MEMORY_UC);
	assert_int_equal(res.m.usable_bytes, 3 * PG);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 3);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_OVERLAP], 2);
}

static void test_unaligned_non_ram_near_maxphyaddr_and_2_64(void **state)
{
	const struct desc d[] = {
		/* [2^36 - 0x800, 2^36 + 0x800): rounded outwards, then cut at 2^36 */
		{ PT_EFI_RESERVED, UINT64_C(0xffffff800), 1, 0 },
		/* starts mid-page at 2^36: nothing below the limit */
		{ PT_EFI_MMIO, UINT64_C(0x1000000010), 1, 0 },
	};
	const struct desc top[] = {
		/* ends mid-page in the last page: rounding up must not wrap */
		{ PT_EFI_RESERVED, UINT64_C(0xffffffffffffd800), 2, 0 },
		/* entirely inside the last page, which no end can describe */
		{ PT_EFI_MMIO, UINT64_C(0xfffffffffffff800), 0x10, 0 },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 36);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, UINT64_C(0xffffff000), UINT64_C(0x1000000000), PT_EFI_RESERVED, 0);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 2);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_ABOVE_MAXPHYS], 2);

	run(&res, top, 2, 48, 64);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, UINT64_C(0xffffffffffffd000), UINT64_C(0xfffffffffffff000),
		     PT_EFI_RESERVED, 0);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_UNALIGNED], 2);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_WRAP], 1);
}

static void test_wrapping_length_is_clamped(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_RESERVED, UINT64_C(0xfffffffffff00000), 0x200, 0 },
		{ PT_EFI_RESERVED, UINT64_C(0x1000), UINT64_MAX, 0 },
	};
	struct result res;

	(void)state;
	run(&res, d, 2, 48, 64);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 1);
	expect_range(&res, 0, 0x1000, UINT64_C(0xfffffffffffff000), PT_EFI_RESERVED, 0);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_WRAP], 2);
}

static void test_ranges_at_or_above_maxphyaddr_are_cut(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, UINT64_C(0xff0000000), 0x20000, WB },  /* crosses 2^36 */
		{ PT_EFI_MMIO, UINT64_C(0x1000000000), 0x10, 0x1 },           /* starts at 2^36 */
		{ PT_EFI_CONVENTIONAL, 0, 0x10, WB },
	};
	struct result res;

	(void)state;
	run(&res, d, 3, 48, 36);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.n, 2);
	expect_range(&res, 0, 0, 0x10000, PT_EFI_CONVENTIONAL, WB);
	expect_range(&res, 1, UINT64_C(0xff0000000), UINT64_C(0x1000000000), PT_EFI_CONVENTIONAL, WB);
	assert_int_equal(res.m.quirk_count[PT_QUIRK_ABOVE_MAXPHYS], 2);
	assert_int_equal(res.m.usable_bytes, 0x10000 + 0x10000000);

	/* below 2^12 no page is whole: nothing is left, and no unaligned end */
	for (unsigned bits = 0; bits < 12; bits++) {
		run(&res, d, 3, 48, bits);
		assert_int_equal(res.err, PT_OK);
		assert_int_equal(res.m.n, 0);
		assert_int_equal(res.m.usable_bytes, 0);
		assert_int_equal(res.m.quirk_count[PT_QUIRK_ABOVE_MAXPHYS], 3);
	}
}

/* ---- errors ------------------------------------------------------------- */

static void test_bad_descriptor_size_count_or_length_is_emapbad(void **state)
{
	const struct desc d[] = { { PT_EFI_CONVENTIONAL, 0, 1, WB } };
	const unsigned bad_sizes[] = { 0, 8, 32, 39, 44, 52, 4104, 8192 };
	struct pt_mem_range r[4];
	struct pt_memmap m;
	uint8_t *raw = build(d, 1, 4096);

	(void)state;
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.range = r;
		m.cap = 4;
		m.n = 7;
		assert_int_equal(pt_memmap_normalize(raw, 8192, 1, bad_sizes[i], 52, &m), PT_EMAPBAD);
		assert_int_equal(m.n, 0);
	}
	/* The largest allowed stride works. */
	m.cap = 4;
	assert_int_equal(pt_memmap_normalize(raw, 4096, 1, 4096, 52, &m), PT_OK);
	assert_int_equal(m.n, 1);
	/* Too many descriptors, whatever the buffer. */
	m.n = 7;
	assert_int_equal(pt_memmap_normalize(raw, SIZE_MAX, PT_MEMMAP_MAX_DESC + 1, 40, 52, &m),
			 PT_EMAPBAD);
	assert_int_equal(m.n, 0);
	/* raw_len one byte short of count * desc_size. */
	m.n = 7;
	assert_int_equal(pt_memmap_normalize(raw, 4095, 1, 4096, 52, &m), PT_EMAPBAD);
	assert_int_equal(m.n, 0);
	assert_int_equal(pt_memmap_normalize(raw, 80, 3, 40, 52, &m), PT_EMAPBAD);
	assert_int_equal(pt_memmap_normalize(NULL, 0, 1, 40, 52, &m), PT_EMAPBAD);
	assert_int_equal(pt_memmap_normalize(raw, 4096, 1, 4096, 52, NULL), PT_EINVAL);
	free(raw);
}

static void test_capacity_below_two_per_descriptor_is_ecapacity(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_CONVENTIONAL, 0x0000, 1, WB },
		{ PT_EFI_CONVENTIONAL, 0x1000, 1, WB },
		{ PT_EFI_CONVENTIONAL, 0x2000, 0, WB },   /* dropped: needs no room */
	};
	struct pt_mem_range r[4];
	struct pt_memmap m;
	uint8_t *raw = build(d, 3, 48);

	(void)state;
	for (unsigned cap = 0; cap < 4; cap++) {
		memset(&m, 0, sizeof(m));
		m.range = r;
		m.cap = cap;
		assert_int_equal(pt_memmap_normalize(raw, 3 * 48, 3, 48, 52, &m), PT_ECAPACITY);
		assert_int_equal(m.n, 0);
		/* the descriptor that found no room: the first, or the second with cap 2 and 3 */
		assert_int_equal(m.descriptors, cap < 2 ? 0 : 1);
	}
	m.cap = 4;
	assert_int_equal(pt_memmap_normalize(raw, 3 * 48, 3, 48, 52, &m), PT_OK);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.range[0].len, 0x2000);
	free(raw);
}

static void test_empty_map_gives_no_ranges(void **state)
{
	struct pt_memmap m;
	uint8_t byte = 0;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(pt_memmap_normalize(&byte, 0, 0, 48, 52, &m), PT_OK);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.usable_bytes, 0);
}

static void test_largest_map_reversed_and_overlapping_normalizes(void **state)
{
	/*
	 * PT_MEMMAP_MAX_DESC descriptors in descending order: pairs of a 3-page
	 * RAM range and a reserved page in its middle, 4 pages apart.  Quadratic
	 * work would take minutes here.
	 */
	const unsigned n = PT_MEMMAP_MAX_DESC, pairs = n / 2;
	struct desc *d = calloc(n, sizeof(*d));
	struct pt_mem_range *r = calloc(2 * (size_t)n, sizeof(*r));
	struct pt_memmap m;
	uint8_t *raw;

	(void)state;
	assert_non_null(d);
	assert_non_null(r);
	for (unsigned i = 0; i < pairs; i++) {
		uint64_t base = (uint64_t)(pairs - 1 - i) * 4 * PG;

		d[2 * i] = (struct desc){ PT_EFI_CONVENTIONAL, base, 3, WB };
		d[2 * i + 1] = (struct desc){ PT_EFI_RESERVED, base + PG, 1, 0 };
	}
	raw = build(d, n, 48);
	memset(&m, 0, sizeof(m));
	m.range = r;
	m.cap = 2 * n;
	assert_int_equal(pt_memmap_normalize(raw, (size_t)n * 48, n, 48, 52, &m), PT_OK);
	assert_int_equal(m.n, 3 * pairs);
	for (unsigned i = 0; i < pairs; i++) {
		assert_int_equal(m.range[3 * i].pa, (uint64_t)i * 4 * PG);
		assert_int_equal(m.range[3 * i].type, PT_EFI_CONVENTIONAL);
		assert_int_equal(m.range[3 * i + 1].type, PT_EFI_RESERVED);
		assert_int_equal(m.range[3 * i + 2].len, PG);
	}
	assert_int_equal(m.usable_bytes, (uint64_t)pairs * 2 * PG);
	assert_int_equal(m.quirk_count[PT_QUIRK_OVERLAP], pairs);
	assert_int_equal(m.quirk_count[PT_QUIRK_UNSORTED], pairs - 1);
	free(raw);
	free(r);
	free(d);
}

/* ---- names and classes -------------------------------------------------- */

static void test_classes_follow_the_header_table(void **state)
{
	(void)state;
	assert_int_equal(pt_mem_class_of(PT_EFI_CONVENTIONAL), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_BS_DATA), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_LOADER_CODE), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_LOADER_DATA), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_ACPI_RECLAIM), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_PERSISTENT), PT_MEM_RAM);
	assert_int_equal(pt_mem_class_of(PT_EFI_BS_CODE), PT_MEM_FW_CODE);
	assert_int_equal(pt_mem_class_of(PT_EFI_RT_CODE), PT_MEM_FW_CODE);
	assert_int_equal(pt_mem_class_of(PT_EFI_PAL_CODE), PT_MEM_FW_CODE);
	assert_int_equal(pt_mem_class_of(PT_EFI_RT_DATA), PT_MEM_FW_DATA);
	assert_int_equal(pt_mem_class_of(PT_EFI_ACPI_NVS), PT_MEM_FW_DATA);
	assert_int_equal(pt_mem_class_of(PT_EFI_MMIO), PT_MEM_MMIO);
	assert_int_equal(pt_mem_class_of(PT_EFI_MMIO_PORT), PT_MEM_MMIO);
	assert_int_equal(pt_mem_class_of(PT_EFI_RESERVED), PT_MEM_RESERVED);
	assert_int_equal(pt_mem_class_of(PT_EFI_UNUSABLE), PT_MEM_RESERVED);
	assert_int_equal(pt_mem_class_of(PT_EFI_UNACCEPTED), PT_MEM_RESERVED);
	assert_int_equal(pt_mem_class_of(PT_EFI_TYPE_COUNT), PT_MEM_RESERVED);
	assert_int_equal(pt_mem_class_of(0x80000000u), PT_MEM_RESERVED);
}

static void test_type_and_quirk_names_are_distinct(void **state)
{
	(void)state;
	for (uint32_t a = 0; a < PT_EFI_TYPE_COUNT; a++) {
		assert_non_null(pt_efi_type_name(a));
		assert_string_not_equal(pt_efi_type_name(a), "Unknown");
		for (uint32_t b = 0; b < a; b++)
			assert_string_not_equal(pt_efi_type_name(a), pt_efi_type_name(b));
	}
	assert_string_equal(pt_efi_type_name(PT_EFI_CONVENTIONAL), "Conventional");
	assert_string_equal(pt_efi_type_name(PT_EFI_BS_DATA), "BootServicesData");
	assert_string_equal(pt_efi_type_name(PT_EFI_TYPE_COUNT), "Unknown");
	for (unsigned a = 0; a < PT_QUIRK_COUNT; a++) {
		assert_string_not_equal(pt_quirk_name(a), "unknown");
		for (unsigned b = 0; b < a; b++)
			assert_string_not_equal(pt_quirk_name(a), pt_quirk_name(b));
	}
	assert_string_equal(pt_quirk_name(PT_QUIRK_UNSORTED), "unsorted");
	assert_string_equal(pt_quirk_name(PT_QUIRK_OVERLAP), "overlap");
	assert_string_equal(pt_quirk_name(PT_QUIRK_COUNT), "unknown");
}

/* ---- a realistic map ---------------------------------------------------- */

static void test_ovmf_like_map_matches_hand_computed_result(void **state)
{
	/* OVMF on q35 with 2 GiB below 4 GiB split as QEMU does, 1 GiB above. */
	const struct desc d[] = {
		{ PT_EFI_BS_CODE, 0x0, 0x1, WB },
		{ PT_EFI_CONVENTIONAL, 0x1000, 0x9f, WB },
		{ PT_EFI_CONVENTIONAL, 0x100000, 0x700, WB },
		{ PT_EFI_ACPI_NVS, 0x800000, 0x8, WB },
		{ PT_EFI_CONVENTIONAL, 0x808000, 0x3, WB },
		{ PT_EFI_ACPI_NVS, 0x80b000, 0x1, WB },
		{ PT_EFI_CONVENTIONAL, 0x80c000, 0x4, WB },
		{ PT_EFI_ACPI_NVS, 0x810000, 0xf0, WB },
		{ PT_EFI_BS_DATA, 0x900000, 0x1000, WB },
		{ PT_EFI_CONVENTIONAL, 0x1900000, 0x5000, WB },
		{ PT_EFI_LOADER_CODE, 0x6900000, 0x20, WB },
		{ PT_EFI_LOADER_DATA, 0x6920000, 0x100, WB },
		{ PT_EFI_BS_DATA, 0x6a20000, 0x200, WB },
		{ PT_EFI_BS_DATA, 0x6c20000, 0x100, WB },
		{ PT_EFI_RT_DATA, 0x6d20000, 0x80, WB | RT },
		{ PT_EFI_RT_CODE, 0x6da0000, 0x40, WB | RT },
		{ PT_EFI_RT_DATA, 0x6de0000, 0x20, WB | RT },
		{ PT_EFI_ACPI_RECLAIM, 0x6e00000, 0x10, WB },
		{ PT_EFI_BS_DATA, 0x6e10000, 0x11f0, WB },
		{ PT_EFI_RESERVED, 0xb0000000, 0x10000, PT_EFI_MEMORY_UC },
		{ PT_EFI_MMIO, 0xffc00000, 0x400, PT_EFI_MEMORY_UC | RT },
		{ PT_EFI_CONVENTIONAL, UINT64_C(0x100000000), 0x40000, WB },
		{ PT_EFI_RESERVED, UINT64_C(0xfd00000000), 0x300000, 0 },
	};
	const struct pt_mem_range want[] = {
		{ 0x0, 0x1000, PT_EFI_BS_CODE, WB },
		{ 0x1000, 0x9f000, PT_EFI_CONVENTIONAL, WB },
		{ 0x100000, 0x700000, PT_EFI_CONVENTIONAL, WB },
		{ 0x800000, 0x8000, PT_EFI_ACPI_NVS, WB },
		{ 0x808000, 0x3000, PT_EFI_CONVENTIONAL, WB },
		{ 0x80b000, 0x1000, PT_EFI_ACPI_NVS, WB },
		{ 0x80c000, 0x4000, PT_EFI_CONVENTIONAL, WB },
		{ 0x810000, 0xf0000, PT_EFI_ACPI_NVS, WB },
		{ 0x900000, 0x1000000, PT_EFI_BS_DATA, WB },
		{ 0x1900000, 0x5000000, PT_EFI_CONVENTIONAL, WB },
		{ 0x6900000, 0x20000, PT_EFI_LOADER_CODE, WB },
		{ 0x6920000, 0x100000, PT_EFI_LOADER_DATA, WB },
		{ 0x6a20000, 0x300000, PT_EFI_BS_DATA, WB },      /* two descriptors merged */
		{ 0x6d20000, 0x80000, PT_EFI_RT_DATA, WB | RT },
		{ 0x6da0000, 0x40000, PT_EFI_RT_CODE, WB | RT },
		{ 0x6de0000, 0x20000, PT_EFI_RT_DATA, WB | RT },
		{ 0x6e00000, 0x10000, PT_EFI_ACPI_RECLAIM, WB },
		{ 0x6e10000, 0x11f0000, PT_EFI_BS_DATA, WB },
		{ 0xb0000000, 0x10000000, PT_EFI_RESERVED, PT_EFI_MEMORY_UC },
		{ 0xffc00000, 0x400000, PT_EFI_MMIO, PT_EFI_MEMORY_UC | RT },
		{ UINT64_C(0x100000000), 0x40000000, PT_EFI_CONVENTIONAL, WB },
		{ UINT64_C(0xfd00000000), UINT64_C(0x300000000), PT_EFI_RESERVED, 0 },
	};
	const unsigned n = sizeof(d) / sizeof(d[0]), nw = sizeof(want) / sizeof(want[0]);
	struct result res;

	(void)state;
	assert_int_equal(n, 23);
	/* 40 address bits: the last range ends exactly at 2^40 and is kept whole. */
	run(&res, d, n, 48, 40);
	assert_int_equal(res.err, PT_OK);
	assert_int_equal(res.m.quirks, 0);
	assert_int_equal(res.m.descriptors, n);
	assert_int_equal(res.m.n, nw);
	for (unsigned i = 0; i < nw; i++)
		expect_range(&res, i, want[i].pa, want[i].pa + want[i].len, want[i].type,
			     want[i].attr);
	assert_int_equal(res.m.usable_bytes,
			 /* conventional */ 0x9f000 + 0x700000 + 0x3000 + 0x4000 + 0x5000000 +
			 0x40000000 +
			 /* boot-services data */ 0x1000000 + 0x300000 + 0x11f0000 +
			 /* loader code, loader data, ACPI reclaim */ 0x20000 + 0x100000 + 0x10000);
}

/* ---- property test against a per-page reference ------------------------- */

#define PROP_PAGES 64u          /* the address space of the random maps */
#define PROP_MAX_DESC 12u
#define PROP_SPAN (PROP_PAGES + 24u)  /* highest page a descriptor can reach, and some */

static struct prng rng;

static unsigned below(unsigned n)
{
	return (unsigned)prng_below(&rng, n);
}

/* Restrictiveness, written out independently of the implementation. */
static unsigned ref_rank(uint32_t type)
{
	switch (type) {
	case PT_EFI_CONVENTIONAL:	return 0;
	case PT_EFI_PERSISTENT:		return 1;
	case PT_EFI_LOADER_DATA:	return 2;
	case PT_EFI_LOADER_CODE:	return 3;
	case PT_EFI_BS_DATA:		return 4;
	case PT_EFI_ACPI_RECLAIM:	return 5;
	case PT_EFI_BS_CODE:		return 6;
	case PT_EFI_PAL_CODE:		return 7;
	case PT_EFI_RT_DATA:		return 8;
	case PT_EFI_RT_CODE:		return 9;
	case PT_EFI_ACPI_NVS:		return 10;
	case PT_EFI_MMIO_PORT:		return 11;
	case PT_EFI_MMIO:		return 12;
	case PT_EFI_UNACCEPTED:		return 13;
	case PT_EFI_UNUSABLE:		return 14;
	default:			return 15;     /* reserved and unknown */
	}
}

struct ref_page {
	bool covered;
	bool any_reserved_class;
	bool all_ram_class;
	uint32_t type;
	uint64_t attr;
};

/* Does any byte of descriptor @d lie in page @p? */
static bool ref_touches(const struct desc *d, uint64_t p)
{
	uint64_t lo = p * PG, hi = lo + PG;

	/* The random maps hold only small descriptors: no wrap. */
	return d->pages && lo < d->pa + d->pages * PG && d->pa < hi;
}

/*
 * Does descriptor @d (of type @t after the unknown-type rule) count for page
 * @p below @limit?  A RAM-class descriptor only when it holds the whole page
 * (trimmed inwards); any other one when it holds any byte of it (rounded
 * outwards), so a page that is partly reserved is not offered as RAM.
 */
static bool ref_covers(const struct desc *d, uint32_t t, uint64_t p, uint64_t limit)
{
	uint64_t lo = p * PG, hi = lo + PG;

	if (hi > limit)
		return false;
	if (pt_mem_class_of(t) != PT_MEM_RAM)
		return ref_touches(d, p);
	return d->pages && lo >= d->pa && hi <= d->pa + d->pages * PG;
}

static void ref_compute(const struct desc *d, unsigned n, uint64_t limit, struct ref_page *ref)
{
	for (uint64_t p = 0; p < PROP_SPAN; p++) {
		struct ref_page *r = &ref[p];

		memset(r, 0, sizeof(*r));
		r->all_ram_class = true;
		for (unsigned i = 0; i < n; i++) {
			uint32_t t = d[i].type < PT_EFI_TYPE_COUNT ? d[i].type : PT_EFI_RESERVED;

			if (!ref_covers(&d[i], t, p, limit))
				continue;
			if (pt_mem_class_of(t) == PT_MEM_RESERVED)
				r->any_reserved_class = true;
			if (pt_mem_class_of(t) != PT_MEM_RAM)
				r->all_ram_class = false;
			if (!r->covered || ref_rank(t) > ref_rank(r->type)) {
				r->covered = true;
				r->type = t;
				r->attr = d[i].attr;
			} else if (t == r->type) {
				r->attr |= d[i].attr;
			}
		}
	}
}

static void test_random_maps_match_per_page_reference(void **state)
{
	static const uint64_t attrs[] = { 0, WB, WB | RT, PT_EFI_MEMORY_UC, WB | PT_EFI_MEMORY_XP };
	static const unsigned strides[] = { 40, 48, 56, 64, 96 };
	const char *env = getenv("PTLAB_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : UINT64_C(0x5eed0f0a11ba5e5);
	struct ref_page ref[PROP_SPAN];
	struct pt_mem_range r[2 * PROP_MAX_DESC];
	struct desc d[PROP_MAX_DESC];

	(void)state;
	printf("memmap property test: PTLAB_SEED=0x%llx\n", (unsigned long long)seed);
	prng_seed(&rng, seed);
	for (unsigned iter = 0; iter < 10000; iter++) {
		unsigned n = below(PROP_MAX_DESC + 1), stride = strides[below(5)];
		/* 2^17 = 32 pages, 2^18 = 64 pages, or no cut at all. */
		unsigned maxphy = (const unsigned[]){ 17, 18, 52 }[below(3)];
		uint64_t limit = UINT64_C(1) << maxphy, usable = 0, prev_end = 0;
		struct pt_memmap m;
		uint8_t *raw;
		int err;

		for (unsigned i = 0; i < n; i++) {
			d[i].type = below(20) == 0 ? 16 + below(100) : below(PT_EFI_TYPE_COUNT);
			d[i].pa = below(PROP_PAGES) * PG;
			if (below(10) == 0)
				d[i].pa += 8 * (1 + below(511));        /* unaligned */
			d[i].pages = below(12) == 0 ? 0 : 1 + below(16);
			d[i].attr = attrs[below(5)];
		}
		raw = build(d, n, stride);
		memset(&m, 0, sizeof(m));
		m.range = r;
		m.cap = 2 * n;
		err = pt_memmap_normalize(raw, (size_t)n * stride, n, stride, maxphy, &m);
		free(raw);
		if (err != PT_OK)
			fail_msg("iteration %u: %s", iter, pt_strerror(err));

		ref_compute(d, n, limit, ref);
		for (unsigned i = 0; i < m.n; i++) {
			const struct pt_mem_range *x = &m.range[i];

			/* Sorted, non-overlapping, page-aligned, non-empty, maximally merged. */
			assert_int_equal(x->pa % PG, 0);
			assert_int_equal(x->len % PG, 0);
			assert_true(x->len > 0);
			assert_true(x->type < PT_EFI_TYPE_COUNT);
			if (i) {
				const struct pt_mem_range *y = &m.range[i - 1];

				assert_true(x->pa >= prev_end);
				assert_false(x->pa == prev_end && x->type == y->type &&
					     x->attr == y->attr);
			}
			prev_end = x->pa + x->len;
			assert_true(prev_end <= (PROP_SPAN) * PG);
			if (pt_mem_class_of(x->type) == PT_MEM_RAM)
				usable += x->len;
		}
		/* Page by page against the reference. */
		for (uint64_t p = 0, i = 0; p < PROP_SPAN; p++) {
			const struct ref_page *rp = &ref[p];

			while (i < m.n && m.range[i].pa + m.range[i].len <= p * PG)
				i++;
			if (i == m.n || m.range[i].pa > p * PG) {
				if (rp->covered)
					fail_msg("iteration %u: page %llu lost", iter,
						 (unsigned long long)p);
				continue;
			}
			if (!rp->covered)
				fail_msg("iteration %u: page %llu invented", iter, (unsigned long long)p);
			if (m.range[i].type != rp->type || m.range[i].attr != rp->attr)
				fail_msg("iteration %u: page %llu is %u/0x%llx, expected %u/0x%llx",
					 iter, (unsigned long long)p, m.range[i].type,
					 (unsigned long long)m.range[i].attr, rp->type,
					 (unsigned long long)rp->attr);
			/*
			 * No usable byte invented; usable-and-reserved is
			 * reserved.  Checked against the descriptors as given,
			 * not the reference's rounding: a RAM page holds no
			 * byte of any other class.
			 */
			if (pt_mem_class_of(m.range[i].type) == PT_MEM_RAM) {
				assert_true(rp->all_ram_class);
				for (unsigned k = 0; k < n; k++) {
					uint32_t t = d[k].type < PT_EFI_TYPE_COUNT ?
						     d[k].type : PT_EFI_RESERVED;

					if (pt_mem_class_of(t) != PT_MEM_RAM && ref_touches(&d[k], p))
						fail_msg("iteration %u: RAM page %llu holds %s bytes",
							 iter, (unsigned long long)p,
							 pt_efi_type_name(t));
				}
			}
			if (rp->any_reserved_class)
				assert_int_equal(pt_mem_class_of(m.range[i].type), PT_MEM_RESERVED);
		}
		assert_int_equal(m.usable_bytes, usable);
	}
}

/* ---- queries: pt_memmap_find, pt_memmap_covers, pt_memmap_overlaps ---- */

static void test_queries_on_a_hand_built_map(void **state)
{
	const uint64_t top = UINT64_MAX - PG + 1;     /* last page: its last byte is 2^64 - 1 */
	struct pt_mem_range r[] = {
		{ 0x1000, 0x2000, PT_EFI_CONVENTIONAL, WB },
		{ 0x3000, 0x1000, PT_EFI_RT_DATA, WB | RT },
		{ 0x4000, 0x1000, PT_EFI_ACPI_NVS, WB },
		/* hole [0x5000, 0x10000) */
		{ 0x10000, 0x1000, PT_EFI_MMIO, PT_EFI_MEMORY_UC },
		{ 0x11000, 0x1000, PT_EFI_RESERVED, 0 },
		{ top, PG, PT_EFI_MMIO, PT_EFI_MEMORY_UC },
	};
	struct pt_memmap m = memmap_of(r, 6), empty = memmap_of(r, 0);

	(void)state;
	/* find: first and last byte of each range, the bytes beside them */
	assert_null(pt_memmap_find(&m, 0));
	assert_null(pt_memmap_find(&m, 0xfff));
	assert_ptr_equal(pt_memmap_find(&m, 0x1000), &r[0]);
	assert_ptr_equal(pt_memmap_find(&m, 0x2fff), &r[0]);
	assert_ptr_equal(pt_memmap_find(&m, 0x3000), &r[1]);
	assert_ptr_equal(pt_memmap_find(&m, 0x4fff), &r[2]);
	assert_null(pt_memmap_find(&m, 0x5000));
	assert_null(pt_memmap_find(&m, 0xffff));
	assert_ptr_equal(pt_memmap_find(&m, 0x10000), &r[3]);
	assert_ptr_equal(pt_memmap_find(&m, 0x11fff), &r[4]);
	assert_null(pt_memmap_find(&m, 0x12000));
	assert_null(pt_memmap_find(&m, top - 1));
	assert_ptr_equal(pt_memmap_find(&m, top), &r[5]);
	assert_ptr_equal(pt_memmap_find(&m, UINT64_MAX), &r[5]);
	assert_null(pt_memmap_find(&empty, 0x1000));
	assert_null(pt_memmap_find(NULL, 0x1000));

	/* covers: adjacent ranges of several classes in the set, back to back */
	assert_true(pt_memmap_covers(&m, 0x1000, 0x4000, PT_MEM_SET_MEMORY));
	assert_true(pt_memmap_covers(&m, 0x2fff, 2, PT_MEM_SET_MEMORY));
	assert_false(pt_memmap_covers(&m, 0x1000, 0x4000, PT_MEM_CLASS_BIT(PT_MEM_RAM)));
	assert_true(pt_memmap_covers(&m, 0x1000, 0x2000, PT_MEM_CLASS_BIT(PT_MEM_RAM)));
	assert_false(pt_memmap_covers(&m, 0x1000, 0x2001, PT_MEM_CLASS_BIT(PT_MEM_RAM)));
	/* one byte into the hole, one byte before the first range */
	assert_false(pt_memmap_covers(&m, 0x1000, 0x4001, PT_MEM_SET_MEMORY));
	assert_false(pt_memmap_covers(&m, 0xfff, 2, PT_MEM_SET_MEMORY));
	assert_false(pt_memmap_covers(&m, 0x6000, 1, PT_MEM_SET_MEMORY));
	/* is MMIO; reserved is neither MMIO nor memory */
	assert_true(pt_memmap_covers(&m, 0x10800, 1, PT_MEM_SET_MMIO));
	assert_false(pt_memmap_covers(&m, 0x10800, 0x1000, PT_MEM_SET_MMIO));
	assert_false(pt_memmap_covers(&m, 0x11000, 1, PT_MEM_SET_MMIO | PT_MEM_SET_MEMORY));
	assert_true(pt_memmap_covers(&m, 0x11000, 1, PT_MEM_CLASS_BIT(PT_MEM_RESERVED)));
	/* up to the last byte of the address space; empty and wrapping spans */
	assert_true(pt_memmap_covers(&m, top, PG, PT_MEM_SET_MMIO));
	assert_true(pt_memmap_covers(&m, UINT64_MAX, 1, PT_MEM_SET_MMIO));
	assert_false(pt_memmap_covers(&m, UINT64_MAX, 2, PT_MEM_SET_MMIO));
	assert_false(pt_memmap_covers(&m, 0x1000, 0, PT_MEM_SET_MEMORY));
	assert_false(pt_memmap_covers(&m, 0x1000, 0x1000, 0));
	assert_false(pt_memmap_covers(&empty, 0x1000, 1, PT_MEM_SET_MEMORY));
	assert_false(pt_memmap_covers(NULL, 0x1000, 1, PT_MEM_SET_MEMORY));

	/* overlaps: any byte in any range */
	assert_false(pt_memmap_overlaps(&m, 0, 0x1000));
	assert_true(pt_memmap_overlaps(&m, 0, 0x1001));
	assert_false(pt_memmap_overlaps(&m, 0x5000, 0xb000));
	assert_true(pt_memmap_overlaps(&m, 0x5000, 0xb001));
	assert_true(pt_memmap_overlaps(&m, 0x4fff, 1));
	assert_false(pt_memmap_overlaps(&m, 0x12000, top - 0x12000));
	assert_true(pt_memmap_overlaps(&m, 0x12000, top - 0x12000 + 1));
	assert_true(pt_memmap_overlaps(&m, UINT64_MAX, UINT64_MAX));  /* cut at 2^64 - 1 */
	assert_false(pt_memmap_overlaps(&m, 0x1000, 0));
	assert_false(pt_memmap_overlaps(&empty, 0, UINT64_MAX));
	assert_false(pt_memmap_overlaps(NULL, 0, UINT64_MAX));

	/* class bytes: only the bytes in ranges of the classes count */
	assert_int_equal(pt_memmap_class_bytes(&m, 0, 0x6000, PT_MEM_SET_MEMORY), 0x4000);
	assert_int_equal(pt_memmap_class_bytes(&m, 0, 0x6000, PT_MEM_CLASS_BIT(PT_MEM_RAM)), 0x2000);
	assert_int_equal(pt_memmap_class_bytes(&m, 0x2fff, 2, PT_MEM_CLASS_BIT(PT_MEM_RAM)), 1);
	assert_int_equal(pt_memmap_class_bytes(&m, 0x10800, 0x1000, PT_MEM_SET_MMIO), 0x800);
	assert_int_equal(pt_memmap_class_bytes(&m, 0x10800, 0x1000, PT_MEM_SET_MEMORY), 0);
	assert_int_equal(pt_memmap_class_bytes(&m, top, UINT64_MAX, PT_MEM_SET_MMIO), PG);
	assert_int_equal(pt_memmap_class_bytes(&m, 0x1000, 0, PT_MEM_SET_MEMORY), 0);
	assert_int_equal(pt_memmap_class_bytes(&empty, 0, UINT64_MAX, PT_MEM_SET_MEMORY), 0);
	assert_int_equal(pt_memmap_class_bytes(NULL, 0, UINT64_MAX, PT_MEM_SET_MEMORY), 0);
}

#define QUERY_PAGES 96u

/*
 * Random normalized maps over QUERY_PAGES pages (a type per page, -1 for a
 * hole) and random spans: the binary searches against a page-by-page walk.
 */
static void test_random_queries_match_a_page_walk(void **state)
{
	int page[QUERY_PAGES];
	struct pt_mem_range r[QUERY_PAGES];

	(void)state;
	prng_seed(&rng, UINT64_C(0x9e3779b97f4a7c15));
	for (unsigned iter = 0; iter < 2000; iter++) {
		struct pt_memmap m;
		unsigned n = 0;

		/* runs of one type or hole, 1..8 pages each */
		for (unsigned p = 0; p < QUERY_PAGES;) {
			unsigned len = 1 + below(8);
			int t = below(3) == 0 ? -1 : (int)below(PT_EFI_TYPE_COUNT);

			if (p + len > QUERY_PAGES)
				len = QUERY_PAGES - p;
			for (unsigned k = 0; k < len; k++)
				page[p + k] = t;
			if (t >= 0) {
				if (n && r[n - 1].pa + r[n - 1].len == p * PG &&
				    r[n - 1].type == (uint32_t)t)
					r[n - 1].len += len * PG;   /* normalized maps are merged */
				else
					r[n++] = (struct pt_mem_range){ p * PG, len * PG, (uint32_t)t, 0 };
			}
			p += len;
		}
		m = memmap_of(r, n);
		for (unsigned q = 0; q < 200; q++) {
			uint64_t pa = below(QUERY_PAGES * PG + 2 * PG);
			uint64_t len = below(4) == 0 ? below(16) : below(12 * PG);
			unsigned classes = (unsigned)below(1u << 5);
			uint64_t first = pa / PG, last = len ? (pa + len - 1) / PG : first;
			const struct pt_mem_range *f = pt_memmap_find(&m, pa);
			bool covers = len > 0, overlaps = false;
			uint64_t bytes = 0;

			if (first >= QUERY_PAGES || page[first] < 0) {
				assert_null(f);
			} else {
				assert_non_null(f);
				assert_true(f->pa <= pa && pa - f->pa < f->len);
				assert_int_equal(f->type, page[first]);
			}
			for (uint64_t p = first; len && p <= last; p++) {
				int t = p < QUERY_PAGES ? page[p] : -1;

				if (t < 0 || !(classes & (1u << pt_mem_class_of((uint32_t)t))))
					covers = false;
				if (t >= 0)
					overlaps = true;
				if (t >= 0 && (classes & (1u << pt_mem_class_of((uint32_t)t)))) {
					/* the span's bytes in this page */
					uint64_t a = p * PG > pa ? p * PG : pa;
					uint64_t b = (p + 1) * PG < pa + len ? (p + 1) * PG : pa + len;

					bytes += b - a;
				}
			}
			if (pt_memmap_class_bytes(&m, pa, len, classes) != bytes)
				fail_msg("iteration %u: class_bytes(0x%llx, 0x%llx, 0x%x) != %llu", iter,
					 (unsigned long long)pa, (unsigned long long)len, classes,
					 (unsigned long long)bytes);
			if (pt_memmap_covers(&m, pa, len, classes) != covers)
				fail_msg("iteration %u: covers(0x%llx, 0x%llx, 0x%x) != %d", iter,
					 (unsigned long long)pa, (unsigned long long)len, classes, covers);
			if (pt_memmap_overlaps(&m, pa, len) != overlaps)
				fail_msg("iteration %u: overlaps(0x%llx, 0x%llx) != %d", iter,
					 (unsigned long long)pa, (unsigned long long)len, overlaps);
		}
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_same_output_for_descriptor_sizes_40_48_64),
	cmocka_unit_test(test_exact_40_byte_map_is_read_within_its_bytes),
	cmocka_unit_test(test_unsorted_input_is_sorted_and_counted),
	cmocka_unit_test(test_equal_starts_overlap_but_are_not_unsorted),
	cmocka_unit_test(test_reserved_inside_ram_gives_three_ranges_reserved_wins),
	cmocka_unit_test(test_overlap_resolves_to_the_more_restrictive_type_either_order),
	cmocka_unit_test(test_same_type_overlap_keeps_every_attribute_bit),
	cmocka_unit_test(test_zero_length_descriptor_is_dropped_and_counted),
	cmocka_unit_test(test_ranges_above_4g_are_kept),
	cmocka_unit_test(test_adjacent_same_type_merge_but_not_across_attributes),
	cmocka_unit_test(test_unknown_type_becomes_reserved_with_quirk),
	cmocka_unit_test(test_unaligned_start_is_trimmed_inwards),
	cmocka_unit_test(test_unaligned_reserved_in_a_ram_page_makes_it_reserved),
	cmocka_unit_test(test_unaligned_descriptor_rounds_by_class_for_every_type),
	cmocka_unit_test(test_unaligned_non_ram_is_rounded_outwards_at_the_edges),
	cmocka_unit_test(test_unaligned_non_ram_near_maxphyaddr_and_2_64),
	cmocka_unit_test(test_wrapping_length_is_clamped),
	cmocka_unit_test(test_ranges_at_or_above_maxphyaddr_are_cut),
	cmocka_unit_test(test_bad_descriptor_size_count_or_length_is_emapbad),
	cmocka_unit_test(test_capacity_below_two_per_descriptor_is_ecapacity),
	cmocka_unit_test(test_empty_map_gives_no_ranges),
	cmocka_unit_test(test_largest_map_reversed_and_overlapping_normalizes),
	cmocka_unit_test(test_classes_follow_the_header_table),
	cmocka_unit_test(test_type_and_quirk_names_are_distinct),
	cmocka_unit_test(test_ovmf_like_map_matches_hand_computed_result),
	cmocka_unit_test(test_random_maps_match_per_page_reference),
	cmocka_unit_test(test_queries_on_a_hand_built_map),
	cmocka_unit_test(test_random_queries_match_a_page_walk))
