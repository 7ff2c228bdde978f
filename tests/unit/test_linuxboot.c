// SPDX-License-Identifier: MIT
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

#include <cmocka.h>

#include <ptlab/memmap.h>

#include "../../efi/linux/linuxboot.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define KiB UINT64_C(0x400)
#define MiB UINT64_C(0x100000)
#define GiB UINT64_C(0x40000000)

/* setup header offsets (boot.rst), written here independently of linuxboot.c */
#define O_SETUP_SECTS   0x1f1u
#define O_SYSSIZE       0x1f4u
#define O_BOOT_FLAG     0x1feu
#define O_JUMP          0x201u
#define O_MAGIC         0x202u
#define O_VERSION       0x206u
#define O_TYPE_OF_LOADER 0x210u
#define O_LOADFLAGS     0x211u
#define O_RAMDISK       0x218u
#define O_RAMDISK_SIZE  0x21cu
#define O_CMDLINE       0x228u
#define O_INITRD_MAX    0x22cu
#define O_KERNEL_ALIGN  0x230u
#define O_RELOCATABLE   0x234u
#define O_XLOADFLAGS    0x236u
#define O_CMDLINE_SIZE  0x238u
#define O_SETUP_DATA    0x250u
#define O_PREF_ADDRESS  0x258u
#define O_INIT_SIZE     0x260u

/* boot_params fields outside the setup header */
#define O_ACPI_RSDP     0x070u
#define O_EXT_RAMDISK   0x0c0u
#define O_EXT_RAMDISK_SIZE 0x0c4u
#define O_EXT_CMDLINE   0x0c8u
#define O_EFI_INFO      0x1c0u   /* struct efi_info: 8 u32 fields */
#define O_E820_ENTRIES  0x1e8u
#define O_SECURE_BOOT   0x1ecu
#define O_E820_TABLE    0x2d0u
#define ZP_BYTES        4096u
#define E820_ENTRY      20u
#define E820_IN_ZP      128u

/* The synthetic kernel: 3 setup sectors after the boot sector, a 64 KiB kernel. */
#define T_SETUP_SECTS   3u
#define T_PM_OFFSET     ((T_SETUP_SECTS + 1u) * 512u)
#define T_SYSSIZE       0x1000u                  /* 16-byte units */
#define T_PM_BYTES      (T_SYSSIZE * 16u)
#define T_FILE_BYTES    (T_PM_OFFSET + T_PM_BYTES)
#define T_VERSION       0x020fu
#define T_JUMP          0x6au                    /* header ends at 0x26c */
#define T_LOADFLAGS     0x01u
#define T_INITRD_MAX    UINT32_C(0x7fffffff)
#define T_ALIGN         UINT32_C(0x200000)
#define T_RELOCATABLE   1u
#define T_XLF           0x0003u                  /* KERNEL_64 | CAN_BE_LOADED_ABOVE_4G */
#define T_CMDLINE_SIZE  UINT32_C(2047)
#define T_PREF          UINT64_C(0x1000000)
#define T_INIT_SIZE     UINT32_C(0x01234000)

