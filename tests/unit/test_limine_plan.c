/* SPDX-License-Identifier: MIT */
/* covers: efi/limine/lmplan.c */
/*
 * Host tests of efi/limine/lmplan.c: a plan of a small machine (RAM,
 * runtime ranges, a hole and MMIO below 4 GiB, RAM above it) with an
 * image, given a three-segment kernel.  The alias moved out of the
 * kernel's window, every segment page mapped to its place in the block
 * with its own W and X, the HHDM (and for base revision 0 the identity
 * map from 4 KiB) complete over the first 4 GiB with uncached NX entries
 * only where the plan had nothing, the plan sorted and disjoint, built by
 * pt_plan_apply with exactly its table minimum; a page two segments
 * share mapped once; refusals leave a W+X
 * segment, a full plan and a kernel over the moved alias unplanned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include <ptlab/plan.h>
#include <ptlab/pte.h>

#include "arena.h"
#include "limine/limine.h"
#include "limine/lmplan.h"
#include "planfx.h"

#define K4    UINT64_C(0x1000)
#define GIB   (UINT64_C(1) << 30)
#define BLOCK UINT64_C(0x00200000)     /* the kernel's load block (in the RAM below) */
#define KVA   UINT64_C(0xffffffff80000000)
/* the protocol's HHDM and identity map: RWX, WB (the framebuffer WC) */
#define RWX_WB (PT_WRITE | PT_EXEC | PT_ALLOW_WX | PT_CACHE(PT_CACHE_WB))
#define RWX_WC (PT_WRITE | PT_EXEC | PT_ALLOW_WX | PT_CACHE(PT_CACHE_WC))

static const struct pt_mem_range ranges[] = {
	{ 0x00000000, 0x000a0000, PT_EFI_CONVENTIONAL, 0 },
	{ 0x00100000, 0x00700000, PT_EFI_LOADER_DATA, 0 },
	{ 0x00800000, 0x3f800000, PT_EFI_CONVENTIONAL, 0 },
	{ 0x40000000, 0x00010000, PT_EFI_RT_CODE, 0 },
	{ 0x40010000, 0x00010000, PT_EFI_RT_DATA, 0 },
	{ 0xfec00000, 0x00001000, PT_EFI_MMIO, 0 },
	{ 0x100000000, 0x40000000, PT_EFI_CONVENTIONAL, 0 },
};

struct fx {
	struct plan_fx p;          /* the map above, the image, the plan, the caps */
	struct lm_elf elf;
	struct lm_plan_in in;
};

static void fx_init_levels(struct fx *x, bool has_1g, unsigned levels)
{
	memset(x, 0, sizeof(*x));
	plan_fx_init(&x->p, ranges, sizeof(ranges) / sizeof(ranges[0]), has_1g, levels);
	x->p.caps.maxphyaddr = 40;
	x->p.caps.boot_services_gone = true;
	x->p.caps.hhdm_base = lm_hhdm_offset(levels);
	/* the image: text, rodata, data in the loader range */
	x->p.image = (struct pt_image){ .base = 0x600000, .size = 0x30000, .nsections = 3 };
	x->p.image.section[0] = (struct pt_image_section){ 0x600000, 0x10000, PT_EXEC };
	x->p.image.section[1] = (struct pt_image_section){ 0x610000, 0x10000, 0 };
	x->p.image.section[2] = (struct pt_image_section){ 0x620000, 0x10000, PT_WRITE };
	assert_int_equal(pt_plan_build(&x->p.map, &x->p.image, &x->p.caps, &x->p.plan), PT_OK);
	/* the kernel: text RX (1.5 pages), rodata R sharing nothing, data+bss RW */
	x->elf = (struct lm_elf){ .type = LM_ET_EXEC, .entry = KVA, .va = KVA, .span = 0x6000,
				  .align = K4, .nseg = 3 };
	x->elf.seg[0] = (struct lm_seg){ KVA, 0, 0x1000, 0x1800, 0x1800, LM_SEG_R | LM_SEG_X };
	x->elf.seg[1] = (struct lm_seg){ KVA + 0x2000, 0x2000, 0x3000, 0x800, 0x800, LM_SEG_R };
	x->elf.seg[2] = (struct lm_seg){ KVA + 0x3000, 0x3000, 0x4000, 0x100, 0x2800,
					 LM_SEG_R | LM_SEG_W };
	x->in = (struct lm_plan_in){ .elf = &x->elf, .block_pa = BLOCK, .levels = levels,
				     .has_1g = has_1g };
}

