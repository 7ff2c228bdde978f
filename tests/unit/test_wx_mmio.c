/* SPDX-License-Identifier: MIT */
/* covers: efi/checks/checkkit.c */
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
 *
 * The audit's judgement of a leaf (ptlab_wx_judge, through its pt_visit
 * callback ptlab_wx_visit, as the audit of our tables calls it) is tested
 * on an address space built in an arena with leaves of each kind; its
 * expected counts come from the list of mappings the space was built from,
 * page by page, not from the leaves pt_visit reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "unit.h"

#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#include "../../efi/checks/checkkit.h"
#include "arena.h"
#include "fixture.h"

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

/*
 * The leaf [pa, pa + len) judged with @flags: the MMIO bytes counted page by
 * page are @meant (the map is what the test means), and the judge says so.
 */
static void judged(uint64_t pa, uint64_t len, unsigned flags, uint64_t meant)
{
	const uint64_t want = mmio_bytes_by_page(pa, len);

	if (want != meant)
		fail_msg("leaf 0x%llx+0x%llx: %llu MMIO bytes by page, the test means %llu",
			 (unsigned long long)pa, (unsigned long long)len,
			 (unsigned long long)want, (unsigned long long)meant);
	assert_int_equal(ptlab_mmio_exec_bytes(&map, pa, len, flags), want);
}

static void test_leaf_from_ram_into_mmio_is_caught(void **state)
{
	const uint64_t pa = 0x7fe00000, len = 2 * MIB;

	(void)state;
	/* half RAM, half MMIO */
	judged(pa, len, EXEC_WRITE, 1 * MIB);
	judged(pa, len, PT_EXEC, 1 * MIB);
	/* judged by its first byte, this leaf would pass */
	assert_int_equal(first_byte_rule(pa, len, PT_EXEC), 0);
}

static void test_leaf_from_mmio_into_ram_counts_its_mmio(void **state)
{
	(void)state;
	judged(0x80000000, 4 * MIB, PT_EXEC, 2 * MIB);
}

static void test_leaf_in_ram_is_not_flagged(void **state)
{
	const uint64_t pa = 0x40000000, len = 2 * MIB;

	(void)state;
	judged(pa, len, EXEC_WRITE, 0);
	/* a 1 GiB leaf ending just before the MMIO: nothing */
	assert_int_equal(ptlab_mmio_exec_bytes(&map, 0x40000000, 0x3ff00000, PT_EXEC), 0);
}

static void test_leaf_all_mmio_is_caught(void **state)
{
	const uint64_t pa = 0xfec00000, len = PT_PAGE_SIZE;

	(void)state;
	judged(pa, len, PT_EXEC, PT_PAGE_SIZE);
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

/* ---- the audit's judgement of the leaves of a space ---- */

#define GIB (UINT64_C(1) << 30)
#define VA0 (4 * GIB)   /* where the space's leaves start: not VA 0 (page0 is its own test) */

/* The space: one 2 MiB leaf of each kind, in VA order. */
static const struct {
	uint64_t va, pa, len;
	unsigned flags;
} leaves[] = {
	{ VA0 + 0 * MIB, 0x7fe00000, 2 * MIB, PT_EXEC },                 /* RAM into MMIO */
	{ VA0 + 2 * MIB, 0x40000000, 2 * MIB, PT_EXEC },                 /* all RAM */
	{ VA0 + 4 * MIB, 0x80000000, 2 * MIB, PT_EXEC },                 /* all MMIO */
	{ VA0 + 6 * MIB, 0x80000000, 2 * MIB, PT_WRITE },                /* MMIO, NX */
	{ VA0 + 8 * MIB, 0x40200000, 2 * MIB, EXEC_WRITE },              /* W+X, RAM */
};
#define NLEAVES (sizeof(leaves) / sizeof(leaves[0]))
#define WX_LEAF 4

static int wx_space_setup(void **state)
{
	struct arena_space *f;

	arena_space_setup(state, 64, 4);
	f = *state;
	for (unsigned i = 0; i < NLEAVES; i++)
		assert_int_equal(pt_map(&f->s, leaves[i].va, leaves[i].pa, leaves[i].len,
					leaves[i].flags | PT_ALLOW_WX, PT_PAGE_2M, NULL), PT_OK);
	return 0;
}

/* Executable MMIO bytes of the mappings list, page by page against the map. */
static uint64_t want_mmio_exec(void)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < NLEAVES; i++)
		if (leaves[i].flags & PT_EXEC)
			n += mmio_bytes_by_page(leaves[i].pa, leaves[i].len);
	return n;
}

static unsigned exempt_calls;
static uint64_t exempt_va;

/* Records which leaves it was asked about; answers with *ctx. */
static enum ptlab_wx_exemption exempt_as(const void *ctx, uint64_t va, uint64_t pa, uint64_t size)
{
	(void)pa;
	(void)size;
	exempt_calls++;
	exempt_va = va;
	return *(const enum ptlab_wx_exemption *)ctx;
}