static void wr(uint8_t *b, unsigned off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		b[off + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rd(const uint8_t *b, unsigned off, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)b[off + i] << (8 * i);
	return v;
}

/*
 * A valid bzImage of @len bytes (at least T_FILE_BYTES): setup code filled
 * with a pattern, then the header fields above.  Caller frees.
 */
static uint8_t *image(size_t len)
{
	uint8_t *f = malloc(len);

	assert_non_null(f);
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(i * 7 + 3);
	/* every header byte zero except the fields the test sets */
	memset(f + O_SETUP_SECTS, 0, 0x290 - O_SETUP_SECTS);
	f[O_SETUP_SECTS] = T_SETUP_SECTS;
	wr(f, O_SYSSIZE, 4, T_SYSSIZE);
	wr(f, O_BOOT_FLAG, 2, 0xaa55);
	f[0x200] = 0xeb;                          /* jmp short */
	f[O_JUMP] = T_JUMP;
	memcpy(f + O_MAGIC, "HdrS", 4);
	wr(f, O_VERSION, 2, T_VERSION);
	f[O_LOADFLAGS] = T_LOADFLAGS;
	wr(f, O_INITRD_MAX, 4, T_INITRD_MAX);
	wr(f, O_KERNEL_ALIGN, 4, T_ALIGN);
	f[O_RELOCATABLE] = T_RELOCATABLE;
	wr(f, O_XLOADFLAGS, 2, T_XLF);
	wr(f, O_CMDLINE_SIZE, 4, T_CMDLINE_SIZE);
	wr(f, O_PREF_ADDRESS, 8, T_PREF);
	wr(f, O_INIT_SIZE, 4, T_INIT_SIZE);
	return f;
}

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

/* ---- lb_parse ------------------------------------------------------------ */

static void test_linuxboot_valid_header_parsed_field_by_field(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);
	struct lb_kernel k;
	char why[128] = "";

	(void)state;
	memset(&k, 0xa5, sizeof(k));
	assert_int_equal(lb_parse(f, T_FILE_BYTES, &k, why, sizeof(why)), LB_OK);
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
	uint8_t *f = image(T_FILE_BYTES);
	struct lb_kernel k;
	char why[128] = "";

	(void)state;
	wr(f, O_PREF_ADDRESS, 8, UINT64_C(0x8877665544332211));
	wr(f, O_INIT_SIZE, 4, UINT32_C(0xfffff000));
	wr(f, O_INITRD_MAX, 4, UINT32_C(0xffffffff));
	wr(f, O_CMDLINE_SIZE, 4, UINT32_C(0x80000001));
	wr(f, O_KERNEL_ALIGN, 4, UINT32_C(0x80000000));
	wr(f, O_XLOADFLAGS, 2, 0xffff);
	wr(f, O_VERSION, 2, 0x0300);
	f[O_JUMP] = 0x8e;                      /* header ends exactly at 0x290 */
	assert_int_equal(lb_parse(f, T_FILE_BYTES, &k, why, sizeof(why)), LB_OK);
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
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	expect_parse(f, 0x26f, LB_ETRUNCATED, "truncated: 623 bytes");
	expect_parse(f, 0, LB_ETRUNCATED, "truncated: 0 bytes");
	free(f);
}

static void test_linuxboot_bad_boot_flag_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	wr(f, O_BOOT_FLAG, 2, 0x55aa);
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "boot_flag 0x55aa");
	wr(f, O_BOOT_FLAG, 2, 0);
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "boot_flag 0x0000");
	free(f);
}

static void test_linuxboot_bad_header_magic_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);
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

static void test_linuxboot_protocol_older_than_2_12_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	wr(f, O_VERSION, 2, 0x020b);
	expect_parse(f, T_FILE_BYTES, LB_EVERSION, "boot protocol 2.11");
	wr(f, O_VERSION, 2, 0x0206);
	expect_parse(f, T_FILE_BYTES, LB_EVERSION, "boot protocol 2.06");
	wr(f, O_VERSION, 2, 0x0111);
	expect_parse(f, T_FILE_BYTES, LB_EVERSION, "boot protocol 1.17");
	/* 2.12 itself is enough */
	wr(f, O_VERSION, 2, 0x020c);
	expect_parse(f, T_FILE_BYTES, LB_OK, NULL);
	free(f);
}

static void test_linuxboot_header_end_past_0x290_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	f[O_JUMP] = 0x8f;                      /* 0x202 + 0x8f = 0x291 */
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "ends at 0x291");
	f[O_JUMP] = 0xff;
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "ends at 0x301");
	f[O_JUMP] = 0x8e;
	expect_parse(f, T_FILE_BYTES, LB_OK, NULL);
	free(f);
}

/* A header that ends before init_size (0x260..0x264): the fields read are not the header's. */
static void test_linuxboot_header_end_before_init_size_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	f[O_JUMP] = 0x61;                      /* 0x202 + 0x61 = 0x263 */
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "ends at 0x263, before its init_size");
	f[O_JUMP] = 0;
	expect_parse(f, T_FILE_BYTES, LB_EMAGIC, "ends at 0x202");
	f[O_JUMP] = 0x62;                      /* up to and including init_size */
	expect_parse(f, T_FILE_BYTES, LB_OK, NULL);
	free(f);
}

static void test_linuxboot_setup_sects_0_means_4(void **state)
{
	const uint64_t exact = 5 * 512 + T_PM_BYTES;
	uint8_t *f = image(exact);
	struct lb_kernel k;
	char why[256] = "", want[128];

	(void)state;
	f[O_SETUP_SECTS] = 0;
	assert_int_equal(lb_parse(f, exact, &k, why, sizeof(why)), LB_OK);
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
	uint8_t *f = image(T_FILE_BYTES + 1);
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
	wr(f, O_SYSSIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_ETRUNCATED, "a 0-byte kernel");
	free(f);
}

