// SPDX-License-Identifier: MIT
/* covers: efi/linux/lxplace.c */
/*
 * Host tests for efi/linux/lxplace.c: lx_place() driven through a fake
 * struct lx_pages over a small memory map written here, every expected
 * address worked by hand from the map and the order lx_place() asks in
 * (the kernel, the setup copy, the initrds, the zero page and command
 * line, the e820 table, its extension).  The fake allocator keeps every
 * call, granted or not, so a refusal can be shown to take no page after.
 *
 * The map (conventional unless said):
 *   [1 MiB, 16 MiB)   [16 MiB, 17 MiB) reserved   [32 MiB, 256 MiB)
 *   [4 GiB, 5 GiB)
 * below() gives the highest free pages ending at or below its max, as
 * AllocateMaxAddress does on OVMF; at() exactly the pages asked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include <ptlab/memmap.h>

#include "linux/linuxboot.h"
#include "linux/lxplace.h"

#define PAGE UINT64_C(0x1000)
#define MiB  UINT64_C(0x100000)
#define GiB  UINT64_C(0x40000000)
#define MAXPHY 46u
#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* One call to the seam: 'a' for at(), 'b' for below(); @got 0 when refused. */
struct call {
	char kind;
	uint64_t where, bytes, got;   /* where: at()'s pa, below()'s max */
};

static struct {
	struct pt_mem_range r[8];
	struct pt_memmap map;
	struct { uint64_t pa, bytes; } taken[32];
	unsigned ntaken;
	struct call call[32];
	unsigned ncall;
	char why[256];
} f;

static void map_add(uint32_t type, uint64_t pa, uint64_t len)
{
	assert_true(f.map.n < NR(f.r));
	f.r[f.map.n++] = (struct pt_mem_range){ .pa = pa, .len = len, .type = type };
}

