/* SPDX-License-Identifier: MIT */
/* covers: paging/plan.c */
/*
 * Host tests of the plan's hand-off attributes (paging/plan.c with
 * pt_plan_caps.boot_services_gone, .mat and .extra): boot-services code
 * becomes RW+NX RAM, runtime ranges take the Memory Attributes Table's
 * permissions piece by piece (RWX without a table: the one exemption), and
 * a framebuffer outside the map is identity and HHDM mapped write-combining.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include <ptlab/mat.h>
#include <ptlab/plan.h>

#include "planfx.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M

static const struct pt_mem_range ranges[] = {
	{ 0x00100000, 0x00700000, PT_EFI_CONVENTIONAL, 0 },
	{ 0x00800000, 0x00200000, PT_EFI_BS_CODE, 0 },
	{ 0x00a00000, 0x00010000, PT_EFI_RT_CODE, 0 },
	{ 0x00a10000, 0x00010000, PT_EFI_RT_DATA, 0 },
	{ 0x00a20000, 0x001e0000, PT_EFI_BS_DATA, 0 },
	{ 0xb0000000, 0x10000000, PT_EFI_MMIO, 0 },
};

struct fx {
	struct plan_fx p;          /* the map above, room for the plan, the caps */
	struct pt_mat_range mr[4];
	struct pt_mat mat;
};

static void fx_init(struct fx *x)
{
	memset(x, 0, sizeof(*x));
	plan_fx_init(&x->p, ranges, sizeof(ranges) / sizeof(ranges[0]), true, 4);
	x->p.caps.maxphyaddr = 40;
	/* runtime code: text RX then data RW+NX; runtime data RW+NX */
	x->mr[0] = (struct pt_mat_range){ .pa = 0xa00000, .len = 0xc000, .flags = PT_EXEC,
					  .type = PT_EFI_RT_CODE };
	x->mr[1] = (struct pt_mat_range){ .pa = 0xa0c000, .len = 0x4000, .flags = PT_WRITE,
					  .type = PT_EFI_RT_CODE };
	x->mr[2] = (struct pt_mat_range){ .pa = 0xa10000, .len = 0x10000, .flags = PT_WRITE,
					  .type = PT_EFI_RT_DATA };
	x->mat.range = x->mr;
	x->mat.cap = 4;
	x->mat.n = 3;
}

/* Flags the plan gives @va (identity or HHDM); -1 when nothing maps it. */
static int flags_at(const struct fx *x, uint64_t va)
{
	const struct pt_plan_entry *e = pt_plan_find(&x->p.plan, va);

	return e ? (int)(e->flags & PT_ATTR_MASK) : -1;
}

/* The plan after hand-off, with the attributes table when @with_mat. */
static void build_handoff(struct fx *x, bool with_mat)
{
	fx_init(x);
	x->p.caps.boot_services_gone = true;
	x->p.caps.mat = with_mat ? &x->mat : NULL;
	assert_int_equal(pt_plan_build(&x->p.map, NULL, &x->p.caps, &x->p.plan), PT_OK);
}

static void test_firmware_mode_keeps_boot_services_code_executable(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_OK);
	assert_int_equal(flags_at(&x, 0x800000), PT_EXEC);
	assert_int_equal(flags_at(&x, 0xa00000), PT_EXEC);
	assert_int_equal(flags_at(&x, 0xa0c000), PT_EXEC);
}

static void test_after_handoff_boot_services_code_is_ram(void **state)
{
	struct fx x;

	(void)state;
	build_handoff(&x, true);
	assert_int_equal(flags_at(&x, 0x800000), PT_WRITE);
	assert_int_equal(flags_at(&x, PT_HHDM_BASE + 0x9ff000), PT_WRITE);
	/* conventional and boot-services memory merge into one RW+NX entry */
	assert_int_equal(pt_plan_find(&x.p.plan, 0x800000)->va, 0x100000);
}

static void test_runtime_ranges_follow_the_attributes_table(void **state)
{
	struct fx x;

	(void)state;
	build_handoff(&x, true);
	assert_int_equal(flags_at(&x, 0xa00000), PT_EXEC);
	assert_int_equal(flags_at(&x, 0xa0b000), PT_EXEC);
	assert_int_equal(flags_at(&x, 0xa0c000), PT_WRITE);
	assert_int_equal(flags_at(&x, 0xa10000), PT_WRITE);
	assert_int_equal(flags_at(&x, PT_HHDM_BASE + 0xa0c000), PT_WRITE);
	assert_int_equal(flags_at(&x, PT_HHDM_BASE + 0xa0b000), PT_EXEC);
	for (unsigned i = 0; i < x.p.plan.n; i++)
		assert_false((x.p.entry[i].flags & PT_WRITE) && (x.p.entry[i].flags & PT_EXEC));
}

