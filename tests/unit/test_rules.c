/* SPDX-License-Identifier: MIT */
/* covers: efi/rules/rules.c */
/*
 * The judge of the MMU (efi/rules/rules.c) against cases worked by hand
 * from the SDM, Vol. 3A chapter 4.  Each case names the sentence it rests
 * on; the expected error codes are written as numbers (P=1, W/R=2, U/S=4,
 * RSVD=8, I/D=0x10, PK=0x20), not built from the module's own macros.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/rules/rules.h"

/* entry bits, spelled out here (Tables 4-14 to 4-20) */
#define P	0x1ull
#define RW	0x2ull
#define US	0x4ull
#define PS	0x80ull
#define XD	(1ull << 63)
#define ALL	(P | RW | US)
#define TBL	0x5000ull		/* a table's address in a non-leaf entry */
#define PAGE	0x12345000ull	/* a 4 KiB frame */
#define VA	0x00007f0012345678ull	/* canonical, bit 47 = 0 */

static struct rules_ctl ctl4(void)
{
	return (struct rules_ctl){ .levels = 4, .maxphyaddr = 46, .nxe = true,
				   .page1gb = true };
}

static struct rules_access acc(enum rules_kind kind, unsigned int cpl)
{
	return (struct rules_access){ .va = VA, .kind = kind, .cpl = cpl };
}

/* a 4 KiB walk whose entries are all ALL but entry i, which is e */
static struct rules_outcome one(const struct rules_ctl *c, unsigned int i, uint64_t e,
				struct rules_access a)
{
	uint64_t ent[5] = { TBL | ALL, TBL | ALL, TBL | ALL, TBL | ALL, PAGE | ALL };
	struct rules_outcome o;

	ent[c->levels - 1] = PAGE | ALL;
	ent[i] = e;
	assert_int_equal(rules_predict(c, ent, c->levels, &a, &o), 0);
	return o;
}

static void expect_fault(struct rules_outcome o, uint32_t err, unsigned int walked)
{
	assert_false(o.gp);
	assert_true(o.fault);
	assert_int_equal(o.error, err);
	assert_int_equal(o.walked, walked);
	assert_int_equal(o.a_must, 0);
	assert_non_null(o.rule);
}

/* ---- 3.3.7.1: canonical addresses, #GP before any walk ---- */

/* "bits 63 through the most-significant implemented bit ... all ones or
 * all zeros": with 4 levels bit 47 is the top one */
static void test_noncanonical_4_levels_is_gp(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_access a = acc(RULES_READ, 0);
	uint64_t ent[4] = { 0 };	/* would fault P=0 if read */
	struct rules_outcome o;

	(void)state;
	a.va = 0x0000800000000000ull;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), 0);
	assert_true(o.gp);
	assert_false(o.fault);
	assert_int_equal(o.walked, 0);
	a.va = 0xffff7fffffffffffull;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), 0);
	assert_true(o.gp);
	/* the upper half is canonical and walks */
	a.va = 0xffff800000000000ull;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), 0);
	assert_false(o.gp);
	expect_fault(o, 0x0, 1);
}

/* 4.5: with 5-level paging linear addresses are 57 bits: bit 56 is the top */
static void test_noncanonical_5_levels_is_gp(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_access a = acc(RULES_READ, 0);
	uint64_t ent[5] = { 0 };
	struct rules_outcome o;

	(void)state;
	c.levels = 5;
	a.va = 0x0000800000000000ull;	/* non-canonical with 4 levels only */
	assert_int_equal(rules_predict(&c, ent, 5, &a, &o), 0);
	assert_false(o.gp);
	expect_fault(o, 0x0, 1);
	a.va = 0x0100000000000000ull;
	assert_int_equal(rules_predict(&c, ent, 5, &a, &o), 0);
	assert_true(o.gp);
	a.va = 0xff00000000000000ull;
	assert_int_equal(rules_predict(&c, ent, 5, &a, &o), 0);
	assert_false(o.gp);
}

/* ---- 4.5, 4.7: not present ---- */

/* 4.7 "P flag ... 0 if there is no translation ... because the P flag
 * was 0 in one of the paging-structure entries" */
static void test_not_present_at_each_level(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		expect_fault(one(&c, i, TBL | RW | US, acc(RULES_READ, 0)), 0x0, i + 1);
}

/* 4.7 W/R "1 if the access ... was a write", U/S "1 if ... a user-mode
 * access": both set with P=0 too */