/* The map above, nothing taken; @low_top ends the [32 MiB, ...) range. */
static void fake_init(uint64_t low_top)
{
	memset(&f, 0, sizeof(f));
	f.map.range = f.r;
	f.map.cap = NR(f.r);
	map_add(PT_EFI_CONVENTIONAL, 1 * MiB, 15 * MiB);
	map_add(PT_EFI_RESERVED, 16 * MiB, 1 * MiB);
	map_add(PT_EFI_CONVENTIONAL, 32 * MiB, low_top - 32 * MiB);
	map_add(PT_EFI_CONVENTIONAL, 4 * GiB, 1 * GiB);
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* Whether [pa, pa + bytes) lies in one conventional range and nothing taken. */
static bool is_free(uint64_t pa, uint64_t bytes)
{
	bool in = false;

	for (unsigned i = 0; i < f.map.n; i++)
		if (f.r[i].type == PT_EFI_CONVENTIONAL && pa >= f.r[i].pa &&
		    pa + bytes <= f.r[i].pa + f.r[i].len)
			in = true;
	for (unsigned k = 0; k < f.ntaken && in; k++)
		if (overlap(pa, bytes, f.taken[k].pa, f.taken[k].bytes))
			in = false;
	return in;
}

/* Pages the firmware had taken before the loader asked (no call logged). */
static void pretake(uint64_t pa, uint64_t bytes)
{
	f.taken[f.ntaken].pa = pa;
	f.taken[f.ntaken++].bytes = bytes;
}

static uint64_t log_call(char kind, uint64_t where, uint64_t bytes, uint64_t got)
{
	assert_true(f.ncall < NR(f.call));
	f.call[f.ncall++] = (struct call){ kind, where, bytes, got };
	if (got) {
		assert_true(f.ntaken < NR(f.taken));
		pretake(got, bytes);
	}
	return got;
}

static bool fake_at(void *ctx, uint64_t pa, uint64_t bytes)
{
	assert_ptr_equal(ctx, &f);
	/* the seam's contract: whole pages, never none */
	assert_true(bytes && bytes % PAGE == 0 && pa % PAGE == 0);
	return log_call('a', pa, bytes, pa && is_free(pa, bytes) ? pa : 0) != 0;
}

static uint64_t fake_below(void *ctx, uint64_t max, uint64_t bytes)
{
	assert_ptr_equal(ctx, &f);
	assert_true(bytes && bytes % PAGE == 0);
	for (unsigned i = f.map.n; i-- > 0;) {
		uint64_t end = f.r[i].pa + f.r[i].len;
		uint64_t top = max >= end - 1 ? end : (max + 1) & ~(PAGE - 1);

		if (f.r[i].type != PT_EFI_CONVENTIONAL)
			continue;
		/* walk down past whatever is taken in the way */
		while (top >= f.r[i].pa + bytes) {
			unsigned k;

			for (k = 0; k < f.ntaken; k++)
				if (overlap(top - bytes, bytes, f.taken[k].pa, f.taken[k].bytes))
					break;
			if (k == f.ntaken)
				return log_call('b', max, bytes, top - bytes);
			top = f.taken[k].pa;
		}
	}
	return log_call('b', max, bytes, 0);
}

static const struct lx_pages pages = { &f, fake_at, fake_below };

/* A kernel of init_size 0x1234567 (0x1235000 in pages) preferring 32 MiB. */
static struct lb_kernel kernel(bool relocatable, uint16_t xlf)
{
	return (struct lb_kernel){
		.version = 0x020f, .xloadflags = LB_XLF_KERNEL_64 | xlf,
		.relocatable = relocatable, .kernel_alignment = 2 * MiB,
		.pref_address = 32 * MiB, .init_size = 0x1234567,
		.initrd_addr_max = 0x7fffffff, .cmdline_size = 2047,
		.pm_bytes = 0x100000,
	};
}

static struct lx_place inputs(const uint64_t *isize, unsigned n, unsigned e820_cap)
{
	return (struct lx_place){ .map = &f.map, .maxphyaddr = MAXPHY, .initrd_size = isize,
				  .ninitrd = n, .e820_cap = e820_cap };
}

static void expect_call(unsigned i, char kind, uint64_t where, uint64_t bytes, uint64_t got)
{
	assert_true(i < f.ncall);
	assert_int_equal(f.call[i].kind, kind);
	assert_int_equal(f.call[i].where, where);
	assert_int_equal(f.call[i].bytes, bytes);
	assert_int_equal(f.call[i].got, got);
}

static void test_linux_place_kernel_at_pref(void **state)
{
	struct lb_kernel h = kernel(true, 0);
	struct lx_place pl = inputs(NULL, 0, 100);

	(void)state;
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.load_pa, 32 * MiB);
	assert_int_equal(pl.init_bytes, 0x1235000);
	assert_string_equal(pl.how, "pref_address");
	/* one call for the kernel: exactly its pages at pref_address */
	expect_call(0, 'a', 32 * MiB, 0x1235000, 32 * MiB);
	/* the setup copy: the top page of [4 GiB, 5 GiB) */
	expect_call(1, 'b', UINT64_MAX, PAGE, 5 * GiB - PAGE);
	assert_int_equal(pl.setup_pa, 5 * GiB - PAGE);
	/* no initrd: no run, no call */
	assert_int_equal(pl.initrd_bytes, 0);
	assert_int_equal(pl.initrd_pa, 0);
	/* zero page and command line: the top two pages below 4 GiB, 256 MiB down */
	expect_call(2, 'b', 0xffffffff, 2 * PAGE, 256 * MiB - 2 * PAGE);
	assert_int_equal(pl.zero_page_pa, 256 * MiB - 2 * PAGE);
	assert_int_equal(pl.cmdline_pa, 256 * MiB - PAGE);
	/* 100 entries of 24 bytes (struct lb_e820, unpacked): 2400 bytes, one page */
	assert_int_equal(pl.e820_bytes, 2400);
	expect_call(3, 'b', UINT64_MAX, PAGE, 5 * GiB - 2 * PAGE);
	assert_int_equal(pl.e820_pa, 5 * GiB - 2 * PAGE);
	/* 100 entries fit the zero page's 128: no extension, no call */
	assert_int_equal(pl.ext_cap, 0);
	assert_int_equal(pl.ext_pa, 0);
	assert_int_equal(f.ncall, 4);
}

/*
 * pref_address taken (the firmware holds the page at 40 MiB): the lowest
 * 2 MiB-aligned slot.  [2 MiB, 16 MiB) is too short for 0x1235000; at 32,
 * 34, 36, 38 and 40 MiB the kernel would cover 40 MiB; 42 MiB is free.
 */
