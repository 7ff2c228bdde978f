/* SPDX-License-Identifier: MIT */
/*
 * The W^X audit's MMIO test (efi/checks/checkkit.c, ptlab_mmio_exec_bytes),
 * which the audit of our tables and the one of the firmware's both call.
 *
 * Every expected count is computed here another way: page by page, with
 * pt_memmap_find and pt_mem_class_of, never with the range queries the
 * function itself uses.  The map:
 *
 *   [0x00100000, 0x7ff00000)  conventional RAM
 *   [0x7ff00000, 0x80200000)  MMIO (3 MiB: crosses the 2 MiB boundary at 2 GiB)
 *   [0x80200000, 0x80400000)  conventional RAM
 *   [0xfec00000, 0xfec01000)  MMIO (one page, an IOAPIC's)
 *
 * The 2 MiB leaf at 0x7fe00000 starts in RAM and runs into MMIO: a test of
 * its first byte only calls it RAM, so that leaf is what tells the two apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#include "../../efi/checks/checkkit.h"

#define MIB (UINT64_C(1) << 20)
#define EXEC_WRITE (PT_EXEC | PT_WRITE)

static struct pt_mem_range ranges[] = {
	{ .pa = 0x00100000, .len = 0x7ff00000 - 0x00100000, .type = PT_EFI_CONVENTIONAL },
	{ .pa = 0x7ff00000, .len = 0x80200000 - 0x7ff00000, .type = PT_EFI_MMIO },
	{ .pa = 0x80200000, .len = 0x80400000 - 0x80200000, .type = PT_EFI_CONVENTIONAL },
	{ .pa = 0xfec00000, .len = PT_PAGE_SIZE, .type = PT_EFI_MMIO },
};

static const struct pt_memmap map = {
	.range = ranges,
	.cap = sizeof(ranges) / sizeof(ranges[0]),
	.n = sizeof(ranges) / sizeof(ranges[0]),
};

/* MMIO bytes of [pa, pa + len), one page at a time (pa and len page-aligned). */
static uint64_t mmio_bytes_by_page(uint64_t pa, uint64_t len)
{
	uint64_t n = 0;

	for (uint64_t off = 0; off < len; off += PT_PAGE_SIZE) {
		const struct pt_mem_range *r = pt_memmap_find(&map, pa + off);

		if (r && pt_mem_class_of(r->type) == PT_MEM_MMIO)
			n += PT_PAGE_SIZE;
	}
	return n;
}

/* A leaf judged by its first byte alone: all of it counted when that byte is MMIO. */
static uint64_t first_byte_rule(uint64_t pa, uint64_t len, unsigned flags)
{
	if ((flags & PT_EXEC) && pt_memmap_covers(&map, pa, 1, PT_MEM_SET_MMIO))
		return len;
	return 0;
}

static void test_leaf_from_ram_into_mmio_is_caught(void **state)
{
	const uint64_t pa = 0x7fe00000, len = 2 * MIB;
	const uint64_t want = mmio_bytes_by_page(pa, len);

	(void)state;
	/* the map is what the test means: half RAM, half MMIO */
	assert_int_equal(want, 1 * MIB);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, EXEC_WRITE), want);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, PT_EXEC), want);
	/* judged by its first byte, this leaf would pass */
	assert_int_equal(first_byte_rule(pa, len, PT_EXEC), 0);
}

static void test_leaf_from_mmio_into_ram_counts_its_mmio(void **state)
{
	const uint64_t pa = 0x80000000, len = 4 * MIB;
	const uint64_t want = mmio_bytes_by_page(pa, len);

	(void)state;
	assert_int_equal(want, 2 * MIB);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, PT_EXEC), want);
}

static void test_leaf_in_ram_is_not_flagged(void **state)
{
	const uint64_t pa = 0x40000000, len = 2 * MIB;

	(void)state;
	assert_int_equal(mmio_bytes_by_page(pa, len), 0);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, EXEC_WRITE), 0);
	/* a 1 GiB leaf ending just before the MMIO: nothing */
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0x40000000, 0x3ff00000, PT_EXEC), 0);
}

static void test_leaf_all_mmio_is_caught(void **state)
{
	const uint64_t pa = 0xfec00000, len = PT_PAGE_SIZE;

	(void)state;
	assert_int_equal(mmio_bytes_by_page(pa, len), PT_PAGE_SIZE);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, PT_EXEC), PT_PAGE_SIZE);
	assert_int_equal(first_byte_rule(pa, len, PT_EXEC), PT_PAGE_SIZE);
	/* a 2 MiB leaf inside the 3 MiB MMIO range */
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0x80000000, 2 * MIB, PT_EXEC), 2 * MIB);
}

static void test_nx_mapping_of_mmio_is_not_flagged(void **state)
{
	(void)state;
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0x7fe00000, 2 * MIB, PT_WRITE), 0);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0xfec00000, PT_PAGE_SIZE, 0), 0);
}

/* A 1 GiB leaf over both MMIO ranges' GiB and a hole: only MMIO pages count. */
static void test_gib_leaf_counts_every_mmio_page(void **state)
{
	const uint64_t pa = 0xc0000000, len = UINT64_C(1) << 30;

	(void)state;
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, PT_EXEC), mmio_bytes_by_page(pa, len));
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0x40000000, len, PT_EXEC),
			 mmio_bytes_by_page(0x40000000, len));
	assert_int_equal(mmio_bytes_by_page(0x40000000, len), 1 * MIB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_from_ram_into_mmio_is_caught),
		cmocka_unit_test(test_leaf_from_mmio_into_ram_counts_its_mmio),
		cmocka_unit_test(test_leaf_in_ram_is_not_flagged),
		cmocka_unit_test(test_leaf_all_mmio_is_caught),
		cmocka_unit_test(test_nx_mapping_of_mmio_is_not_flagged),
		cmocka_unit_test(test_gib_leaf_counts_every_mmio_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
