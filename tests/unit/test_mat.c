/* SPDX-License-Identifier: MIT */
/* covers: paging/mat.c */
/*
 * paging/mat.c: synthetic Memory Attributes Tables shaped like OVMF's (a
 * runtime driver image split into RX text and RW+NX data, runtime data
 * RW+NX), then every way a table can be malformed.  Tables are built in
 * buffers of exactly the size the test states, so a read past the end is
 * an ASan error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/mat.h>
#include <ptlab/memmap.h>
#include <ptlab/pt.h>
#include "lib/le.h"

#define RT  PT_EFI_MEMORY_RUNTIME
#define RO  PT_EFI_MEMORY_RO
#define XP  PT_EFI_MEMORY_XP
#define RP  PT_EFI_MEMORY_RP

struct desc {
	uint32_t type;
	uint64_t pa, pages, attr;
};

/*
 * A table of @n descriptors of @size bytes, version @version, in a
 * malloc'd buffer of exactly its size (plus @offset leading bytes, so the
 * table itself can start unaligned).  Padding bytes in each descriptor are
 * filled with 0xa5 to show they are skipped.
 */
static uint8_t *table(uint32_t version, uint32_t size, const struct desc *d,
		      unsigned n, size_t offset, size_t *len)
{
	uint8_t *buf, *t;
	unsigned i;

	*len = PT_MAT_HEADER_SIZE + (size_t)n * size;
	/* 40 spare bytes: descriptors smaller than their fields are built too */
	buf = malloc(*len + offset + 40);
	assert_non_null(buf);
	t = buf + offset;
	memset(t, 0xa5, *len);
	le_stn(t, 4, version);
	le_stn(t + 4, 4, n);
	le_stn(t + 8, 4, size);
	le_stn(t + 12, 4, version == 2 ? 1 : 0);
	for (i = 0; i < n; i++) {
		uint8_t *e = t + PT_MAT_HEADER_SIZE + (size_t)i * size;

		le_stn(e, 4, d[i].type);
		le_stn(e + 4, 4, 0);
		le_stn(e + 8, 8, d[i].pa);
		le_stn(e + 16, 8, 0);
		le_stn(e + 24, 8, d[i].pages);
		le_stn(e + 32, 8, d[i].attr);
	}
	/* shrink to the exact size so ASan sees any overread */
	t = malloc(*len ? *len : 1);
	assert_non_null(t);
	memcpy(t, buf + offset, *len);
	free(buf);
	return t;
}

/* OVMF-like: one runtime driver (header+text RX, data RW+NX) and runtime data. */
static const struct desc ovmf[] = {
	{ PT_EFI_RT_DATA, 0x7f8ec000, 4, RT | XP },        /* image header */
	{ PT_EFI_RT_CODE, 0x7f8f0000, 12, RT | RO },       /* .text: RX */
	{ PT_EFI_RT_DATA, 0x7f8fc000, 3, RT | XP },        /* .data: RW+NX */
	{ PT_EFI_RT_DATA, 0x7f900000, 0x40, RT | XP },     /* runtime pool */
};

static int parse(const uint8_t *t, size_t len, unsigned maxphy, struct pt_mat *m,
		 struct pt_mat_range *r, unsigned cap)
{
	memset(m, 0, sizeof(*m));
	m->range = r;
	m->cap = cap;
	return pt_mat_parse(t, len, maxphy, m);
}

static void test_mat_ovmf_like_table_gives_rx_text_and_rw_nx_data(void **state)
{
	struct pt_mat_range r[8];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 48, ovmf, 4, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 8), PT_OK);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.version, 1);
	assert_int_equal(m.desc_size, 48);
	assert_int_equal(m.rwx, 0);
	assert_int_equal(m.rp, 0);
	assert_int_equal(r[0].pa, 0x7f8ec000);
	assert_int_equal(r[0].len, 4 * 4096);
	assert_int_equal(r[0].flags, PT_WRITE);
	assert_int_equal(r[1].type, PT_EFI_RT_CODE);
	assert_int_equal(r[1].flags, PT_EXEC);
	assert_int_equal(r[1].len, 12 * 4096);
	assert_false(r[1].rwx);
	assert_int_equal(r[2].flags, PT_WRITE);
	assert_int_equal(r[3].flags, PT_WRITE);
	assert_int_equal(r[3].attr, RT | XP);
	free(t);
}

