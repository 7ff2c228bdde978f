// SPDX-License-Identifier: MIT
/* covers: efi/limine/lmelf.c efi/limine/lmerr.c */
/*
 * Host tests for efi/limine/lmelf.c: an ELF64 x86-64 kernel judged, planned,
 * copied and relocated for the Limine protocol.
 *
 * The ELF files are built here in memory, field by field at the offsets of
 * the System V gABI (ELF header, program headers, dynamic section, RELA
 * and RELR tables), with this file's own writers; every expected byte of a
 * load block is computed from the file built, never read back through the
 * code under test.
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

#include "../../efi/limine/lmelf.h"
#include "lib/le.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define MIN_VA UINT64_C(0xffffffff80000000)
#define FILE_CAP 0x8000u

/* gABI offsets, written here independently of lmelf.c */
#define O_TYPE 16u
#define O_MACHINE 18u
#define O_VERSION 20u
#define O_ENTRY 24u
#define O_PHOFF 32u
#define O_EHSIZE 52u
#define O_PHENTSIZE 54u
#define O_PHNUM 56u
#define PHDR 56u

#define R 4u
#define W 2u
#define X 1u

struct ph {
	uint32_t type;   /* 1 PT_LOAD, 2 PT_DYNAMIC */
	uint32_t flags;
	uint64_t off, va, filesz, memsz, align;
};

struct kfile {
	uint8_t b[FILE_CAP];
	uint64_t size;
};

/*
 * Writes an ELF header of @type with @n program headers at 64 and fills
 * every byte from 0x400 up to @size with a pattern of its offset, so that
 * a copied segment's bytes are known without reading the file back.
 */
static void build(struct kfile *f, uint16_t type, uint64_t entry, const struct ph *p,
	unsigned n, uint64_t size)
{
	memset(f->b, 0, sizeof(f->b));
	f->size = size;
	for (uint64_t i = 0x400; i < size; i++)
		f->b[i] = (uint8_t)(i * 7 + 3);
	f->b[0] = 0x7f;
	f->b[1] = 'E';
	f->b[2] = 'L';
	f->b[3] = 'F';
	f->b[4] = 2;     /* ELFCLASS64 */
	f->b[5] = 1;     /* little-endian */
	f->b[6] = 1;     /* EV_CURRENT */
	le_stn(f->b + O_TYPE, 2, type);
	le_stn(f->b + O_MACHINE, 2, 62);
	le_stn(f->b + O_VERSION, 4, 1);
	le_stn(f->b + O_ENTRY, 8, entry);
	le_stn(f->b + O_PHOFF, 8, 64);
	le_stn(f->b + O_EHSIZE, 2, 64);
	le_stn(f->b + O_PHENTSIZE, 2, PHDR);
	le_stn(f->b + O_PHNUM, 2, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t o = 64 + (uint64_t)i * PHDR;

		le_stn(f->b + o + 0, 4, p[i].type);
		le_stn(f->b + o + 4, 4, p[i].flags);
		le_stn(f->b + o + 8, 8, p[i].off);
		le_stn(f->b + o + 16, 8, p[i].va);
		le_stn(f->b + o + 24, 8, p[i].va);
		le_stn(f->b + o + 32, 8, p[i].filesz);
		le_stn(f->b + o + 40, 8, p[i].memsz);
		le_stn(f->b + o + 48, 8, p[i].align);
	}
}

/* Writes dynamic entry @i (tag, value) of the section at @off. */
static void dyn(struct kfile *f, uint64_t off, unsigned i, int64_t tag, uint64_t val)
{
	le_stn(f->b + off + 16 * i, 8, (uint64_t)tag);
	le_stn(f->b + off + 16 * i + 8, 8, val);
}

/* Writes RELA entry @i of the table at @off. */
static void rela(struct kfile *f, uint64_t off, unsigned i, uint64_t where, uint32_t type,
	uint64_t addend)
{
	le_stn(f->b + off + 24 * i, 8, where);
	le_stn(f->b + off + 24 * i + 8, 8, type);
	le_stn(f->b + off + 24 * i + 16, 8, addend);
}

/*
 * A PIE linked at 0: text RX [0, 0x1800) from file 0, rodata R at 0x2000
 * from file 0x2000 (0x400 bytes), data RW at 0x3000 from file 0x3000
 * (0x800 bytes, 0x3000 in memory: bss after), the dynamic section at file
 * 0x3400 (va 0x3400) and the RELA table at file 0x3500 (va 0x3500).
 */
#define PIE_DYN  0x3400u
#define PIE_RELA 0x3500u
#define PIE_RELR 0x3600u

