// SPDX-License-Identifier: MIT
/* covers: efi/linux/linuxboot.c */
/*
 * Host tests for efi/linux/linuxboot.c: the Linux/x86 boot protocol's data.
 *
 * The bzImage files are synthetic, written byte by byte at the offsets of
 * the kernel's Documentation/arch/x86/boot.rst ("The Linux/x86 Boot
 * Protocol"), and every expected value of the zero page is read back with
 * this file's own little-endian readers at the offsets of struct
 * boot_params and struct screen_info, never through the code under test.
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

#include "../../efi/linux/linuxboot.h"
#include "lib/le.h"
#include "bzimage.h"
#include "memmapfx.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define KiB UINT64_C(0x400)
#define MiB UINT64_C(0x100000)
#define GiB UINT64_C(0x40000000)

/* lb_parse() on @f: @want, and when refused a message holding @needle. */
static void expect_parse(const uint8_t *f, uint64_t len, int want, const char *needle)
{
	struct lb_kernel k;
	char why[256] = "";
	int got = lb_parse(f, len, &k, why, sizeof(why));

	if (got != want)
		fail_msg("lb_parse(len=%llu) = %d, want %d (%s)", (unsigned long long)len, got, want,
			 why);
	if (needle && !strstr(why, needle))
		fail_msg("lb_parse(len=%llu): message \"%s\" does not name \"%s\"",
			 (unsigned long long)len, why, needle);
}

/* lb_parse of the first @len bytes of @f accepted, into @k. */
static void parse_ok(const uint8_t *f, uint64_t len, struct lb_kernel *k)
{
	char why[256] = "";
	int got = lb_parse(f, len, k, why, sizeof(why));

	if (got != LB_OK)
		fail_msg("lb_parse(len=%llu) = %d, want LB_OK (%s)", (unsigned long long)len, got, why);
}

/* ---- lb_parse ------------------------------------------------------------ */

static void test_linuxboot_valid_header_parsed_field_by_field(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	struct lb_kernel k;

	(void)state;
	memset(&k, 0xa5, sizeof(k));
	parse_ok(f, T_FILE_BYTES, &k);
	assert_int_equal(k.version, T_VERSION);
	assert_int_equal(k.setup_sects, T_SETUP_SECTS);
	assert_int_equal(k.loadflags, T_LOADFLAGS);
	assert_int_equal(k.xloadflags, T_XLF);
	assert_int_equal(k.relocatable, T_RELOCATABLE);
	assert_int_equal(k.kernel_alignment, T_ALIGN);
	assert_int_equal(k.pref_address, T_PREF);
	assert_int_equal(k.init_size, T_INIT_SIZE);
	assert_int_equal(k.initrd_addr_max, T_INITRD_MAX);
	assert_int_equal(k.cmdline_size, T_CMDLINE_SIZE);
	assert_int_equal(k.hdr_end, 0x202u + T_JUMP);
	assert_int_equal(k.pm_offset, T_PM_OFFSET);
	assert_int_equal(k.pm_bytes, T_PM_BYTES);
	free(f);
}

/* A header with its fields at their limits: 64-bit values read whole, u32 fields full. */
static void test_linuxboot_header_fields_read_full_width(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	struct lb_kernel k;

	(void)state;
	le_stn(f + O_PREF_ADDRESS, 8, UINT64_C(0x8877665544332211));
	le_stn(f + O_INIT_SIZE, 4, UINT32_C(0xfffff000));
	le_stn(f + O_INITRD_MAX, 4, UINT32_C(0xffffffff));
	le_stn(f + O_CMDLINE_SIZE, 4, UINT32_C(0x80000001));
	le_stn(f + O_KERNEL_ALIGN, 4, UINT32_C(0x80000000));
	le_stn(f + O_XLOADFLAGS, 2, 0xffff);
	le_stn(f + O_VERSION, 2, 0x0300);
	f[O_JUMP] = 0x8e;                      /* header ends exactly at 0x290 */
	parse_ok(f, T_FILE_BYTES, &k);
	assert_true(k.pref_address == UINT64_C(0x8877665544332211));
	assert_int_equal(k.init_size, UINT32_C(0xfffff000));
	assert_int_equal(k.initrd_addr_max, UINT32_C(0xffffffff));
	assert_int_equal(k.cmdline_size, UINT32_C(0x80000001));
	assert_int_equal(k.kernel_alignment, UINT32_C(0x80000000));
	assert_int_equal(k.xloadflags, 0xffff);
	assert_int_equal(k.version, 0x0300);
	assert_int_equal(k.hdr_end, 0x290);
	free(f);
}

