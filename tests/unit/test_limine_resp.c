// SPDX-License-Identifier: MIT
/* covers: efi/limine/lmresp.c */
/*
 * Host tests for efi/limine/lmresp.c: every response and its data laid
 * out in one buffer, every pointer an HHDM address into it, the requests
 * pointed at them.
 *
 * The responses are read back with this file's own little-endian readers
 * at the offsets PROTOCOL.md's structures have (not through limine.h's
 * structures), and each pointer is followed by turning the HHDM address
 * back into a buffer offset, which must lie inside the bytes used.
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

#include "../../efi/limine/lmresp.h"
#include "lib/le.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define IMG 0x4000u
#define BUF 0x4000u
#define HHDM UINT64_C(0xffff800000000000)
#define BUF_PA UINT64_C(0x5000000)

static uint8_t img[IMG], copy[IMG];
static uint64_t buf_store[BUF / 8], buf_copy[BUF / 8];
static uint8_t *buf = (uint8_t *)buf_store;
static char why[256];
static struct lm_answer ans;

/* The buffer offset an HHDM pointer names; fails unless @n bytes there are inside what was used. */
static uint64_t at(uint64_t p, uint64_t n)
{
	uint64_t va = HHDM + BUF_PA;

	if (p < va || p - va > ans.used || n > ans.used - (p - va))
		fail_msg("pointer 0x%llx (+%llu) is not into the buffer's 0x%llx used bytes at 0x%llx",
			(unsigned long long)p, (unsigned long long)n, (unsigned long long)ans.used,
			(unsigned long long)va);
	if ((p - va) % 8)
		fail_msg("pointer 0x%llx not 8-byte aligned", (unsigned long long)p);
	return p - va;
}

/* The string an HHDM pointer names. */
static const char *str_at(uint64_t p)
{
	uint64_t off = at(p, 1);
	const char *s = (const char *)buf + off;

	assert_true(memchr(s, 0, ans.used - off) != NULL);
	return s;
}

static const unsigned order[] = {
	LM_REQ_BOOTLOADER_INFO, LM_REQ_FIRMWARE_TYPE, LM_REQ_STACK_SIZE, LM_REQ_HHDM,
	LM_REQ_FRAMEBUFFER, LM_REQ_PAGING_MODE, LM_REQ_SMP, LM_REQ_MEMMAP, LM_REQ_ENTRY_POINT,
	LM_REQ_KERNEL_FILE, LM_REQ_MODULE, LM_REQ_RSDP, LM_REQ_SMBIOS, LM_REQ_EFI_SYSTEM_TABLE,
	LM_REQ_EFI_MEMMAP, LM_REQ_BOOT_TIME, LM_REQ_KERNEL_ADDRESS, LM_REQ_DTB,
};

/* Request of @kind number i at 0x100 * (i + 1), revision 0, response 0. */
static uint64_t req_off(unsigned i)
{
	return 0x100 * (uint64_t)(i + 1);
}

/* Every request, and a base revision tag asking for 2. */
static void image(struct lm_requests *r)
{
	memset(img, 0, IMG);
	for (unsigned i = 0; i < NR(order); i++) {
		uint64_t o = req_off(i);

		le_st64(img + o, LM_MAGIC0);
		le_st64(img + o + 8, LM_MAGIC1);
		le_st64(img + o + 16, lm_req_ids[order[i]][0]);
		le_st64(img + o + 24, lm_req_ids[order[i]][1]);
	}
	le_st64(img + 0x3000, LM_BASE_REV_MAGIC0);
	le_st64(img + 0x3008, LM_BASE_REV_MAGIC1);
	le_st64(img + 0x3010, 2);
	assert_int_equal(lm_scan(img, IMG, r, why, sizeof(why)), 0);
	assert_int_equal(r->base_rev, 2);
}

