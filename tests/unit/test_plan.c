// SPDX-License-Identifier: MIT
/* covers: paging/memmap.c paging/plan.c */
/*
 * Host tests for paging/plan.c.
 *
 * The memory maps are hand-made normalized maps (struct pt_mem_range arrays),
 * so these tests do not depend on the normalizer.  The expected attributes
 * per UEFI memory type are a table of their own, the mapping policy of
 * docs/architecture.md,
 * independent of plan.c and of pt_mem_class_of.
 *
 * The table-count cross-check compares pt_plan_min_tables with a naive model:
 * it steps through every entry leaf by leaf exactly as a largest-fit mapper
 * chooses them, records every (level, region) a table is needed for, and
 * counts distinct pairs after sorting.  PTLAB_SEED=<n> replays one seed.
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

#include <ptlab/plan.h>

#include "arena.h"
#include "planfx.h"
#include "samples.h"
#include "../../efi/lib/prng.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define G512 PT_SIZE_512G

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* ---- expectations, written independently of plan.c ---------------------- */

/*
 * The policy per UEFI memory type, row by row from the "Mapping policy"
 * table of docs/architecture.md, spelled out per type (not per class: no call to
 * pt_mem_class_of), so a type put in the wrong class is caught here rather
 * than copied.  The name column is checked against pt_efi_type_name, so a
 * row cannot silently describe another type.
 */
#define RW   PT_WRITE
#define RX   PT_EXEC
#define RWUC (PT_WRITE | PT_CACHE(PT_CACHE_UC))
#define RUC  PT_CACHE(PT_CACHE_UC)

static const struct {
	const char *name;
	unsigned identity;   /* identity-map attributes with boot services kept */
	bool hhdm;           /* also in the HHDM, with the same attributes */
} policy[PT_EFI_TYPE_COUNT] = {
	[PT_EFI_RESERVED]     = { "Reserved",            RUC,  false },
	[PT_EFI_LOADER_CODE]  = { "LoaderCode",          RW,   true },
	[PT_EFI_LOADER_DATA]  = { "LoaderData",          RW,   true },
	[PT_EFI_BS_CODE]      = { "BootServicesCode",    RX,   true },
	[PT_EFI_BS_DATA]      = { "BootServicesData",    RW,   true },
	[PT_EFI_RT_CODE]      = { "RuntimeServicesCode", RX,   true },
	[PT_EFI_RT_DATA]      = { "RuntimeServicesData", RW,   true },
	[PT_EFI_CONVENTIONAL] = { "Conventional",        RW,   true },
	[PT_EFI_UNUSABLE]     = { "Unusable",            RUC,  false },
	[PT_EFI_ACPI_RECLAIM] = { "ACPIReclaim",         RW,   true },
	[PT_EFI_ACPI_NVS]     = { "ACPINVS",             RW,   true },
	[PT_EFI_MMIO]         = { "MMIO",                RWUC, false },
	[PT_EFI_MMIO_PORT]    = { "MMIOPortSpace",       RWUC, false },
	[PT_EFI_PAL_CODE]     = { "PalCode",             RX,   true },
	[PT_EFI_PERSISTENT]   = { "Persistent",          RW,   true },
	[PT_EFI_UNACCEPTED]   = { "Unaccepted",          RUC,  false },
};

static unsigned want_class_flags(uint32_t type)
{
	assert_true(type < PT_EFI_TYPE_COUNT);
	assert_string_equal(policy[type].name, pt_efi_type_name(type));
	return policy[type].identity;
}

static bool want_hhdm(uint32_t type)
{
	assert_true(type < PT_EFI_TYPE_COUNT);
	return policy[type].hhdm;
}

/* Expected identity attributes of physical page @pa of range @r. */
static unsigned want_identity_flags(const struct plan_fx *x, const struct pt_mem_range *r, uint64_t pa)
{
	const struct pt_image *im = &x->image;

	if (pa >= im->base && pa < im->base + im->size) {
		for (unsigned i = 0; i < im->nsections; i++)
			if (pa >= im->section[i].pa && pa < im->section[i].pa + im->section[i].len)
				return im->section[i].flags;
		fail_msg("page 0x%llx in the image but in no section", (unsigned long long)pa);
	}
	return want_class_flags(r->type);
}

static void assert_sorted_disjoint_wx(const struct pt_plan *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct pt_plan_entry *e = &p->entry[i];

		assert_true(e->len > 0);
		assert_int_equal(e->va % K4, 0);
		assert_int_equal(e->pa % K4, 0);
		assert_int_equal(e->len % K4, 0);
		assert_true(e->va + e->len > e->va);
		assert_false((e->flags & PT_WRITE) && (e->flags & PT_EXEC));
		assert_int_equal(e->flags & ~PT_ATTR_MASK, 0);
		if (i == 0)
			continue;
		/* sorted, disjoint, and merged as far as attributes allow */
		assert_true(p->entry[i - 1].va + p->entry[i - 1].len <= e->va);
		assert_true(p->entry[i - 1].kind <= e->kind);
		if (p->entry[i - 1].kind == e->kind && p->entry[i - 1].flags == e->flags &&
		    p->entry[i - 1].max_size == e->max_size)
			assert_false(p->entry[i - 1].va + p->entry[i - 1].len == e->va &&
				     p->entry[i - 1].pa + p->entry[i - 1].len == e->pa);
	}
}