static void test_linuxboot_kernel_without_64_bit_entry_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	wr(f, O_XLOADFLAGS, 2, 0x0022);        /* above-4G and 5-level, no KERNEL_64 */
	expect_parse(f, T_FILE_BYTES, LB_E32BIT, "xloadflags 0x22");
	wr(f, O_XLOADFLAGS, 2, 0);
	expect_parse(f, T_FILE_BYTES, LB_E32BIT, "xloadflags 0x0 ");
	free(f);
}

static void test_linuxboot_init_size_smaller_than_kernel_refused(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);
	char want[96];

	(void)state;
	wr(f, O_INIT_SIZE, 4, T_PM_BYTES - 1);
	snprintf(want, sizeof(want), "init_size 0x%x is smaller than the 0x%x-byte kernel",
		 T_PM_BYTES - 1, T_PM_BYTES);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, want);
	wr(f, O_INIT_SIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, "init_size 0x0 ");
	/* exactly the kernel's size is enough */
	wr(f, O_INIT_SIZE, 4, T_PM_BYTES);
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
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	for (unsigned i = 0; i < NR(t); i++) {
		wr(f, O_KERNEL_ALIGN, 4, t[i].align);
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
	uint8_t *f = image(T_FILE_BYTES);
	struct lb_kernel k;
	char why[256] = "";

	(void)state;
	for (unsigned short_by = 1; short_by < 16; short_by++) {
		memset(&k, 0, sizeof(k));
		if (lb_parse(f, T_FILE_BYTES - short_by, &k, why, sizeof(why)) != LB_OK)
			fail_msg("%u bytes short of syssize * 16 refused: %s", short_by, why);
		assert_int_equal(k.pm_bytes, T_PM_BYTES - short_by);
	}
	expect_parse(f, T_FILE_BYTES - 16, LB_ETRUNCATED, "the header says");
	/* a longer file: pm_bytes stays syssize * 16 */
	assert_int_equal(lb_parse(f, T_FILE_BYTES, &k, why, sizeof(why)), LB_OK);
	assert_int_equal(k.pm_bytes, T_PM_BYTES);
	/* memtest86+'s numbers: 2 setup sectors, syssize 8924, 144312 bytes */
	free(f);
	f = image(144312);
	f[O_SETUP_SECTS] = 2;
	wr(f, O_SYSSIZE, 4, 8924);
	wr(f, O_INIT_SIZE, 4, 0x6acf8);
	assert_int_equal(lb_parse(f, 144312, &k, why, sizeof(why)), LB_OK);
	assert_int_equal(k.pm_offset, 3 * 512);
	assert_int_equal(k.pm_bytes, 144312 - 3 * 512);
	free(f);
}