static void test_linux_place_kernel_lowest_fit(void **state)
{
	static const uint64_t tried[] = { 32 * MiB, 32 * MiB, 34 * MiB, 36 * MiB, 38 * MiB,
					  40 * MiB, 42 * MiB };
	struct lb_kernel h = kernel(true, 0);
	struct lx_place pl = inputs(NULL, 0, 100);

	(void)state;
	fake_init(256 * MiB);
	pretake(40 * MiB, PAGE);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.load_pa, 42 * MiB);
	assert_string_equal(pl.how, "lowest fit");
	for (unsigned i = 0; i < NR(tried); i++)
		expect_call(i, 'a', tried[i], 0x1235000, i + 1 == NR(tried) ? tried[i] : 0);
	assert_int_equal(f.call[NR(tried)].kind, 'b');
}

/* Below 4 GiB only 8 MiB is free: a relocatable kernel goes above only with the flag. */
static void test_linux_place_kernel_above_4g(void **state)
{
	struct lb_kernel h = kernel(true, 0);
	struct lx_place pl = inputs(NULL, 0, 100);

	(void)state;
	fake_init(40 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_NOMEM);
	assert_int_equal(pl.failed, LX_PIECE_KERNEL);
	/* pref_address only: lb_next_slot finds no slot below 4 GiB, so no other at() */
	assert_int_equal(f.ncall, 1);
	assert_int_equal(f.ntaken, 0);

	h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	pl = inputs(NULL, 0, 100);
	fake_init(40 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.load_pa, 4 * GiB);
	assert_string_equal(pl.how, "lowest fit");
	expect_call(1, 'a', 4 * GiB, 0x1235000, 4 * GiB);
}

/* Not relocatable and pref_address taken: NOMEM (lxplace.h), the kernel named, no page. */
static void test_linux_place_kernel_fixed_refused(void **state)
{
	struct lb_kernel h = kernel(false, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	struct lx_place pl = inputs(NULL, 0, 100);

	(void)state;
	fake_init(256 * MiB);
	pretake(48 * MiB, PAGE);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_NOMEM);
	assert_int_equal(pl.failed, LX_PIECE_KERNEL);
	assert_non_null(strstr(f.why, "init_size 0x1234567"));
	assert_non_null(strstr(f.why, "not relocatable"));
	assert_int_equal(f.ncall, 1);
	expect_call(0, 'a', 32 * MiB, 0x1235000, 0);
	assert_int_equal(f.ntaken, 1);         /* the firmware's page only */
}

/*
 * Three initrds of 0x1001, 0x2002 and 3 bytes: at 0, 0x1004 (0x1001
 * rounded to 4) and 0x3008 (0x1004 + 0x2002 = 0x3006 rounded), 0x300b in
 * all; four pages ending at initrd_addr_max 96 MiB - 1.
 */
static void test_linux_place_initrds_run(void **state)
{
	static const uint64_t isize[] = { 0x1001, 0x2002, 3 };
	struct lb_kernel h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	struct lx_place pl = inputs(isize, NR(isize), 100);

	(void)state;
	h.initrd_addr_max = 96 * MiB - 1;
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.initrd_at[0], 0);
	assert_int_equal(pl.initrd_at[1], 0x1004);
	assert_int_equal(pl.initrd_at[2], 0x3008);
	assert_int_equal(pl.initrd_bytes, 0x300b);
	expect_call(2, 'b', 96 * MiB - 1, 4 * PAGE, 96 * MiB - 4 * PAGE);
	assert_int_equal(pl.initrd_pa, 96 * MiB - 4 * PAGE);
	/* the zero page comes after, still the top of low RAM */
	expect_call(3, 'b', 0xffffffff, 2 * PAGE, 256 * MiB - 2 * PAGE);
}