static const struct ph pie_ph[] = {
	{ 1, R | X, 0x0000, 0x0000, 0x1800, 0x1800, 0x1000 },
	{ 1, R,     0x2000, 0x2000, 0x0400, 0x0400, 0x1000 },
	{ 1, R | W, 0x3000, 0x3000, 0x0800, 0x3000, 0x1000 },
	{ 2, R | W, PIE_DYN, PIE_DYN, 0x100, 0x100, 8 },
};

/* The PIE with three RELATIVE relocations: in data, in rodata, in bss. */
static void pie(struct kfile *f)
{
	build(f, 3, 0x100, pie_ph, NR(pie_ph), 0x3800);
	dyn(f, PIE_DYN, 0, 7, PIE_RELA);        /* DT_RELA */
	dyn(f, PIE_DYN, 1, 8, 3 * 24);          /* DT_RELASZ */
	dyn(f, PIE_DYN, 2, 9, 24);              /* DT_RELAENT */
	dyn(f, PIE_DYN, 3, 0, 0);               /* DT_NULL */
	for (unsigned i = 4; i < 16; i++)
		dyn(f, PIE_DYN, i, 0, 0);
	rela(f, PIE_RELA, 0, 0x3008, 8, 0x1234);
	rela(f, PIE_RELA, 1, 0x2010, 8, 0x100);
	rela(f, PIE_RELA, 2, 0x4000, 8, 0x3000);
}

/* A static kernel at 0xffffffff80000000: text RX, data RW with bss. */
static const struct ph exec_ph[] = {
	{ 1, R | X, 0x1000, MIN_VA,          0x1000, 0x1000, 0x1000 },
	{ 1, R | W, 0x2000, MIN_VA + 0x2000, 0x0800, 0x2000, 0x1000 },
};

static void exec_kernel(struct kfile *f)
{
	build(f, 2, MIN_VA + 0x10, exec_ph, NR(exec_ph), 0x2800);
}

static struct kfile kf;
static char why[256];

/* kf parsed with @kaslr and @max: accepted, into @e (the refusal's reason if not). */
static void parse_ok(uint64_t kaslr, uint64_t max, struct lm_elf *e)
{
	if (lm_elf_parse(kf.b, kf.size, kaslr, max, e, why, sizeof(why)) != 0)
		fail_msg("kaslr 0x%llx max 0x%llx refused: %s", (unsigned long long)kaslr,
			 (unsigned long long)max, why);
}