static void test_space_leaves_judged_whole(void **state)
{
	const struct arena_space *f = *state;
	struct ptlab_wx_tally t = { .map = &map };
	struct pt_leaf l;

	/* the space is what the test means: 2 MiB leaves, the first from RAM into MMIO */
	assert_int_equal(pt_translate(&f->s, leaves[0].va, &l), PT_OK);
	assert_int_equal(l.size, 2 * MIB);
	assert_int_equal(l.pa, leaves[0].pa);
	assert_int_equal(mmio_bytes_by_page(leaves[0].pa, leaves[0].len), 1 * MIB);
	assert_int_equal(mmio_bytes_by_page(leaves[1].pa, leaves[1].len), 0);
	assert_int_equal(mmio_bytes_by_page(leaves[2].pa, leaves[2].len), 2 * MIB);
	assert_int_equal(mmio_bytes_by_page(leaves[3].pa, leaves[3].len), 2 * MIB);
	assert_int_equal(want_mmio_exec(), 3 * MIB);

	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_int_equal(t.mmio_x_bytes, want_mmio_exec());
	assert_int_equal(t.wx_bytes, leaves[WX_LEAF].len);
	assert_int_equal(t.wx_first, leaves[WX_LEAF].va);
	assert_int_equal(t.wx_exempt, 0);
	assert_int_equal(t.wx_listed, 0);
	assert_false(t.page0);
}

/* Each leaf alone: only the executable ones with MMIO under them count. */
static void test_space_each_leaf_alone(void **state)
{
	const struct arena_space *f = *state;

	for (unsigned i = 0; i < NLEAVES; i++) {
		struct ptlab_wx_tally t = { .map = &map };
		const uint64_t want = (leaves[i].flags & PT_EXEC) ?
				      mmio_bytes_by_page(leaves[i].pa, leaves[i].len) : 0;

		assert_int_equal(pt_visit(&f->s, leaves[i].va, leaves[i].len, ptlab_wx_visit, &t), 0);
		assert_int_equal(t.mmio_x_bytes, want);
		assert_int_equal(t.wx_bytes, i == WX_LEAF ? leaves[i].len : 0);
	}
}

/* A W+X leaf the caller exempts is counted as its exemption, not as W+X; only it is asked about. */
static void test_space_wx_exemptions(void **state)
{
	const struct arena_space *f = *state;
	static const enum ptlab_wx_exemption runtime = PTLAB_WX_RUNTIME, listed = PTLAB_WX_LISTED,
					     none = PTLAB_WX_FORBIDDEN;
	struct ptlab_wx_tally t = { .map = &map, .exempt = exempt_as, .ctx = &runtime };

	exempt_calls = 0;
	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_int_equal(exempt_calls, 1);
	assert_int_equal(exempt_va, leaves[WX_LEAF].va);
	assert_int_equal(t.wx_exempt, leaves[WX_LEAF].len);
	assert_int_equal(t.wx_bytes, 0);
	assert_int_equal(t.wx_listed, 0);
	/* an exemption from W^X is none from the MMIO test */
	assert_int_equal(t.mmio_x_bytes, want_mmio_exec());

	t = (struct ptlab_wx_tally){ .map = &map, .exempt = exempt_as, .ctx = &listed };
	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_int_equal(t.wx_listed, leaves[WX_LEAF].len);
	assert_int_equal(t.wx_bytes + t.wx_exempt, 0);

	t = (struct ptlab_wx_tally){ .map = &map, .exempt = exempt_as, .ctx = &none };
	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_int_equal(t.wx_bytes, leaves[WX_LEAF].len);
	assert_int_equal(t.wx_first, leaves[WX_LEAF].va);
}

/* A leaf at VA 0 is reported as such, whatever its attributes. */
static void test_space_page0(void **state)
{
	struct arena_space *f = *state;
	struct ptlab_wx_tally t = { .map = &map };

	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_false(t.page0);
	assert_int_equal(pt_map(&f->s, 0, 0x40400000, PT_PAGE_SIZE, 0, PT_PAGE_4K, NULL), PT_OK);
	assert_int_equal(pt_visit(&f->s, 0, 0, ptlab_wx_visit, &t), 0);
	assert_true(t.page0);
}

/* The firmware's audit judges coalesced runs longer than any leaf: all of a run counts. */
static void test_run_longer_than_a_leaf(void **state)
{
	struct ptlab_wx_tally t = { .map = &map };
	const uint64_t pa = 0x7fc00000, len = 8 * MIB;

	(void)state;
	ptlab_wx_judge(&t, VA0, pa, len, EXEC_WRITE);
	assert_int_equal(t.mmio_x_bytes, mmio_bytes_by_page(pa, len));
	assert_int_equal(t.mmio_x_bytes, 3 * MIB);
	assert_int_equal(t.wx_bytes, len);
	assert_int_equal(t.wx_first, VA0);
}

UNIT_MAIN(
	cmocka_unit_test(test_leaf_from_ram_into_mmio_is_caught),
	cmocka_unit_test(test_leaf_from_mmio_into_ram_counts_its_mmio),
	cmocka_unit_test(test_leaf_in_ram_is_not_flagged),
	cmocka_unit_test(test_leaf_all_mmio_is_caught),
	cmocka_unit_test(test_nx_mapping_of_mmio_is_not_flagged),
	cmocka_unit_test(test_gib_leaf_counts_every_mmio_page),
	cmocka_unit_test_setup_teardown(test_space_leaves_judged_whole, wx_space_setup,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_space_each_leaf_alone, wx_space_setup,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_space_wx_exemptions, wx_space_setup,
					arena_space_teardown),
	cmocka_unit_test_setup_teardown(test_space_page0, wx_space_setup,
					arena_space_teardown),
	cmocka_unit_test(test_run_longer_than_a_leaf))