/* The entry holding @va must be of @kind, translate @va to @pa with @flags. */
static void assert_maps(const struct pt_plan *p, uint64_t va, enum pt_plan_kind kind,
			uint64_t pa, unsigned flags)
{
	const struct pt_plan_entry *e = pt_plan_find(p, va);

	if (!e)
		fail_msg("va 0x%llx not in the plan", (unsigned long long)va);
	if (e->kind != kind || e->pa + (va - e->va) != pa || e->flags != flags)
		fail_msg("va 0x%llx: kind %d pa 0x%llx flags 0x%x, want kind %d pa 0x%llx flags 0x%x",
			 (unsigned long long)va, e->kind,
			 (unsigned long long)(e->pa + (va - e->va)), e->flags, kind,
			 (unsigned long long)pa, flags);
}

/* ---- (a) the plan of a realistic map ------------------------------------- */

static void test_ovmf_plan_maps_every_range_by_kind_with_strict_wx(void **state)
{
	struct plan_fx x;
	uint64_t id_bytes = 0, hhdm_bytes = 0;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	assert_true(x.plan.n > 0);
	assert_int_equal(x.plan.quirks, 0);
	assert_sorted_disjoint_wx(&x.plan);

	/* page 0 is the null guard: in no entry, not even partly */
	assert_null(pt_plan_find(&x.plan, 0));
	assert_null(pt_plan_find(&x.plan, K4 - 1));
	for (unsigned i = 0; i < x.plan.n; i++)
		assert_true(x.plan.entry[i].va >= K4);
	assert_non_null(pt_plan_find(&x.plan, K4));

	for (unsigned i = 0; i < x.map.n; i++) {
		const struct pt_mem_range *r = &x.range[i];
		bool hhdm = want_hhdm(r->type);

		for (uint64_t pa = r->pa; pa < r->pa + r->len; pa += K4) {
			if (pa >= K4)
				assert_maps(&x.plan, pa, PT_PLAN_IDENTITY, pa,
					    want_identity_flags(&x, r, pa));
			if (hhdm)
				assert_maps(&x.plan, PT_HHDM_BASE + pa, PT_PLAN_HHDM, pa,
					    want_class_flags(r->type));
			else
				assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + pa));
		}
		id_bytes += r->len;
		if (hhdm)
			hhdm_bytes += r->len;
		/* MMIO is uncached and never executable */
		if (r->type == PT_EFI_MMIO) {
			const struct pt_plan_entry *e = pt_plan_find(&x.plan, r->pa);

			assert_int_equal(PT_CACHE_OF(e->flags), PT_CACHE_UC);
			assert_int_equal(e->flags & PT_EXEC, 0);
			assert_int_equal(e->efi_type, PT_EFI_MMIO);
		}
	}
	assert_int_equal(x.plan.identity_bytes, id_bytes - K4);
	assert_int_equal(x.plan.hhdm_bytes, hhdm_bytes);
	assert_int_equal(x.plan.image_bytes, x.image.size);

	/* the HHDM holds the image's frames with the loader range's RW+NX */
	assert_maps(&x.plan, PT_HHDM_BASE + OVMF_IMG_BASE, PT_PLAN_HHDM, OVMF_IMG_BASE,
		    want_class_flags(PT_EFI_LOADER_CODE));

	/* the image at PT_IMAGE_BASE, by section; text RX */
	for (unsigned s = 0; s < x.image.nsections; s++) {
		const struct pt_image_section *sec = &x.image.section[s];

		for (uint64_t off = 0; off < sec->len; off += K4)
			assert_maps(&x.plan, PT_IMAGE_BASE + (sec->pa - x.image.base) + off,
				    PT_PLAN_IMAGE, sec->pa + off, sec->flags);
	}
	assert_int_equal(pt_plan_find(&x.plan, PT_IMAGE_BASE)->flags, PT_EXEC);
	assert_int_equal(pt_plan_find(&x.plan, PT_IMAGE_BASE)->efi_type, PT_EFI_LOADER_CODE);
	assert_null(pt_plan_find(&x.plan, PT_IMAGE_BASE + x.image.size));
	assert_null(pt_plan_find(&x.plan, PT_IMAGE_BASE - K4));

	/* nothing in the holes: VGA hole, below the ECAM, above 2^47 */
	assert_null(pt_plan_find(&x.plan, 0xa0000));
	assert_null(pt_plan_find(&x.plan, 0xaffff000));
	assert_null(pt_plan_find(&x.plan, UINT64_C(0x10000000)));
	assert_null(pt_plan_find(&x.plan, PT_IDENTITY_END));
	assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + UINT64_C(0x10000000)));
}