static void test_linuxboot_file_shorter_than_a_header_refused(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);

	(void)state;
	expect_parse(f, 0x26f, LB_ETRUNCATED, "truncated: 623 bytes");
	expect_parse(f, 0, LB_ETRUNCATED, "truncated: 0 bytes");
	free(f);
}

/*
 * One header field set to one value in an otherwise good image: the verdict,
 * and the field and value the message names.  The header's end is 0x202 plus
 * the jump byte; it may not pass 0x290 nor stop before init_size (0x260..0x264).
 */
static const struct field_case {
	const char *name;
	unsigned off, width;
	uint64_t val;
	int want;
	const char *needle;
} field_cases[] = {
	{ "boot_flag 0x55aa", O_BOOT_FLAG, 2, 0x55aa, LB_EMAGIC, "boot_flag 0x55aa" },
	{ "boot_flag 0", O_BOOT_FLAG, 2, 0, LB_EMAGIC, "boot_flag 0x0000" },
	{ "protocol 2.11", O_VERSION, 2, 0x020b, LB_EVERSION, "boot protocol 2.11" },
	{ "protocol 2.06", O_VERSION, 2, 0x0206, LB_EVERSION, "boot protocol 2.06" },
	{ "protocol 1.17", O_VERSION, 2, 0x0111, LB_EVERSION, "boot protocol 1.17" },
	{ "protocol 2.12 is enough", O_VERSION, 2, 0x020c, LB_OK, NULL },
	{ "header to 0x291", O_JUMP, 1, 0x8f, LB_EMAGIC, "ends at 0x291" },
	{ "header to 0x301", O_JUMP, 1, 0xff, LB_EMAGIC, "ends at 0x301" },
	{ "header to 0x290", O_JUMP, 1, 0x8e, LB_OK, NULL },
	{ "header to 0x263", O_JUMP, 1, 0x61, LB_EMAGIC, "ends at 0x263, before its init_size" },
	{ "header to 0x202", O_JUMP, 1, 0, LB_EMAGIC, "ends at 0x202" },
	{ "header to init_size's end", O_JUMP, 1, 0x62, LB_OK, NULL },
	/* above-4G and 5-level, no KERNEL_64 */
	{ "xloadflags 0x22", O_XLOADFLAGS, 2, 0x0022, LB_E32BIT, "xloadflags 0x22" },
	{ "xloadflags 0", O_XLOADFLAGS, 2, 0, LB_E32BIT, "xloadflags 0x0 " },
};

static void test_linuxboot_one_bad_header_field_refused(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NR(field_cases); i++) {
		const struct field_case *c = &field_cases[i];
		uint8_t *f = bz_image(T_FILE_BYTES);
		struct lb_kernel k;
		char why[256] = "";
		int got;

		le_stn(f + c->off, c->width, c->val);
		got = lb_parse(f, T_FILE_BYTES, &k, why, sizeof(why));
		if (got != c->want || (c->needle && !strstr(why, c->needle)))
			fail_msg("\"%s\": lb_parse = %d (\"%s\"), want %d naming \"%s\"", c->name,
				 got, why, c->want, c->needle ? c->needle : "");
		free(f);
	}
}

static void test_linuxboot_bad_header_magic_refused(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	char want[64];

	(void)state;
	memcpy(f + O_MAGIC, "HdrT", 4);
	snprintf(want, sizeof(want), "header magic 0x%08x",
		 (unsigned)('H' | 'd' << 8 | 'r' << 16 | 'T' << 24));
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, want);
	/* a good flag is still named next to the bad magic */
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "boot_flag 0xaa55");
	free(f);
}

static void test_linuxboot_setup_sects_0_means_4(void **state)
{
	const uint64_t exact = 5 * 512 + T_PM_BYTES;
	uint8_t *f = bz_image(exact);
	struct lb_kernel k;
	char want[128];

	(void)state;
	f[O_SETUP_SECTS] = 0;
	parse_ok(f, exact, &k);
	assert_int_equal(k.setup_sects, 0);
	assert_int_equal(k.pm_offset, 5 * 512);
	assert_int_equal(k.pm_bytes, T_PM_BYTES);
	/* a paragraph short: the message gives both lengths and 4 + 1 sectors */
	snprintf(want, sizeof(want), "truncated: %llu bytes, the header says %llu (5 setup sectors",
		 (unsigned long long)(exact - 16), (unsigned long long)exact);
	expect_parse(f, exact - 16, LB_ETRUNCATED, want);
	free(f);
}