static void test_not_present_user_write(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 3, PAGE | RW | US, acc(RULES_WRITE, 3)), 0x6, 4);
}

/* 4.7 I/D "1 if ... an instruction fetch" and (SMEP=1 or NXE=1) */
static void test_not_present_fetch_id_bit(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 2, 0, acc(RULES_FETCH, 0)), 0x10, 3);
	c.nxe = false;
	expect_fault(one(&c, 2, 0, acc(RULES_FETCH, 0)), 0x0, 3);
	c.smep = true;
	expect_fault(one(&c, 2, 0, acc(RULES_FETCH, 0)), 0x10, 3);
}

/* 4.7 "reserved bits are not checked in a paging-structure entry whose P
 * flag is 0": a not-present entry full of reserved bits is a P=0 fault */
static void test_reserved_bits_of_a_not_present_entry_ignored(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 1, (1ull << 51) | PS | XD, acc(RULES_READ, 0)), 0x0, 2);
}

/* ---- translations, 4.5 and 4.8 ---- */

/* 4.5 Table 4-20: a PTE's bits M-1:12 are the frame; 4.8: A in every
 * entry used, D only in the leaf of a write */
static void test_4k_read_and_write_translate(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_outcome o = one(&c, 0, TBL | ALL, acc(RULES_READ, 3));

	(void)state;
	assert_false(o.fault);
	assert_int_equal(o.pa, 0x12345678ull);
	assert_int_equal(o.walked, 4);
	assert_int_equal(o.leaf, 3);
	assert_int_equal(o.leaf_level, 0);
	assert_int_equal(o.a_must, 0xf);
	assert_int_equal(o.d_must, 0);
	o = one(&c, 0, TBL | ALL, acc(RULES_WRITE, 3));
	assert_false(o.fault);
	assert_int_equal(o.d_must, 0x8);
}

/* Table 4-18: a PDE with PS=1 maps a 2 MiB page, bits M-1:21 the frame,
 * bit 12 its PAT bit (not part of the address, not reserved) */
static void test_2m_leaf_with_pat_bit(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[3] = { TBL | ALL, TBL | ALL, 0x40000000ull | (1ull << 12) | PS | ALL };
	struct rules_access a = acc(RULES_WRITE, 0);
	struct rules_outcome o;

	(void)state;
	assert_int_equal(rules_predict(&c, ent, 3, &a, &o), 0);
	assert_false(o.fault);
	assert_int_equal(o.walked, 3);
	assert_int_equal(o.leaf, 2);
	assert_int_equal(o.leaf_level, 1);
	assert_int_equal(o.pa, 0x40000000ull + 0x145678ull);
	assert_int_equal(o.a_must, 0x7);
	assert_int_equal(o.d_must, 0x4);
}

/* Table 4-16: a PDPTE with PS=1 maps a 1 GiB page (Page1GB=1), bits
 * M-1:30 the frame, bit 12 PAT */
static void test_1g_leaf(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[2] = { TBL | ALL, 0x1c0000000ull | (1ull << 12) | PS | ALL };
	struct rules_access a = acc(RULES_READ, 0);
	struct rules_outcome o;

	(void)state;
	assert_int_equal(rules_predict(&c, ent, 2, &a, &o), 0);
	assert_false(o.fault);
	assert_int_equal(o.walked, 2);
	assert_int_equal(o.leaf_level, 2);
	assert_int_equal(o.pa, 0x1c0000000ull + 0x12345678ull);
	assert_int_equal(o.d_must, 0);
}

/* Table 4-20: bit 7 of a PTE is PAT, not PS: still a 4 KiB leaf */
static void test_pte_bit7_is_pat(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_outcome o = one(&c, 3, PAGE | PS | ALL, acc(RULES_READ, 0));

	(void)state;
	assert_false(o.fault);
	assert_int_equal(o.pa, 0x12345678ull);
}

/* Table 4-19: bits 20:13 of a PDE that references a table are address
 * bits, not reserved (only a PS=1 PDE reserves them) */
static void test_table_pde_bits_13_20_are_address(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	assert_false(one(&c, 2, 0x1fe000ull | ALL, acc(RULES_READ, 0)).fault);
}