static void test_runtime_code_without_table_is_the_rwx_exemption(void **state)
{
	struct fx x;
	unsigned rwx = 0;

	(void)state;
	build_handoff(&x, false);
	assert_int_equal(flags_at(&x, 0xa0c000), PT_WRITE | PT_EXEC);
	assert_int_equal(flags_at(&x, 0xa10000), PT_WRITE);
	for (unsigned i = 0; i < x.p.plan.n; i++) {
		if ((x.p.entry[i].flags & PT_WRITE) && (x.p.entry[i].flags & PT_EXEC)) {
			assert_true(x.p.entry[i].flags & PT_ALLOW_WX);
			assert_int_equal(x.p.entry[i].efi_type, PT_EFI_RT_CODE);
			rwx++;
		}
	}
	assert_int_equal(rwx, 2);   /* identity and HHDM */
}

static void test_framebuffer_outside_the_map_is_write_combining(void **state)
{
	struct fx x;
	const struct pt_plan_entry *e;
	uint64_t fb = 0xc0000000;

	(void)state;
	fx_init(&x);
	x.p.caps.boot_services_gone = true;
	x.p.caps.nextra = 1;
	x.p.caps.extra[0] = (struct pt_plan_extra){ fb, 4 * M2, PT_WRITE | PT_CACHE(PT_CACHE_WC) };
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_OK);
	e = pt_plan_find(&x.p.plan, fb + 5 * K4);
	assert_non_null(e);
	assert_int_equal(e->kind, PT_PLAN_IDENTITY);
	assert_int_equal(PT_CACHE_OF(e->flags), PT_CACHE_WC);
	e = pt_plan_find(&x.p.plan, PT_HHDM_BASE + fb);
	assert_non_null(e);
	assert_int_equal(e->kind, PT_PLAN_HHDM);
	/* still sorted: the framebuffer lies between the low RAM and nothing else */
	for (unsigned i = 1; i < x.p.plan.n; i++)
		assert_true(x.p.entry[i - 1].va + x.p.entry[i - 1].len <= x.p.entry[i].va);
	/* an extra range overlapping the map is refused */
	x.p.caps.extra[0].pa = 0xb0000000;
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_EINVAL);
	assert_int_equal(x.p.plan.n, 0);
	x.p.caps.extra[0] = (struct pt_plan_extra){ fb, 4 * M2, PT_WRITE | PT_EXEC };
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_EINVAL);
}

/* Up to PT_PLAN_MAX_EXTRA extra ranges, each mapped; one more is refused. */
static void test_extra_ranges_up_to_the_maximum(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x);
	x.p.caps.boot_services_gone = true;
	x.p.caps.nextra = PT_PLAN_MAX_EXTRA;
	for (unsigned i = 0; i < PT_PLAN_MAX_EXTRA; i++)
		x.p.caps.extra[i] = (struct pt_plan_extra){ 0xc0000000 + i * 4 * M2, M2,
							  PT_WRITE | PT_CACHE(PT_CACHE_WC) };
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_OK);
	for (unsigned i = 0; i < PT_PLAN_MAX_EXTRA; i++)
		assert_non_null(pt_plan_find(&x.p.plan, x.p.caps.extra[i].pa));
	x.p.caps.nextra = PT_PLAN_MAX_EXTRA + 1;
	assert_int_equal(pt_plan_build(&x.p.map, NULL, &x.p.caps, &x.p.plan), PT_EINVAL);
	assert_int_equal(x.p.plan.n, 0);
}

UNIT_MAIN(
	cmocka_unit_test(test_firmware_mode_keeps_boot_services_code_executable),
	cmocka_unit_test(test_after_handoff_boot_services_code_is_ram),
	cmocka_unit_test(test_runtime_ranges_follow_the_attributes_table),
	cmocka_unit_test(test_runtime_code_without_table_is_the_rwx_exemption),
	cmocka_unit_test(test_framebuffer_outside_the_map_is_write_combining),
	cmocka_unit_test(test_extra_ranges_up_to_the_maximum))