static void test_linuxboot_file_shorter_than_setup_and_kernel_refused(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES + 1);
	char want[128];

	(void)state;
	expect_parse(f, T_FILE_BYTES, LB_OK, NULL);
	expect_parse(f, T_FILE_BYTES + 1, LB_OK, NULL);       /* trailing bytes are fine */
	snprintf(want, sizeof(want), "truncated: %u bytes, the header says %u (%u setup sectors and "
		 "a %u-byte kernel, syssize %u paragraphs)", T_FILE_BYTES - 16, T_FILE_BYTES,
		 T_SETUP_SECTS + 1, T_PM_BYTES, T_SYSSIZE);
	expect_parse(f, T_FILE_BYTES - 16, LB_ETRUNCATED, want);
	/* shorter than the setup sectors alone */
	expect_parse(f, T_PM_OFFSET - 1, LB_ETRUNCATED, "the header says");
	/* no kernel at all (syssize 0) */
	le_stn(f + O_SYSSIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_ETRUNCATED, "a 0-byte kernel");
	free(f);
}

static void test_linuxboot_init_size_smaller_than_kernel_refused(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	char want[96];

	(void)state;
	le_stn(f + O_INIT_SIZE, 4, T_PM_BYTES - 1);
	snprintf(want, sizeof(want), "init_size 0x%x is smaller than the 0x%x-byte kernel",
		 T_PM_BYTES - 1, T_PM_BYTES);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, want);
	le_stn(f + O_INIT_SIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, "init_size 0x0 ");
	/* exactly the kernel's size is enough */
	le_stn(f + O_INIT_SIZE, 4, T_PM_BYTES);
	expect_parse(f, T_FILE_BYTES, LB_OK, NULL);
	free(f);
}

static void test_linuxboot_kernel_alignment_not_power_of_two_or_below_4k_refused(void **state)
{
	static const struct { uint32_t align; int want; const char *needle; } t[] = {
		{ 0x3000, LB_EALIGN, "kernel_alignment 0x3000 " },
		{ 0x200001, LB_EALIGN, "kernel_alignment 0x200001 " },
		{ 0xffffffff, LB_EALIGN, "kernel_alignment 0xffffffff " },
		{ 0x800, LB_EALIGN, "kernel_alignment 0x800 " },
		{ 0x1, LB_EALIGN, "kernel_alignment 0x1 " },
		{ 0, LB_EALIGN, "kernel_alignment 0x0 " },
		{ 0x1000, LB_OK, NULL },
		{ 0x200000, LB_OK, NULL },
		{ 0x80000000, LB_OK, NULL },
	};
	uint8_t *f = bz_image(T_FILE_BYTES);

	(void)state;
	for (unsigned i = 0; i < NR(t); i++) {
		le_stn(f + O_KERNEL_ALIGN, 4, t[i].align);
		expect_parse(f, T_FILE_BYTES, t[i].want, t[i].needle);
	}
	free(f);
}

/* Several faults at once: the first of enum lb_err's order in the header is reported. */
/*
 * syssize counts 16-byte paragraphs rounded up: a file ending 1 to 15 bytes
 * before syssize * 16 holds the whole kernel (memtest86+x64.bin ends 8
 * bytes early), and pm_bytes is what the file has; 16 bytes short is
 * a paragraph missing.
 */
static void test_linuxboot_syssize_rounded_up_to_a_paragraph(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	struct lb_kernel k;

	(void)state;
	for (unsigned short_by = 1; short_by < 16; short_by++) {
		memset(&k, 0, sizeof(k));
		parse_ok(f, T_FILE_BYTES - short_by, &k);
		assert_int_equal(k.pm_bytes, T_PM_BYTES - short_by);
	}
	expect_parse(f, T_FILE_BYTES - 16, LB_ETRUNCATED, "the header says");
	/* a longer file: pm_bytes stays syssize * 16 */
	parse_ok(f, T_FILE_BYTES, &k);
	assert_int_equal(k.pm_bytes, T_PM_BYTES);
	/* memtest86+'s numbers: 2 setup sectors, syssize 8924, 144312 bytes */
	free(f);
	f = bz_image(144312);
	f[O_SETUP_SECTS] = 2;
	le_stn(f + O_SYSSIZE, 4, 8924);
	le_stn(f + O_INIT_SIZE, 4, 0x6acf8);
	parse_ok(f, 144312, &k);
	assert_int_equal(k.pm_offset, 3 * 512);
	assert_int_equal(k.pm_bytes, 144312 - 3 * 512);
	free(f);
}