static void test_reserved_is_read_only_uncached_and_nx(void **state)
{
	struct plan_fx x;
	const struct pt_plan_entry *e;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	e = pt_plan_find(&x.plan, 0x0ff78000);
	assert_non_null(e);
	assert_int_equal(e->flags, PT_CACHE(PT_CACHE_UC));
	e = pt_plan_find(&x.plan, UINT64_C(0xfd00000000));
	assert_non_null(e);
	assert_int_equal(e->flags, PT_CACHE(PT_CACHE_UC));
	assert_int_equal(e->len, UINT64_C(0x300000000));
}

static void test_max_size_follows_1g_capability(void **state)
{
	struct plan_fx x;

	(void)state;
	for (int has_1g = 0; has_1g <= 1; has_1g++) {
		plan_fx_ovmf(&x, has_1g, 4);
		assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
		for (unsigned i = 0; i < x.plan.n; i++)
			assert_int_equal(x.plan.entry[i].max_size, has_1g ? PT_PAGE_1G : PT_PAGE_2M);
	}
}

static void test_merges_equal_neighbours_but_never_across_attributes(void **state)
{
	/* seven ranges of 2 MiB, one after the other from 0: range i at i * 2 MiB */
	static const struct { uint32_t type; uint64_t attr; } kind[] = {
		{ PT_EFI_CONVENTIONAL, WB_ALL },        /* 0 */
		{ PT_EFI_LOADER_DATA, WB_ALL },         /* 0x200000 */
		{ PT_EFI_ACPI_RECLAIM, WB_ALL },        /* 0x400000 */
		{ PT_EFI_RT_CODE, RT_WB },              /* 0x600000 */
		{ PT_EFI_MMIO, PT_EFI_MEMORY_UC },      /* 0x800000 */
		{ PT_EFI_RESERVED, 0 },                 /* 0xa00000 */
		{ PT_EFI_CONVENTIONAL, WB_ALL },        /* 0xc00000 */
	};
	struct pt_mem_range r[NR(kind)];
	struct plan_fx x;
	const struct pt_plan_entry *e;

	(void)state;
	for (unsigned i = 0; i < NR(kind); i++)
		r[i] = (struct pt_mem_range){ i * M2, M2, kind[i].type, kind[i].attr };
	plan_fx_ovmf(&x, true, 4);
	plan_fx_map(&x, r, NR(r));
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
	assert_sorted_disjoint_wx(&x.plan);
	/* three RAM-like ranges with the same attributes: one identity entry */
	e = pt_plan_find(&x.plan, 0x1000);
	assert_int_equal(e->va, 0x1000);
	assert_int_equal(e->len, 0x600000 - 0x1000);
	assert_int_equal(e->efi_type, PT_EFI_CONVENTIONAL);
	e = pt_plan_find(&x.plan, PT_HHDM_BASE);
	assert_int_equal(e->len, 0x600000);
	/* attribute changes cut the entries */
	assert_int_equal(pt_plan_find(&x.plan, 0x600000)->va, 0x600000);
	assert_int_equal(pt_plan_find(&x.plan, 0x600000)->len, 0x200000);
	assert_int_equal(pt_plan_find(&x.plan, 0x800000)->len, 0x200000);
	assert_int_equal(pt_plan_find(&x.plan, 0xa00000)->len, 0x200000);
	assert_int_equal(pt_plan_find(&x.plan, 0xc00000)->len, 0x200000);
	/* HHDM: the RT code range cuts, the hole at MMIO/reserved separates */
	assert_int_equal(pt_plan_find(&x.plan, PT_HHDM_BASE + 0x600000)->len, 0x200000);
	assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + 0x800000));
	assert_int_equal(pt_plan_find(&x.plan, PT_HHDM_BASE + 0xc00000)->len, 0x200000);
	assert_int_equal(x.plan.n, 5 + 3);
}

static void test_find_uses_half_open_ranges(void **state)
{
	struct pt_plan_entry e[3] = {
		{ .va = 0x1000, .pa = 0x1000, .len = 0x1000 },
		{ .va = 0x3000, .pa = 0x3000, .len = 0x2000 },
		{ .va = UINT64_C(0xfffffffffffff000), .pa = 0, .len = 0x1000 },
	};
	struct pt_plan p = { .entry = e, .cap = 3, .n = 3 };

	(void)state;
	assert_null(pt_plan_find(&p, 0));
	assert_ptr_equal(pt_plan_find(&p, 0x1000), &e[0]);
	assert_ptr_equal(pt_plan_find(&p, 0x1fff), &e[0]);
	assert_null(pt_plan_find(&p, 0x2000));
	assert_ptr_equal(pt_plan_find(&p, 0x3000), &e[1]);
	assert_ptr_equal(pt_plan_find(&p, 0x4fff), &e[1]);
	assert_null(pt_plan_find(&p, 0x5000));
	assert_ptr_equal(pt_plan_find(&p, UINT64_MAX), &e[2]);
	p.n = 0;
	assert_null(pt_plan_find(&p, 0x1000));
	assert_null(pt_plan_find(NULL, 0x1000));
}