static void fx_init(struct fx *x, bool has_1g)
{
	fx_init_levels(x, has_1g, 4);
}

/* The plan's entries sorted by va, none empty, none overlapping the next. */
static void assert_sorted(const struct pt_plan *pl)
{
	for (unsigned i = 0; i < pl->n; i++) {
		assert_true(pl->entry[i].len > 0);
		if (i)
			assert_true(pl->entry[i - 1].va + pl->entry[i - 1].len <= pl->entry[i].va);
	}
}

/* The entry holding @va has @kind, maps it to @pa, with exactly @flags. */
static void assert_maps(const struct pt_plan *pl, uint64_t va, uint64_t pa, unsigned flags,
			enum pt_plan_kind kind)
{
	const struct pt_plan_entry *e = pt_plan_find(pl, va);

	assert_non_null(e);
	assert_int_equal(e->kind, kind);
	assert_int_equal(e->pa + (va - e->va), pa);
	assert_int_equal(e->flags, flags);
}

static void test_alias_moved_and_segments_mapped(void **state)
{
	struct fx x;
	unsigned images = 0;

	(void)state;
	fx_init(&x, true);
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
	assert_sorted(&x.p.plan);
	/* the image's sections at the alias's new place, as they were at PT_IMAGE_BASE */
	assert_maps(&x.p.plan, LM_IMAGE_ALIAS_VA, 0x600000, PT_EXEC, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, LM_IMAGE_ALIAS_VA + 0x10000, 0x610000, 0, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, LM_IMAGE_ALIAS_VA + 0x2f000, 0x62f000, PT_WRITE, PT_PLAN_IMAGE);
	assert_null(pt_plan_find(&x.p.plan, LM_IMAGE_ALIAS_VA + 0x30000));
	/* the kernel page by page: text RX over 2 pages, rodata R, data RW over 3 */
	assert_maps(&x.p.plan, KVA, BLOCK, PT_EXEC, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x1000, BLOCK + 0x1000, PT_EXEC, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x2000, BLOCK + 0x2000, 0, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x3000, BLOCK + 0x3000, PT_WRITE, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x5000, BLOCK + 0x5000, PT_WRITE, PT_PLAN_IMAGE);
	assert_null(pt_plan_find(&x.p.plan, KVA + 0x6000));
	assert_null(pt_plan_find(&x.p.plan, KVA - K4));
	/* nothing else of kind image: the three sections and the three segments */
	for (unsigned i = 0; i < x.p.plan.n; i++)
		images += x.p.plan.entry[i].kind == PT_PLAN_IMAGE;
	assert_int_equal(images, 6);
}

/* Every page start @step apart in [from, 4 GiB) has an entry of @kind at base + pa. */
static void assert_low_complete(const struct pt_plan *pl, enum pt_plan_kind kind, uint64_t base,
				uint64_t from)
{
	static const uint64_t points[] = { 0, K4, 0x9f000, 0xa0000, 0xff000, 0x100000, 0x7ff000,
					   0x40000000, 0x4001f000, 0x40020000, 0xfebff000,
					   0xfec00000, 0xfec01000, 0xfffff000 };

	for (unsigned i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const struct pt_plan_entry *e;

		if (points[i] < from)
			continue;
		e = pt_plan_find(pl, base + points[i]);
		assert_non_null(e);
		assert_int_equal(e->kind, kind);
		assert_int_equal(e->pa + (base + points[i] - e->va), points[i]);
	}
}

