// SPDX-License-Identifier: MIT
/* covers: efi/limine/lmmap.c */
/*
 * Host tests for efi/limine/lmmap.c: the Limine memory map and the HHDM's
 * ranges.
 *
 * The maps are the captured OVMF maps of tests/data/memmap/ (normalized
 * by the library) and hand-made ones.  The expected type of every byte is
 * computed here from the inputs by this file's own table and priority
 * rule, and compared with the output at every boundary of either: both
 * are constant between consecutive boundaries, so agreeing there is
 * agreeing everywhere.
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

#include <ptlab/ptlab.h>

#include "samples.h"
#include "../../efi/limine/lmmap.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define PAGE UINT64_C(0x1000)
#define MiB UINT64_C(0x100000)
#define GiB UINT64_C(0x40000000)
#define MAX_RANGES 1024u
#define OUT_CAP 1024u

static struct pt_mem_range ranges[MAX_RANGES];
static struct pt_memmap fw;
static struct lm_memmap_entry out[OUT_CAP];
static char why[256];

/* The Limine type of each UEFI type, as the specification's meaning asks (the test's own table). */
static const unsigned want_type[PT_EFI_TYPE_COUNT] = {
	[PT_EFI_RESERVED] = LM_MEM_RESERVED,
	[PT_EFI_LOADER_CODE] = LM_MEM_BOOTLOADER_RECLAIMABLE,
	[PT_EFI_LOADER_DATA] = LM_MEM_BOOTLOADER_RECLAIMABLE,
	[PT_EFI_BS_CODE] = LM_MEM_USABLE,
	[PT_EFI_BS_DATA] = LM_MEM_USABLE,
	[PT_EFI_RT_CODE] = LM_MEM_RESERVED,
	[PT_EFI_RT_DATA] = LM_MEM_RESERVED,
	[PT_EFI_CONVENTIONAL] = LM_MEM_USABLE,
	[PT_EFI_UNUSABLE] = LM_MEM_BAD_MEMORY,
	[PT_EFI_ACPI_RECLAIM] = LM_MEM_ACPI_RECLAIMABLE,
	[PT_EFI_ACPI_NVS] = LM_MEM_ACPI_NVS,
	[PT_EFI_MMIO] = LM_MEM_RESERVED,
	[PT_EFI_MMIO_PORT] = LM_MEM_RESERVED,
	[PT_EFI_PAL_CODE] = LM_MEM_RESERVED,
	[PT_EFI_PERSISTENT] = LM_MEM_RESERVED,
	[PT_EFI_UNACCEPTED] = LM_MEM_RESERVED,
};

static void load(const char *name)
{
	size_t len;
	void *raw = sample_read(name, &len);

	memset(&fw, 0, sizeof(fw));
	fw.range = ranges;
	fw.cap = MAX_RANGES;
	assert_int_equal(pt_memmap_normalize(raw, len, (unsigned)(len / 48), 48, 46, &fw), PT_OK);
	free(raw);
}

/* Sets fw to @n hand-made ranges. */
static void hand(const struct pt_mem_range *r, unsigned n)
{
	memset(&fw, 0, sizeof(fw));
	memcpy(ranges, r, n * sizeof(*r));
	fw.range = ranges;
	fw.cap = MAX_RANGES;
	fw.n = n;
}

static bool in(const struct lm_range *r, unsigned n, uint64_t p)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = r[i].pa & ~(PAGE - 1);
		uint64_t b = (r[i].pa + r[i].len + PAGE - 1) & ~(PAGE - 1);

		if (p >= a && p < b)
			return true;
	}
	return false;
}

/* The type the map must give byte @p, -1 for none. */
static int expect(const struct lm_map_in *mi, uint64_t p)
{
	int t = -1;

	if (in(mi->fb, mi->nfb, p))
		return LM_MEM_FRAMEBUFFER;
	if (in(mi->kernel, mi->nkernel, p))
		return LM_MEM_KERNEL_AND_MODULES;
	if (in(mi->reclaim, mi->nreclaim, p))
		return LM_MEM_BOOTLOADER_RECLAIMABLE;
	for (unsigned i = 0; i < fw.n; i++)
		if (p >= fw.range[i].pa && p < fw.range[i].pa + fw.range[i].len)
			t = (int)want_type[fw.range[i].type];
	if (t == LM_MEM_USABLE && p < PAGE)
		t = LM_MEM_RESERVED;
	return t;
}

