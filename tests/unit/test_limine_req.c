// SPDX-License-Identifier: MIT
/* covers: efi/limine/lmreq.c */
/*
 * Host tests for efi/limine/lmreq.c: the requests and the base
 * revision tag of a loaded kernel, the tag's answer, the paging mode.
 *
 * The load blocks are built here with the identifiers, tag and markers
 * written as literals from the protocol's PROTOCOL.md (not through
 * limine.h's table), at offsets the tests choose.
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

#include "../../efi/limine/lmreq.h"
#include "lib/le.h"

#define IMG 0x4000u

static uint8_t img[IMG], copy[IMG];
static char why[256];

/* A request at @off: the common magic, @a, @b, @rev, response 0, then @x words. */
static void req(uint64_t off, uint64_t a, uint64_t b, uint64_t rev, const uint64_t *x, unsigned nx)
{
	le_st64(img + off, 0xc7b1dd30df4c8b88);
	le_st64(img + off + 8, 0x0a82e883a194f07b);
	le_st64(img + off + 16, a);
	le_st64(img + off + 24, b);
	le_st64(img + off + 32, rev);
	le_st64(img + off + 40, 0);
	for (unsigned i = 0; i < nx; i++)
		le_st64(img + off + 48 + 8 * i, x[i]);
}

#define HHDM_ID   0x48dcf1cb8ad2b852, 0x63984e959a98244b
#define MEMMAP_ID 0x67cf3d9d378a806f, 0xe304acdfc50c3c62
#define SMP_ID    0x95a67b819a1b857e, 0xa0b61b723b6a73e0
#define PAGING_ID 0x95c1a0edab0944cb, 0xa4e5cb3842f7488a
#define STACK_ID  0x224ef0460a8e8926, 0xe1cb0fc25f46ea3d
#define ENTRY_ID  0x13d86c035a1cd3e1, 0x2b0caa89d8f3026a
#define MODULE_ID 0x3e7e279702be32af, 0xca1c4f3bd1280cee
#define FILE_ID   0xad97e90e83f1ed67, 0x31eb5d1c5ff23b69

static void tag(uint64_t off, uint64_t rev)
{
	le_st64(img + off, 0xf9562b2d5c95a6c8);
	le_st64(img + off + 8, 0x6a7b384944536bdc);
	le_st64(img + off + 16, rev);
}

static void start_marker(uint64_t off)
{
	le_st64(img + off, 0xf6b8f4b39de7d1ae);
	le_st64(img + off + 8, 0xfab91a6940fcb9cf);
	le_st64(img + off + 16, 0x785c6ed015d3e316);
	le_st64(img + off + 24, 0x181e920a7852b9d9);
}

static void end_marker(uint64_t off)
{
	le_st64(img + off, 0xadc0e0531bb10d03);
	le_st64(img + off + 8, 0x9572709f31764c62);
}

/* An image with noise (no magic) and six requests, an unknown one among them. */
static void six(void)
{
	static const uint64_t paging[] = { 1, 1, 0 };
	static const uint64_t flags[] = { 1 };
	static const uint64_t stack[] = { 0x20001 };

	for (unsigned i = 0; i < IMG; i++)
		img[i] = (uint8_t)(i * 13 + 1);
	req(0x100, HHDM_ID, 0, NULL, 0);
	req(0x200, MEMMAP_ID, 0, NULL, 0);
	req(0x300, PAGING_ID, 1, paging, 3);
	req(0x400, SMP_ID, 0, flags, 1);
	req(0x500, STACK_ID, 0, stack, 1);
	req(0x600, 0x1111, 0x2222, 0, NULL, 0);        /* an identifier ptlab does not know */
	req(0x704, HHDM_ID, 0, NULL, 0);               /* not 8-byte aligned: no request */
}

static void scan_ok(struct lm_requests *r)
{
	memcpy(copy, img, IMG);
	if (lm_scan(img, IMG, r, why, sizeof(why)))
		fail_msg("scan refused: %s", why);
	assert_memory_equal(img, copy, IMG);    /* scanning writes nothing */
}