static void test_linuxboot_first_fault_in_header_order_reported(void **state)
{
	uint8_t *f = bz_image(T_FILE_BYTES);

	(void)state;
	le_stn(f + O_KERNEL_ALIGN, 4, 0x3000);
	le_stn(f + O_INIT_SIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, NULL);
	le_stn(f + O_XLOADFLAGS, 2, 0);
	expect_parse(f, T_FILE_BYTES, LB_E32BIT, NULL);
	expect_parse(f, T_FILE_BYTES - 16, LB_ETRUNCATED, NULL);
	le_stn(f + O_VERSION, 2, 0x0200);
	expect_parse(f, T_FILE_BYTES - 16, LB_EVERSION, NULL);
	memcpy(f + O_MAGIC, "HdrX", 4);
	expect_parse(f, T_FILE_BYTES - 16, LB_EMAGIC, NULL);
	free(f);
}

/* ---- lb_check_run -------------------------------------------------------- */

static struct lb_kernel kernel_with(uint16_t xlf, uint32_t cmdline_size)
{
	struct lb_kernel k;

	memset(&k, 0, sizeof(k));
	k.version = T_VERSION;
	k.xloadflags = xlf;
	k.kernel_alignment = T_ALIGN;
	k.cmdline_size = cmdline_size;
	return k;
}

static void test_linuxboot_five_levels_need_xlf_5level(void **state)
{
	struct lb_kernel k = kernel_with(0x0003, 255);
	char why[256] = "";

	(void)state;
	assert_int_equal(lb_check_run(&k, 5, true, 0, why, sizeof(why)), LB_ELEVELS);
	assert_non_null(strstr(why, "xloadflags 0x3 "));
	assert_non_null(strstr(why, "--levels=4"));
	assert_int_equal(lb_check_run(&k, 4, true, 0, why, sizeof(why)), LB_OK);
	k.xloadflags = 0x0003 | (1u << 5);
	assert_int_equal(lb_check_run(&k, 5, true, 0, why, sizeof(why)), LB_OK);
	assert_int_equal(lb_check_run(&k, 4, true, 0, why, sizeof(why)), LB_OK);
	/* bit 6 (5-level enabled) is not bit 5 */
	k.xloadflags = 0x0003 | (1u << 6);
	assert_int_equal(lb_check_run(&k, 5, true, 0, why, sizeof(why)), LB_ELEVELS);
	/* 4 levels even without KERNEL_64's neighbours */
	k.xloadflags = 0;
	assert_int_equal(lb_check_run(&k, 4, true, 0, why, sizeof(why)), LB_OK);
}

/* --levels=5 on a CPU without LA57: refused, not handed over at 4 levels; 4 levels still go. */
static void test_linuxboot_5level_needs_la57(void **state)
{
	struct lb_kernel k = kernel_with(0x0003 | (1u << 5), 2047);
	char why[256] = "";

	(void)state;
	assert_int_equal(lb_check_run(&k, 5, true, 0, why, sizeof(why)), LB_OK);
	assert_int_equal(lb_check_run(&k, 5, false, 0, why, sizeof(why)), LB_ELEVELS);
	assert_string_equal(why, "--levels=5, but the CPU has no LA57 (CPUID.(EAX=7,ECX=0):ECX[16]): "
			    "it would be handed over at 4 levels; boot it with --levels=4");
	assert_int_equal(lb_check_run(&k, 4, false, 0, why, sizeof(why)), LB_OK);
	/* the kernel is judged first: without XLF_5LEVEL that is the reason given */
	k.xloadflags = 0x0003;
	assert_int_equal(lb_check_run(&k, 5, false, 0, why, sizeof(why)), LB_ELEVELS);
	assert_non_null(strstr(why, "has no XLF_5LEVEL"));
	/* and before the command line */
	k.xloadflags = 0x0003 | (1u << 5);
	assert_int_equal(lb_check_run(&k, 5, false, 4096, why, sizeof(why)), LB_ELEVELS);
}

static void test_linuxboot_cmdline_up_to_cmdline_size(void **state)
{
	struct lb_kernel k = kernel_with(0x0023, 2047);
	char why[256] = "";

	(void)state;
	assert_int_equal(lb_check_run(&k, 5, true, 2047, why, sizeof(why)), LB_OK);
	assert_int_equal(lb_check_run(&k, 4, true, 0, why, sizeof(why)), LB_OK);
	assert_int_equal(lb_check_run(&k, 4, true, 2048, why, sizeof(why)), LB_ECMDLINE);
	assert_non_null(strstr(why, "2048 bytes"));
	assert_non_null(strstr(why, "cmdline_size=2047"));
	k.cmdline_size = 0;
	assert_int_equal(lb_check_run(&k, 4, true, 0, why, sizeof(why)), LB_OK);
	assert_int_equal(lb_check_run(&k, 4, true, 1, why, sizeof(why)), LB_ECMDLINE);
	assert_non_null(strstr(why, "cmdline_size=0"));
	/* the levels are judged first */
	k.xloadflags = 0x0003;
	assert_int_equal(lb_check_run(&k, 5, true, 1, why, sizeof(why)), LB_ELEVELS);
}