/* The type the output gives byte @p, -1 for none. */
static int got(unsigned n, uint64_t p)
{
	for (unsigned i = 0; i < n; i++)
		if (p >= out[i].base && p - out[i].base < out[i].length)
			return (int)out[i].type;
	return -1;
}

static void check_at(const struct lm_map_in *mi, unsigned n, uint64_t p)
{
	int e = expect(mi, p), g = got(n, p);

	if (e != g)
		fail_msg("byte 0x%llx: type %d, want %d", (unsigned long long)p, g, e);
}

static void check_list_edges(const struct lm_map_in *mi, unsigned n, const struct lm_range *r,
	unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		uint64_t a = r[i].pa & ~(PAGE - 1);
		uint64_t b = (r[i].pa + r[i].len + PAGE - 1) & ~(PAGE - 1);

		check_at(mi, n, a);
		check_at(mi, n, b);
		if (a)
			check_at(mi, n, a - 1);
		check_at(mi, n, b - 1);
	}
}

/* Every property of a built map against its inputs. */
static void check_map(const struct lm_map_in *mi, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		assert_true(out[i].length > 0);
		assert_true(out[i].type < LM_MEM_TYPE_COUNT);
		if (out[i].base % PAGE || out[i].length % PAGE)
			fail_msg("entry %u [0x%llx, +0x%llx) is not page-aligned", i,
				(unsigned long long)out[i].base, (unsigned long long)out[i].length);
		if (out[i].type == LM_MEM_USABLE && out[i].base < PAGE)
			fail_msg("page 0 usable");
		if (i + 1 < n) {
			if (out[i].base + out[i].length > out[i + 1].base)
				fail_msg("entries %u and %u unsorted or overlapping", i, i + 1);
			if (out[i].base + out[i].length == out[i + 1].base &&
			    out[i].type == out[i + 1].type)
				fail_msg("entries %u and %u not merged", i, i + 1);
		}
		check_at(mi, n, out[i].base);
		check_at(mi, n, out[i].base + out[i].length - 1);
		check_at(mi, n, out[i].base + out[i].length);
		if (out[i].base)
			check_at(mi, n, out[i].base - 1);
	}
	for (unsigned i = 0; i < fw.n; i++) {
		check_at(mi, n, fw.range[i].pa);
		check_at(mi, n, fw.range[i].pa + fw.range[i].len - 1);
		check_at(mi, n, fw.range[i].pa + fw.range[i].len);
	}
	check_list_edges(mi, n, mi->reclaim, mi->nreclaim);
	check_list_edges(mi, n, mi->kernel, mi->nkernel);
	check_list_edges(mi, n, mi->fb, mi->nfb);
	check_at(mi, n, 0);
	check_at(mi, n, PAGE);
}

/* The largest conventional range of fw. */
static const struct pt_mem_range *largest(void)
{
	const struct pt_mem_range *best = NULL;

	for (unsigned i = 0; i < fw.n; i++)
		if (fw.range[i].type == PT_EFI_CONVENTIONAL && (!best || fw.range[i].len > best->len))
			best = &fw.range[i];
	assert_non_null(best);
	return best;
}

/* A loader's ranges in @name: kernel and module, reclaimable pieces, a framebuffer. */
static void sample(const char *name)
{
	struct lm_range kernel[2], reclaim[4], fb[1];
	const struct pt_mem_range *c;
	struct lm_map_in mi;
	unsigned n = 0, bs = 0;

	load(name);
	c = largest();
	assert_true(c->len >= 8 * MiB);
	kernel[0] = (struct lm_range){ c->pa + 0x10000, 0x123456 };        /* unaligned end */
	kernel[1] = (struct lm_range){ c->pa + 0x200000, 0x5001 };         /* a module */
	reclaim[0] = (struct lm_range){ c->pa + 0x300000, 0x4000 };
	reclaim[1] = (struct lm_range){ c->pa + 0x310000, 0x800 };         /* rounded up to a page */
	reclaim[2] = (struct lm_range){ c->pa + c->len - 0x2000, 0x2000 }; /* the range's end */
	fb[0] = (struct lm_range){ 0x80000000, 0x1d4c00 };                 /* 800x600x4, past any RAM */
	/* a boot-services range taken whole as reclaimable (the loader's tables there) */
	for (unsigned i = 0; i < fw.n && !bs; i++)
		if (fw.range[i].type == PT_EFI_BS_DATA && fw.range[i].pa >= MiB) {
			reclaim[3] = (struct lm_range){ fw.range[i].pa, fw.range[i].len };
			bs = 1;
		}
	assert_int_equal(bs, 1);
	mi = (struct lm_map_in){ &fw, reclaim, 4, kernel, 2, fb, 1 };
	if (lm_map_build(&mi, out, lm_map_bound(&mi), &n, why, sizeof(why)))
		fail_msg("%s: refused: %s", name, why);
	assert_true(n > 3);
	check_map(&mi, n);
	/* the kernel's pages are one entry: [start, end rounded up) */
	assert_int_equal(got(n, c->pa + 0x10000), LM_MEM_KERNEL_AND_MODULES);
	for (unsigned i = 0; i < n; i++)
		if (out[i].base == c->pa + 0x10000)
			assert_true(out[i].length == 0x124000);
}