static void test_linuxboot_first_fault_in_header_order_reported(void **state)
{
	uint8_t *f = image(T_FILE_BYTES);

	(void)state;
	wr(f, O_KERNEL_ALIGN, 4, 0x3000);
	wr(f, O_INIT_SIZE, 4, 0);
	expect_parse(f, T_FILE_BYTES, LB_EINITSIZE, NULL);
	wr(f, O_XLOADFLAGS, 2, 0);
	expect_parse(f, T_FILE_BYTES, LB_E32BIT, NULL);
	expect_parse(f, T_FILE_BYTES - 16, LB_ETRUNCATED, NULL);
	wr(f, O_VERSION, 2, 0x0200);
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

static struct pt_memmap slot_map(void)
{
	struct pt_memmap m;

	memset(&m, 0, sizeof(m));
	m.range = slot_ranges;
	m.n = NR(slot_ranges);
	m.cap = NR(slot_ranges);
	return m;
}

/* lb_next_slot() found @want (or nothing when @want is 1: not a page address). */
static void expect_slot(uint64_t from, uint64_t size, uint64_t align, uint64_t limit,
			uint64_t want)
{
	struct pt_memmap m = slot_map();
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
	struct pt_memmap m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.range = r;
	m.n = m.cap = NR(r);
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
	memset(&m, 0, sizeof(m));
	m.range = r;
	m.n = m.cap = 16;
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
	struct pt_memmap m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.range = r;
	m.n = m.cap = NR(r);
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
	struct pt_memmap m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.range = r;
	m.n = m.cap = NR(r);
	/* the last range merges into the last entry: two fit in two */
	assert_int_equal(lb_e820_build(&m, out, 2), 2);
	assert_int_equal(out[1].addr, 0x1000);
	assert_int_equal(out[1].size, 0x2000);
	assert_int_equal(out[1].type, 1);
	assert_int_equal(lb_e820_build(&m, out, 1), -1);
	m.n = 0;
	assert_int_equal(lb_e820_build(&m, out, 0), 0);
}

/* ---- lb_fill_params ------------------------------------------------------ */

/* A valid image parsed, with its header's setup_data set to @setup_data. */
static uint8_t *parsed_image(struct lb_kernel *k, uint64_t setup_data)
{
	uint8_t *f = image(T_FILE_BYTES);
	char why[128] = "";

	/* bytes past the header's end in its setup sector, to be left behind */
	for (unsigned off = 0x202 + T_JUMP; off < 0x400; off++)
		f[off] = (uint8_t)(0x80 | off);
	wr(f, O_SETUP_DATA, 8, setup_data);
	assert_int_equal(lb_parse(f, T_FILE_BYTES, k, why, sizeof(why)), LB_OK);
	return f;
}

static uint8_t *zero_page(void)
{
	uint8_t *zp = malloc(ZP_BYTES);

	assert_non_null(zp);
	memset(zp, 0xcc, ZP_BYTES);
	return zp;
}

/* Every byte of [@from, @to) zero. */
static void expect_zero(const uint8_t *zp, unsigned from, unsigned to)
{
	for (unsigned off = from; off < to; off++)
		if (zp[off])
			fail_msg("zero page byte 0x%x is 0x%02x, want 0", off, zp[off]);
}

static void test_linuxboot_params_copy_the_setup_header_and_nothing_past_it(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;
	const unsigned hdr_end = 0x202 + T_JUMP;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	/* the header as the file has it, but for what the loader writes */
	f[O_TYPE_OF_LOADER] = 0x42;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	for (unsigned off = O_SETUP_SECTS; off < hdr_end; off++) {
		uint8_t want = f[off];

		if (off == O_TYPE_OF_LOADER)
			want = 0xff;
		else if (off >= O_CMDLINE && off < O_CMDLINE + 4)
			want = 0;
		if (zp[off] != want)
			fail_msg("zero page byte 0x%x is 0x%02x, want 0x%02x", off, zp[off], want);
	}
	assert_int_equal(rd(zp, O_SETUP_SECTS, 1), T_SETUP_SECTS);
	assert_int_equal(rd(zp, O_BOOT_FLAG, 2), 0xaa55);
	assert_int_equal(rd(zp, O_VERSION, 2), T_VERSION);
	assert_int_equal(rd(zp, O_INIT_SIZE, 4), T_INIT_SIZE);
	assert_int_equal(rd(zp, O_TYPE_OF_LOADER, 1), 0xff);
	/* nothing before the header, nothing past it (no e820 entries, no framebuffer) */
	expect_zero(zp, 0, O_SETUP_SECTS);
	expect_zero(zp, hdr_end, ZP_BYTES);
	free(zp);
	free(f);
}

/* A header ending earlier copies less: the byte past it stays zero. */
static void test_linuxboot_params_copy_stops_at_a_short_header(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	k.hdr_end = 0x268;
	wr(f, 0x264, 4, 0x11223344);   /* handover_offset: inside */
	wr(f, 0x268, 4, 0x55667788);   /* kernel_info_offset: past the end now */
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, 0x264, 4), 0x11223344);
	expect_zero(zp, 0x268, ZP_BYTES);
	free(zp);
	free(f);
}