static const uint8_t edid[128] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x12, 0x34 };
static const struct lm_video_mode modes[2] = {
	{ .pitch = 3200, .width = 800, .height = 600, .bpp = 32, .memory_model = 1,
	  .red_mask_size = 8, .red_mask_shift = 16, .green_mask_size = 8, .green_mask_shift = 8,
	  .blue_mask_size = 8, .blue_mask_shift = 0 },
	{ .pitch = 4096, .width = 1024, .height = 768, .bpp = 32, .memory_model = 1,
	  .red_mask_size = 8, .red_mask_shift = 16, .green_mask_size = 8, .green_mask_shift = 8,
	  .blue_mask_size = 8, .blue_mask_shift = 0 },
};
static const struct lm_fb_in fb = {
	.pa = 0x80000000, .width = 1024, .height = 768, .pitch = 4096, .bpp = 32,
	.red_size = 8, .red_shift = 16, .green_size = 8, .green_shift = 8,
	.blue_size = 8, .blue_shift = 0, .modes = modes, .nmodes = 2,
	.edid = edid, .edid_size = sizeof(edid),
};
static const struct lm_cpu_in cpus[3] = { { 0, 0 }, { 1, 2 }, { 2, 5 } };
static const struct lm_memmap_entry map[3] = {
	{ 0x0, 0x1000, LM_MEM_RESERVED },
	{ 0x1000, 0x9f000, LM_MEM_USABLE },
	{ 0x100000, 0x700000, LM_MEM_KERNEL_AND_MODULES },
};
static const struct lm_file_in mods[2] = {
	{ 0x900000, 0x1234, "/boot/initrd", "root=/dev/x", 1 },
	{ 0xa00000, 0x10, "/boot/second", NULL, 2 },
};

static void machine(struct lm_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->name = "ptlab";
	m->version = "1.2.3";
	m->firmware_type = LM_FIRMWARE_UEFI64;
	m->hhdm = HHDM;
	m->paging_mode = LM_PAGING_5LVL;
	m->fb = &fb;
	m->nfb = 1;
	m->cpu = cpus;
	m->ncpu = 3;
	m->bsp_lapic_id = 0;
	m->smp_flags = 1;
	m->map = map;
	m->nmap = 3;
	m->kernel = (struct lm_file_in){ 0x200000, 0x54321, "/boot/kernel.elf", "quiet", 3 };
	m->mod = mods;
	m->nmod = 2;
	m->rsdp_pa = 0x7fe0000;
	m->smbios32_pa = 0xf0000;
	m->smbios64_pa = 0;
	m->efi_st_pa = 0x7f00000;
	m->efi_map_pa = 0x6000000;
	m->efi_map_size = 48 * 100;
	m->efi_desc_size = 48;
	m->efi_desc_version = 1;
	m->have_time = true;
	m->boot_time = 1700000000;
	m->kernel_pa = 0x100000;
	m->kernel_va = UINT64_C(0xffffffff80000000);
}

/* The response of request i, read from the image: its buffer offset. */
/* A response of one value after its revision, of request @req: @got is what the machine gave. */
static void expect_one(unsigned req, uint64_t got)
{
	static const struct {
		unsigned req;
		uint64_t value;
	} one[] = {
		{ LM_REQ_FIRMWARE_TYPE, 2 },
		{ LM_REQ_HHDM, HHDM },
		{ LM_REQ_PAGING_MODE, LM_PAGING_5LVL },
		{ LM_REQ_RSDP, HHDM + 0x7fe0000 },
		{ LM_REQ_EFI_SYSTEM_TABLE, HHDM + 0x7f00000 },
		{ LM_REQ_BOOT_TIME, 1700000000 },
	};

	for (unsigned k = 0; k < sizeof(one) / sizeof(one[0]); k++)
		if (one[k].req == req) {
			if (got != one[k].value)
				fail_msg("request %u answered 0x%llx, not 0x%llx", req,
					 (unsigned long long)got, (unsigned long long)one[k].value);
			return;
		}
	fail_msg("request %u: no one value expected", req);
}

static uint64_t resp(unsigned i, uint64_t n)
{
	uint64_t p = le_ldn(img + req_off(i) + 40, 8);

	assert_true(p != 0);
	return at(p, n);
}

/* A struct limine_file at buffer offset @f matches @in. */
static void check_file(uint64_t f, const struct lm_file_in *in)
{
	assert_true(le_ldn(buf + f + 8, 8) == HHDM + in->pa);
	assert_true(le_ldn(buf + f + 16, 8) == in->size);
	assert_string_equal(str_at(le_ldn(buf + f + 24, 8)), in->path);
	assert_string_equal(str_at(le_ldn(buf + f + 32, 8)), in->cmdline ? in->cmdline : "");
	assert_int_equal(le_ldn(buf + f + 40, 4), LM_MEDIA_GENERIC);
	assert_int_equal(le_ldn(buf + f + 56, 4), in->partition_index);
	for (unsigned i = 64; i < 112; i++)
		assert_int_equal(buf[f + i], 0);     /* no disk identities */
}