/* OVMF's maps at 256 MiB to 16 GiB, each named before it runs (a failure follows its name) */
static void test_limine_map_ovmf_samples(void **state)
{
	static const char *const file[] = { "ovmf-256M.bin", "ovmf-2G.bin", "ovmf-8G.bin",
					     "ovmf-16G.bin" };

	(void)state;
	for (unsigned i = 0; i < sizeof(file) / sizeof(file[0]); i++) {
		print_message("sample %s\n", file[i]);
		sample(file[i]);
	}
}

static void test_limine_map_quirks_map_alone(void **state)
{
	struct lm_map_in mi = { &fw, NULL, 0, NULL, 0, NULL, 0 };
	unsigned n;

	(void)state;
	load("quirks.bin");
	assert_int_equal(lm_map_build(&mi, out, lm_map_bound(&mi), &n, why, sizeof(why)), 0);
	check_map(&mi, n);
}

static const struct pt_mem_range small[] = {
	{ 0x0,       0xa0000,   PT_EFI_CONVENTIONAL, 0 },  /* page 0 usable in the firmware's map */
	{ 0x100000,  0x100000,  PT_EFI_LOADER_DATA, 0 },
	{ 0x200000,  0x600000,  PT_EFI_CONVENTIONAL, 0 },
	{ 0x800000,  0x10000,   PT_EFI_ACPI_NVS, 0 },
	{ 0x900000,  0x100000,  PT_EFI_RT_CODE, 0 },
	{ 0xfec00000, 0x1000,   PT_EFI_MMIO, 0 },
};

static void test_limine_map_page_0_never_usable(void **state)
{
	struct lm_map_in mi = { &fw, NULL, 0, NULL, 0, NULL, 0 };
	unsigned n;

	(void)state;
	hand(small, NR(small));
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), 0);
	check_map(&mi, n);
	assert_true(out[0].base == 0 && out[0].length == PAGE && out[0].type == LM_MEM_RESERVED);
	assert_true(out[1].base == PAGE && out[1].length == 0x9f000 && out[1].type == LM_MEM_USABLE);
	assert_true(out[2].base == 0x100000 && out[2].type == LM_MEM_BOOTLOADER_RECLAIMABLE);
	assert_int_equal(n, 7);
}