static void test_linuxboot_params_pointers_split_at_32_bits(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	ld.cmdline_pa = UINT64_C(0x123456000);
	ld.initrd_pa = UINT64_C(0x280000000);
	ld.initrd_bytes = UINT64_C(0x100001000);
	ld.acpi_rsdp = UINT64_C(0x7fbfe014);
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, O_CMDLINE, 4), 0x23456000);
	assert_int_equal(rd(zp, O_EXT_CMDLINE, 4), 0x1);
	assert_int_equal(rd(zp, O_RAMDISK, 4), 0x80000000);
	assert_int_equal(rd(zp, O_EXT_RAMDISK, 4), 0x2);
	assert_int_equal(rd(zp, O_RAMDISK_SIZE, 4), 0x1000);
	assert_int_equal(rd(zp, O_EXT_RAMDISK_SIZE, 4), 0x1);
	assert_int_equal(rd(zp, O_ACPI_RSDP, 8), UINT64_C(0x7fbfe014));
	assert_int_equal(rd(zp, O_TYPE_OF_LOADER, 1), 0xff);
	assert_int_equal(rd(zp, O_E820_ENTRIES, 1), 0);

	/* below 4 GiB: the high halves are zero; an RSDP above 4 GiB is whole */
	ld.cmdline_pa = UINT64_C(0x9f000);
	ld.initrd_pa = UINT64_C(0x7e000000);
	ld.initrd_bytes = UINT64_C(0x1234567);
	ld.acpi_rsdp = UINT64_C(0x1234567890abcdef);
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, O_CMDLINE, 4), 0x9f000);
	assert_int_equal(rd(zp, O_EXT_CMDLINE, 4), 0);
	assert_int_equal(rd(zp, O_RAMDISK, 4), 0x7e000000);
	assert_int_equal(rd(zp, O_EXT_RAMDISK, 4), 0);
	assert_int_equal(rd(zp, O_RAMDISK_SIZE, 4), 0x1234567);
	assert_int_equal(rd(zp, O_EXT_RAMDISK_SIZE, 4), 0);
	assert_true(rd(zp, O_ACPI_RSDP, 8) == UINT64_C(0x1234567890abcdef));

	/* no initrd (0 bytes): its four fields stay zero whatever the address */
	ld.initrd_pa = UINT64_C(0x300000000);
	ld.initrd_bytes = 0;
	ld.acpi_rsdp = 0;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, O_RAMDISK, 4), 0);
	assert_int_equal(rd(zp, O_EXT_RAMDISK, 4), 0);
	assert_int_equal(rd(zp, O_RAMDISK_SIZE, 4), 0);
	assert_int_equal(rd(zp, O_EXT_RAMDISK_SIZE, 4), 0);
	assert_int_equal(rd(zp, O_ACPI_RSDP, 8), 0);
	free(zp);
	free(f);
}

/* @n distinct entries (caller frees). */
static struct lb_e820 *entries(unsigned n)
{
	struct lb_e820 *e = malloc(n * sizeof(*e));

	assert_non_null(e);
	for (unsigned i = 0; i < n; i++) {
		e[i].addr = UINT64_C(0x100000000) * i + 0x1000 * i + 0x10;
		e[i].size = UINT64_C(0x0102030405060708) + i;
		e[i].type = 1 + i % 7;
	}
	return e;
}

static void expect_e820_at(const uint8_t *b, unsigned off, const struct lb_e820 *e, unsigned i)
{
	if (rd(b, off, 8) != e->addr || rd(b, off + 8, 8) != e->size || rd(b, off + 16, 4) != e->type)
		fail_msg("e820 entry %u at 0x%x: 0x%llx+0x%llx type %llu, want 0x%llx+0x%llx type %u",
			 i, off, (unsigned long long)rd(b, off, 8), (unsigned long long)rd(b, off + 8, 8),
			 (unsigned long long)rd(b, off + 16, 4), (unsigned long long)e->addr,
			 (unsigned long long)e->size, e->type);
}

static void test_linuxboot_params_e820_packed_in_the_zero_page(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_e820 *e = entries(E820_IN_ZP);
	struct lb_load ld;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	lb_fill_params(zp, f, &k, &ld, e, 3, NULL);
	assert_int_equal(rd(zp, O_E820_ENTRIES, 1), 3);
	for (unsigned i = 0; i < 3; i++)
		expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
	expect_zero(zp, O_E820_TABLE + 3 * E820_ENTRY, ZP_BYTES);
	assert_int_equal(rd(zp, O_SETUP_DATA, 8), 0);

	/* all 128 fit, and nothing goes elsewhere */
	ld.setup_data_pa = 0x5000;
	lb_fill_params(zp, f, &k, &ld, e, E820_IN_ZP, NULL);
	assert_int_equal(rd(zp, O_E820_ENTRIES, 1), E820_IN_ZP);
	for (unsigned i = 0; i < E820_IN_ZP; i++)
		expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
	expect_zero(zp, O_E820_TABLE + E820_IN_ZP * E820_ENTRY, ZP_BYTES);
	assert_int_equal(rd(zp, O_SETUP_DATA, 8), 0);
	free(e);
	free(zp);
	free(f);
}