/* 512 MiB of initrd: no room below initrd_addr_max; above 4 GiB only with the flag. */
static void test_linux_place_initrds_above_4g(void **state)
{
	static const uint64_t isize[] = { 512 * MiB };
	struct lb_kernel h = kernel(true, 0);
	struct lx_place pl = inputs(isize, 1, 100);

	(void)state;
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_NOMEM);
	assert_int_equal(pl.failed, LX_PIECE_INITRD);
	assert_int_equal(pl.bad, 0);
	assert_non_null(strstr(f.why, "initrd_addr_max 0x7fffffff"));
	/* kernel, setup copy, the initrds' one below(): nothing after */
	assert_int_equal(f.ncall, 3);
	expect_call(2, 'b', 0x7fffffff, 512 * MiB, 0);

	h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	pl = inputs(isize, 1, 100);
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	/* under the setup copy's page at the top of [4 GiB, 5 GiB) */
	expect_call(3, 'b', (UINT64_C(1) << MAXPHY) - 1, 512 * MiB, 5 * GiB - PAGE - 512 * MiB);
	assert_int_equal(pl.initrd_pa, 5 * GiB - PAGE - 512 * MiB);
	assert_int_equal(pl.initrd_bytes, 512 * MiB);
}

/* lx_place on @isize must refuse naming initrd @bad, after the kernel and the setup copy. */
static void expect_initrd_refused(const uint64_t *isize, unsigned n, unsigned bad)
{
	struct lb_kernel h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	struct lx_place pl = inputs(isize, n, 100);

	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_REFUSED);
	assert_int_equal(pl.failed, LX_PIECE_INITRD);
	assert_int_equal(pl.bad, bad);
	assert_true(f.why[0] != 0);
	/* the kernel's at() and the setup copy's below(), then nothing */
	assert_int_equal(f.ncall, 2);
	assert_int_equal(f.call[0].kind, 'a');
	assert_int_equal(f.call[1].bytes, PAGE);
}

static void test_linux_place_initrds_refused(void **state)
{
	const uint64_t T = LX_INITRD_BYTES;
	/* 0x1000 + (2^64 - 0xfff) wraps to 1 */
	const uint64_t wrap[] = { 0x1000, UINT64_MAX - 0xffe };
	/* 2^39 + 1, then 4-byte aligned 2^39 + 4, + 2^39 - 3 = 2^40 + 1 (2^40 - 2 without the gap) */
	const uint64_t gap[] = { T / 2 + 1, T / 2 - 3 };
	const uint64_t big[] = { 1, T };
	const uint64_t empty[] = { 1, 2, 0 };
	const uint64_t nine[LX_INITRD_MAX + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };

	(void)state;
	expect_initrd_refused(wrap, NR(wrap), 1);
	assert_non_null(strstr(f.why, "together pass 1099511627776 bytes"));
	expect_initrd_refused(gap, NR(gap), 1);
	expect_initrd_refused(big, NR(big), 1);
	expect_initrd_refused(empty, NR(empty), 2);
	assert_string_equal(f.why, "it is empty");
	expect_initrd_refused(nine, NR(nine), 0);
}

/* 2^40 exactly with its gap (2^39 + 1 rounded to 2^39 + 4, + 2^39 - 4): placed. */
static void test_linux_place_initrds_at_bound(void **state)
{
	const uint64_t T = LX_INITRD_BYTES;
	const uint64_t isize[] = { T / 2 + 1, T / 2 - 4 };
	struct lb_kernel h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	struct lx_place pl = inputs(isize, NR(isize), 100);

	(void)state;
	fake_init(256 * MiB);
	map_add(PT_EFI_CONVENTIONAL, 2 * T, 2 * T);   /* [2 TiB, 4 TiB) */
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.initrd_at[1], T / 2 + 4);
	assert_int_equal(pl.initrd_bytes, T);
	/* the setup copy took the top page of 4 TiB; the run is just under it */
	assert_int_equal(pl.initrd_pa, 4 * T - PAGE - T);
}