static void scan_refused(const char *needle)
{
	struct lm_requests r;

	memcpy(copy, img, IMG);
	why[0] = 0;
	assert_int_equal(lm_scan(img, IMG, &r, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("refusal \"%s\" does not say \"%s\"", why, needle);
	assert_memory_equal(img, copy, IMG);
}

static void test_limine_req_found_by_id_with_their_words(void **state)
{
	struct lm_requests r;
	uint32_t want = 1u << LM_REQ_HHDM | 1u << LM_REQ_MEMMAP | 1u << LM_REQ_PAGING_MODE |
		1u << LM_REQ_SMP | 1u << LM_REQ_STACK_SIZE;

	(void)state;
	six();
	scan_ok(&r);
	assert_int_equal(r.have, want);
	assert_int_equal(r.unknown, 1);
	assert_true(r.req[LM_REQ_HHDM].off == 0x100);
	assert_true(r.req[LM_REQ_MEMMAP].off == 0x200);
	assert_true(r.req[LM_REQ_PAGING_MODE].off == 0x300 && r.req[LM_REQ_PAGING_MODE].revision == 1);
	assert_true(r.req[LM_REQ_PAGING_MODE].extra[0] == 1 && r.req[LM_REQ_PAGING_MODE].extra[1] == 1 &&
		r.req[LM_REQ_PAGING_MODE].extra[2] == 0);
	assert_true(r.req[LM_REQ_SMP].extra[0] == 1 && r.req[LM_REQ_SMP].extra[1] == 0);
	assert_true(r.req[LM_REQ_STACK_SIZE].extra[0] == 0x20001);
	assert_true(lm_stack_bytes(&r) == 0x21000);
	assert_false(r.tag);
	assert_int_equal(r.base_rev, 0);
	assert_false(r.start_marker || r.end_marker);
	assert_true(r.lo == 0 && r.hi == IMG);
	assert_true(lm_has(&r, LM_REQ_SMP));
	assert_false(lm_has(&r, LM_REQ_RSDP));
	assert_string_equal(lm_req_name(LM_REQ_HHDM), "hhdm");
	assert_string_equal(lm_req_name(LM_REQ_COUNT), "unknown");
}

static void test_limine_req_revision_0_paging_reads_one_word(void **state)
{
	static const uint64_t paging[] = { 1, 0x77, 0x88 };
	struct lm_requests r;

	(void)state;
	memset(img, 0, IMG);
	req(0x300, PAGING_ID, 0, paging, 3);
	scan_ok(&r);
	assert_true(r.req[LM_REQ_PAGING_MODE].extra[0] == 1);
	assert_true(r.req[LM_REQ_PAGING_MODE].extra[1] == 0 && r.req[LM_REQ_PAGING_MODE].extra[2] == 0);
}

static void test_limine_req_tag_honoured_and_answered(void **state)
{
	struct lm_requests r;

	(void)state;
	six();
	tag(0x800, 2);
	scan_ok(&r);
	assert_true(r.tag && r.tag_off == 0x800 && r.asked == 2);
	assert_int_equal(r.base_rev, 2);
	assert_true(r.honoured);
	lm_base_rev_commit(img, &r);
	assert_true(le_ld64(img + 0x810) == 0);
	memcpy(img + 0x810, copy + 0x810, 8);
	assert_memory_equal(img, copy, IMG);     /* nothing else written */
}

static void test_limine_req_revision_1_and_0_tags(void **state)
{
	struct lm_requests r;

	(void)state;
	six();
	tag(0x800, 1);
	scan_ok(&r);
	assert_true(r.base_rev == 1 && r.honoured);
	six();
	tag(0x800, 0);
	scan_ok(&r);
	assert_true(r.tag && r.base_rev == 0 && r.honoured);
}

static void test_limine_req_newer_revision_left_alone(void **state)
{
	struct lm_requests r;

	(void)state;
	six();
	tag(0x800, 3);
	scan_ok(&r);
	assert_true(r.asked == 3);
	assert_int_equal(r.base_rev, LM_BASE_REV_HIGHEST);
	assert_false(r.honoured);
	lm_base_rev_commit(img, &r);
	assert_memory_equal(img, copy, IMG);
}

static void test_limine_req_markers_bound_the_area(void **state)
{
	struct lm_requests r;

	(void)state;
	six();                                  /* requests at 0x100 .. 0x600 */
	start_marker(0x40);                     /* an earlier start: not the last */
	start_marker(0x1e0);                    /* the last start: hhdm at 0x100 is out */
	end_marker(0x480);                      /* the first end after it: stack at 0x500 is out */
	end_marker(0x580);
	tag(0x1000, 2);                         /* after the end: no tag */
	scan_ok(&r);
	assert_true(r.start_marker && r.end_marker);
	assert_true(r.lo == 0x200 && r.hi == 0x480);
	assert_int_equal(r.have, 1u << LM_REQ_MEMMAP | 1u << LM_REQ_PAGING_MODE | 1u << LM_REQ_SMP);
	assert_false(r.tag);
	assert_int_equal(r.base_rev, 0);
}

static void test_limine_req_start_marker_alone(void **state)
{
	struct lm_requests r;

	(void)state;
	six();
	start_marker(0x380);
	scan_ok(&r);
	assert_true(r.lo == 0x3a0 && r.hi == IMG && !r.end_marker);
	assert_int_equal(r.have, 1u << LM_REQ_SMP | 1u << LM_REQ_STACK_SIZE);
}

static void test_limine_req_refusals(void **state)
{
	(void)state;
	six();
	req(0x900, HHDM_ID, 0, NULL, 0);
	scan_refused("hhdm request twice, at offsets 0x100 and 0x900");

	six();
	tag(0x800, 2);
	tag(0x900, 2);
	scan_refused("two base revision tags, at offsets 0x800 and 0x900");

	six();
	req(IMG - 48, ENTRY_ID, 0, NULL, 0);    /* its entry word is past the end */
	scan_refused("entry point request (revision 0, 56 bytes) at offset 0x3fd0 cut by the end");

	six();
	req(0x1000 - 40, FILE_ID, 0, NULL, 0);   /* response pointer on the end marker */
	end_marker(0x1000);
	scan_refused("kernel file request at offset 0xfd8 cut by the end of the requests' area (0x1000)");
}

static void test_limine_req_paging_mode_choice(void **state)
{
	static const struct {
		bool have;
		uint64_t rev, mode, max, min;
		bool la57;
		int ret;
		uint64_t want;
	} c[] = {
		{ false, 0, 0, 0, 0, false, 0, LM_PAGING_4LVL },
		{ false, 0, 0, 0, 0, true, 0, LM_PAGING_4LVL },     /* the default is 4-level */
		{ true, 0, 1, 0x77, 0x88, true, 0, LM_PAGING_5LVL }, /* rev 0: max = mode, min = 4-level */
		{ true, 0, 1, 0, 0, false, 0, LM_PAGING_4LVL },     /* preferred unavailable: falls back */
		{ true, 1, 1, 1, 1, false, -1, 0 },                  /* only 5-level, no LA57 */
		{ true, 1, 1, 1, 1, true, 0, LM_PAGING_5LVL },
		{ true, 1, 0, 0, 1, true, -1, 0 },                   /* min above max */
		{ true, 1, 0, 1, 0, true, 0, LM_PAGING_4LVL },      /* preferred wins */
		{ true, 1, 9, 9, 0, true, 0, LM_PAGING_5LVL },      /* unknown modes count as the highest */
		{ true, 1, 0, 1, 5, true, -1, 0 },                   /* unknown lowest */
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t x[3] = { c[i].mode, c[i].max, c[i].min }, mode = 99;
		struct lm_requests r;
		int ret;

		memset(img, 0, IMG);
		if (c[i].have)
			req(0x300, PAGING_ID, c[i].rev, x, 3);
		scan_ok(&r);
		ret = lm_paging_choose(&r, c[i].la57, &mode, why, sizeof(why));
		if (ret != c[i].ret || (ret == 0 && mode != c[i].want))
			fail_msg("case %u: returned %d mode %llu (%s), want %d mode %llu", i, ret,
				(unsigned long long)mode, ret ? why : "", c[i].ret,
				(unsigned long long)c[i].want);
	}
}

static void test_limine_req_stack_size(void **state)
{
	static const uint64_t small[] = { 0x100 }, huge[] = { UINT64_MAX };
	struct lm_requests r;

	(void)state;
	memset(img, 0, IMG);
	scan_ok(&r);
	assert_true(lm_stack_bytes(&r) == 65536);
	req(0x500, STACK_ID, 0, small, 1);
	scan_ok(&r);
	assert_true(lm_stack_bytes(&r) == 65536);
	req(0x500, STACK_ID, 0, huge, 1);
	scan_ok(&r);
	assert_true(lm_stack_bytes(&r) == UINT64_C(0xfffffffffffff000));
}

static void test_limine_req_ids_of_the_other_requests(void **state)
{
	struct lm_requests r;
	static const uint64_t two[] = { 0, 0 };

	(void)state;
	memset(img, 0, IMG);
	req(0x000, FILE_ID, 0, NULL, 0);
	req(0x100, MODULE_ID, 1, two, 2);
	req(0x200, 0xf55038d8e2a1202f, 0x279426fcf5f59740, 0, NULL, 0);
	req(0x300, 0x8c2f75d90bef28a8, 0x7045a4688eac00c3, 0, NULL, 0);
	req(0x400, 0x9d5827dcd881dd75, 0xa3148604f6fab11b, 0, NULL, 0);
	req(0x500, 0xc5e77b6b397e7b43, 0x27637845accdcf3c, 0, NULL, 0);
	req(0x600, 0x9e9046f11e095391, 0xaa4a520fefbde5ee, 0, NULL, 0);
	req(0x700, 0x5ceba5163eaaf6d6, 0x0a6981610cf65fcc, 0, NULL, 0);
	req(0x800, 0x7df62a431d6872d5, 0xa4fcdfb3e57306c8, 0, NULL, 0);
	req(0x900, 0x502746e184c088aa, 0xfbc5ec83e6327893, 0, NULL, 0);
	req(0xa00, 0x71ba76863cc55f63, 0xb2644a48c516a487, 0, NULL, 0);
	req(0xb00, ENTRY_ID, 0, two, 1);
	scan_ok(&r);
	assert_int_equal(r.have, 1u << LM_REQ_KERNEL_FILE | 1u << LM_REQ_MODULE |
		1u << LM_REQ_BOOTLOADER_INFO | 1u << LM_REQ_FIRMWARE_TYPE |
		1u << LM_REQ_FRAMEBUFFER | 1u << LM_REQ_RSDP | 1u << LM_REQ_SMBIOS |
		1u << LM_REQ_EFI_SYSTEM_TABLE | 1u << LM_REQ_EFI_MEMMAP | 1u << LM_REQ_BOOT_TIME |
		1u << LM_REQ_KERNEL_ADDRESS | 1u << LM_REQ_ENTRY_POINT);
	assert_int_equal(r.unknown, 0);
}

/* The image's base address the internal-module pointers are made from. */
#define VA 0xffffffff80000000ull

static void wrstr(uint64_t off, const char *str)
{
	memcpy(img + off, str, strlen(str) + 1);
}

/*
 * A module request of revision 1 with two internal modules (path and
 * string, flags), read back in order; revision 0, no module request and
 * pointers outside the image refused with what is wrong, none of it
 * written.
 */
static void test_limine_req_internal_modules(void **state)
{
	struct lm_requests r;
	struct lm_internal im[4];
	uint64_t x[2] = { 2, VA + 0x800 };

	(void)state;
	memset(img, 0, IMG);
	req(0x100, MODULE_ID, 1, x, 2);
	le_st64(img + 0x800, VA + 0x900);
	le_st64(img + 0x808, VA + 0x940);
	le_st64(img + 0x900, VA + 0xa00);          /* path */
	le_st64(img + 0x908, VA + 0xa40);          /* string */
	le_st64(img + 0x910, 1);                   /* required */
	le_st64(img + 0x940, VA + 0xa80);
	le_st64(img + 0x948, 0);                   /* no string */
	le_st64(img + 0x950, 2);                   /* compressed */
	wrstr(0xa00, "imod.bin");
	wrstr(0xa40, "its string");
	wrstr(0xa80, "/root/other.bin");
	scan_ok(&r);
	memcpy(copy, img, IMG);
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), 2);
	assert_string_equal(im[0].path, "imod.bin");
	assert_string_equal(im[0].cmdline, "its string");
	assert_int_equal(im[0].flags, 1);
	assert_string_equal(im[1].path, "/root/other.bin");
	assert_string_equal(im[1].cmdline, "");
	assert_int_equal(im[1].flags, 2);
	assert_memory_equal(img, copy, IMG);

	/* more than the caller holds */
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "2 internal modules, more than 1"));
	/* the array outside the image */
	r.req[LM_REQ_MODULE].extra[1] = VA + IMG - 8;
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "internal module array at 0xffffffff80003ff8 (2 pointers) is not inside"));
	r.req[LM_REQ_MODULE].extra[1] = VA + 0x800;
	/* a structure outside */
	le_st64(img + 0x808, VA - 0x1000);
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "internal module 1: its structure at 0xffffffff7ffff000 is not inside"));
	le_st64(img + 0x808, VA + 0x940);
	/* a path running off the end of the image */
	memset(img + IMG - 4, 'x', 4);
	le_st64(img + 0x940, VA + IMG - 4);
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "internal module 1: its path is not a string"));
	/* an empty path */
	le_st64(img + 0x940, VA + 0xa00 + 8);      /* the NUL of "imod.bin" */
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "internal module 1: an empty path"));

	/* a request of revision 0 lists none, whatever its words say */
	r.req[LM_REQ_MODULE].revision = 0;
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), 0);
	r.have = 0;
	assert_int_equal(lm_internal_modules(img, IMG, VA, &r, im, 4, why, sizeof(why)), 0);
}

UNIT_MAIN(
	cmocka_unit_test(test_limine_req_found_by_id_with_their_words),
	cmocka_unit_test(test_limine_req_revision_0_paging_reads_one_word),
	cmocka_unit_test(test_limine_req_tag_honoured_and_answered),
	cmocka_unit_test(test_limine_req_revision_1_and_0_tags),
	cmocka_unit_test(test_limine_req_newer_revision_left_alone),
	cmocka_unit_test(test_limine_req_markers_bound_the_area),
	cmocka_unit_test(test_limine_req_start_marker_alone),
	cmocka_unit_test(test_limine_req_refusals),
	cmocka_unit_test(test_limine_req_paging_mode_choice),
	cmocka_unit_test(test_limine_req_stack_size),
	cmocka_unit_test(test_limine_req_ids_of_the_other_requests),
	cmocka_unit_test(test_limine_req_internal_modules))