/* ---- (d) errors ------------------------------------------------------------ */

static void expect_build_error(struct plan_fx *x, const struct pt_image *im, int err)
{
	x->plan.n = 77;
	assert_int_equal(pt_plan_build(&x->map, im, &x->caps, &x->plan), err);
	assert_int_equal(x->plan.n, 0);
}

static void test_bad_images_are_einval_and_leave_empty_plan(void **state)
{
	struct plan_fx x;
	struct pt_image im;

	(void)state;
	plan_fx_ovmf(&x, true, 4);

	im = x.image;                           /* section length not 4 KiB aligned */
	im.section[0].len = 0xb800;
	im.section[1].pa = OVMF_IMG_BASE + 0xb800;
	im.section[1].len = 0x4800;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* base not aligned */
	im.base += 0x800;
	im.section[0].pa += 0x800;
	im.section[0].len -= 0x800;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* sections out of order */
	im.section[0] = x.image.section[1];
	im.section[1] = x.image.section[0];
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* a gap between sections */
	im.section[1].len -= K4;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* overlapping sections */
	im.section[1].pa -= K4;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* sections short of the size */
	im.size += K4;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* sections beyond the size */
	im.size -= K4;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* empty section */
	im.section[1].len = 0;
	im.section[2].pa -= 0x4000;
	im.section[2].len += 0x4000;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* no sections, too many sections */
	im.nsections = 0;
	expect_build_error(&x, &im, PT_EINVAL);
	im.nsections = PT_IMAGE_MAX_SECTIONS + 1;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* writable text breaks W^X */
	im.section[0].flags = PT_WRITE | PT_EXEC;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* straddles the end of the loader range */
	im.base = 0x0e5fa000;
	im.section[0].pa = im.base;
	im.section[1].pa = im.base + 0xc000;
	im.section[2].pa = im.base + 0x10000;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* in no range at all (VGA hole) */
	im.base = 0xa0000;
	im.section[0].pa = im.base;
	im.section[1].pa = im.base + 0xc000;
	im.section[2].pa = im.base + 0x10000;
	expect_build_error(&x, &im, PT_EINVAL);

	im = x.image;                           /* inside MMIO */
	im.base = 0xb0000000;
	im.section[0].pa = im.base;
	im.section[1].pa = im.base + 0xc000;
	im.section[2].pa = im.base + 0x10000;
	expect_build_error(&x, &im, PT_EINVAL);

	{
		/* the image window is 2 GiB; the image must end below 2^64 */
		static const struct pt_mem_range big[] = {
			{ 4 * G1, 4 * G1, PT_EFI_LOADER_CODE, WB_ALL },
		};
		struct plan_fx y;

		plan_fx_ovmf(&y, true, 4);
		plan_fx_map(&y, big, NR(big));
		im = y.image;
		im.base = 4 * G1;
		im.size = 2 * G1;
		im.nsections = 1;
		im.section[0] = (struct pt_image_section){ 4 * G1, 2 * G1, PT_EXEC };
		expect_build_error(&y, &im, PT_EINVAL);
		im.size -= K4;
		im.section[0].len -= K4;
		assert_int_equal(pt_plan_build(&y.map, &im, &y.caps, &y.plan), PT_OK);
		assert_int_equal(y.plan.entry[y.plan.n - 1].va + y.plan.entry[y.plan.n - 1].len,
				 UINT64_C(0xfffffffffffff000));
	}

	/* and the good image still builds */
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
}

static void test_bad_arguments_and_maps_are_einval(void **state)
{
	struct plan_fx x;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(NULL, NULL, &x.caps, &x.plan), PT_EINVAL);
	assert_int_equal(pt_plan_build(&x.map, NULL, NULL, &x.plan), PT_EINVAL);
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, NULL), PT_EINVAL);
	x.caps.levels = 3;
	expect_build_error(&x, NULL, PT_EINVAL);
	x.caps.levels = 4;
	x.caps.maxphyaddr = 53;
	expect_build_error(&x, NULL, PT_EINVAL);
	x.caps.maxphyaddr = 46;

	x.range[3].pa = x.range[2].pa;          /* unsorted / overlapping map */
	expect_build_error(&x, NULL, PT_EINVAL);
	plan_fx_ovmf(&x, true, 4);
	x.range[2].len += 0x800;                /* unaligned range */
	expect_build_error(&x, NULL, PT_EINVAL);
	plan_fx_ovmf(&x, true, 4);
	x.range[2].len = 0;                     /* empty range */
	expect_build_error(&x, NULL, PT_EINVAL);
}

