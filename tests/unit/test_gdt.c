/* SPDX-License-Identifier: MIT */
/* covers: efi/cpu/gdt.c */
/*
 * efi/cpu/gdt.c: finding a firmware's busy TSS and the writable GDT copy that
 * lets ltr reload it, on tables in ordinary memory.  The firmware's table
 * must never be written (it may be in flash).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/cpu/gdt.h"

#define CODE64	UINT64_C(0x00af9a000000ffff)
#define DATA	UINT64_C(0x00cf92000000ffff)

/* A 64-bit TSS descriptor (two slots) with type @type (0x89 or 0x8b). */
static void tss_desc(uint64_t *slot, uint64_t base, uint8_t type)
{
	slot[0] = 0x67 | ((base & 0xffffff) << 16) | ((uint64_t)type << 40) |
		  (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

static struct desc_ptr ptr(const void *t, unsigned int entries)
{
	return (struct desc_ptr){ (uint16_t)(8 * entries - 1), (uint64_t)(uintptr_t)t };
}

static void test_busy_tss_found(void **state)
{
	uint64_t g[8] = { 0, CODE64, DATA, 0, 0, 0, 0, 0 };
	struct desc_ptr d = ptr(g, 8);

	(void)state;
	tss_desc(&g[4], UINT64_C(0x123456789000), 0x8b);
	assert_true(cpu_gdt_has_busy_tss(&d, 0x20));
	assert_true(cpu_gdt_has_busy_tss(&d, 0x23));	/* RPL ignored */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x24));	/* TI: the LDT */
	assert_false(cpu_gdt_has_busy_tss(&d, 0));	/* no TSS ever loaded */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x08));	/* code */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x10));	/* data */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x30));	/* empty */
	d.limit = 0x2e;					/* upper half beyond the limit */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x20));
	tss_desc(&g[4], 0x9000, 0x89);			/* available, not busy */
	d.limit = 63;
	assert_false(cpu_gdt_has_busy_tss(&d, 0x20));
	tss_desc(&g[4], 0x9000, 0x0b);			/* not present */
	assert_false(cpu_gdt_has_busy_tss(&d, 0x20));
}

static void test_copy_clears_busy_in_the_copy_only(void **state)
{
	uint64_t g[8] = { 0, CODE64, DATA, 0, 0, 0, 0, 0 }, before[8], scratch[16];
	struct desc_ptr d = ptr(g, 8), c = { 0, 0 };

	(void)state;
	tss_desc(&g[3], UINT64_C(0xfffff000deadb000), 0x8b);
	memcpy(before, g, sizeof(g));
	memset(scratch, 0xee, sizeof(scratch));
	assert_true(cpu_gdt_copy_for_ltr(&d, 0x18, scratch, sizeof(scratch), &c));
	assert_memory_equal(g, before, sizeof(g));	/* firmware table untouched */
	assert_int_equal(c.base, (uint64_t)(uintptr_t)scratch);
	assert_int_equal(c.limit, 0x27);		/* up to the TSS's upper half */
	assert_memory_equal(scratch, g, 3 * 8);
	assert_int_equal(scratch[3], g[3] & ~(UINT64_C(2) << 40));	/* type 0xB -> 0x9 */
	assert_int_equal(scratch[4], g[4]);
	assert_int_equal(scratch[5], UINT64_C(0xeeeeeeeeeeeeeeee));	/* nothing beyond */
	assert_false(cpu_gdt_has_busy_tss(&c, 0x18));
	assert_true(cpu_gdt_has_busy_tss(&d, 0x18));
}

static void test_copy_refuses_what_cannot_work(void **state)
{
	uint64_t g[8] = { 0, CODE64, DATA, 0, 0, 0, 0, 0 }, scratch[4];
	struct desc_ptr d = ptr(g, 8), c = { 0x1234, 0x5678 };

	(void)state;
	tss_desc(&g[4], 0x9000, 0x8b);
	memset(scratch, 0xee, sizeof(scratch));
	/* 0x20 + 16 bytes do not fit into 32 */
	assert_false(cpu_gdt_copy_for_ltr(&d, 0x20, scratch, sizeof(scratch), &c));
	assert_false(cpu_gdt_copy_for_ltr(&d, 0, scratch, sizeof(scratch), &c));
	assert_false(cpu_gdt_copy_for_ltr(&d, 0x24, scratch, sizeof(scratch), &c));
	assert_false(cpu_gdt_copy_for_ltr(&d, 0x20, NULL, 4096, &c));
	d.limit = 0x27;
	assert_false(cpu_gdt_copy_for_ltr(&d, 0x20, scratch, sizeof(scratch), &c));
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(scratch[i], UINT64_C(0xeeeeeeeeeeeeeeee));
	assert_int_equal(c.limit, 0x1234);
	assert_int_equal(c.base, 0x5678);
}

static void test_largest_gdt(void **state)
{
	static uint64_t g[CPU_GDT_MAX_ENTRIES], scratch[CPU_GDT_MAX_ENTRIES];
	struct desc_ptr d = ptr(g, CPU_GDT_MAX_ENTRIES), c;
	uint16_t last = (uint16_t)(8 * (CPU_GDT_MAX_ENTRIES - 2));

	(void)state;
	assert_int_equal(d.limit, 0xffff);
	tss_desc(&g[CPU_GDT_MAX_ENTRIES - 2], 0x1000, 0x8b);
	assert_true(cpu_gdt_has_busy_tss(&d, last));
	assert_true(cpu_gdt_copy_for_ltr(&d, last, scratch, sizeof(scratch), &c));
	assert_int_equal(c.limit, 0xffff);
	assert_false(cpu_gdt_has_busy_tss(&c, last));
}

UNIT_MAIN(
	cmocka_unit_test(test_busy_tss_found),
	cmocka_unit_test(test_copy_clears_busy_in_the_copy_only),
	cmocka_unit_test(test_copy_refuses_what_cannot_work),
	cmocka_unit_test(test_largest_gdt))