static void test_first_4g_completed(void **state)
{
	struct fx x, before;
	const struct pt_plan_entry *e;

	(void)state;
	fx_init(&x, true);
	before = x;
	before.p.plan.entry = before.p.entry;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
	assert_low_complete(&x.p.plan, PT_PLAN_HHDM, PT_HHDM_BASE, 0);
	/* a hole (640 KiB to 1 MiB) and the MMIO page: the protocol's RWX WB */
	e = pt_plan_find(&x.p.plan, PT_HHDM_BASE + 0xa0000);
	assert_int_equal(e->flags, RWX_WB);
	assert_int_equal(e->len, 0x60000);
	e = pt_plan_find(&x.p.plan, PT_HHDM_BASE + 0xfec00000);
	assert_int_equal(e->flags, RWX_WB);
	/* RAM keeps the range the plan gave it, now RWX WB (runtime code, once RX, too) */
	for (unsigned i = 0; i < before.p.plan.n; i++) {
		const struct pt_plan_entry *b = &before.p.plan.entry[i];

		if (b->kind != PT_PLAN_HHDM)
			continue;
		e = pt_plan_find(&x.p.plan, b->va);
		assert_int_equal(e->va, b->va);
		assert_int_equal(e->len, b->len);
		assert_int_equal(e->flags, RWX_WB);
	}
	/* above 4 GiB nothing new: the RAM there as before (RWX WB), no entry past it */
	assert_int_equal(pt_plan_find(&x.p.plan, PT_HHDM_BASE + 0x100000000)->flags, RWX_WB);
	assert_int_equal(lm_plan_end(&x.p.plan, PT_PLAN_HHDM), 0x140000000);
	assert_null(pt_plan_find(&x.p.plan, PT_HHDM_BASE + 0x140000000));
	/* revision 1 and 2: the identity map keeps its holes (page 0, the hole) */
	assert_null(pt_plan_find(&x.p.plan, 0));
	assert_null(pt_plan_find(&x.p.plan, 0xa0000));
	/* and its attributes, ptlab's own, W^X: RAM writable, no-execute */
	assert_int_equal(pt_plan_find(&x.p.plan, 0x100000000)->flags, PT_WRITE);
}

/* The framebuffer's pages WC, split out of the entries crossing its ends. */
static void test_framebuffer_wc(void **state)
{
	static const uint64_t fb[][2] = {
		{ 0x01000000, 0x00300000 },   /* inside conventional RAM */
		{ 0xc0000000, 0x00400000 },   /* in the hole the plan completes */
		{ 0x3fff0000, 0x00030000 },   /* across RAM, runtime code and data */
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(fb) / sizeof(fb[0]); k++) {
		uint64_t lo = fb[k][0], hi = fb[k][0] + fb[k][1];
		struct fx x;

		fx_init(&x, true);
		x.in.identity_low = true;
		x.in.fb_pa = lo;
		x.in.fb_len = hi - lo;
		assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
		assert_sorted(&x.p.plan);
		assert_low_complete(&x.p.plan, PT_PLAN_HHDM, PT_HHDM_BASE, 0);
		for (unsigned w = 0; w < 1; w++) {
			uint64_t base = w ? 0 : PT_HHDM_BASE;
			const struct pt_plan_entry *e;

			for (uint64_t pa = lo; pa < hi; pa += K4) {
				e = pt_plan_find(&x.p.plan, base + pa);
				assert_non_null(e);
				assert_int_equal(e->flags, RWX_WC);
				/* no WC entry reaches past the framebuffer */
				assert_true(e->pa >= lo && e->pa + e->len <= hi);
			}
			assert_int_equal(pt_plan_find(&x.p.plan, base + lo - K4)->flags, RWX_WB);
			assert_int_equal(pt_plan_find(&x.p.plan, base + hi)->flags, RWX_WB);
		}
	}
}

static void test_identity_for_revision_0(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, false);
	x.in.identity_low = true;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
	assert_sorted(&x.p.plan);
	assert_low_complete(&x.p.plan, PT_PLAN_IDENTITY, 0, K4);
	assert_null(pt_plan_find(&x.p.plan, 0));     /* page 0 stays the null guard */
	assert_int_equal(pt_plan_find(&x.p.plan, 0xa0000)->flags, PT_WRITE | PT_CACHE(PT_CACHE_UC));
	/* ptlab's own identity entries keep their attributes */
	assert_int_equal(pt_plan_find(&x.p.plan, 0x100000000)->flags, PT_WRITE);
	assert_int_equal(pt_plan_find(&x.p.plan, 0xa0000)->max_size, PT_PAGE_2M);
}