static void test_linuxboot_params_e820_beyond_128_in_a_setup_data_node(void **state)
{
	static const unsigned counts[] = { 129, 131, 200 };
	const uint64_t old_list = UINT64_C(0x1122334455667788);

	(void)state;
	for (unsigned c = 0; c < NR(counts); c++) {
		const unsigned n = counts[c], rest = n - E820_IN_ZP;
		const size_t ext_bytes = 16 + (size_t)E820_ENTRY * rest;
		struct lb_kernel k;
		uint8_t *f = parsed_image(&k, old_list), *zp = zero_page();
		uint8_t *ext = malloc(ext_bytes);   /* exactly: ASan sees a byte too many */
		struct lb_e820 *e = entries(n);
		struct lb_load ld;

		assert_non_null(ext);
		memset(ext, 0xcc, ext_bytes);
		memset(&ld, 0, sizeof(ld));
		ld.setup_data_pa = UINT64_C(0x1abcd000);
		lb_fill_params(zp, f, &k, &ld, e, n, ext);
		assert_int_equal(rd(zp, O_E820_ENTRIES, 1), E820_IN_ZP);
		for (unsigned i = 0; i < E820_IN_ZP; i++)
			expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
		expect_zero(zp, O_E820_TABLE + E820_IN_ZP * E820_ENTRY, ZP_BYTES);
		assert_int_equal(rd(zp, O_SETUP_DATA, 8), UINT64_C(0x1abcd000));
		/* struct setup_data: next (0: the file's list is not followed), type
		 * SETUP_E820_EXT (1), len, then the entries */
		assert_true(rd(ext, 0, 8) == 0);
		assert_int_equal(rd(ext, 8, 4), 1);
		assert_int_equal(rd(ext, 12, 4), E820_ENTRY * rest);
		for (unsigned i = 0; i < rest; i++)
			expect_e820_at(ext, 16 + E820_ENTRY * i, &e[E820_IN_ZP + i], E820_IN_ZP + i);
		free(e);
		free(ext);
		free(zp);
		free(f);
	}
}

/*
 * A file whose header names an initrd and a setup_data list (fields the
 * loader writes): none of them reaches the zero page without an initrd
 * and with every e820 entry in it (found by fuzz_lxload).
 */
static void test_linuxboot_params_file_pointers_not_handed_over(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, UINT64_C(0x1122334455667000)), *zp = zero_page();
	struct lb_e820 *e = entries(3);
	struct lb_load ld;

	(void)state;
	wr(f, O_RAMDISK, 4, 0x7654000);
	wr(f, O_RAMDISK_SIZE, 4, 0x123456);
	memset(&ld, 0, sizeof(ld));
	ld.cmdline_pa = 0x9000;
	lb_fill_params(zp, f, &k, &ld, e, 3, NULL);
	assert_int_equal(rd(zp, O_SETUP_DATA, 8), 0);
	assert_int_equal(rd(zp, O_RAMDISK, 4), 0);
	assert_int_equal(rd(zp, O_RAMDISK_SIZE, 4), 0);
	assert_int_equal(rd(zp, O_EXT_RAMDISK, 4), 0);
	assert_int_equal(rd(zp, O_EXT_RAMDISK_SIZE, 4), 0);
	assert_int_equal(rd(zp, O_CMDLINE, 4), 0x9000);
	free(e);
	free(zp);
	free(f);
}

static void test_linuxboot_e820_ext_bytes(void **state)
{
	(void)state;
	assert_int_equal(lb_e820_ext_bytes(0), 0);
	assert_int_equal(lb_e820_ext_bytes(1), 0);
	assert_int_equal(lb_e820_ext_bytes(128), 0);
	assert_int_equal(lb_e820_ext_bytes(129), 16 + 20);
	assert_int_equal(lb_e820_ext_bytes(131), 16 + 3 * 20);
	assert_int_equal(lb_e820_ext_bytes(1024), 16 + 896 * 20);
	assert_true(lb_e820_ext_bytes(UINT32_MAX) == 16 + (UINT64_C(0xffffffff) - 128) * 20);
}

/* struct screen_info (the first 0x40 bytes of the zero page) for a 32-bit EFI framebuffer. */
static void want_screen(uint8_t *w, const struct lb_fb *fb)
{
	memset(w, 0, 0x40);
	w[0x0f] = 0x70;                                 /* orig_video_isVGA: VIDEO_TYPE_EFI */
	wr(w, 0x12, 2, fb->width);                      /* lfb_width */
	wr(w, 0x14, 2, fb->height);                     /* lfb_height */
	wr(w, 0x16, 2, 32);                             /* lfb_depth */
	wr(w, 0x18, 4, fb->base & 0xffffffff);          /* lfb_base */
	wr(w, 0x1c, 4, fb->size & 0xffffffff);          /* lfb_size */
	wr(w, 0x24, 2, fb->stride_bytes);               /* lfb_linelength */
	w[0x26] = 8;                                    /* red_size */
	w[0x27] = fb->bgr ? 16 : 0;                     /* red_pos */
	w[0x28] = 8;                                    /* green_size */
	w[0x29] = 8;                                    /* green_pos */
	w[0x2a] = 8;                                    /* blue_size */
	w[0x2b] = fb->bgr ? 0 : 16;                     /* blue_pos */
	w[0x2c] = 8;                                    /* rsvd_size */
	w[0x2d] = 24;                                   /* rsvd_pos */
	wr(w, 0x32, 2, 1);                              /* pages, as the EFI stub sets it */
	if (fb->base >> 32) {
		wr(w, 0x36, 4, 2);                      /* capabilities: VIDEO_CAPABILITY_64BIT_BASE */
		wr(w, 0x3a, 4, fb->base >> 32);         /* ext_lfb_base */
	}
}