static void test_limine_resp_every_response_laid_out(void **state)
{
	struct lm_requests r;
	struct lm_machine m;
	struct lm_answer count;
	uint64_t o, arr;

	(void)state;
	image(&r);
	machine(&m);
	assert_int_equal(lm_respond(&m, &r, NULL, NULL, BUF_PA, 0, &count, why, sizeof(why)), 0);
	memset(buf, 0xcc, BUF);
	if (lm_respond(&m, &r, img, buf, BUF_PA, BUF, &ans, why, sizeof(why)))
		fail_msg("refused: %s", why);
	assert_true(count.used == ans.used && ans.used <= BUF && ans.used > 0);
	for (uint64_t i = ans.used; i < BUF; i++)
		assert_int_equal(buf[i], 0xcc);      /* nothing past what was used */
	assert_int_equal(ans.answered, (1u << LM_REQ_COUNT) - 1 - (1u << LM_REQ_DTB) - (1u << LM_REQ_TERMINAL));

	for (unsigned i = 0; i < NR(order); i++) {
		if (order[i] == LM_REQ_DTB) {
			assert_true(le_ldn(img + req_off(i) + 40, 8) == 0);    /* left untouched */
			continue;
		}
		o = resp(i, 8);
		assert_true(o == ans.resp_off[order[i]]);
		switch (order[i]) {
		case LM_REQ_BOOTLOADER_INFO:
			o = resp(i, 24);
			assert_true(le_ldn(buf + o, 8) == 0);
			assert_string_equal(str_at(le_ldn(buf + o + 8, 8)), "ptlab");
			assert_string_equal(str_at(le_ldn(buf + o + 16, 8)), "1.2.3");
			break;
		case LM_REQ_FIRMWARE_TYPE:
		case LM_REQ_HHDM:
		case LM_REQ_PAGING_MODE:
		case LM_REQ_RSDP:
		case LM_REQ_EFI_SYSTEM_TABLE:
		case LM_REQ_BOOT_TIME:
			expect_one(order[i], le_ldn(buf + resp(i, 16) + 8, 8));
			break;
		case LM_REQ_FRAMEBUFFER: {
			uint64_t f, mo;

			o = resp(i, 24);
			assert_true(le_ldn(buf + o, 8) == 1 && le_ldn(buf + o + 8, 8) == 1);
			arr = at(le_ldn(buf + o + 16, 8), 8);
			f = at(le_ldn(buf + arr, 8), 80);
			assert_true(le_ldn(buf + f, 8) == HHDM + 0x80000000);
			assert_true(le_ldn(buf + f + 8, 8) == 1024 && le_ldn(buf + f + 16, 8) == 768);
			assert_true(le_ldn(buf + f + 24, 8) == 4096 && le_ldn(buf + f + 32, 2) == 32);
			assert_true(le_ldn(buf + f + 34, 1) == 1);
			assert_true(le_ldn(buf + f + 35, 1) == 8 && le_ldn(buf + f + 36, 1) == 16);
			assert_true(le_ldn(buf + f + 37, 1) == 8 && le_ldn(buf + f + 38, 1) == 8);
			assert_true(le_ldn(buf + f + 39, 1) == 8 && le_ldn(buf + f + 40, 1) == 0);
			assert_true(le_ldn(buf + f + 48, 8) == sizeof(edid));
			assert_memory_equal(buf + at(le_ldn(buf + f + 56, 8), sizeof(edid)), edid, sizeof(edid));
			assert_true(le_ldn(buf + f + 64, 8) == 2);
			arr = at(le_ldn(buf + f + 72, 8), 16);
			for (unsigned k = 0; k < 2; k++) {
				mo = at(le_ldn(buf + arr + 8 * k, 8), 40);
				assert_true(le_ldn(buf + mo, 8) == modes[k].pitch);
				assert_true(le_ldn(buf + mo + 8, 8) == modes[k].width);
				assert_true(le_ldn(buf + mo + 16, 8) == modes[k].height);
				assert_true(le_ldn(buf + mo + 24, 2) == 32 && le_ldn(buf + mo + 26, 1) == 1);
				assert_true(le_ldn(buf + mo + 28, 1) == 16);
			}
			break;
		}
		case LM_REQ_SMP:
			o = resp(i, 32);
			assert_true(le_ldn(buf + o + 8, 4) == 1 && le_ldn(buf + o + 12, 4) == 0);
			assert_true(le_ldn(buf + o + 16, 8) == 3);
			arr = at(le_ldn(buf + o + 24, 8), 24);
			assert_int_equal(ans.nsmp, 3);
			for (unsigned k = 0; k < 3; k++) {
				uint64_t c = at(le_ldn(buf + arr + 8 * k, 8), 32);

				assert_true(c == ans.smp_info_off + 32 * k);
				assert_true(le_ldn(buf + c, 4) == cpus[k].processor_id);
				assert_true(le_ldn(buf + c + 4, 4) == cpus[k].lapic_id);
				assert_true(le_ldn(buf + c + 8, 8) == 0);
				assert_true(le_ldn(buf + c + LM_SMP_INFO_GOTO, 8) == 0);
				assert_true(le_ldn(buf + c + 24, 8) == 0);
			}
			break;
		case LM_REQ_MEMMAP:
			o = resp(i, 24);
			assert_true(le_ldn(buf + o + 8, 8) == 3);
			arr = at(le_ldn(buf + o + 16, 8), 24);
			for (unsigned k = 0; k < 3; k++) {
				uint64_t e = at(le_ldn(buf + arr + 8 * k, 8), 24);

				assert_true(le_ldn(buf + e, 8) == map[k].base);
				assert_true(le_ldn(buf + e + 8, 8) == map[k].length);
				assert_true(le_ldn(buf + e + 16, 8) == map[k].type);
			}
			break;
		case LM_REQ_KERNEL_FILE:
			check_file(at(le_ldn(buf + resp(i, 16) + 8, 8), 112), &m.kernel);
			break;
		case LM_REQ_MODULE:
			o = resp(i, 24);
			assert_true(le_ldn(buf + o, 8) == 1 && le_ldn(buf + o + 8, 8) == 2);
			arr = at(le_ldn(buf + o + 16, 8), 16);
			for (unsigned k = 0; k < 2; k++)
				check_file(at(le_ldn(buf + arr + 8 * k, 8), 112), &mods[k]);
			break;
		case LM_REQ_SMBIOS:
			o = resp(i, 24);
			assert_true(le_ldn(buf + o + 8, 8) == HHDM + 0xf0000 && le_ldn(buf + o + 16, 8) == 0);
			break;
		case LM_REQ_EFI_MEMMAP:
			o = resp(i, 40);
			assert_true(le_ldn(buf + o + 8, 8) == HHDM + 0x6000000);
			assert_true(le_ldn(buf + o + 16, 8) == 4800 && le_ldn(buf + o + 24, 8) == 48);
			assert_true(le_ldn(buf + o + 32, 8) == 1);
			break;
		case LM_REQ_KERNEL_ADDRESS:
			o = resp(i, 24);
			assert_true(le_ldn(buf + o + 8, 8) == 0x100000);
			assert_true(le_ldn(buf + o + 16, 8) == UINT64_C(0xffffffff80000000));
			break;
		default:     /* stack size, entry point: the revision alone */
			assert_true(le_ldn(buf + resp(i, 8), 8) == 0);
			break;
		}
	}
	assert_true(le_ldn(img + 0x3010, 8) == 0);    /* the base revision answered */
}