static void test_limine_map_refusals(void **state)
{
	struct lm_range bad[2];
	struct lm_map_in mi = { &fw, NULL, 0, bad, 1, NULL, 0 };
	unsigned n;

	(void)state;
	hand(small, NR(small));
	bad[0] = (struct lm_range){ 0x800000, 0x1000 };      /* ACPI NVS */
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "kernel/modules range [0x800000, 0x801000) is not all RAM"));

	bad[0] = (struct lm_range){ 0x7ff000, 0x2000 };      /* straddles into ACPI NVS */
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is not all RAM"));

	bad[0] = (struct lm_range){ 0xa0000, 0x1000 };       /* a hole */
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is not all RAM"));

	bad[0] = (struct lm_range){ 0x300000, 0 };
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "is empty or wraps"));

	bad[0] = (struct lm_range){ 0x300000, 0x2000 };
	bad[1] = (struct lm_range){ 0x301800, 0x10 };        /* shares a page once rounded */
	mi.nkernel = 2;
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "overlaps kernel/modules range [0x300000, 0x302000)"));

	mi.nkernel = 1;
	assert_int_equal(lm_map_build(&mi, out, 4, &n, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 4 entries"));
	/* the loader's own range (LoaderData) may hold a kernel: it is RAM */
	bad[0] = (struct lm_range){ 0x100000, 0x1000 };
	assert_int_equal(lm_map_build(&mi, out, OUT_CAP, &n, why, sizeof(why)), 0);
}

static void test_limine_map_type_table(void **state)
{
	(void)state;
	for (unsigned t = 0; t < PT_EFI_TYPE_COUNT; t++)
		assert_int_equal(lm_mem_type_of(t), want_type[t]);
	assert_int_equal(lm_mem_type_of(99), LM_MEM_RESERVED);
}

static const struct lm_memmap_entry hmap[] = {
	{ 0x1000,          0x9f000,       LM_MEM_USABLE },
	{ 0xf0000,         0x10000,       LM_MEM_RESERVED },
	{ 0x100000,        3 * GiB,       LM_MEM_USABLE },
	{ 0x80000000,      0x300000,      LM_MEM_FRAMEBUFFER },
	{ 0xfee00000,      0x1000,        LM_MEM_RESERVED },
	{ 4 * GiB,         2 * GiB,       LM_MEM_USABLE },
	{ 6 * GiB,         MiB,           LM_MEM_RESERVED },
	{ 7 * GiB,         0x10000,       LM_MEM_ACPI_RECLAIMABLE },
	{ 7 * GiB + 0x10000, 0x800,       LM_MEM_KERNEL_AND_MODULES },   /* unaligned end */
	{ 8 * GiB,         PAGE,          LM_MEM_BAD_MEMORY },
	{ 9 * GiB,         0x20000,       LM_MEM_FRAMEBUFFER },
};

static void test_limine_map_hhdm_per_revision(void **state)
{
	struct lm_range r[8];
	int n;

	(void)state;
	n = lm_hhdm_ranges(2, hmap, NR(hmap), r, NR(r));
	assert_int_equal(n, 3);
	assert_true(r[0].pa == 0 && r[0].len == 6 * GiB);
	assert_true(r[1].pa == 7 * GiB && r[1].len == 0x11000);
	assert_true(r[2].pa == 9 * GiB && r[2].len == 0x20000);
	assert_int_equal(lm_hhdm_ranges(1, hmap, NR(hmap), r, NR(r)), 3);

	n = lm_hhdm_ranges(0, hmap, NR(hmap), r, NR(r));
	assert_int_equal(n, 4);
	assert_true(r[0].pa == 0 && r[0].len == 6 * GiB + MiB);
	assert_true(r[1].pa == 7 * GiB && r[1].len == 0x11000);
	assert_true(r[2].pa == 8 * GiB && r[2].len == PAGE);
	assert_true(r[3].pa == 9 * GiB);
	assert_int_equal(lm_hhdm_ranges(0, hmap, NR(hmap), r, 3), -1);

	n = lm_hhdm_ranges(2, hmap, 3, r, NR(r));  /* nothing above 4 GiB: [0, 4 GiB) alone */
	assert_int_equal(n, 1);
	assert_true(r[0].pa == 0 && r[0].len == 4 * GiB);

	assert_true(lm_identity_mapped(0));
	assert_false(lm_identity_mapped(1) || lm_identity_mapped(2));
	assert_true(lm_hhdm_maps(0, LM_MEM_RESERVED) && lm_hhdm_maps(0, LM_MEM_BAD_MEMORY));
	assert_false(lm_hhdm_maps(2, LM_MEM_RESERVED) || lm_hhdm_maps(1, LM_MEM_BAD_MEMORY));
	for (unsigned t = 0; t < LM_MEM_TYPE_COUNT; t++)
		if (t != LM_MEM_RESERVED && t != LM_MEM_BAD_MEMORY)
			assert_true(lm_hhdm_maps(2, t));
}

UNIT_MAIN(
	cmocka_unit_test(test_limine_map_ovmf_samples),
	cmocka_unit_test(test_limine_map_quirks_map_alone),
	cmocka_unit_test(test_limine_map_page_0_never_usable),
	cmocka_unit_test(test_limine_map_refusals),
	cmocka_unit_test(test_limine_map_type_table),
	cmocka_unit_test(test_limine_map_hhdm_per_revision))