static void expect_screen(const struct lb_fb *fb)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page(), want[0x40];
	struct lb_load ld;

	memset(&ld, 0, sizeof(ld));
	ld.fb = fb;
	want_screen(want, fb);
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	for (unsigned off = 0; off < 0x40; off++)
		if (zp[off] != want[off])
			fail_msg("screen_info byte 0x%02x is 0x%02x, want 0x%02x (fb at 0x%llx, %s)",
				 off, zp[off], want[off], (unsigned long long)fb->base,
				 fb->bgr ? "BGR" : "RGB");
	/* nothing else of the zero page before the header */
	expect_zero(zp, 0x40, O_SETUP_SECTS);
	free(zp);
	free(f);
}

static void test_linuxboot_params_screen_info_for_a_bgr_framebuffer(void **state)
{
	const struct lb_fb fb = { UINT64_C(0x80000000), UINT64_C(0x300000), 1024, 768, 4096, true };
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	expect_screen(&fb);
	/* spot checks of the fields at their offsets */
	memset(&ld, 0, sizeof(ld));
	ld.fb = &fb;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(zp[0x0f], 0x70);
	assert_int_equal(rd(zp, 0x12, 2), 1024);
	assert_int_equal(rd(zp, 0x14, 2), 768);
	assert_int_equal(rd(zp, 0x16, 2), 32);
	assert_int_equal(rd(zp, 0x18, 4), 0x80000000);
	assert_int_equal(rd(zp, 0x1c, 4), 0x300000);
	assert_int_equal(rd(zp, 0x24, 2), 4096);
	assert_int_equal(zp[0x27], 16);     /* red_pos */
	assert_int_equal(zp[0x29], 8);      /* green_pos */
	assert_int_equal(zp[0x2b], 0);      /* blue_pos */
	assert_int_equal(zp[0x2d], 24);     /* rsvd_pos */
	assert_int_equal(rd(zp, 0x36, 4), 0);
	assert_int_equal(rd(zp, 0x3a, 4), 0);
	free(zp);
	free(f);
}

static void test_linuxboot_params_screen_info_for_an_rgb_framebuffer(void **state)
{
	const struct lb_fb fb = { UINT64_C(0xc0000000), UINT64_C(0x7e9000), 1920, 1080, 7680, false };
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	expect_screen(&fb);
	memset(&ld, 0, sizeof(ld));
	ld.fb = &fb;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(zp[0x26], 8);
	assert_int_equal(zp[0x27], 0);      /* red_pos */
	assert_int_equal(zp[0x29], 8);      /* green_pos */
	assert_int_equal(zp[0x2b], 16);     /* blue_pos */
	assert_int_equal(zp[0x2d], 24);
	free(zp);
	free(f);
}

static void test_linuxboot_params_screen_info_base_above_4g(void **state)
{
	const struct lb_fb fb = { UINT64_C(0x800001000), UINT64_C(0x1d4c000), 2560, 1600, 10240,
				  true };
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	expect_screen(&fb);
	memset(&ld, 0, sizeof(ld));
	ld.fb = &fb;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, 0x18, 4), 0x1000);
	assert_int_equal(rd(zp, 0x36, 4) & 2, 2);
	assert_int_equal(rd(zp, 0x3a, 4), 0x8);
	free(zp);
	free(f);
}

static void test_linuxboot_params_without_framebuffer_screen_info_is_zero(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	expect_zero(zp, 0, 0x40);
	free(zp);
	free(f);
}

/*
 * efi_info as a 64-bit EFI loader fills it: "EL64", the system table and
 * memory map split into halves, descriptor size and version as given; and
 * secure_boot.  Read back at zero-page.rst's offsets.
 */