static void test_mat_rwx_entry_is_reported_not_allowed(void **state)
{
	const struct desc d[] = {
		{ PT_EFI_RT_CODE, 0x100000, 1, RT },
		{ PT_EFI_RT_CODE, 0x101000, 1, RT | RO | XP },
		{ PT_EFI_RT_DATA, 0x102000, 2, RT | RP | XP },
	};
	struct pt_mat_range r[3];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 40, d, 3, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 3), PT_OK);
	assert_true(r[0].rwx);
	assert_int_equal(r[0].flags, PT_WRITE | PT_EXEC);
	assert_int_equal(r[0].flags & PT_ALLOW_WX, 0);
	assert_false(r[1].rwx);
	assert_int_equal(r[1].flags, 0);
	assert_true(r[2].rp);
	assert_false(r[2].rwx);
	assert_int_equal(r[2].flags, 0);
	assert_int_equal(m.rwx, 1);
	assert_int_equal(m.rp, 1);
	free(t);

	/* a refused table afterwards leaves no count of the earlier one behind */
	t = table(0, 40, d, 3, 0, &len);
	assert_int_equal(pt_mat_parse(t, len, 46, &m), PT_EMAPBAD);
	assert_int_equal(m.why, PT_MAT_VERSION);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.rwx, 0);
	assert_int_equal(m.rp, 0);
	free(t);
}

static void test_mat_descriptor_sizes_and_unaligned_buffer(void **state)
{
	static const uint32_t sizes[] = { 40, 48, 56, 64, 4096 };
	struct pt_mat_range r[4];
	struct pt_mat m;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len;
		uint8_t *t = table(1, sizes[i], ovmf, 4, i, &len);

		assert_int_equal(parse(t, len, 46, &m, r, 4), PT_OK);
		assert_int_equal(m.n, 4);
		assert_int_equal(r[1].pa, 0x7f8f0000);
		assert_int_equal(r[3].len, 0x40 * 4096);
		free(t);
	}
}

static void test_mat_version_2_flags_are_kept(void **state)
{
	struct pt_mat_range r[4];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(2, 48, ovmf, 4, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 4), PT_OK);
	assert_int_equal(m.version, 2);
	assert_int_equal(m.flags, 1);
	free(t);
}

static void test_mat_empty_table_is_fine(void **state)
{
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 48, NULL, 0, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, NULL, 0), PT_OK);
	assert_int_equal(m.n, 0);
	assert_null(pt_mat_find(&m, 0x1000));
	free(t);
}

/* Expect PT_EMAPBAD for @why at @index, and n == 0. */
static void expect_bad(const struct desc *d, unsigned n, uint32_t version, uint32_t size,
		       size_t cut, unsigned maxphy, enum pt_mat_why why, unsigned index)
{
	struct pt_mat_range r[8];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(version, size, d, n, 0, &len);

	assert_int_equal(parse(t, len - cut, maxphy, &m, r, 8), PT_EMAPBAD);
	assert_int_equal(m.why, why);
	assert_int_equal(m.bad_index, index);
	assert_int_equal(m.n, 0);
	free(t);
}

static void test_mat_rejects_bad_headers(void **state)
{
	struct pt_mat m;
	uint8_t hdr[15] = { 1 };

	(void)state;
	assert_int_equal(parse(hdr, sizeof(hdr), 46, &m, NULL, 0), PT_EMAPBAD);
	assert_int_equal(m.why, PT_MAT_SHORT);
	expect_bad(ovmf, 4, 0, 48, 0, 46, PT_MAT_VERSION, 0);
	expect_bad(ovmf, 4, 3, 48, 0, 46, PT_MAT_VERSION, 0);
	expect_bad(ovmf, 4, 1, 32, 0, 46, PT_MAT_DESC_SIZE, 0);
	expect_bad(ovmf, 4, 1, 44, 0, 46, PT_MAT_DESC_SIZE, 0);
	expect_bad(ovmf, 4, 1, 4104, 0, 46, PT_MAT_DESC_SIZE, 0);
	/* one byte short of the last entry */
	expect_bad(ovmf, 4, 1, 48, 1, 46, PT_MAT_SHORT, 0);
}

static void test_mat_rejects_huge_count_without_reading(void **state)
{
	uint8_t hdr[16];
	struct pt_mat m;

	(void)state;
	le_stn(hdr, 4, 1);
	le_stn(hdr + 4, 4, PT_MEMMAP_MAX_DESC + 1);
	le_stn(hdr + 8, 4, 48);
	le_stn(hdr + 12, 4, 0);
	assert_int_equal(parse(hdr, sizeof(hdr), 46, &m, NULL, 0), PT_EMAPBAD);
	assert_int_equal(m.why, PT_MAT_COUNT);
	le_stn(hdr + 4, 4, 0xffffffff);
	assert_int_equal(parse(hdr, sizeof(hdr), 46, &m, NULL, 0), PT_EMAPBAD);
	/* a count that fits the limit but not the bytes */
	le_stn(hdr + 4, 4, 2);
	assert_int_equal(parse(hdr, sizeof(hdr), 46, &m, NULL, 0), PT_EMAPBAD);
	assert_int_equal(m.why, PT_MAT_SHORT);
}