/* ---- lb_next_slot -------------------------------------------------------- */

static struct pt_mem_range slot_ranges[] = {
	{ 0x00001000, 0x0009e000, PT_EFI_CONVENTIONAL, 0xf },   /* [4 KiB, 636 KiB) */
	{ 0x00100000, 0x00100000, PT_EFI_LOADER_DATA, 0xf },    /* [1 MiB, 2 MiB): not free */
	{ 0x00200000, 0x00001000, PT_EFI_CONVENTIONAL, 0xf },   /* one page at 2 MiB */
	{ 0x00203000, 0x005fd000, PT_EFI_CONVENTIONAL, 0xf },   /* [2 MiB + 12 KiB, 8 MiB) */
	{ 0x00800000, 0x00800000, PT_EFI_BS_DATA, 0xf },        /* [8 MiB, 16 MiB): not free */
	{ 0x01000000, 0x00400000, PT_EFI_ACPI_RECLAIM, 0xf },   /* [16 MiB, 20 MiB): not free */
	{ 0x100000000, 0x10000000, PT_EFI_CONVENTIONAL, 0xf },  /* [4 GiB, 4 GiB + 256 MiB) */
};

/* lb_next_slot() found @want (or nothing when @want is 1: not a page address). */
static void expect_slot(uint64_t from, uint64_t size, uint64_t align, uint64_t limit,
			uint64_t want)
{
	struct pt_memmap m = memmap_of(slot_ranges, NR(slot_ranges));
	uint64_t pa = 1;
	bool found = lb_next_slot(&m, from, size, align, limit, &pa);

	if (want == 1 && found)
		fail_msg("from 0x%llx size 0x%llx align 0x%llx limit 0x%llx: slot 0x%llx, want none",
			 (unsigned long long)from, (unsigned long long)size,
			 (unsigned long long)align, (unsigned long long)limit,
			 (unsigned long long)pa);
	if (want != 1 && (!found || pa != want))
		fail_msg("from 0x%llx size 0x%llx align 0x%llx limit 0x%llx: %s 0x%llx, want 0x%llx",
			 (unsigned long long)from, (unsigned long long)size,
			 (unsigned long long)align, (unsigned long long)limit,
			 found ? "slot" : "none", (unsigned long long)pa,
			 (unsigned long long)want);
}

#define NONE 1
#define NOLIMIT UINT64_MAX

static void test_linuxboot_slot_is_lowest_in_conventional_memory(void **state)
{
	(void)state;
	expect_slot(0, 0x1000, 0x1000, NOLIMIT, 0x1000);
	expect_slot(0, 0x9e000, 0x1000, NOLIMIT, 0x1000);        /* the whole first range */
	/* 1 MiB fits exactly in the loader-data range: skipped, not free */
	expect_slot(0, MiB, MiB, NOLIMIT, 3 * MiB);
	expect_slot(MiB, 0x1000, 0x1000, NOLIMIT, 2 * MiB);
	/* boot-services data and ACPI reclaim are not free either */
	expect_slot(8 * MiB, 0x1000, 0x1000, NOLIMIT, 4 * GiB);
}

static void test_linuxboot_slot_skips_a_range_too_small(void **state)
{
	(void)state;
	/* 636 KiB + 4 KiB: too big for the first range, the one page, so past them */
	expect_slot(0, 0x9f000, 0x1000, NOLIMIT, 0x203000);
	expect_slot(0x9e000, 0x2000, 0x1000, NOLIMIT, 0x203000);  /* the rest of the first is one page */
	expect_slot(2 * MiB, 0x2000, 0x1000, NOLIMIT, 0x203000);
	/* larger than [2 MiB + 12 KiB, 8 MiB): the range above 4 GiB */
	expect_slot(0, 0x5fe000, 0x1000, NOLIMIT, 4 * GiB);
}