static void test_limine_resp_missing_data_left_unanswered(void **state)
{
	struct lm_requests r;
	struct lm_machine m;

	(void)state;
	image(&r);
	machine(&m);
	m.nfb = 0;
	m.ncpu = 0;
	m.rsdp_pa = 0;
	m.smbios32_pa = 0;
	m.efi_st_pa = 0;
	m.efi_map_pa = 0;
	m.have_time = false;
	m.nmod = 0;
	assert_int_equal(lm_respond(&m, &r, img, buf, BUF_PA, BUF, &ans, why, sizeof(why)), 0);
	for (unsigned i = 0; i < NR(order); i++) {
		bool none = order[i] == LM_REQ_FRAMEBUFFER || order[i] == LM_REQ_SMP ||
			order[i] == LM_REQ_RSDP || order[i] == LM_REQ_SMBIOS ||
			order[i] == LM_REQ_EFI_SYSTEM_TABLE || order[i] == LM_REQ_EFI_MEMMAP ||
			order[i] == LM_REQ_BOOT_TIME || order[i] == LM_REQ_DTB;

		assert_int_equal(le_ldn(img + req_off(i) + 40, 8) == 0, none);
		if (order[i] == LM_REQ_MODULE) {
			uint64_t o = resp(i, 24);

			assert_true(le_ldn(buf + o + 8, 8) == 0 && le_ldn(buf + o + 16, 8) == 0);
		}
	}
	assert_int_equal(ans.nsmp, 0);
}