static void test_linuxboot_params_efi_info(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;
	struct lb_efi efi = {
		.systab_pa = UINT64_C(0x17fbee018),
		.memmap_pa = UINT64_C(0x27e5a3000),
		.memmap_bytes = 0x1b30,
		.desc_size = 48,
		.desc_version = 1,
		.secure_boot = 3,
	};

	(void)state;
	memset(&ld, 0, sizeof(ld));
	ld.efi = &efi;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_memory_equal(zp + O_EFI_INFO, "EL64", 4);
	assert_int_equal(rd(zp, O_EFI_INFO + 0x04, 4), 0x7fbee018);    /* efi_systab */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x08, 4), 48);            /* efi_memdesc_size */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x0c, 4), 1);             /* efi_memdesc_version */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x10, 4), 0x7e5a3000);    /* efi_memmap */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x14, 4), 0x1b30);        /* efi_memmap_size */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x18, 4), 1);             /* efi_systab_hi */
	assert_int_equal(rd(zp, O_EFI_INFO + 0x1c, 4), 2);             /* efi_memmap_hi */
	assert_int_equal(rd(zp, O_SECURE_BOOT, 1), 3);
	/* nothing else outside the header */
	expect_zero(zp, 0, O_EFI_INFO);
	expect_zero(zp, O_EFI_INFO + 0x20, O_SECURE_BOOT);
	expect_zero(zp, O_SECURE_BOOT + 1, O_SETUP_SECTS);

	efi.secure_boot = 2;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(rd(zp, O_SECURE_BOOT, 1), 2);

	/* without efi_info: no signature, no secure_boot */
	ld.efi = NULL;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	expect_zero(zp, O_EFI_INFO, O_SETUP_SECTS);
	free(zp);
	free(f);
}

/* Protocol 2.12 and 2.13 have no acpi_rsdp_addr: it stays zero there. */
static void test_linuxboot_params_acpi_rsdp_from_protocol_2_14(void **state)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	(void)state;
	memset(&ld, 0, sizeof(ld));
	ld.acpi_rsdp = UINT64_C(0x7fb7e014);
	for (uint16_t v = 0x020c; v <= 0x020f; v++) {
		k.version = v;
		lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
		if (rd(zp, O_ACPI_RSDP, 8) != (v >= 0x020e ? ld.acpi_rsdp : 0))
			fail_msg("protocol 0x%04x: acpi_rsdp_addr 0x%llx", v,
				 (unsigned long long)rd(zp, O_ACPI_RSDP, 8));
	}
	free(zp);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linuxboot_valid_header_parsed_field_by_field),
		cmocka_unit_test(test_linuxboot_header_fields_read_full_width),
		cmocka_unit_test(test_linuxboot_file_shorter_than_a_header_refused),
		cmocka_unit_test(test_linuxboot_bad_boot_flag_refused),
		cmocka_unit_test(test_linuxboot_bad_header_magic_refused),
		cmocka_unit_test(test_linuxboot_protocol_older_than_2_12_refused),
		cmocka_unit_test(test_linuxboot_header_end_past_0x290_refused),
		cmocka_unit_test(test_linuxboot_header_end_before_init_size_refused),
		cmocka_unit_test(test_linuxboot_setup_sects_0_means_4),
		cmocka_unit_test(test_linuxboot_file_shorter_than_setup_and_kernel_refused),
		cmocka_unit_test(test_linuxboot_kernel_without_64_bit_entry_refused),
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
		cmocka_unit_test(test_linuxboot_e820_build_cap_counts_entries_not_ranges),
		cmocka_unit_test(test_linuxboot_params_copy_the_setup_header_and_nothing_past_it),
		cmocka_unit_test(test_linuxboot_params_copy_stops_at_a_short_header),
		cmocka_unit_test(test_linuxboot_params_pointers_split_at_32_bits),
		cmocka_unit_test(test_linuxboot_params_e820_packed_in_the_zero_page),
		cmocka_unit_test(test_linuxboot_params_e820_beyond_128_in_a_setup_data_node),
		cmocka_unit_test(test_linuxboot_params_file_pointers_not_handed_over),
		cmocka_unit_test(test_linuxboot_e820_ext_bytes),
		cmocka_unit_test(test_linuxboot_params_screen_info_for_a_bgr_framebuffer),
		cmocka_unit_test(test_linuxboot_params_screen_info_for_an_rgb_framebuffer),
		cmocka_unit_test(test_linuxboot_params_screen_info_base_above_4g),
		cmocka_unit_test(test_linuxboot_params_without_framebuffer_screen_info_is_zero),
		cmocka_unit_test(test_linuxboot_params_efi_info),
		cmocka_unit_test(test_linuxboot_params_acpi_rsdp_from_protocol_2_14),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