static void test_linuxboot_slot_honours_alignment(void **state)
{
	(void)state;
	/* 2 MiB aligned: nothing in the first range, the one page at 2 MiB fits */
	expect_slot(0, 0x1000, 2 * MiB, NOLIMIT, 2 * MiB);
	expect_slot(0, 0x2000, 2 * MiB, NOLIMIT, 4 * MiB);
	expect_slot(0, 0x3000, 0x2000, NOLIMIT, 0x2000);
	expect_slot(0, 0x1000, 0x10000, NOLIMIT, 0x10000);
	/* 16 MiB aligned: 0x1000000 is not free, 4 GiB is */
	expect_slot(0, 0x1000, 16 * MiB, NOLIMIT, 4 * GiB);
	/* the aligned start leaves exactly enough, then too little of the range */
	expect_slot(0, 4 * MiB, 4 * MiB, NOLIMIT, 4 * MiB);
	expect_slot(0, 4 * MiB + 0x1000, 4 * MiB, NOLIMIT, 4 * GiB);
}

static void test_linuxboot_slot_at_or_above_from(void **state)
{
	(void)state;
	expect_slot(0x5000, 0x1000, 0x1000, NOLIMIT, 0x5000);
	expect_slot(0x5001, 0x1000, 0x1000, NOLIMIT, 0x6000);
	expect_slot(0x9e000, 0x1000, 0x1000, NOLIMIT, 0x9e000);    /* the last page of the first range */
	expect_slot(0x9f000, 0x1000, 0x1000, NOLIMIT, 2 * MiB);
	expect_slot(0x200001, 0x1000, 0x1000, NOLIMIT, 0x203000);
	expect_slot(0x7ff000, 0x1000, 0x1000, NOLIMIT, 0x7ff000);
	expect_slot(0x7ff000, 0x2000, 0x1000, NOLIMIT, 4 * GiB);
	expect_slot(4 * GiB + 0x0ffff000, 0x1000, 0x1000, NOLIMIT, 4 * GiB + 0x0ffff000);
}

static void test_linuxboot_slot_must_end_at_or_below_limit(void **state)
{
	(void)state;
	expect_slot(0, 0x1000, 0x1000, 0x2000, 0x1000);          /* ends exactly at the limit */
	expect_slot(0, 0x1000, 0x1000, 0x1fff, NONE);
	expect_slot(0, 0x1000, 0x1000, 0x1000, NONE);
	expect_slot(0, 0x1000, 0x1000, 0, NONE);
	expect_slot(0, MiB, 0x1000, 0x303000, 0x203000);
	expect_slot(0, MiB, 0x1000, 0x302fff, NONE);
	/* the first fit is above the limit: nothing later can be below it */
	expect_slot(0, 16 * MiB, 0x1000, 4 * GiB, NONE);
	expect_slot(0, 16 * MiB, 0x1000, 4 * GiB + 16 * MiB, 4 * GiB);
}

static void test_linuxboot_slot_none_found(void **state)
{
	struct pt_memmap empty;
	uint64_t pa = 0;

	(void)state;
	expect_slot(0, 0x10000000 + 0x1000, 0x1000, NOLIMIT, NONE);  /* larger than any range */
	expect_slot(4 * GiB + 0x10000000, 0x1000, 0x1000, NOLIMIT, NONE);   /* from past the map */
	expect_slot(UINT64_MAX - 0xfff, 0x1000, 0x1000, NOLIMIT, NONE);
	expect_slot(0, 0x1000, UINT64_C(1) << 63, NOLIMIT, NONE);   /* no aligned start in any range */
	memset(&empty, 0, sizeof(empty));
	empty.range = slot_ranges;
	assert_false(lb_next_slot(&empty, 0, 0x1000, 0x1000, NOLIMIT, &pa));
}

/* ---- lb_e820_type, lb_e820_build ----------------------------------------- */

static void test_linuxboot_e820_type_of_every_efi_type(void **state)
{
	/* boot.rst's e820 types: 1 RAM, 2 reserved, 3 ACPI, 4 NVS, 5 unusable, 7 PMEM */
	static const uint32_t want[16] = {
		[0] = 2,        /* reserved */
		[1] = 1,        /* loader code */
		[2] = 1,        /* loader data */
		[3] = 1,        /* boot services code */
		[4] = 1,        /* boot services data */
		[5] = 2,        /* runtime services code */
		[6] = 2,        /* runtime services data */
		[7] = 1,        /* conventional */
		[8] = 5,        /* unusable */
		[9] = 3,        /* ACPI reclaim */
		[10] = 4,       /* ACPI NVS */
		[11] = 2,       /* MMIO */
		[12] = 2,       /* MMIO port space */
		[13] = 2,       /* PAL code */
		[14] = 7,       /* persistent */
		[15] = 2,       /* unaccepted */
	};

	(void)state;
	for (uint32_t t = 0; t < 16; t++)
		if (lb_e820_type(t) != want[t])
			fail_msg("EFI type %u: e820 type %u, want %u", t, lb_e820_type(t), want[t]);
	assert_int_equal(lb_e820_type(16), 2);
	assert_int_equal(lb_e820_type(0x70000000), 2);
	assert_int_equal(lb_e820_type(UINT32_MAX), 2);
}