static void test_capacity_is_exact_and_the_documented_bound_suffices(void **state)
{
	struct plan_fx x;
	unsigned need;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	need = x.plan.n;
	x.plan.cap = need;
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	assert_int_equal(x.plan.n, need);
	x.plan.cap = need - 1;
	expect_build_error(&x, &x.image, PT_ECAPACITY);
	x.plan.cap = 0;
	expect_build_error(&x, &x.image, PT_ECAPACITY);
	x.plan.cap = 2 * x.map.n + 2 * PT_IMAGE_MAX_SECTIONS + 4;
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	/* room claimed without storage, even for one entry */
	for (unsigned cap = 1; cap < 3; cap++) {
		x.plan.entry = NULL;
		x.plan.cap = cap;
		assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_EINVAL);
		assert_int_equal(x.plan.n, 0);
	}
}

/* Worst case for the bound: nothing merges, eight alternating sections. */
static void test_bound_holds_when_nothing_merges(void **state)
{
	struct pt_mem_range r[16];
	struct plan_fx x;

	(void)state;
	for (unsigned i = 0; i < NR(r); i++)
		r[i] = (struct pt_mem_range){ 0x100000 + i * 0x100000, 0x100000,
					      i % 2 ? PT_EFI_RT_CODE : PT_EFI_LOADER_CODE, WB_ALL };
	plan_fx_ovmf(&x, true, 4);
	plan_fx_map(&x, r, NR(r));
	x.image.base = 0x140000;
	x.image.size = 8 * 0x2000;
	x.image.nsections = 8;
	for (unsigned i = 0; i < 8; i++)
		x.image.section[i] = (struct pt_image_section){ 0x140000 + i * 0x2000, 0x2000,
								i % 2 ? 0 : PT_EXEC };
	x.plan.cap = 2 * x.map.n + 2 * PT_IMAGE_MAX_SECTIONS + 4;
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	assert_sorted_disjoint_wx(&x.plan);
	/* 16 ranges + 8 sections + 2 loader pieces; 16 HHDM; 8 image */
	assert_int_equal(x.plan.n, 15 + 8 + 2 + 16 + 8);
}

/* ---- (e) beyond the identity window --------------------------------------- */

/*
 * The HHDM window [PT_HHDM_BASE, PT_IMAGE_BASE) holds physical addresses
 * below 2^47 - 2 GiB only, so memory at or above 2^47 fits neither the
 * identity map nor the HHDM: it is left out (and flagged), never wrapped
 * around to low virtual addresses.  Memory in [2^47 - 2 GiB, 2^47) is
 * identity mapped only.
 */
static void test_memory_above_2_47_is_left_out_with_quirk(void **state)
{
	static const struct pt_mem_range r[] = {
		{ 0x100000, 0x100000, PT_EFI_CONVENTIONAL, WB_ALL },
		{ (UINT64_C(1) << 47) - 3 * G1, 2 * G1, PT_EFI_CONVENTIONAL, WB_ALL },
		{ (UINT64_C(1) << 47) - M2, 2 * M2, PT_EFI_CONVENTIONAL, WB_ALL },
		{ UINT64_C(0x900000000000), G1, PT_EFI_CONVENTIONAL, WB_ALL },
		{ UINT64_C(0xa00000000000), M2, PT_EFI_MMIO, PT_EFI_MEMORY_UC },
	};
	const uint64_t top = UINT64_C(1) << 47;
	const uint64_t hhdm_lim = PT_IMAGE_BASE - PT_HHDM_BASE;
	struct plan_fx x;

	(void)state;
	for (unsigned levels = 4; levels <= 5; levels++) {
		plan_fx_ovmf(&x, true, levels);
		x.caps.maxphyaddr = 52;
		plan_fx_map(&x, r, NR(r));
		assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
		assert_sorted_disjoint_wx(&x.plan);
		assert_true(x.plan.quirks & (1u << PT_QUIRK_ABOVE_IDENTITY));
		/* straddling 2^47 - 2 GiB: identity whole, HHDM up to the image window */
		assert_maps(&x.plan, PT_HHDM_BASE + top - 2 * G1 - K4, PT_PLAN_HHDM,
			    top - 2 * G1 - K4, PT_WRITE);
		assert_int_equal(hhdm_lim, top - 2 * G1);
		assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + hhdm_lim));
		assert_maps(&x.plan, top - 3 * G1, PT_PLAN_IDENTITY, top - 3 * G1, PT_WRITE);
		assert_maps(&x.plan, top - 2 * G1 - K4, PT_PLAN_IDENTITY, top - 2 * G1 - K4, PT_WRITE);
		/* straddling 2^47: identity below it only, no HHDM at all */
		assert_maps(&x.plan, top - K4, PT_PLAN_IDENTITY, top - K4, PT_WRITE);
		assert_int_equal(pt_plan_find(&x.plan, top - M2)->len, M2);
		assert_null(pt_plan_find(&x.plan, top));
		/* nothing wrapped to the bottom of the address space */
		assert_null(pt_plan_find(&x.plan, 0));
		assert_int_equal(pt_plan_find(&x.plan, 0x100000)->len, 0x100000);
		assert_null(pt_plan_find(&x.plan, 0x200000));
		assert_int_equal(x.plan.identity_bytes, 0x100000 + 2 * G1 + M2);
		assert_int_equal(x.plan.hhdm_bytes, 0x100000 + G1);
		for (unsigned i = 0; i < x.plan.n; i++) {
			const struct pt_plan_entry *e = &x.plan.entry[i];

			if (e->kind == PT_PLAN_IDENTITY)
				assert_true(e->va + e->len <= top);
			if (e->kind == PT_PLAN_HHDM)
				assert_true(e->va >= PT_HHDM_BASE &&
					    e->va + e->len <= PT_IMAGE_BASE);
		}
	}

	/* reserved memory straddling 2^47: only the identity map loses it */
	{
		const struct pt_mem_range rr[] = {
			{ top - M2, 2 * M2, PT_EFI_RESERVED, 0 },
		};

		plan_fx_map(&x, rr, NR(rr));
		assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
		assert_true(x.plan.quirks & (1u << PT_QUIRK_ABOVE_IDENTITY));
		assert_int_equal(x.plan.n, 1);
		assert_int_equal(x.plan.identity_bytes, M2);
	}

	/* below 2^47 - 2 GiB: no quirk */
	plan_fx_map(&x, r, 1);
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
	assert_int_equal(x.plan.quirks, 0);
}