/* e820 room: 128 entries fit the zero page, 129 need a node of 16 + 20 bytes. */
static void test_linux_place_e820_ext(void **state)
{
	struct lb_kernel h = kernel(true, 0);
	struct lx_place pl = inputs(NULL, 0, 128);

	(void)state;
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.ext_cap, 0);
	assert_int_equal(pl.ext_pa, 0);
	assert_int_equal(f.ncall, 4);          /* kernel, setup, zero page, e820 */

	pl = inputs(NULL, 0, 129);
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.ext_cap, 36);
	expect_call(4, 'b', UINT64_MAX, PAGE, 5 * GiB - 3 * PAGE);
	assert_int_equal(pl.ext_pa, 5 * GiB - 3 * PAGE);

	/* 300 entries: 7200 bytes of table (two pages), 16 + 172 * 20 = 3456 of node */
	pl = inputs(NULL, 0, 300);
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	assert_int_equal(pl.e820_bytes, 7200);
	expect_call(3, 'b', UINT64_MAX, 2 * PAGE, 5 * GiB - 3 * PAGE);
	assert_int_equal(pl.ext_cap, 3456);

	/* no entry at all: refused, about neither the kernel nor an initrd */
	pl = inputs(NULL, 0, 0);
	fake_init(256 * MiB);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_REFUSED);
	assert_int_equal(pl.failed, LX_PIECE_OTHER);
	assert_int_equal(f.ncall, 3);          /* no e820 page taken */
}

/*
 * A normal hand-off (two initrds, 200 entries): every piece is what a
 * call granted, the zero page and command line below 4 GiB, and no two
 * pieces (nor a piece and the firmware's page) overlap.
 */
static void test_linux_place_no_overlap(void **state)
{
	static const uint64_t isize[] = { 0x5000, 0x123 };
	struct lb_kernel h = kernel(true, LB_XLF_CAN_BE_LOADED_ABOVE_4G);
	struct lx_place pl = inputs(isize, NR(isize), 200);
	uint64_t pa[7], len[7];

	(void)state;
	fake_init(256 * MiB);
	pretake(256 * MiB - PAGE, PAGE);
	assert_int_equal(lx_place(&pages, &h, &pl, f.why, sizeof(f.why)), LX_PLACE_OK);
	pa[0] = pl.load_pa, len[0] = pl.init_bytes;
	pa[1] = pl.setup_pa, len[1] = PAGE;
	pa[2] = pl.initrd_pa, len[2] = 6 * PAGE;             /* 0x5000 + 0x123 */
	pa[3] = pl.zero_page_pa, len[3] = PAGE;
	pa[4] = pl.cmdline_pa, len[4] = PAGE;
	pa[5] = pl.e820_pa, len[5] = 2 * PAGE;               /* 200 * 24 = 4800 */
	pa[6] = pl.ext_pa, len[6] = PAGE;                    /* 16 + 72 * 20 = 1456 */
	assert_int_equal(pl.ext_cap, 1456);
	assert_int_equal(pl.initrd_at[1], 0x5000);
	assert_true(pl.zero_page_pa + PAGE - 1 <= 0xffffffff);
	assert_true(pl.cmdline_pa + PAGE - 1 <= 0xffffffff);
	assert_int_equal(f.ncall, 6);
	for (unsigned i = 0; i < NR(pa); i++) {
		assert_true(pa[i] != 0);
		for (unsigned j = i + 1; j < NR(pa); j++)
			if (overlap(pa[i], len[i], pa[j], len[j]))
				fail_msg("pieces %u and %u overlap", i, j);
		assert_false(overlap(pa[i], len[i], 256 * MiB - PAGE, PAGE));
	}
	/* and each granted call's pages are a piece's (zero page and command line one call) */
	for (unsigned c = 0; c < f.ncall; c++) {
		bool found = false;

		for (unsigned i = 0; i < NR(pa); i++)
			found |= f.call[c].got == pa[i] &&
				 f.call[c].bytes == (i == 3 ? 2 * PAGE : len[i]);
		assert_true(found);
	}
}

UNIT_MAIN(cmocka_unit_test(test_linux_place_kernel_at_pref),
	  cmocka_unit_test(test_linux_place_kernel_lowest_fit),
	  cmocka_unit_test(test_linux_place_kernel_above_4g),
	  cmocka_unit_test(test_linux_place_kernel_fixed_refused),
	  cmocka_unit_test(test_linux_place_initrds_run),
	  cmocka_unit_test(test_linux_place_initrds_above_4g),
	  cmocka_unit_test(test_linux_place_initrds_refused),
	  cmocka_unit_test(test_linux_place_initrds_at_bound),
	  cmocka_unit_test(test_linux_place_e820_ext),
	  cmocka_unit_test(test_linux_place_no_overlap))