/* 4.5 with 5 levels: five entries, A in all of them */
static void test_5_level_walk(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_outcome o;

	(void)state;
	c.levels = 5;
	o = one(&c, 0, TBL | ALL, acc(RULES_WRITE, 3));
	assert_false(o.fault);
	assert_int_equal(o.walked, 5);
	assert_int_equal(o.leaf, 4);
	assert_int_equal(o.a_must, 0x1f);
	assert_int_equal(o.d_must, 0x10);
}

/* ---- reserved bits, 4.5 and 4.7 (RSVD with P=1) ---- */

/* "Bits 51:MAXPHYADDR are reserved in every paging-structure entry";
 * 4.7 "bit 3 of the error code can be set only if bit 0 is also set" */
static void test_maxphyaddr_bits_every_level(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.maxphyaddr = 40;
	for (unsigned int i = 0; i < 4; i++) {
		expect_fault(one(&c, i, (1ull << 40) | TBL | ALL, acc(RULES_READ, 0)), 0x9, i + 1);
		expect_fault(one(&c, i, (1ull << 51) | TBL | ALL, acc(RULES_WRITE, 3)), 0xf, i + 1);
		/* bit 39 is an address bit with MAXPHYADDR 40 */
		assert_false(one(&c, i, (1ull << 39) | TBL | ALL, acc(RULES_READ, 0)).fault);
	}
	c.maxphyaddr = 52;
	assert_false(one(&c, 3, (1ull << 51) | PAGE | ALL, acc(RULES_READ, 0)).fault);
}

/* Table 4-15: PS of a PML4E "reserved (must be 0)" */
static void test_ps_in_pml4e(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 0, TBL | PS | ALL, acc(RULES_READ, 0)), 0x9, 1);
}

/* Table 4-14: PS of a PML5E reserved too */
static void test_ps_in_pml5e_and_5_level_pml4e(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.levels = 5;
	expect_fault(one(&c, 0, TBL | PS | ALL, acc(RULES_READ, 3)), 0xd, 1);
	expect_fault(one(&c, 1, TBL | PS | ALL, acc(RULES_READ, 3)), 0xd, 2);
}

/* 4.5.4: without 1-GByte pages (CPUID.80000001H:EDX[26]=0) the PS flag of
 * a PDPTE is reserved */
static void test_ps_pdpte_without_page1gb(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[2] = { TBL | ALL, 0x40000000ull | PS | ALL };
	struct rules_access a = acc(RULES_FETCH, 0);
	struct rules_outcome o;

	(void)state;
	c.page1gb = false;
	assert_int_equal(rules_predict(&c, ent, 2, &a, &o), 0);
	expect_fault(o, 0x19, 2);
}

/* Table 4-18: bits 20:13 of a 2 MiB leaf reserved */
static void test_2m_leaf_reserved_13_20(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 2, 0x40000000ull | (1ull << 13) | PS | ALL, acc(RULES_READ, 0)), 0x9, 3);
	expect_fault(one(&c, 2, 0x40000000ull | (1ull << 20) | PS | ALL, acc(RULES_READ, 0)), 0x9, 3);
	/* bit 21 is the frame's lowest bit */
	assert_false(one(&c, 2, 0x40200000ull | PS | ALL, acc(RULES_READ, 0)).fault);
}

/* Table 4-16: bits 29:13 of a 1 GiB leaf reserved */
static void test_1g_leaf_reserved_13_29(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 1, 0x40000000ull | (1ull << 13) | PS | ALL, acc(RULES_READ, 0)), 0x9, 2);
	expect_fault(one(&c, 1, 0x40000000ull | (1ull << 29) | PS | ALL, acc(RULES_READ, 0)), 0x9, 2);
	assert_false(one(&c, 1, 0x40000000ull | (1ull << 12) | PS | ALL, acc(RULES_READ, 0)).fault);
}

/* 4.5: "If IA32_EFER.NXE = 0 ... the XD flag (bit 63) is reserved", at
 * every level; with NXE=1 it is no reserved bit */
static void test_xd_reserved_when_nxe_clear(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.nxe = false;
	for (unsigned int i = 0; i < 4; i++)
		expect_fault(one(&c, i, XD | TBL | ALL, acc(RULES_READ, 3)), 0xd, i + 1);
	c.nxe = true;
	assert_false(one(&c, 0, XD | TBL | ALL, acc(RULES_READ, 3)).fault);
}

/* reserved bits end the walk: a reserved bit in the PDPTE is reported even
 * though the PTE below it is not present (the walk never reads it) */