/* @x: OVMF's, with MAXPHYADDR @maxphy and the @n ranges @r as its map, planned with no image: @quirk noted. */
static void plan_quirk(struct plan_fx *x, const struct pt_mem_range *r, unsigned n,
		       unsigned maxphy, unsigned quirk)
{
	plan_fx_ovmf(x, true, 4);
	x->caps.maxphyaddr = maxphy;
	plan_fx_map(x, r, n);
	assert_int_equal(pt_plan_build(&x->map, NULL, &x->caps, &x->plan), PT_OK);
	assert_true(x->plan.quirks & (1u << quirk));
}

static void test_hhdm_stops_below_image_window(void **state)
{
	const uint64_t lim = PT_IMAGE_BASE - PT_HHDM_BASE;
	const struct pt_mem_range r[] = {
		{ lim - G1, 2 * G1, PT_EFI_CONVENTIONAL, WB_ALL },
	};
	struct plan_fx x;
	const struct pt_plan_entry *e;

	(void)state;
	plan_quirk(&x, r, NR(r), 52, PT_QUIRK_ABOVE_IDENTITY);
	e = pt_plan_find(&x.plan, PT_HHDM_BASE + lim - K4);
	assert_non_null(e);
	assert_int_equal(e->va + e->len, PT_IMAGE_BASE);
	assert_null(pt_plan_find(&x.plan, PT_IMAGE_BASE));
	assert_int_equal(x.plan.hhdm_bytes, G1);
}

/*
 * An HHDM base the caller names: entries at base + pa, the plan's
 * hhdm_base says so, its end below the image window follows it (at
 * 0xff00000000000000 a 52-bit physical space fits whole); a base that is
 * unaligned, outside the higher half of the paging mode or at the image
 * window is refused.
 */