static void test_mat_rejects_bad_entries_and_names_the_entry(void **state)
{
	struct desc d[4];

	(void)state;
	memcpy(d, ovmf, sizeof(d));
	d[2].type = PT_EFI_CONVENTIONAL;
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_TYPE, 2);

	memcpy(d, ovmf, sizeof(d));
	d[1].pa += 0x800;
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_UNALIGNED, 1);

	memcpy(d, ovmf, sizeof(d));
	d[3].pages = 0;
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_EMPTY, 3);

	memcpy(d, ovmf, sizeof(d));
	d[3].pa = UINT64_C(0xfffffffffff00000);
	d[3].pages = 0x100;     /* ends exactly at 2^64 */
	expect_bad(d, 4, 1, 48, 0, 52, PT_MAT_WRAP, 3);
	d[3].pages = UINT64_C(1) << 60;
	expect_bad(d, 4, 1, 48, 0, 52, PT_MAT_WRAP, 3);

	memcpy(d, ovmf, sizeof(d));
	d[3].pa = UINT64_C(0x3ffffffff000);
	d[3].pages = 2;         /* crosses 2^46 */
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_ABOVE_MAXPHYS, 3);

	memcpy(d, ovmf, sizeof(d));
	d[2].pa = ovmf[1].pa + 11 * 4096;   /* overlaps the last text page */
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_ORDER, 2);

	memcpy(d, ovmf, sizeof(d));
	d[0] = ovmf[1];
	d[1] = ovmf[0];         /* descending */
	expect_bad(d, 4, 1, 48, 0, 46, PT_MAT_ORDER, 1);
}

static void test_mat_ends_at_maxphyaddr_is_fine(void **state)
{
	const struct desc d[] = { { PT_EFI_RT_DATA, UINT64_C(0x3ffffffff000), 1, RT | XP } };
	struct pt_mat_range r[1];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 48, d, 1, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 1), PT_OK);
	assert_int_equal(parse(t, len, 45, &m, r, 1), PT_EMAPBAD);
	free(t);
}

static void test_mat_capacity_and_arguments(void **state)
{
	struct pt_mat_range r[3];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 48, ovmf, 4, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 3), PT_ECAPACITY);
	assert_int_equal(m.n, 0);
	assert_int_equal(parse(t, len, 31, &m, r, 3), PT_EINVAL);
	assert_int_equal(parse(t, len, 53, &m, r, 3), PT_EINVAL);
	assert_int_equal(parse(NULL, len, 46, &m, r, 3), PT_EINVAL);
	assert_int_equal(pt_mat_parse(t, len, 46, NULL), PT_EINVAL);
	free(t);
}

static void test_mat_find(void **state)
{
	struct pt_mat_range r[4];
	struct pt_mat m;
	size_t len;
	uint8_t *t = table(1, 48, ovmf, 4, 0, &len);

	(void)state;
	assert_int_equal(parse(t, len, 46, &m, r, 4), PT_OK);
	assert_ptr_equal(pt_mat_find(&m, 0x7f8ec000), &r[0]);
	assert_ptr_equal(pt_mat_find(&m, 0x7f8effff), &r[0]);
	assert_ptr_equal(pt_mat_find(&m, 0x7f8f0000), &r[1]);
	assert_ptr_equal(pt_mat_find(&m, 0x7f8fbfff), &r[1]);
	assert_ptr_equal(pt_mat_find(&m, 0x7f8fc123), &r[2]);
	assert_null(pt_mat_find(&m, 0x7f8ff000));   /* gap before the pool */
	assert_ptr_equal(pt_mat_find(&m, 0x7f93ffff), &r[3]);
	assert_null(pt_mat_find(&m, 0x7f940000));
	assert_null(pt_mat_find(&m, 0));
	free(t);
}

static void test_mat_why_names(void **state)
{
	(void)state;
	assert_string_equal(pt_mat_why_name(PT_MAT_ORDER), "order");
	assert_string_equal(pt_mat_why_name(PT_MAT_SHORT), "short");
	assert_string_equal(pt_mat_why_name(PT_MAT_WHY_COUNT), "?");
	assert_string_equal(pt_mat_why_name((enum pt_mat_why)-1), "?");
}

UNIT_MAIN(
	cmocka_unit_test(test_mat_ovmf_like_table_gives_rx_text_and_rw_nx_data),
	cmocka_unit_test(test_mat_rwx_entry_is_reported_not_allowed),
	cmocka_unit_test(test_mat_descriptor_sizes_and_unaligned_buffer),
	cmocka_unit_test(test_mat_version_2_flags_are_kept),
	cmocka_unit_test(test_mat_empty_table_is_fine),
	cmocka_unit_test(test_mat_rejects_bad_headers),
	cmocka_unit_test(test_mat_rejects_huge_count_without_reading),
	cmocka_unit_test(test_mat_rejects_bad_entries_and_names_the_entry),
	cmocka_unit_test(test_mat_ends_at_maxphyaddr_is_fine),
	cmocka_unit_test(test_mat_capacity_and_arguments),
	cmocka_unit_test(test_mat_find),
	cmocka_unit_test(test_mat_why_names))