static void test_reserved_ends_the_walk(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[4] = { TBL | ALL, (1ull << 50) | TBL | ALL, TBL | ALL, 0 };
	struct rules_access a = acc(RULES_READ, 0);
	struct rules_outcome o;

	(void)state;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), 0);
	expect_fault(o, 0x9, 2);
	/* 4.8 leaves A on a faulting walk open: the PML4E may have it set,
	 * the entry with the reserved bit was used for no translation */
	assert_int_equal(o.a_may, 0x1);
}

static void test_rules_reserved_masks(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t addr = 0x000fc00000000000ull;	/* 51:46 */

	(void)state;
	assert_int_equal(rules_reserved(&c, 0, true), addr);
	assert_int_equal(rules_reserved(&c, 1, false), addr);
	assert_int_equal(rules_reserved(&c, 1, true), addr | 0x1fe000ull);
	assert_int_equal(rules_reserved(&c, 2, true), addr | 0x3fffe000ull);
	assert_int_equal(rules_reserved(&c, 2, false), addr);
	assert_int_equal(rules_reserved(&c, 3, false), addr | PS);
	assert_int_equal(rules_reserved(&c, 4, false), addr | PS);
	c.nxe = false;
	c.page1gb = false;
	assert_int_equal(rules_reserved(&c, 0, true), addr | XD);
	assert_int_equal(rules_reserved(&c, 2, true), addr | XD | PS);
}

/* ---- access rights, 4.6.1: U/S, R/W, XD combined over all levels ---- */

/* 4.6.1 "If the U/S flag (bit 2) is 0 in at least one of the
 * paging-structure entries, the address is a supervisor-mode address";
 * user-mode accesses: "Data may not be read from any supervisor-mode
 * address" */
static void test_user_read_us_clear_at_each_level(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t e = (i == 3 ? PAGE : TBL) | P | RW;

		expect_fault(one(&c, i, e, acc(RULES_READ, 3)), 0x5, 4);
		/* a supervisor read of it is allowed */
		assert_false(one(&c, i, e, acc(RULES_READ, 0)).fault);
	}
}

/* 4.6.1 user-mode: "Instructions may not be fetched from any
 * supervisor-mode address" */
static void test_user_fetch_from_supervisor_pde(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 2, TBL | P | RW, acc(RULES_FETCH, 3)), 0x15, 4);
}

/* 5 levels: U/S of the PML5E counts like any other */
static void test_user_read_us_clear_in_pml5e(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.levels = 5;
	expect_fault(one(&c, 0, TBL | P | RW, acc(RULES_READ, 3)), 0x5, 5);
}

/* 4.6.1 user-mode: data may be written to a user-mode address "with a
 * translation for which the R/W flag is 1 in every paging-structure entry" */
static void test_user_write_rw_clear_at_each_level(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t e = (i == 3 ? PAGE : TBL) | P | US;

		expect_fault(one(&c, i, e, acc(RULES_WRITE, 3)), 0x7, 4);
		assert_false(one(&c, i, e, acc(RULES_READ, 3)).fault);
	}
}

/* 4.6.1 supervisor-mode: "If CR0.WP = 0, data may be written to any
 * supervisor-mode address"; with WP=1 only where R/W=1 in every entry */
static void test_supervisor_write_wp(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	assert_false(one(&c, 1, TBL | P, acc(RULES_WRITE, 0)).fault);
	c.wp = true;
	expect_fault(one(&c, 1, TBL | P, acc(RULES_WRITE, 0)), 0x3, 4);
	expect_fault(one(&c, 3, PAGE | P, acc(RULES_WRITE, 0)), 0x3, 4);
}

/* the same for user-mode addresses: with WP=0 a supervisor write to a
 * read-only user page is allowed (SMAP off), with WP=1 it faults */
static void test_supervisor_write_user_page_wp(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	assert_false(one(&c, 3, PAGE | P | US, acc(RULES_WRITE, 1)).fault);
	c.wp = true;
	expect_fault(one(&c, 3, PAGE | P | US, acc(RULES_WRITE, 2)), 0x3, 4);
}

/* 4.6.1: with NXE=1 instructions may be fetched only where "the XD flag
 * (bit 63) is 0 in every paging-structure entry" */
static void test_fetch_xd_at_each_level(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t e = XD | (i == 3 ? PAGE : TBL) | ALL;

		expect_fault(one(&c, i, e, acc(RULES_FETCH, 0)), 0x11, 4);
		expect_fault(one(&c, i, e, acc(RULES_FETCH, 3)), 0x15, 4);
		assert_false(one(&c, i, e, acc(RULES_READ, 3)).fault);
	}
}