static void test_hhdm_base_is_the_callers(void **state)
{
	const uint64_t b5 = PT_HIGHER_HALF_LA57;
	const struct pt_mem_range r[] = {
		{ 0x100000, 0x100000, PT_EFI_CONVENTIONAL, WB_ALL },
		{ (UINT64_C(1) << 51), 2 * G1, PT_EFI_CONVENTIONAL, WB_ALL },
	};
	struct plan_fx x;
	const struct pt_plan_entry *e;

	(void)state;
	plan_fx_ovmf(&x, true, 4);
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
	assert_int_equal(x.plan.hhdm_base, PT_HHDM_BASE);

	plan_fx_ovmf(&x, true, 5);
	x.caps.maxphyaddr = 52;
	x.caps.hhdm_base = b5;
	plan_fx_map(&x, r, NR(r));
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
	assert_int_equal(x.plan.hhdm_base, b5);
	assert_int_equal(x.plan.hhdm_bytes, 2 * G1 + 0x100000);
	e = pt_plan_find(&x.plan, b5 + 0x100000);
	assert_non_null(e);
	assert_int_equal(e->kind, PT_PLAN_HHDM);
	assert_int_equal(e->pa, 0x100000);
	e = pt_plan_find(&x.plan, b5 + (UINT64_C(1) << 51) + G1);
	assert_non_null(e);
	assert_int_equal(e->pa + (b5 + (UINT64_C(1) << 51) + G1 - e->va), (UINT64_C(1) << 51) + G1);
	assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + 0x100000));

	/* refusals: each leaves an empty plan */
	x.caps.hhdm_base = b5 + K4;                       /* not 1 GiB aligned */
	expect_build_error(&x, NULL, PT_EINVAL);
	x.caps.hhdm_base = b5 - G1;                       /* below the 5-level higher half */
	expect_build_error(&x, NULL, PT_EINVAL);
	x.caps.hhdm_base = PT_IMAGE_BASE & ~(G1 - 1);     /* at the image window */
	expect_build_error(&x, NULL, PT_EINVAL);
	plan_fx_ovmf(&x, true, 4);
	x.caps.hhdm_base = b5;                            /* non-canonical at 4 levels */
	expect_build_error(&x, NULL, PT_EINVAL);
	x.caps.hhdm_base = PT_HHDM_BASE + 64 * G1;        /* another 4-level base: taken */
	assert_int_equal(pt_plan_build(&x.map, NULL, &x.caps, &x.plan), PT_OK);
	assert_int_equal(x.plan.hhdm_base, PT_HHDM_BASE + 64 * G1);
	assert_non_null(pt_plan_find(&x.plan, PT_HHDM_BASE + 64 * G1 + x.range[0].pa));
}

static void test_ranges_above_maxphyaddr_are_cut_with_quirk(void **state)
{
	static const struct pt_mem_range r[] = {
		{ 0x100000, 0x100000, PT_EFI_CONVENTIONAL, WB_ALL },
		{ (UINT64_C(1) << 36) - M2, 2 * M2, PT_EFI_CONVENTIONAL, WB_ALL },
	};
	struct plan_fx x;

	(void)state;
	plan_quirk(&x, r, NR(r), 36, PT_QUIRK_ABOVE_MAXPHYS);
	assert_null(pt_plan_find(&x.plan, UINT64_C(1) << 36));
	assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + (UINT64_C(1) << 36)));
	assert_int_equal(x.plan.identity_bytes, 0x100000 + M2);
}

/* ---- the sample map from tests/data, through the normalizer ------------- */


static void test_sample_map_normalizes_to_the_same_plan(void **state)
{
	static const struct {
		const char *file;
		unsigned desc_size;
	} sample[] = {
		{ "ovmf-q35-256m.bin", 48 },
		{ "ovmf-q35-256m-desc56.bin", 56 },
	};
	struct plan_fx want, got;

	(void)state;
	plan_fx_ovmf(&want, true, 4);
	assert_int_equal(pt_plan_build(&want.map, &want.image, &want.caps, &want.plan), PT_OK);
	for (unsigned i = 0; i < NR(sample); i++) {
		size_t len;
		void *raw = sample_read(sample[i].file, &len);
		unsigned count = (unsigned)(len / sample[i].desc_size);

		plan_fx_ovmf(&got, true, 4);
		got.map.n = 0;
		assert_true(2 * count <= got.map.cap);
		assert_int_equal(pt_memmap_normalize(raw, len, count, sample[i].desc_size, 46,
						     &got.map), PT_OK);
		free(raw);
		assert_int_equal(got.map.quirks, 0);
		assert_int_equal(got.map.n, plan_ovmf_nranges);
		for (unsigned k = 0; k < got.map.n; k++) {
			assert_int_equal(got.range[k].pa, plan_ovmf_ranges[k].pa);
			assert_int_equal(got.range[k].len, plan_ovmf_ranges[k].len);
			assert_int_equal(got.range[k].type, plan_ovmf_ranges[k].type);
		}
		assert_int_equal(pt_plan_build(&got.map, &got.image, &got.caps, &got.plan), PT_OK);
		assert_int_equal(got.plan.n, want.plan.n);
		assert_memory_equal(got.entry, want.entry, want.plan.n * sizeof(want.entry[0]));
		assert_int_equal(got.plan.min_total, want.plan.min_total);
	}
}