/*
 * EFI_MEMORY_SP on RAM makes it soft-reserved (0xefffffff), on other
 * types nothing; soft-reserved neighbours merge like any type, not with RAM.
 */
static void test_linuxboot_e820_specific_purpose_memory_soft_reserved(void **state)
{
	const uint64_t sp = UINT64_C(1) << 18, wb = 0x8;
	struct pt_mem_range r[] = {
		{ 0x100000, 0x100000, PT_EFI_CONVENTIONAL, wb },
		{ 0x200000, 0x100000, PT_EFI_CONVENTIONAL, wb | sp },
		{ 0x300000, 0x100000, PT_EFI_BS_DATA, wb | sp },         /* touching: merged */
		{ 0x400000, 0x100000, PT_EFI_CONVENTIONAL, wb },
		{ 0x500000, 0x100000, PT_EFI_ACPI_RECLAIM, wb | sp },    /* not RAM: stays ACPI */
		{ 0x600000, 0x100000, PT_EFI_RT_DATA, wb | sp },         /* stays reserved */
	};
	struct lb_e820 out[8];
	struct pt_memmap m = memmap_of(r, NR(r));

	(void)state;
	assert_int_equal(lb_e820_of(&r[1]), 0xefffffffu);
	assert_int_equal(lb_e820_of(&r[0]), 1);
	assert_int_equal(lb_e820_build(&m, out, 8), 5);
	assert_int_equal(out[0].type, 1);
	assert_true(out[1].addr == 0x200000 && out[1].size == 0x200000 && out[1].type == 0xefffffffu);
	assert_int_equal(out[2].type, 1);
	assert_int_equal(out[3].type, 3);
	assert_int_equal(out[4].type, 2);
}

/* Unaccepted memory and undefined types have no e820 equivalent; the rest do. */
static void test_linuxboot_e820_exact_equivalents(void **state)
{
	(void)state;
	for (uint32_t t = 0; t <= 14; t++)
		if (!lb_e820_exact(t))
			fail_msg("EFI type %u said to have no e820 equivalent", t);
	assert_false(lb_e820_exact(15));
	assert_false(lb_e820_exact(16));
	assert_false(lb_e820_exact(0x80000000u));
}

/* One range of each EFI type, none touching: one e820 entry each, in order. */
static void test_linuxboot_e820_build_maps_every_type(void **state)
{
	static const uint32_t want[16] = { 2, 1, 1, 1, 1, 2, 2, 1, 5, 3, 4, 2, 2, 2, 7, 2 };
	struct pt_mem_range r[16];
	struct lb_e820 out[16];
	struct pt_memmap m;

	(void)state;
	for (unsigned t = 0; t < 16; t++)
		r[t] = (struct pt_mem_range){ 0x10000 * (t + 1), 0x1000 * (t + 1), t, 0xf };
	m = memmap_of(r, 16);
	memset(out, 0xcc, sizeof(out));
	assert_int_equal(lb_e820_build(&m, out, 16), 16);
	for (unsigned t = 0; t < 16; t++) {
		assert_int_equal(out[t].addr, 0x10000 * (t + 1));
		assert_int_equal(out[t].size, 0x1000 * (t + 1));
		assert_int_equal(out[t].type, want[t]);
	}
}