/* 4.6.1: "If CR4.SMEP = 1, instructions may not be fetched from any
 * user-mode address"; a supervisor-mode address (one U/S=0) is fine */
static void test_smep(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	assert_false(one(&c, 3, PAGE | ALL, acc(RULES_FETCH, 0)).fault);
	c.smep = true;
	expect_fault(one(&c, 3, PAGE | ALL, acc(RULES_FETCH, 0)), 0x11, 4);
	assert_false(one(&c, 0, TBL | P | RW, acc(RULES_FETCH, 0)).fault);
	/* I/D with SMEP=1 even when NXE=0 */
	c.nxe = false;
	expect_fault(one(&c, 3, PAGE | ALL, acc(RULES_FETCH, 0)), 0x11, 4);
	/* user fetches are not SMEP's concern */
	assert_false(one(&c, 3, PAGE | ALL, acc(RULES_FETCH, 3)).fault);
}

/* 4.6.1 SMAP: "If EFLAGS.AC = 1 and the access is explicit, data may be
 * read from any user-mode address"; "If EFLAGS.AC = 0 or the access is
 * implicit, data may not be read from any user-mode address" */
static void test_smap(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_access imp = acc(RULES_READ, 0);

	(void)state;
	assert_false(one(&c, 3, PAGE | ALL, acc(RULES_READ, 0)).fault);
	c.smap = true;
	expect_fault(one(&c, 3, PAGE | ALL, acc(RULES_READ, 0)), 0x1, 4);
	expect_fault(one(&c, 3, PAGE | ALL, acc(RULES_WRITE, 0)), 0x3, 4);
	c.ac = true;
	assert_false(one(&c, 3, PAGE | ALL, acc(RULES_WRITE, 0)).fault);
	imp.implicit = true;
	expect_fault(one(&c, 3, PAGE | ALL, imp), 0x1, 4);
	/* supervisor-mode addresses and user-mode accesses are untouched */
	c.ac = false;
	assert_false(one(&c, 2, TBL | P | RW, acc(RULES_READ, 0)).fault);
	assert_false(one(&c, 3, PAGE | ALL, acc(RULES_WRITE, 3)).fault);
}

/* 4.6 "implicit supervisor-mode accesses regardless of CPL", 4.7 U/S "if
 * the access ... was a supervisor-mode access, this flag is 0": an implicit
 * access at CPL 3 reads a supervisor page, and faults with U/S=0 */
static void test_implicit_at_cpl3_is_supervisor(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_access imp = acc(RULES_WRITE, 3);

	(void)state;
	imp.implicit = true;
	assert_false(one(&c, 2, TBL | P | RW, imp).fault);
	assert_false(one(&c, 2, TBL | P, imp).fault);	/* WP=0 */
	c.wp = true;
	expect_fault(one(&c, 2, TBL | P, imp), 0x3, 4);
	expect_fault(one(&c, 2, TBL | P | US, imp), 0x3, 4);
	c.smap = true;
	c.ac = true;
	expect_fault(one(&c, 3, PAGE | ALL, imp), 0x3, 4);
}

/* ---- protection keys, 4.6.2; PK of 4.7 ---- */

#define KEY(k)	((uint64_t)(k) << 59)
#define AD(k)	(1u << (2 * (k)))
#define WD(k)	(1u << (2 * (k) + 1))

/* 4.6.2 "If ADi = 1, no data accesses are permitted" to user-mode
 * addresses with key i; 4.7 PK=1 */
static void test_pkey_access_disable(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.pke = true;
	c.pkru = AD(5);
	expect_fault(one(&c, 3, KEY(5) | PAGE | ALL, acc(RULES_READ, 3)), 0x25, 4);
	expect_fault(one(&c, 3, KEY(5) | PAGE | ALL, acc(RULES_READ, 0)), 0x21, 4);
	/* fetches are not affected; other keys are not affected */
	assert_false(one(&c, 3, KEY(5) | PAGE | ALL, acc(RULES_FETCH, 3)).fault);
	assert_false(one(&c, 3, KEY(4) | PAGE | ALL, acc(RULES_READ, 3)).fault);
	/* the key is the leaf's: a key in an upper entry is no key */
	assert_false(one(&c, 2, KEY(5) | TBL | ALL, acc(RULES_READ, 3)).fault);
	/* a supervisor-mode address has no protection key (PKS aside) */
	assert_false(one(&c, 1, TBL | P | RW, acc(RULES_READ, 0)).fault);
	/* CR4.PKE = 0: "does not use the access-control mechanism" */
	c.pke = false;
	assert_false(one(&c, 3, KEY(5) | PAGE | ALL, acc(RULES_READ, 3)).fault);
}