/* One range of every UEFI type, between holes: each page as the policy table says. */
static void test_every_memory_type_follows_the_policy_table(void **state)
{
	struct pt_mem_range r[PT_EFI_TYPE_COUNT];
	struct plan_fx x;

	(void)state;
	for (uint32_t t = 0; t < PT_EFI_TYPE_COUNT; t++)
		r[t] = (struct pt_mem_range){ (1 + 4 * (uint64_t)t) * M2, 3 * K4, t, WB_ALL };
	plan_fx_ovmf(&x, true, 4);
	plan_fx_map(&x, r, PT_EFI_TYPE_COUNT);
	x.image.nsections = 0;
	x.image.base = r[PT_EFI_LOADER_CODE].pa;
	x.image.size = K4;
	x.image.nsections = 1;
	x.image.section[0] = (struct pt_image_section){ x.image.base, K4, PT_EXEC };
	assert_int_equal(pt_plan_build(&x.map, &x.image, &x.caps, &x.plan), PT_OK);
	assert_sorted_disjoint_wx(&x.plan);
	for (uint32_t t = 0; t < PT_EFI_TYPE_COUNT; t++) {
		for (uint64_t pa = r[t].pa; pa < r[t].pa + r[t].len; pa += K4) {
			assert_maps(&x.plan, pa, PT_PLAN_IDENTITY, pa,
				    want_identity_flags(&x, &r[t], pa));
			if (want_hhdm(t))
				assert_maps(&x.plan, PT_HHDM_BASE + pa, PT_PLAN_HHDM, pa,
					    want_class_flags(t));
			else
				assert_null(pt_plan_find(&x.plan, PT_HHDM_BASE + pa));
		}
		/* the holes around it stay unmapped */
		assert_null(pt_plan_find(&x.plan, r[t].pa - K4));
		assert_null(pt_plan_find(&x.plan, r[t].pa + r[t].len));
	}
}

/* The file holding the "Mapping policy" table, from the top of the tree. */
#define POLICY_DOC "docs/architecture.md"

/* The doc's attribute words ("RW, NX, WB", ...) as PT_* flags; -1 when unknown. */
static int doc_flags(const char *cell)
{
	static const struct {
		const char *words;
		unsigned flags;
	} words[] = {
		{ "RW, NX, WB", RW }, { "RX, WB", RX }, { "RW, NX, UC", RWUC }, { "R, NX, UC", RUC },
	};

	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(cell, words[i].words, strlen(words[i].words)) == 0)
			return (int)words[i].flags;
	return -1;
}

/*
 * The policy table above is the "Mapping policy" table of
 * docs/architecture.md, row for row: the rows of its section, which ends at
 * the next heading.
 */
static void test_policy_table_is_the_docs_table(void **state)
{
	FILE *f = fopen(POLICY_DOC, "r");
	char line[512];
	bool in_section = false;
	unsigned rows = 0;

	(void)state;
	if (!f)
		fail_msg("cannot open " POLICY_DOC " (run from the top of the tree)");
	while (fgets(line, sizeof(line), f)) {
		char name[64], id[256], hhdm[256];
		uint32_t t;

		if (strcmp(line, "## Mapping policy\n") == 0)
			in_section = true;
		else if (in_section && strncmp(line, "#", 1) == 0)
			break;
		if (!in_section || sscanf(line, "| %63[A-Za-z] | %255[^|]| %255[^|]|", name, id, hhdm) != 3 ||
		    strcmp(name, "type") == 0)
			continue;
		for (t = 0; t < PT_EFI_TYPE_COUNT; t++)
			if (strcmp(policy[t].name, name) == 0)
				break;
		if (t == PT_EFI_TYPE_COUNT)
			fail_msg(POLICY_DOC " row '%s' names no UEFI type", name);
		if (doc_flags(id) != (int)policy[t].identity)
			fail_msg(POLICY_DOC " row %s: identity '%s' differs from the test's table", name, id);
		if ((hhdm[0] != '-') != policy[t].hhdm ||
		    (policy[t].hhdm && doc_flags(hhdm) != (int)policy[t].identity))
			fail_msg(POLICY_DOC " row %s: HHDM '%s' differs from the test's table", name, hhdm);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, PT_EFI_TYPE_COUNT);
}

UNIT_MAIN(
	cmocka_unit_test(test_ovmf_plan_maps_every_range_by_kind_with_strict_wx),
	cmocka_unit_test(test_every_memory_type_follows_the_policy_table),
	cmocka_unit_test(test_policy_table_is_the_docs_table),
	cmocka_unit_test(test_reserved_is_read_only_uncached_and_nx),
	cmocka_unit_test(test_max_size_follows_1g_capability),
	cmocka_unit_test(test_merges_equal_neighbours_but_never_across_attributes),
	cmocka_unit_test(test_find_uses_half_open_ranges),
	cmocka_unit_test(test_bad_images_are_einval_and_leave_empty_plan),
	cmocka_unit_test(test_bad_arguments_and_maps_are_einval),
	cmocka_unit_test(test_capacity_is_exact_and_the_documented_bound_suffices),
	cmocka_unit_test(test_bound_holds_when_nothing_merges),
	cmocka_unit_test(test_memory_above_2_47_is_left_out_with_quirk),
	cmocka_unit_test(test_hhdm_stops_below_image_window),
	cmocka_unit_test(test_hhdm_base_is_the_callers),
	cmocka_unit_test(test_ranges_above_maxphyaddr_are_cut_with_quirk),
	cmocka_unit_test(test_sample_map_normalizes_to_the_same_plan))