/* Asserts a refusal naming @needle with the image and buffer unchanged. */
static void refused(const struct lm_machine *m, const struct lm_requests *r, uint8_t *b,
	uint64_t len, const char *needle)
{
	memcpy(copy, img, IMG);
	memset(buf, 0xee, BUF);
	memcpy(buf_copy, buf, BUF);
	why[0] = 0;
	assert_int_equal(lm_respond(m, r, img, b, BUF_PA, len, &ans, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("refusal \"%s\" does not say \"%s\"", why, needle);
	assert_memory_equal(img, copy, IMG);
	assert_memory_equal(buf, buf_copy, BUF);
}

static void test_limine_resp_refusals_change_nothing(void **state)
{
	struct lm_requests r;
	struct lm_machine m;
	struct lm_cpu_in odd[2] = { { 0, 7 }, { 1, 9 } };

	(void)state;
	image(&r);
	machine(&m);
	assert_int_equal(lm_respond(&m, &r, NULL, NULL, BUF_PA, 0, &ans, why, sizeof(why)), 0);
	refused(&m, &r, buf, ans.used - 8, "the buffer has");
	refused(&m, &r, buf + 4, BUF - 8, "not 8-byte aligned");
	m.cpu = odd;
	m.ncpu = 2;
	refused(&m, &r, buf, BUF, "the BSP's LAPIC ID 0 is not among the 2 CPUs");
	machine(&m);
	m.kernel.path = NULL;
	refused(&m, &r, buf, BUF, "the kernel file's path is missing");
	machine(&m);
	m.nmap = 0;
	refused(&m, &r, buf, BUF, "asks for the memory map and there is none");
	machine(&m);
	m.ncpu = LM_MAX_CPUS + 1;
	refused(&m, &r, buf, BUF, "more than 1024");
}

static void test_limine_resp_newer_base_revision_not_answered(void **state)
{
	struct lm_requests r;
	struct lm_machine m;

	(void)state;
	image(&r);
	le_st64(img + 0x3010, 7);
	assert_int_equal(lm_scan(img, IMG, &r, why, sizeof(why)), 0);
	machine(&m);
	assert_int_equal(lm_respond(&m, &r, img, buf, BUF_PA, BUF, &ans, why, sizeof(why)), 0);
	assert_true(le_ldn(img + 0x3010, 8) == 7);
}

static void test_limine_resp_count_with_a_bound_on_the_map(void **state)
{
	struct lm_requests r;
	struct lm_machine m;
	struct lm_answer three, ten;
	static const struct lm_memmap_entry junk[1];

	(void)state;
	image(&r);
	machine(&m);
	assert_int_equal(lm_respond(&m, &r, NULL, NULL, BUF_PA, 0, &three, why, sizeof(why)), 0);
	m.map = junk;         /* counting reads no entry: a bound of 10 over 1 entry */
	m.nmap = 10;
	assert_int_equal(lm_respond(&m, &r, NULL, NULL, BUF_PA, 0, &ten, why, sizeof(why)), 0);
	/* each entry more: one pointer and one 24-byte entry */
	assert_true(ten.used == three.used + 7 * (8 + 24));
}

UNIT_MAIN(
	cmocka_unit_test(test_limine_resp_every_response_laid_out),
	cmocka_unit_test(test_limine_resp_missing_data_left_unanswered),
	cmocka_unit_test(test_limine_resp_refusals_change_nothing),
	cmocka_unit_test(test_limine_resp_newer_base_revision_not_answered),
	cmocka_unit_test(test_limine_resp_count_with_a_bound_on_the_map))