/* 4.6.2 WDi=1: writes forbidden for user-mode accesses, and for
 * supervisor-mode accesses only with CR0.WP = 1 */
static void test_pkey_write_disable(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.pke = true;
	c.pkru = WD(15);
	expect_fault(one(&c, 3, KEY(15) | PAGE | ALL, acc(RULES_WRITE, 3)), 0x27, 4);
	assert_false(one(&c, 3, KEY(15) | PAGE | ALL, acc(RULES_READ, 3)).fault);
	assert_false(one(&c, 3, KEY(15) | PAGE | ALL, acc(RULES_WRITE, 0)).fault);
	c.wp = true;
	expect_fault(one(&c, 3, KEY(15) | PAGE | ALL, acc(RULES_WRITE, 0)), 0x23, 4);
}

/* 4.7 PK is 1 when 4.6.2's conditions hold, also when R/W forbids the
 * write as well: a user write to a read-only page with WD=1 */
static void test_pk_bit_with_rw_violation(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	c.pke = true;
	c.pkru = WD(1);
	expect_fault(one(&c, 3, KEY(1) | PAGE | P | US, acc(RULES_WRITE, 3)), 0x27, 4);
	c.pkru = 0;
	expect_fault(one(&c, 3, KEY(1) | PAGE | P | US, acc(RULES_WRITE, 3)), 0x7, 4);
}


/* 4.6.1 "accesses made while CPL < 3 are supervisor-mode accesses": CPL 1
 * and 2 read a supervisor page and fault with U/S=0 where CPL 3 would not */
static void test_cpl1_and_2_are_supervisor(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	assert_false(one(&c, 1, TBL | P | RW, acc(RULES_READ, 1)).fault);
	c.smap = true;
	expect_fault(one(&c, 3, PAGE | ALL, acc(RULES_READ, 2)), 0x1, 4);
}

/* 4.6.1 with a 2 MiB leaf: U/S and R/W of the leaf PDE and the entries
 * above it, nothing below (the walk ends at the PDE) */
static void test_2m_leaf_rights(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[3] = { TBL | ALL, TBL | ALL, 0x40000000ull | PS | P | US };
	struct rules_access a = acc(RULES_WRITE, 3);
	struct rules_outcome o;

	(void)state;
	assert_int_equal(rules_predict(&c, ent, 3, &a, &o), 0);
	expect_fault(o, 0x7, 3);
	ent[2] |= RW;
	ent[0] &= ~US;
	assert_int_equal(rules_predict(&c, ent, 3, &a, &o), 0);
	expect_fault(o, 0x7, 3);
}

/* 4.6.2: the key is in "bits 62:59 of the paging-structure entry that
 * mapped the page": a 1 GiB leaf's key */
static void test_pkey_of_a_1g_leaf(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[2] = { TBL | ALL, KEY(9) | 0x40000000ull | PS | ALL };
	struct rules_access a = acc(RULES_READ, 3);
	struct rules_outcome o;

	(void)state;
	c.pke = true;
	c.pkru = AD(9);
	assert_int_equal(rules_predict(&c, ent, 2, &a, &o), 0);
	expect_fault(o, 0x25, 2);
}

/* 4.7: RSVD faults carry W/R, U/S and I/D of the access like any other */
static void test_rsvd_error_code_access_bits(void **state)
{
	struct rules_ctl c = ctl4();

	(void)state;
	expect_fault(one(&c, 3, (1ull << 48) | PAGE | ALL, acc(RULES_FETCH, 3)), 0x1d, 4);
	expect_fault(one(&c, 3, (1ull << 48) | PAGE | ALL, acc(RULES_WRITE, 0)), 0xb, 4);
}

/* 4.8 and 4.6: a user write that succeeds sets D in the leaf only; with 5
 * levels a U/S=0 PML4E (the second entry) makes a supervisor address */
