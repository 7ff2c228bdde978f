// SPDX-License-Identifier: MIT
/* covers: efi/linux/linuxboot.c */
/*
 * Host tests for efi/linux/linuxboot.c: lb_fill_params, the zero page the
 * kernel is handed (the setup header copied, the pointers split at 32
 * bits, the e820 table in the zero page and beyond 128 entries in a
 * setup_data node, screen_info, efi_info, the ACPI RSDP).  Every expected
 * value is read back with efi/lib/le.h's loads at the offsets of struct
 * boot_params and struct screen_info (bzimage.h), never through the code
 * under test.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/memmap.h>

#include "../../efi/linux/linuxboot.h"
#include "lib/le.h"
#include "bzimage.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define KiB UINT64_C(0x400)
#define MiB UINT64_C(0x100000)
#define GiB UINT64_C(0x40000000)

/* ---- lb_fill_params ------------------------------------------------------ */

/* A valid image parsed, with its header's setup_data set to @setup_data. */
static uint8_t *parsed_image(struct lb_kernel *k, uint64_t setup_data)
{
	uint8_t *f = bz_image(T_FILE_BYTES);
	char why[128] = "";

	/* bytes past the header's end in its setup sector, to be left behind */
	for (unsigned off = 0x202 + T_JUMP; off < 0x400; off++)
		f[off] = (uint8_t)(0x80 | off);
	le_stn(f + O_SETUP_DATA, 8, setup_data);
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
	assert_int_equal(le_ldn(zp + O_SETUP_SECTS, 1), T_SETUP_SECTS);
	assert_int_equal(le_ldn(zp + O_BOOT_FLAG, 2), 0xaa55);
	assert_int_equal(le_ldn(zp + O_VERSION, 2), T_VERSION);
	assert_int_equal(le_ldn(zp + O_INIT_SIZE, 4), T_INIT_SIZE);
	assert_int_equal(le_ldn(zp + O_TYPE_OF_LOADER, 1), 0xff);
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
	le_stn(f + 0x264, 4, 0x11223344);   /* handover_offset: inside */
	le_stn(f + 0x268, 4, 0x55667788);   /* kernel_info_offset: past the end now */
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(le_ldn(zp + 0x264, 4), 0x11223344);
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
	assert_int_equal(le_ldn(zp + O_CMDLINE, 4), 0x23456000);
	assert_int_equal(le_ldn(zp + O_EXT_CMDLINE, 4), 0x1);
	assert_int_equal(le_ldn(zp + O_RAMDISK, 4), 0x80000000);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK, 4), 0x2);
	assert_int_equal(le_ldn(zp + O_RAMDISK_SIZE, 4), 0x1000);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK_SIZE, 4), 0x1);
	assert_int_equal(le_ldn(zp + O_ACPI_RSDP, 8), UINT64_C(0x7fbfe014));
	assert_int_equal(le_ldn(zp + O_TYPE_OF_LOADER, 1), 0xff);
	assert_int_equal(le_ldn(zp + O_E820_ENTRIES, 1), 0);

	/* below 4 GiB: the high halves are zero; an RSDP above 4 GiB is whole */
	ld.cmdline_pa = UINT64_C(0x9f000);
	ld.initrd_pa = UINT64_C(0x7e000000);
	ld.initrd_bytes = UINT64_C(0x1234567);
	ld.acpi_rsdp = UINT64_C(0x1234567890abcdef);
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(le_ldn(zp + O_CMDLINE, 4), 0x9f000);
	assert_int_equal(le_ldn(zp + O_EXT_CMDLINE, 4), 0);
	assert_int_equal(le_ldn(zp + O_RAMDISK, 4), 0x7e000000);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK, 4), 0);
	assert_int_equal(le_ldn(zp + O_RAMDISK_SIZE, 4), 0x1234567);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK_SIZE, 4), 0);
	assert_true(le_ldn(zp + O_ACPI_RSDP, 8) == UINT64_C(0x1234567890abcdef));

	/* no initrd (0 bytes): its four fields stay zero whatever the address */
	ld.initrd_pa = UINT64_C(0x300000000);
	ld.initrd_bytes = 0;
	ld.acpi_rsdp = 0;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(le_ldn(zp + O_RAMDISK, 4), 0);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK, 4), 0);
	assert_int_equal(le_ldn(zp + O_RAMDISK_SIZE, 4), 0);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK_SIZE, 4), 0);
	assert_int_equal(le_ldn(zp + O_ACPI_RSDP, 8), 0);
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
	if (le_ldn(b + off, 8) != e->addr || le_ldn(b + off + 8, 8) != e->size || le_ldn(b + off + 16, 4) != e->type)
		fail_msg("e820 entry %u at 0x%x: 0x%llx+0x%llx type %llu, want 0x%llx+0x%llx type %u",
			 i, off, (unsigned long long)le_ldn(b + off, 8), (unsigned long long)le_ldn(b + off + 8, 8),
			 (unsigned long long)le_ldn(b + off + 16, 4), (unsigned long long)e->addr,
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
	assert_int_equal(le_ldn(zp + O_E820_ENTRIES, 1), 3);
	for (unsigned i = 0; i < 3; i++)
		expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
	expect_zero(zp, O_E820_TABLE + 3 * E820_ENTRY, ZP_BYTES);
	assert_int_equal(le_ldn(zp + O_SETUP_DATA, 8), 0);

	/* all 128 fit, and nothing goes elsewhere */
	ld.setup_data_pa = 0x5000;
	lb_fill_params(zp, f, &k, &ld, e, E820_IN_ZP, NULL);
	assert_int_equal(le_ldn(zp + O_E820_ENTRIES, 1), E820_IN_ZP);
	for (unsigned i = 0; i < E820_IN_ZP; i++)
		expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
	expect_zero(zp, O_E820_TABLE + E820_IN_ZP * E820_ENTRY, ZP_BYTES);
	assert_int_equal(le_ldn(zp + O_SETUP_DATA, 8), 0);
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
		assert_int_equal(le_ldn(zp + O_E820_ENTRIES, 1), E820_IN_ZP);
		for (unsigned i = 0; i < E820_IN_ZP; i++)
			expect_e820_at(zp, O_E820_TABLE + E820_ENTRY * i, &e[i], i);
		expect_zero(zp, O_E820_TABLE + E820_IN_ZP * E820_ENTRY, ZP_BYTES);
		assert_int_equal(le_ldn(zp + O_SETUP_DATA, 8), UINT64_C(0x1abcd000));
		/* struct setup_data: next (0: the file's list is not followed), type
		 * SETUP_E820_EXT (1), len, then the entries */
		assert_true(le_ldn(ext, 8) == 0);
		assert_int_equal(le_ldn(ext + 8, 4), 1);
		assert_int_equal(le_ldn(ext + 12, 4), E820_ENTRY * rest);
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
	le_stn(f + O_RAMDISK, 4, 0x7654000);
	le_stn(f + O_RAMDISK_SIZE, 4, 0x123456);
	memset(&ld, 0, sizeof(ld));
	ld.cmdline_pa = 0x9000;
	lb_fill_params(zp, f, &k, &ld, e, 3, NULL);
	assert_int_equal(le_ldn(zp + O_SETUP_DATA, 8), 0);
	assert_int_equal(le_ldn(zp + O_RAMDISK, 4), 0);
	assert_int_equal(le_ldn(zp + O_RAMDISK_SIZE, 4), 0);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK, 4), 0);
	assert_int_equal(le_ldn(zp + O_EXT_RAMDISK_SIZE, 4), 0);
	assert_int_equal(le_ldn(zp + O_CMDLINE, 4), 0x9000);
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
	le_stn(w + 0x12, 2, fb->width);                      /* lfb_width */
	le_stn(w + 0x14, 2, fb->height);                     /* lfb_height */
	le_stn(w + 0x16, 2, 32);                             /* lfb_depth */
	le_stn(w + 0x18, 4, fb->base & 0xffffffff);          /* lfb_base */
	le_stn(w + 0x1c, 4, fb->size & 0xffffffff);          /* lfb_size */
	le_stn(w + 0x24, 2, fb->stride_bytes);               /* lfb_linelength */
	w[0x26] = 8;                                    /* red_size */
	w[0x27] = fb->bgr ? 16 : 0;                     /* red_pos */
	w[0x28] = 8;                                    /* green_size */
	w[0x29] = 8;                                    /* green_pos */
	w[0x2a] = 8;                                    /* blue_size */
	w[0x2b] = fb->bgr ? 0 : 16;                     /* blue_pos */
	w[0x2c] = 8;                                    /* rsvd_size */
	w[0x2d] = 24;                                   /* rsvd_pos */
	le_stn(w + 0x32, 2, 1);                              /* pages, as the EFI stub sets it */
	if (fb->base >> 32) {
		le_stn(w + 0x36, 4, 2);                      /* capabilities: VIDEO_CAPABILITY_64BIT_BASE */
		le_stn(w + 0x3a, 4, fb->base >> 32);         /* ext_lfb_base */
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

/* The zero page of a framebuffer @fb, after expect_screen checked its screen_info. */
static uint8_t *screen_params(const struct lb_fb *fb)
{
	struct lb_kernel k;
	uint8_t *f = parsed_image(&k, 0), *zp = zero_page();
	struct lb_load ld;

	expect_screen(fb);
	memset(&ld, 0, sizeof(ld));
	ld.fb = fb;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	free(f);
	return zp;
}

static void test_linuxboot_params_screen_info_for_a_bgr_framebuffer(void **state)
{
	const struct lb_fb fb = { UINT64_C(0x80000000), UINT64_C(0x300000), 1024, 768, 4096, true };
	uint8_t *zp = screen_params(&fb);

	(void)state;
	/* spot checks of the fields at their offsets */
	assert_int_equal(zp[0x0f], 0x70);
	assert_int_equal(le_ldn(zp + 0x12, 2), 1024);
	assert_int_equal(le_ldn(zp + 0x14, 2), 768);
	assert_int_equal(le_ldn(zp + 0x16, 2), 32);
	assert_int_equal(le_ldn(zp + 0x18, 4), 0x80000000);
	assert_int_equal(le_ldn(zp + 0x1c, 4), 0x300000);
	assert_int_equal(le_ldn(zp + 0x24, 2), 4096);
	assert_int_equal(zp[0x27], 16);     /* red_pos */
	assert_int_equal(zp[0x29], 8);      /* green_pos */
	assert_int_equal(zp[0x2b], 0);      /* blue_pos */
	assert_int_equal(zp[0x2d], 24);     /* rsvd_pos */
	assert_int_equal(le_ldn(zp + 0x36, 4), 0);
	assert_int_equal(le_ldn(zp + 0x3a, 4), 0);
	free(zp);
}

static void test_linuxboot_params_screen_info_for_an_rgb_framebuffer(void **state)
{
	const struct lb_fb fb = { UINT64_C(0xc0000000), UINT64_C(0x7e9000), 1920, 1080, 7680, false };
	uint8_t *zp = screen_params(&fb);

	(void)state;
	assert_int_equal(zp[0x26], 8);
	assert_int_equal(zp[0x27], 0);      /* red_pos */
	assert_int_equal(zp[0x29], 8);      /* green_pos */
	assert_int_equal(zp[0x2b], 16);     /* blue_pos */
	assert_int_equal(zp[0x2d], 24);
	free(zp);
}

static void test_linuxboot_params_screen_info_base_above_4g(void **state)
{
	const struct lb_fb fb = { UINT64_C(0x800001000), UINT64_C(0x1d4c000), 2560, 1600, 10240,
				  true };
	uint8_t *zp = screen_params(&fb);

	(void)state;
	assert_int_equal(le_ldn(zp + 0x18, 4), 0x1000);
	assert_int_equal(le_ldn(zp + 0x36, 4) & 2, 2);
	assert_int_equal(le_ldn(zp + 0x3a, 4), 0x8);
	free(zp);
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
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x04, 4), 0x7fbee018);    /* efi_systab */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x08, 4), 48);            /* efi_memdesc_size */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x0c, 4), 1);             /* efi_memdesc_version */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x10, 4), 0x7e5a3000);    /* efi_memmap */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x14, 4), 0x1b30);        /* efi_memmap_size */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x18, 4), 1);             /* efi_systab_hi */
	assert_int_equal(le_ldn(zp + O_EFI_INFO + 0x1c, 4), 2);             /* efi_memmap_hi */
	assert_int_equal(le_ldn(zp + O_SECURE_BOOT, 1), 3);
	/* nothing else outside the header */
	expect_zero(zp, 0, O_EFI_INFO);
	expect_zero(zp, O_EFI_INFO + 0x20, O_SECURE_BOOT);
	expect_zero(zp, O_SECURE_BOOT + 1, O_SETUP_SECTS);

	efi.secure_boot = 2;
	lb_fill_params(zp, f, &k, &ld, NULL, 0, NULL);
	assert_int_equal(le_ldn(zp + O_SECURE_BOOT, 1), 2);

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
		if (le_ldn(zp + O_ACPI_RSDP, 8) != (v >= 0x020e ? ld.acpi_rsdp : 0))
			fail_msg("protocol 0x%04x: acpi_rsdp_addr 0x%llx", v,
				 (unsigned long long)le_ldn(zp + O_ACPI_RSDP, 8));
	}
	free(zp);
	free(f);
}

UNIT_MAIN(
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
	cmocka_unit_test(test_linuxboot_params_acpi_rsdp_from_protocol_2_14))