static void test_built_with_its_minimum(void **state)
{
	for (unsigned k = 0; k < 4; k++) {
		struct arena a;
		struct pt_space s;
		struct fx x;
		struct pt_leaf l;

		(void)state;
		fx_init(&x, k & 1);
		x.in.identity_low = k & 2;
		assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
		arena_init(&a, 8192);
		a.env.has_1g = k & 1;
		assert_int_equal(pt_create(&s, &a.env, 4), PT_OK);
		assert_int_equal(pt_plan_apply(&s, &x.p.plan), PT_OK);
		assert_int_equal(pt_table_count(&s), x.p.plan.min_total);
		/* the CPU's view: the kernel's data page writable, no-execute, at its frame */
		assert_int_equal(pt_translate(&s, KVA + 0x4000, &l), PT_OK);
		assert_int_equal(l.pa, BLOCK + 0x4000);
		assert_int_equal(l.flags & (PT_WRITE | PT_EXEC), PT_WRITE);
		assert_int_equal(pt_translate(&s, PT_HHDM_BASE + 0xfec00000, &l), PT_OK);
		assert_int_equal(l.flags & (PT_WRITE | PT_EXEC), PT_WRITE | PT_EXEC);
		assert_int_equal(PT_CACHE_OF(l.flags), PT_CACHE_WB);
		pt_destroy(&s);
		arena_fini(&a);
	}
}

/* Two segments of the same permissions sharing a page: it is mapped once, by the first. */
static void test_shared_page(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, true);
	x.elf.seg[1] = (struct lm_seg){ KVA + 0x1800, 0x1800, 0x2800, 0x1000, 0x1000,
					LM_SEG_R | LM_SEG_X };
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
	assert_sorted(&x.p.plan);
	assert_maps(&x.p.plan, KVA + 0x1000, BLOCK + 0x1000, PT_EXEC, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x2000, BLOCK + 0x2000, PT_EXEC, PT_PLAN_IMAGE);
	assert_maps(&x.p.plan, KVA + 0x3000, BLOCK + 0x3000, PT_WRITE, PT_PLAN_IMAGE);
}

static void test_refusals(void **state)
{
	struct fx x;

	(void)state;
	/* a writable and executable segment */
	fx_init(&x, true);
	x.elf.seg[2].flags |= LM_SEG_X;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EINVAL);
	/* no room */
	fx_init(&x, true);
	x.p.plan.cap = x.p.plan.n + 2;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_ECAPACITY);
	/* a kernel over the moved alias */
	fx_init(&x, true);
	x.elf.va = LM_IMAGE_ALIAS_VA;
	x.elf.seg[0].va = LM_IMAGE_ALIAS_VA + 0x1000;
	x.elf.seg[1].va = LM_IMAGE_ALIAS_VA + 0x2000;
	x.elf.seg[2].va = LM_IMAGE_ALIAS_VA + 0x3000;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EEXIST);
	/* missing arguments, a level count other than 4 or 5 */
	fx_init(&x, true);
	assert_int_equal(lm_plan_add(NULL, &x.in), PT_EINVAL);
	x.in.levels = 3;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EINVAL);
	/* a framebuffer not page aligned */
	fx_init(&x, true);
	x.in.fb_pa = 0xc0000800;
	x.in.fb_len = 0x1000;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EINVAL);
}

/* The layout the responses are judged against, for @x's plan at its levels. */
static struct lm_layout_in layout_of(const struct fx *x)
{
	return (struct lm_layout_in){ .levels = x->in.levels, .maxphyaddr = 40,
				      .hhdm_offset = lm_hhdm_offset(x->in.levels),
				      .have_paging_mode = true,
				      .paging_mode = x->in.levels == 5 ? LM_PAGING_5LVL :
									  LM_PAGING_4LVL,
				      .kernel_va = KVA, .plan = &x->p.plan };
}

/*
 * At 5 levels the HHDM is at 0xff00000000000000 (the reference loader's),
 * complete over the first 4 GiB there and nowhere at the 4-level offset;
 * the layout holds at both modes and every rule broken is named.
 */