static void test_5_level_pml4e_us_and_dirty(void **state)
{
	struct rules_ctl c = ctl4();
	struct rules_outcome o;

	(void)state;
	c.levels = 5;
	expect_fault(one(&c, 1, TBL | P | RW, acc(RULES_WRITE, 3)), 0x7, 5);
	o = one(&c, 1, TBL | P | RW, acc(RULES_WRITE, 0));
	assert_false(o.fault);
	assert_int_equal(o.d_must, 0x10);
	assert_int_equal(o.a_may, 0x1f);
}

/* ---- the walk's arguments ---- */

static void test_bad_arguments_leave_out_untouched(void **state)
{
	struct rules_ctl c = ctl4();
	uint64_t ent[4] = { TBL | ALL, TBL | ALL, TBL | ALL, PAGE | ALL };
	struct rules_access a = acc(RULES_READ, 0);
	struct rules_outcome o, before;

	(void)state;
	memset(&o, 0xa5, sizeof(o));
	before = o;
	c.levels = 3;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), RULES_EINVAL);
	c = ctl4();
	c.maxphyaddr = 35;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), RULES_EINVAL);
	c = ctl4();
	a.cpl = 4;
	assert_int_equal(rules_predict(&c, ent, 4, &a, &o), RULES_EINVAL);
	a.cpl = 0;
	/* a 4 KiB walk needs four entries */
	assert_int_equal(rules_predict(&c, ent, 3, &a, &o), RULES_EINVAL);
	assert_memory_equal(&o, &before, sizeof(o));
	/* fewer entries are fine where the walk ends earlier */
	ent[1] = 0;
	assert_int_equal(rules_predict(&c, ent, 2, &a, &o), 0);
	expect_fault(o, 0x0, 2);
	assert_int_equal(o.a_may, 0x1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noncanonical_4_levels_is_gp),
		cmocka_unit_test(test_noncanonical_5_levels_is_gp),
		cmocka_unit_test(test_not_present_at_each_level),
		cmocka_unit_test(test_not_present_user_write),
		cmocka_unit_test(test_not_present_fetch_id_bit),
		cmocka_unit_test(test_reserved_bits_of_a_not_present_entry_ignored),
		cmocka_unit_test(test_4k_read_and_write_translate),
		cmocka_unit_test(test_2m_leaf_with_pat_bit),
		cmocka_unit_test(test_1g_leaf),
		cmocka_unit_test(test_pte_bit7_is_pat),
		cmocka_unit_test(test_table_pde_bits_13_20_are_address),
		cmocka_unit_test(test_5_level_walk),
		cmocka_unit_test(test_maxphyaddr_bits_every_level),
		cmocka_unit_test(test_ps_in_pml4e),
		cmocka_unit_test(test_ps_in_pml5e_and_5_level_pml4e),
		cmocka_unit_test(test_ps_pdpte_without_page1gb),
		cmocka_unit_test(test_2m_leaf_reserved_13_20),
		cmocka_unit_test(test_1g_leaf_reserved_13_29),
		cmocka_unit_test(test_xd_reserved_when_nxe_clear),
		cmocka_unit_test(test_reserved_ends_the_walk),
		cmocka_unit_test(test_rules_reserved_masks),
		cmocka_unit_test(test_user_read_us_clear_at_each_level),
		cmocka_unit_test(test_user_fetch_from_supervisor_pde),
		cmocka_unit_test(test_user_read_us_clear_in_pml5e),
		cmocka_unit_test(test_user_write_rw_clear_at_each_level),
		cmocka_unit_test(test_supervisor_write_wp),
		cmocka_unit_test(test_supervisor_write_user_page_wp),
		cmocka_unit_test(test_fetch_xd_at_each_level),
		cmocka_unit_test(test_smep),
		cmocka_unit_test(test_smap),
		cmocka_unit_test(test_implicit_at_cpl3_is_supervisor),
		cmocka_unit_test(test_pkey_access_disable),
		cmocka_unit_test(test_pkey_write_disable),
		cmocka_unit_test(test_pk_bit_with_rw_violation),
		cmocka_unit_test(test_cpl1_and_2_are_supervisor),
		cmocka_unit_test(test_2m_leaf_rights),
		cmocka_unit_test(test_pkey_of_a_1g_leaf),
		cmocka_unit_test(test_rsvd_error_code_access_bits),
		cmocka_unit_test(test_5_level_pml4e_us_and_dirty),
		cmocka_unit_test(test_bad_arguments_leave_out_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