/* Parses @f with @kaslr; asserts a refusal whose message holds @needle. */
static void refused(const struct kfile *f, uint64_t kaslr, uint64_t max, const char *needle)
{
	struct lm_elf e;

	why[0] = 0;
	assert_int_equal(lm_elf_parse(f->b, f->size, kaslr, max, &e, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("refusal \"%s\" does not say \"%s\"", why, needle);
}

static void test_limine_elf_pie_at_0_gets_minimum_slide(void **state)
{
	struct lm_elf e;

	(void)state;
	pie(&kf);
	parse_ok(0, 0, &e);
	assert_int_equal(e.type, 3);
	assert_true(e.slide == MIN_VA);
	assert_true(e.va == MIN_VA);
	assert_true(e.span == 0x6000);
	assert_true(e.align == 0x1000);
	assert_true(e.entry == MIN_VA + 0x100);
	assert_int_equal(e.nseg, 3);
	assert_true(e.seg[0].va == MIN_VA && e.seg[0].off == 0 && e.seg[0].memsz == 0x1800);
	assert_int_equal(e.seg[0].flags, R | X);
	assert_true(e.seg[1].va == MIN_VA + 0x2000 && e.seg[1].off == 0x2000);
	assert_int_equal(e.seg[1].flags, R);
	assert_true(e.seg[2].va == MIN_VA + 0x3000 && e.seg[2].off == 0x3000);
	assert_true(e.seg[2].filesz == 0x800 && e.seg[2].memsz == 0x3000);
	assert_int_equal(e.seg[2].flags, R | W);
	assert_true(e.rela_off == PIE_RELA && e.rela_count == 3);
	assert_int_equal(lm_elf_seg_of(&e, MIN_VA + 0x17ff), 0);
	assert_int_equal(lm_elf_seg_of(&e, MIN_VA + 0x1800), -1);
	assert_int_equal(lm_elf_seg_of(&e, MIN_VA + 0x5fff), 2);
}

static void test_limine_elf_pie_loaded_copied_zeroed_relocated(void **state)
{
	struct lm_elf e;
	static uint8_t dst[0x6000];
	const uint64_t slide = MIN_VA + 0x40000;

	(void)state;
	pie(&kf);
	parse_ok(0x40000 + 0x123, 0, &e);
	assert_true(e.slide == slide);       /* KASLR rounded down to the 4 KiB alignment */
	memset(dst, 0xa5, sizeof(dst));
	assert_int_equal(lm_elf_load(kf.b, kf.size, &e, dst, sizeof(dst), why, sizeof(why)), 0);
	for (uint64_t i = 0; i < sizeof(dst); i++) {
		uint8_t want;

		if (i >= 0x3008 && i < 0x3010)
			continue;      /* relocated below */
		if (i >= 0x2010 && i < 0x2018)
			continue;
		if (i >= 0x4000 && i < 0x4008)
			continue;
		if (i < 0x1800)
			want = kf.b[i];
		else if (i >= 0x2000 && i < 0x2400)
			want = kf.b[i];
		else if (i >= 0x3000 && i < 0x3800)
			want = kf.b[i];
		else
			want = 0;     /* gaps between segments and bss */
		if (dst[i] != want)
			fail_msg("block byte 0x%llx: 0x%02x, want 0x%02x", (unsigned long long)i,
				dst[i], want);
	}
	assert_true(le_ld64(dst + 0x3008) == slide + 0x1234);
	assert_true(le_ld64(dst + 0x2010) == slide + 0x100);
	assert_true(le_ld64(dst + 0x4000) == slide + 0x3000);
}

static void test_limine_elf_relr_applied(void **state)
{
	struct lm_elf e;
	static uint8_t dst[0x6000];
	const uint64_t slide = MIN_VA;

	(void)state;
	pie(&kf);
	dyn(&kf, PIE_DYN, 0, 36, PIE_RELR);     /* DT_RELR replaces DT_RELA */
	dyn(&kf, PIE_DYN, 1, 35, 3 * 8);        /* DT_RELRSZ */
	dyn(&kf, PIE_DYN, 2, 37, 8);            /* DT_RELRENT */
	le_stn(kf.b + PIE_RELR, 8, 0x3010);          /* relocate 0x3010, then from 0x3018 */
	le_stn(kf.b + PIE_RELR + 8, 8, (1u << 1 | 1u << 3) | 1);   /* 0x3018 and 0x3028 */
	le_stn(kf.b + PIE_RELR + 16, 8, (uint64_t)1 << 20 | 1);    /* 0x3210 + 19 * 8 */
	for (unsigned a = 0x3010; a < 0x3300; a += 8)
		le_stn(kf.b + a, 8, a * 3);
	parse_ok(0, 0, &e);
	assert_true(e.relr_off == PIE_RELR && e.relr_count == 3 && e.rela_count == 0);
	assert_int_equal(lm_elf_load(kf.b, kf.size, &e, dst, sizeof(dst), why, sizeof(why)), 0);
	for (unsigned a = 0x3010; a < 0x3300; a += 8) {
		bool hit = a == 0x3010 || a == 0x3018 || a == 0x3028 ||
			a == 0x3018 + 63 * 8 + 19 * 8;
		uint64_t want = a * 3 + (hit ? slide : 0);

		if (le_ld64(dst + a) != want)
			fail_msg("word 0x%x: 0x%llx, want 0x%llx", a,
				(unsigned long long)le_ld64(dst + a), (unsigned long long)want);
	}
}

static void test_limine_elf_static_kernel_not_slid(void **state)
{
	struct lm_elf e;
	static uint8_t dst[0x4000];

	(void)state;
	exec_kernel(&kf);
	parse_ok(0x200000, 0, &e);
	assert_int_equal(e.type, 2);
	assert_true(e.slide == 0 && e.va == MIN_VA && e.span == 0x4000);
	assert_true(e.entry == MIN_VA + 0x10);
	assert_true(e.seg[1].off == 0x2000 && e.seg[1].file_off == 0x2000);
	assert_int_equal(lm_elf_load(kf.b, kf.size, &e, dst, sizeof(dst), why, sizeof(why)), 0);
	assert_memory_equal(dst, kf.b + 0x1000, 0x1000);
	assert_memory_equal(dst + 0x2000, kf.b + 0x2000, 0x800);
	for (unsigned i = 0x2800; i < 0x4000; i++)
		assert_int_equal(dst[i], 0);
}

static void test_limine_elf_kaslr_rounded_to_segment_alignment(void **state)
{
	static const struct ph big[] = {
		{ 1, R | X, 0x0000, 0x0000, 0x1000, 0x1000, 0x200000 },
	};
	struct lm_elf e;

	(void)state;
	build(&kf, 3, 0, big, NR(big), 0x1000);
	parse_ok(0x3fffff, 0, &e);
	assert_true(e.align == 0x200000);
	assert_true(e.slide == MIN_VA + 0x200000);
}

static void test_limine_elf_pie_linked_high_slid_by_kaslr_only(void **state)
{
	struct lm_elf e;

	(void)state;
	build(&kf, 3, MIN_VA, exec_ph, NR(exec_ph), 0x2800);
	parse_ok(0x5000, 0, &e);
	assert_true(e.slide == 0x5000 && e.va == MIN_VA + 0x5000);
}

static void test_limine_elf_refusals_of_the_header(void **state)
{
	(void)state;
	exec_kernel(&kf);
	kf.size = 40;
	refused(&kf, 0, 0, "not an ELF file");
	exec_kernel(&kf);
	kf.b[1] = 'e';
	refused(&kf, 0, 0, "not an ELF file");
	exec_kernel(&kf);
	kf.b[4] = 1;
	refused(&kf, 0, 0, "not a 64-bit ELF (class 1)");
	exec_kernel(&kf);
	kf.b[5] = 2;
	refused(&kf, 0, 0, "not a little-endian ELF");
	exec_kernel(&kf);
	le_stn(kf.b + O_MACHINE, 2, 3);
	refused(&kf, 0, 0, "not an x86-64 ELF (machine 3)");
	exec_kernel(&kf);
	le_stn(kf.b + O_TYPE, 2, 1);
	refused(&kf, 0, 0, "not an executable or position-independent ELF (type 1)");
	exec_kernel(&kf);
	le_stn(kf.b + O_PHOFF, 8, kf.size - 60);
	refused(&kf, 0, 0, "program headers");
}

static void test_limine_elf_refusals_of_segments(void **state)
{
	/* one field of one segment of the executable changed, in a file of file_len bytes */
	static const struct {
		unsigned seg;
		size_t field;
		uint64_t value, file_len;
		const char *why;
	} one[] = {
		{ 1, offsetof(struct ph, filesz), 0x900, 0x2800,
		  "segment 1: file bytes [0x2000, +0x900) past the end of the file" },
		{ 1, offsetof(struct ph, memsz), 0x700, 0x2800,
		  "segment 1: p_filesz 0x800 > p_memsz 0x700" },
		/* runs into the data segment */
		{ 0, offsetof(struct ph, memsz), 0x2001, 0x2800, "overlapping segments" },
		{ 0, offsetof(struct ph, align), 0x3000, 0x2800, "not a power of two" },
		/* va and offset disagree modulo 4 KiB */
		{ 1, offsetof(struct ph, off), 0x2100, 0x2900, "differ modulo p_align" },
	};
	struct lm_elf e;
	struct ph p[2];

	(void)state;
	for (unsigned i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		memcpy(p, exec_ph, sizeof(p));
		memcpy((uint8_t *)&p[one[i].seg] + one[i].field, &one[i].value, sizeof(uint64_t));
		build(&kf, 2, MIN_VA, p, 2, one[i].file_len);
		refused(&kf, 0, 0, one[i].why);
	}

	memcpy(p, exec_ph, sizeof(p));
	p[0].filesz = p[0].memsz = 0x1400;      /* RX up to 0x...1400 */
	p[1].va = MIN_VA + 0x1800;              /* RW in the RX segment's last page */
	p[1].off = 0x1800;
	p[1].align = 0x800;
	build(&kf, 2, MIN_VA, p, 2, 0x2800);
	refused(&kf, 0, 0, "share the page at 0xffffffff80001000");

	/* p_align 0, 1 or below a page (0x100 divides the offsets' difference): still the page */
	for (uint64_t a = 0; a <= 0x100; a = a ? a * 2 : 1) {
		memcpy(p, exec_ph, sizeof(p));
		p[1].off = 0x2100;
		p[1].align = a;
		build(&kf, 2, MIN_VA, p, 2, 0x2900);
		refused(&kf, 0, 0, "differ modulo the page");
	}

	memcpy(p, exec_ph, sizeof(p));
	p[0].va = 0x401000;                     /* a lower-half static kernel */
	p[1].va = 0x402000;
	build(&kf, 2, 0x401000, p, 2, 0x2800);
	refused(&kf, 0, 0, "segment at 0x401000 is below 0xffffffff80000000");

	memcpy(p, exec_ph, sizeof(p));
	p[0].type = 6;                          /* PT_PHDR: no PT_LOAD left */
	p[1].type = 4;                          /* PT_NOTE */
	build(&kf, 2, MIN_VA, p, 2, 0x2800);
	refused(&kf, 0, 0, "no PT_LOAD segment");

	exec_kernel(&kf);
	refused(&kf, 0, 0x3000, "load span 0x4000 bytes exceeds the limit 0x3000");

	/* the limit bounds the span in whole pages: 0x3800 of segments is 0x4000 */
	memcpy(p, exec_ph, sizeof(p));
	p[1].memsz = 0x1800;
	build(&kf, 2, MIN_VA, p, 2, 0x2800);
	refused(&kf, 0, 0x3800, "load span 0x4000 bytes exceeds the limit 0x3800");
	refused(&kf, 0, 0x3fff, "load span 0x4000 bytes exceeds the limit 0x3fff");
	parse_ok(0, 0x4000, &e);
	assert_true(e.span == 0x4000);

	memcpy(p, exec_ph, sizeof(p));
	p[1].va = UINT64_C(0xfffffffffffff000);
	build(&kf, 2, MIN_VA, p, 2, 0x2800);
	refused(&kf, 0, 0, "wraps past the top");
}

static void test_limine_elf_refusals_of_relocations(void **state)
{
	(void)state;
	pie(&kf);
	rela(&kf, PIE_RELA, 1, 0x2010, 1, 0);   /* R_X86_64_64 */
	refused(&kf, 0, 0, "RELA relocation 1: type 1 is not supported");

	pie(&kf);
	rela(&kf, PIE_RELA, 2, 0x6000, 8, 0);   /* past the last segment */
	refused(&kf, 0, 0, "RELA relocation 2: target 0xffffffff80006000 outside every segment");

	pie(&kf);
	dyn(&kf, PIE_DYN, 3, 17, 0x3500);       /* DT_REL */
	dyn(&kf, PIE_DYN, 4, 18, 16);           /* DT_RELSZ */
	refused(&kf, 0, 0, "REL relocations (DT_REL) are not supported");

	pie(&kf);
	dyn(&kf, PIE_DYN, 3, 23, PIE_RELA);     /* DT_JMPREL */
	dyn(&kf, PIE_DYN, 4, 2, 24);            /* DT_PLTRELSZ */
	rela(&kf, PIE_RELA, 0, 0x3008, 7, 0);   /* R_X86_64_JUMP_SLOT */
	refused(&kf, 0, 0, "type 7 is not supported");

	pie(&kf);
	dyn(&kf, PIE_DYN, 0, 7, 0x9000);        /* the table outside the file's segments */
	refused(&kf, 0, 0, "is not in a segment's file bytes");

	pie(&kf);
	dyn(&kf, PIE_DYN, 2, 9, 16);
	refused(&kf, 0, 0, "DT_RELAENT 16");

	pie(&kf);
	dyn(&kf, PIE_DYN, 0, 36, PIE_RELR);
	dyn(&kf, PIE_DYN, 1, 35, 8);
	dyn(&kf, PIE_DYN, 2, 37, 8);
	le_stn(kf.b + PIE_RELR, 8, 3);               /* a bitmap first */
	refused(&kf, 0, 0, "a bitmap before any address");
}

static void test_limine_elf_kaslr_past_the_top_refused(void **state)
{
	(void)state;
	pie(&kf);
	refused(&kf, UINT64_C(0x7ffff000), 0, "past the top of the address space");
}

static void test_limine_elf_load_into_short_block_writes_nothing(void **state)
{
	struct lm_elf e;
	static uint8_t dst[0x6000];

	(void)state;
	memset(dst, 0x5a, sizeof(dst));
	pie(&kf);
	parse_ok(0, 0, &e);
	assert_int_equal(lm_elf_load(kf.b, kf.size, &e, dst, 0x5000, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "0x6000"));
	for (unsigned i = 0; i < sizeof(dst); i++)
		assert_int_equal(dst[i], 0x5a);
}

UNIT_MAIN(
	cmocka_unit_test(test_limine_elf_pie_at_0_gets_minimum_slide),
	cmocka_unit_test(test_limine_elf_pie_loaded_copied_zeroed_relocated),
	cmocka_unit_test(test_limine_elf_relr_applied),
	cmocka_unit_test(test_limine_elf_static_kernel_not_slid),
	cmocka_unit_test(test_limine_elf_kaslr_rounded_to_segment_alignment),
	cmocka_unit_test(test_limine_elf_pie_linked_high_slid_by_kaslr_only),
	cmocka_unit_test(test_limine_elf_refusals_of_the_header),
	cmocka_unit_test(test_limine_elf_refusals_of_segments),
	cmocka_unit_test(test_limine_elf_refusals_of_relocations),
	cmocka_unit_test(test_limine_elf_kaslr_past_the_top_refused),
	cmocka_unit_test(test_limine_elf_load_into_short_block_writes_nothing))