static void test_hhdm_by_paging_mode(void **state)
{
	struct fx x;
	struct lm_layout_in in;
	struct lm_layout_out out;

	(void)state;
	assert_int_equal(lm_hhdm_offset(4), UINT64_C(0xffff800000000000));
	assert_int_equal(lm_hhdm_offset(5), UINT64_C(0xff00000000000000));
	for (unsigned levels = 4; levels <= 5; levels++) {
		fx_init_levels(&x, true, levels);
		assert_int_equal(x.p.plan.hhdm_base, lm_hhdm_offset(levels));
		assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
		assert_low_complete(&x.p.plan, PT_PLAN_HHDM, lm_hhdm_offset(levels), 0);
		in = layout_of(&x);
		assert_null(lm_layout_check(&in, &out));
		/* RAM up to 5 GiB in the HHDM, all of 2^40 fits at either mode */
		assert_int_equal(out.hhdm_end, lm_hhdm_offset(levels) + 5 * GIB);
		assert_true(out.all_phys);
	}
	assert_null(pt_plan_find(&x.p.plan, PT_HHDM_BASE + 0x100000));

	in = layout_of(&x);
	in.hhdm_offset = PT_HHDM_BASE;
	assert_string_equal(lm_layout_check(&in, &out),
			    "the HHDM offset is not the reference loader's for the paging mode");
	in = layout_of(&x);
	in.paging_mode = LM_PAGING_4LVL;
	assert_string_equal(lm_layout_check(&in, &out),
			    "the paging mode response names another mode than the tables'");
	in = layout_of(&x);
	in.have_paging_mode = false;
	in.paging_mode = LM_PAGING_4LVL;
	assert_null(lm_layout_check(&in, &out));
	in = layout_of(&x);
	in.kernel_va = KVA - GIB;
	assert_string_equal(lm_layout_check(&in, &out), "the kernel lies below 0xffffffff80000000");
	in = layout_of(&x);
	x.p.plan.entry[pt_plan_find(&x.p.plan, lm_hhdm_offset(5) + 0x100000) - x.p.plan.entry].pa += K4;
	assert_string_equal(lm_layout_check(&in, &out), "an HHDM entry does not map offset + pa");

	/* a 52-bit MAXPHYADDR: held at 5 levels, beyond the 4-level higher half (noted) */
	for (unsigned levels = 5; levels >= 4; levels--) {
		fx_init_levels(&x, true, levels);
		assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_OK);
		in = layout_of(&x);
		in.maxphyaddr = 52;
		assert_null(lm_layout_check(&in, &out));
		if (out.all_phys != (levels == 5))
			fail_msg("%u levels, MAXPHYADDR 52: all_phys %d", levels, out.all_phys);
	}
	in.maxphyaddr = 46;
	assert_null(lm_layout_check(&in, &out));
	assert_true(out.all_phys);
	/* the tables' HHDM elsewhere than the response's offset */
	in = layout_of(&x);
	x.p.plan.hhdm_base = lm_hhdm_offset(5);
	in.levels = 5;
	in.hhdm_offset = lm_hhdm_offset(5);
	in.paging_mode = LM_PAGING_5LVL;
	x.p.plan.hhdm_base = PT_HHDM_BASE;
	assert_string_equal(lm_layout_check(&in, &out),
			    "the tables' HHDM is not at the offset the response gives");
}

/* A plan whose HHDM is not at the paging mode's offset is refused. */
static void test_hhdm_mismatch_refused(void **state)
{
	struct fx x;

	(void)state;
	fx_init_levels(&x, true, 4);
	x.in.levels = 5;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EINVAL);
	fx_init_levels(&x, true, 5);
	x.in.levels = 4;
	assert_int_equal(lm_plan_add(&x.p.plan, &x.in), PT_EINVAL);
}

UNIT_MAIN(
	cmocka_unit_test(test_alias_moved_and_segments_mapped),
	cmocka_unit_test(test_first_4g_completed),
	cmocka_unit_test(test_identity_for_revision_0),
	cmocka_unit_test(test_framebuffer_wc),
	cmocka_unit_test(test_built_with_its_minimum),
	cmocka_unit_test(test_shared_page),
	cmocka_unit_test(test_refusals),
	cmocka_unit_test(test_hhdm_by_paging_mode),
	cmocka_unit_test(test_hhdm_mismatch_refused))