static void test_linuxboot_e820_build_merges_touching_ranges_of_one_type(void **state)
{
	struct pt_mem_range r[] = {
		{ 0x1000, 0x1000, PT_EFI_CONVENTIONAL, 0xf },
		{ 0x2000, 0x1000, PT_EFI_LOADER_CODE, 0xf },     /* RAM, touching: merged */
		{ 0x3000, 0x2000, PT_EFI_BS_DATA, 0xf },         /* RAM, touching: merged */
		{ 0x5000, 0x1000, PT_EFI_ACPI_RECLAIM, 0xf },    /* another type */
		{ 0x6000, 0x1000, PT_EFI_ACPI_RECLAIM, 0x8 },    /* the same e820 type again */
		{ 0x8000, 0x1000, PT_EFI_ACPI_RECLAIM, 0xf },    /* a hole before it: not merged */
		{ 0x9000, 0x1000, PT_EFI_CONVENTIONAL, 0xf },
		{ 0xb000, 0x1000, PT_EFI_CONVENTIONAL, 0xf },    /* a hole before it */
		{ 0xc000, 0x1000, PT_EFI_RT_CODE, 0xf },
		{ 0xd000, 0x3000, PT_EFI_MMIO, 0x1 },            /* reserved too: merged */
		{ 0x10000, 0x1000, PT_EFI_UNACCEPTED, 0xf },     /* reserved too: merged */
	};
	static const struct lb_e820 want[] = {
		{ 0x1000, 0x4000, 1 },
		{ 0x5000, 0x2000, 3 },
		{ 0x8000, 0x1000, 3 },
		{ 0x9000, 0x1000, 1 },
		{ 0xb000, 0x1000, 1 },
		{ 0xc000, 0x5000, 2 },
	};
	struct lb_e820 out[NR(r)];
	struct pt_memmap m = memmap_of(r, NR(r));

	(void)state;
	assert_int_equal(lb_e820_build(&m, out, NR(out)), NR(want));
	for (unsigned i = 0; i < NR(want); i++) {
		assert_int_equal(out[i].addr, want[i].addr);
		assert_int_equal(out[i].size, want[i].size);
		assert_int_equal(out[i].type, want[i].type);
	}
	/* exactly as many entries as needed is enough; one fewer is refused */
	assert_int_equal(lb_e820_build(&m, out, NR(want)), NR(want));
	assert_int_equal(lb_e820_build(&m, out, NR(want) - 1), -1);
	assert_int_equal(lb_e820_build(&m, out, 0), -1);
}

static void test_linuxboot_e820_build_cap_counts_entries_not_ranges(void **state)
{
	struct pt_mem_range r[] = {
		{ 0x0000, 0x1000, PT_EFI_RESERVED, 0 },
		{ 0x1000, 0x1000, PT_EFI_CONVENTIONAL, 0xf },
		{ 0x2000, 0x1000, PT_EFI_BS_CODE, 0xf },         /* merged into the second */
	};
	struct lb_e820 out[2];
	struct pt_memmap m = memmap_of(r, NR(r));

	(void)state;
	/* the last range merges into the last entry: two fit in two */
	assert_int_equal(lb_e820_build(&m, out, 2), 2);
	assert_int_equal(out[1].addr, 0x1000);
	assert_int_equal(out[1].size, 0x2000);
	assert_int_equal(out[1].type, 1);
	assert_int_equal(lb_e820_build(&m, out, 1), -1);
	m.n = 0;
	assert_int_equal(lb_e820_build(&m, out, 0), 0);
}

UNIT_MAIN(
	cmocka_unit_test(test_linuxboot_valid_header_parsed_field_by_field),
	cmocka_unit_test(test_linuxboot_header_fields_read_full_width),
	cmocka_unit_test(test_linuxboot_file_shorter_than_a_header_refused),
	cmocka_unit_test(test_linuxboot_bad_header_magic_refused),
	cmocka_unit_test(test_linuxboot_one_bad_header_field_refused),
	cmocka_unit_test(test_linuxboot_setup_sects_0_means_4),
	cmocka_unit_test(test_linuxboot_file_shorter_than_setup_and_kernel_refused),
	cmocka_unit_test(test_linuxboot_init_size_smaller_than_kernel_refused),
	cmocka_unit_test(test_linuxboot_kernel_alignment_not_power_of_two_or_below_4k_refused),
	cmocka_unit_test(test_linuxboot_syssize_rounded_up_to_a_paragraph),
	cmocka_unit_test(test_linuxboot_first_fault_in_header_order_reported),
	cmocka_unit_test(test_linuxboot_five_levels_need_xlf_5level),
	cmocka_unit_test(test_linuxboot_cmdline_up_to_cmdline_size),
	cmocka_unit_test(test_linuxboot_5level_needs_la57),
	cmocka_unit_test(test_linuxboot_slot_is_lowest_in_conventional_memory),
	cmocka_unit_test(test_linuxboot_slot_skips_a_range_too_small),
	cmocka_unit_test(test_linuxboot_slot_honours_alignment),
	cmocka_unit_test(test_linuxboot_slot_at_or_above_from),
	cmocka_unit_test(test_linuxboot_slot_must_end_at_or_below_limit),
	cmocka_unit_test(test_linuxboot_slot_none_found),
	cmocka_unit_test(test_linuxboot_e820_type_of_every_efi_type),
	cmocka_unit_test(test_linuxboot_e820_specific_purpose_memory_soft_reserved),
	cmocka_unit_test(test_linuxboot_e820_exact_equivalents),
	cmocka_unit_test(test_linuxboot_e820_build_maps_every_type),
	cmocka_unit_test(test_linuxboot_e820_build_merges_touching_ranges_of_one_type),
	cmocka_unit_test(test_linuxboot_e820_build_cap_counts_entries_not_ranges))
