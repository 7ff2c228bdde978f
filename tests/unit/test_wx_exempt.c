/* SPDX-License-Identifier: MIT */
/* covers: efi/checks/checkkit.c */
/*
 * The run's W^X exemption list (efi/checks/checkkit.c: ptlab_wx_add,
 * ptlab_wx_find, ptlab_wx_identity, ptlab_wx_expect, ptlab_wx_describe),
 * the runtime-code rule beside it (ptlab_wx_runtime) and what the Linux path puts in it below 640 KiB (efi/linux/linuxboot.c:
 * lb_low_ram).
 *
 * The map is the one OVMF's SMM build hands over (tests/data/memmap/
 * ovmf-smm-2G.bin): RAM 0x1000+0x2f000 and 0x50000+0x4f000 below 640 KiB,
 * reserved 0x30000+0x20000 between them (listed last in the raw map).  The
 * expected pieces are computed here page by page from the normalized map
 * and the EFI types Linux counts as RAM, not with the function's own range
 * walk; the plan's attributes are read per page with pt_plan_find.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/memmap.h>
#include <ptlab/plan.h>

#include "../../efi/checks/checkkit.h"
#include "../../efi/linux/linuxboot.h"
#include "../../efi/state/state.h"
#include "samples.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))
#define DESC_SIZE 48u
#define MAX_DESC 512u
#define RWX (PT_WRITE | PT_EXEC)

struct fx {
	struct pt_mem_range range[MAX_DESC];
	struct pt_plan_entry entry[4 * MAX_DESC + 64];
	struct ptlab p;
};

/* The SMM firmware's map, normalized into x->p.build.map; its plan into x->p.build.plan. */
static struct fx *load_smm(void)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct pt_plan_caps caps = { .has_1g = true, .levels = 4, .maxphyaddr = 46,
				     .boot_services_gone = true };
	size_t len;
	void *raw;

	assert_non_null(x);
	raw = sample_read("ovmf-smm-2G.bin", &len);
	assert_int_equal(len % DESC_SIZE, 0);
	x->p.build.map.range = x->range;
	x->p.build.map.cap = NR(x->range);
	assert_int_equal(pt_memmap_normalize(raw, len, (unsigned)(len / DESC_SIZE), DESC_SIZE, 46,
					     &x->p.build.map), PT_OK);
	free(raw);
	x->p.build.plan.entry = x->entry;
	x->p.build.plan.cap = NR(x->entry);
	x->p.build.levels = 4;
	x->p.cpu.caps.pdpe1gb = true;
	assert_int_equal(pt_plan_build(&x->p.build.map, NULL, &caps, &x->p.build.plan), PT_OK);
	return x;
}

/* Is the page at @pa RAM for Linux (the EFI types its e820 table calls RAM)? */
static bool linux_ram_page(const struct pt_memmap *m, uint64_t pa)
{
	const struct pt_mem_range *r = pt_memmap_find(m, pa);

	if (!r)
		return false;
	switch (r->type) {
	case PT_EFI_CONVENTIONAL:
	case PT_EFI_LOADER_CODE:
	case PT_EFI_LOADER_DATA:
	case PT_EFI_BS_CODE:
	case PT_EFI_BS_DATA:
		return true;
	default:
		return false;
	}
}

/* The RAM pieces between page 1 and 640 KiB, walked page by page. */
static unsigned pieces_by_page(const struct pt_memmap *m, struct pt_range *out, unsigned cap)
{
	unsigned n = 0;

	for (uint64_t pa = PT_PAGE_SIZE; pa < 0xa0000; pa += PT_PAGE_SIZE) {
		if (!linux_ram_page(m, pa))
			continue;
		if (n && out[n - 1].va + out[n - 1].len == pa) {
			out[n - 1].len += PT_PAGE_SIZE;
			continue;
		}
		assert_true(n < cap);
		out[n++] = (struct pt_range){ pa, PT_PAGE_SIZE };
	}
	return n;
}

static unsigned plan_flags(const struct pt_plan *pl, uint64_t va)
{
	const struct pt_plan_entry *e = pt_plan_find(pl, va);

	assert_non_null(e);
	return e->flags & PT_ATTR_MASK;
}

static void test_smm_map_low_ram_is_two_pieces_around_the_hole(void **state)
{
	struct fx *x = load_smm();
	const struct pt_memmap *m = &x->p.build.map;
	struct pt_range got[8], want[8];
	unsigned nwant = pieces_by_page(m, want, NR(want));
	int n = lb_low_ram(m, got, NR(got));
	const struct pt_mem_range *hole = pt_memmap_find(m, 0x30000);

	(void)state;
	/* the map is what the test means: RAM, reserved 0x30000+0x20000, RAM */
	assert_non_null(hole);
	assert_int_equal(hole->pa, 0x30000);
	assert_int_equal(hole->len, 0x20000);
	assert_int_equal(pt_mem_class_of(hole->type), PT_MEM_RESERVED);
	assert_int_equal(nwant, 2);
	assert_int_equal(want[0].va, 0x1000);
	assert_int_equal(want[0].len, 0x2f000);
	assert_int_equal(want[1].va, 0x50000);
	assert_int_equal(want[1].len, 0x4f000);

	assert_int_equal(n, (int)nwant);
	for (unsigned i = 0; i < nwant; i++) {
		assert_int_equal(got[i].va, want[i].va);
		assert_int_equal(got[i].len, want[i].len);
	}
	free(x);
}

/*
 * The Linux path's exemptions on that map (as linux_plan_exempt makes
 * them): the list holds exactly the RAM pieces, the plan makes exactly
 * their pages RWX, and the coverage expectation keeps the hole's
 * attributes (uncached, no write, no execute) while the plan does too.
 */
static void test_smm_map_exemptions_are_the_ram_pieces_and_the_hole_keeps_its_attributes(void **state)
{
	struct fx *x = load_smm();
	struct ptlab *p = &x->p;
	struct pt_range low[8];
	int n = lb_low_ram(&p->build.map, low, NR(low));
	char text[256];
	unsigned hole_flags = plan_flags(&p->build.plan, 0x30000);

	(void)state;
	assert_int_equal(n, 2);
	/* before: the hole is reserved, uncached, neither writable nor executable */
	assert_int_equal(hole_flags & RWX, 0);
	assert_int_equal(hole_flags, PT_CACHE(PT_CACHE_UC));
	for (int i = 0; i < n; i++)
		assert_int_equal(ptlab_wx_identity(&p->wx, &p->build, p->cpu.caps.pdpe1gb, low[i].va,
						   low[i].len, "RAM below 640 KiB"),
				 PT_OK);
	assert_int_equal(p->wx.n, 2);
	for (int i = 0; i < n; i++) {
		assert_int_equal(p->wx.e[i].va, low[i].va);
		assert_int_equal(p->wx.e[i].pa, low[i].va);
		assert_int_equal(p->wx.e[i].len, low[i].len);
		assert_string_equal(p->wx.e[i].why, "RAM below 640 KiB");
	}
	ptlab_wx_describe(&p->wx, NULL, text, sizeof(text));
	assert_string_equal(text, "0x1000+0x2f000 RAM below 640 KiB; 0x50000+0x4f000 RAM below 640 KiB");

	/* page by page below 640 KiB: plan and expectation agree, RWX exactly on RAM */
	for (uint64_t pa = PT_PAGE_SIZE; pa < 0xa0000; pa += PT_PAGE_SIZE) {
		const struct pt_mem_range *r = pt_memmap_find(&p->build.map, pa);
		unsigned class = pt_mem_class_of(r->type) == PT_MEM_RESERVED ?
				 PT_CACHE(PT_CACHE_UC) : PT_WRITE;
		unsigned want = linux_ram_page(&p->build.map, pa) ? class | RWX : class;

		assert_int_equal(ptlab_wx_expect(&p->wx, pa, pa, class), want);
		assert_int_equal(plan_flags(&p->build.plan, pa), want);
		/* the HHDM alias of the page is no exemption */
		assert_int_equal(ptlab_wx_expect(&p->wx, PT_HHDM_BASE + pa, pa, class), class);
	}
	assert_int_equal(plan_flags(&p->build.plan, 0x30000), hole_flags);
	assert_int_equal(plan_flags(&p->build.plan, 0x4f000), hole_flags);
	/* one span from the lowest to the highest piece would have expected RWX in the hole */
	{
		struct ptlab_wx span = { .n = 0 };

		assert_int_equal(ptlab_wx_add(&span, 0x1000, 0x1000, 0x9e000, "span"), PT_OK);
		assert_int_not_equal(ptlab_wx_expect(&span, 0x30000, 0x30000, hole_flags),
				     plan_flags(&p->build.plan, 0x30000));
	}
	free(x);
}

/* Pieces of a made-up map: types that are RAM join, the rest and holes split, 640 KiB clips. */
static void test_low_ram_pieces_by_type(void **state)
{
	struct pt_mem_range r[] = {
		{ 0x00000, 0x10000, PT_EFI_CONVENTIONAL, 0 },   /* page 0 is left out */
		{ 0x10000, 0x08000, PT_EFI_BS_DATA, 0 },        /* joins the one before */
		{ 0x18000, 0x02000, PT_EFI_ACPI_NVS, 0 },       /* not RAM: splits */
		{ 0x1a000, 0x06000, PT_EFI_LOADER_DATA, 0 },
		/* a hole at 0x20000-0x30000 */
		{ 0x30000, 0x01000, PT_EFI_CONVENTIONAL, 0 },
		{ 0x31000, 0x01000, PT_EFI_RESERVED, 0 },
		{ 0x90000, 0x80000, PT_EFI_BS_CODE, 0 },        /* crosses 640 KiB */
		{ 0x100000, 0x100000, PT_EFI_CONVENTIONAL, 0 }, /* above: not low */
	};
	struct pt_memmap m = { .range = r, .cap = NR(r), .n = NR(r) };
	struct pt_range got[8], want[8];
	unsigned nwant = pieces_by_page(&m, want, NR(want));

	(void)state;
	assert_int_equal(nwant, 4);
	assert_int_equal(lb_low_ram(&m, got, NR(got)), 4);
	for (unsigned i = 0; i < nwant; i++) {
		assert_int_equal(got[i].va, want[i].va);
		assert_int_equal(got[i].len, want[i].len);
	}
	assert_int_equal(got[0].va, 0x1000);
	assert_int_equal(got[0].len, 0x17000);
	assert_int_equal(got[3].va, 0x90000);
	assert_int_equal(got[3].len, 0x10000);
	/* more pieces than room: -1, the first ones kept */
	assert_int_equal(lb_low_ram(&m, got, 3), -1);
	assert_int_equal(got[2].va, want[2].va);
}

/* The list: exact containment and the same va-to-pa offset; full and bad entries refused. */
static void test_list_find_add_and_full(void **state)
{
	struct ptlab_wx w = { .n = 0 };
	char text[64];

	(void)state;
	assert_int_equal(ptlab_wx_add(&w, 0x1000, 0x1000, 0x2f000, "low"), PT_OK);
	assert_int_equal(ptlab_wx_add(&w, PT_HHDM_BASE + 0x200000, 0x200000, 0x400000, "hhdm"),
			 PT_OK);
	assert_ptr_equal(ptlab_wx_find(&w, 0x1000, 0x1000, PT_PAGE_SIZE), &w.e[0]);
	assert_ptr_equal(ptlab_wx_find(&w, 0x2f000, 0x2f000, PT_PAGE_SIZE), &w.e[0]);
	assert_null(ptlab_wx_find(&w, 0x30000, 0x30000, PT_PAGE_SIZE));      /* just past */
	assert_null(ptlab_wx_find(&w, 0x0, 0x0, PT_PAGE_SIZE));              /* just before */
	assert_null(ptlab_wx_find(&w, 0x2f000, 0x2f000, 2 * PT_PAGE_SIZE));  /* runs out */
	assert_null(ptlab_wx_find(&w, 0x2000, 0x3000, PT_PAGE_SIZE));        /* another frame */
	assert_ptr_equal(ptlab_wx_find(&w, PT_HHDM_BASE + 0x400000, 0x400000, PT_SIZE_2M), &w.e[1]);
	assert_null(ptlab_wx_find(&w, 0x400000, 0x400000, PT_SIZE_2M));      /* its identity alias */
	assert_int_equal(ptlab_wx_describe(&w, NULL, text, sizeof(text)),
			 strlen("0x1000+0x2f000 low; 0xffff800000200000->0x200000+0x400000 hhdm"));
	assert_string_equal(text, "0x1000+0x2f000 low; 0xffff800000200000->0x200000+0x400000 hhdm");
	/* too small a buffer: cut at an entry, with dots */
	ptlab_wx_describe(&w, NULL, text, 24);
	assert_string_equal(text, "0x1000+0x2f000 low...");

	assert_int_equal(ptlab_wx_add(&w, 0x1000, 0x1000, 0, "empty"), PT_EINVAL);
	assert_int_equal(ptlab_wx_add(&w, 0x1800, 0x1800, 0x1000, "unaligned"), PT_EINVAL);
	assert_int_equal(ptlab_wx_add(&w, 0xfffffffffffff000, 0x1000, 0x2000, "wraps"), PT_EINVAL);
	assert_int_equal(w.n, 2);
	while (w.n < PTLAB_WX_EXEMPT_MAX)
		assert_int_equal(ptlab_wx_add(&w, 0x100000 * w.n, 0x100000 * w.n, 0x1000, "more"), PT_OK);
	assert_int_equal(ptlab_wx_add(&w, 0x7000000, 0x7000000, 0x1000, "one too many"), PT_ECAPACITY);
	assert_int_equal(w.n, PTLAB_WX_EXEMPT_MAX);
	assert_null(ptlab_wx_find(&w, 0x7000000, 0x7000000, PT_PAGE_SIZE));
	w.n = 0;
	ptlab_wx_describe(&w, NULL, text, sizeof(text));
	assert_string_equal(text, "none");
}

/* The listed range in the HHDM, as the Limine hand-off records it (lmhandoff.c). */
static enum ptlab_wx_exemption hhdm_listed(const void *ctx, uint64_t va, uint64_t pa,
					   uint64_t size)
{
	return ptlab_wx_find(ctx, va, pa, size) ? PTLAB_WX_LISTED : PTLAB_WX_FORBIDDEN;
}

/*
 * A range with its own cache type: the coverage expectation takes it (the
 * first entry holding the page names it), one without keeps the class's;
 * the audit counts the listed RWX leaves, MMIO among them, as listed only.
 */
static void test_cache_of_a_listed_range(void **state)
{
	const unsigned mmio = PT_WRITE | PT_CACHE(PT_CACHE_UC), rwx = PT_WRITE | PT_EXEC;
	struct pt_mem_range r[2] = {
		{ 0x00100000, 0x00100000, PT_EFI_CONVENTIONAL, 0 },
		{ 0xfec00000, 0x00001000, PT_EFI_MMIO, 0 },
	};
	struct pt_memmap map = { .range = r, .cap = 2, .n = 2 };
	struct ptlab_wx w = { .n = 0 };
	struct ptlab_wx_tally t;

	(void)state;
	assert_int_equal(ptlab_wx_add_cache(&w, PT_HHDM_BASE + 0x80000000, 0x80000000, 0x400000,
					    PT_CACHE(PT_CACHE_WC), "fb"), PT_OK);
	assert_int_equal(ptlab_wx_add_cache(&w, PT_HHDM_BASE, 0, UINT64_C(1) << 32,
					    PT_CACHE(PT_CACHE_WB), "hhdm"), PT_OK);
	assert_int_equal(ptlab_wx_add(&w, 0x1000, 0x1000, 0x1000, "keep"), PT_OK);
	assert_int_equal(ptlab_wx_add_cache(&w, 0x2000, 0x2000, 0x1000, 1u, "bad"), PT_EINVAL);
	assert_int_equal(w.n, 3);
	assert_int_equal(ptlab_wx_expect(&w, PT_HHDM_BASE + 0x80001000, 0x80001000, mmio),
			 rwx | PT_CACHE(PT_CACHE_WC));
	assert_int_equal(ptlab_wx_expect(&w, PT_HHDM_BASE + 0xfec00000, 0xfec00000, mmio), rwx);
	assert_int_equal(ptlab_wx_expect(&w, 0x1000, 0x1000, mmio), mmio | rwx);
	assert_int_equal(ptlab_wx_expect(&w, 0xfec00000, 0xfec00000, mmio), mmio);

	t = (struct ptlab_wx_tally){ .map = &map, .exempt = hhdm_listed, .ctx = &w };
	ptlab_wx_judge(&t, PT_HHDM_BASE + 0xfec00000, 0xfec00000, PT_PAGE_SIZE, rwx);
	assert_int_equal(t.wx_listed, PT_PAGE_SIZE);
	assert_int_equal(t.mmio_x_bytes, 0);
	/* the same MMIO page executable outside the list: counted */
	ptlab_wx_judge(&t, 0xfec00000, 0xfec00000, PT_PAGE_SIZE, PT_EXEC);
	assert_int_equal(t.mmio_x_bytes, PT_PAGE_SIZE);
	ptlab_wx_judge(&t, 0xfec00000, 0xfec00000, PT_PAGE_SIZE, rwx);
	assert_int_equal(t.wx_bytes, PT_PAGE_SIZE);
	assert_int_equal(t.mmio_x_bytes, 2 * PT_PAGE_SIZE);
	assert_int_equal(t.wx_listed, PT_PAGE_SIZE);
}

/* A refused identity exemption leaves the list and the plan as they were. */
static void test_identity_refused_changes_nothing(void **state)
{
	struct fx *x = load_smm();
	struct ptlab *p = &x->p;
	unsigned entries = p->build.plan.n;

	(void)state;
	/* no identity entry holds the address: refused by the plan */
	assert_int_equal(ptlab_wx_identity(&p->wx, &p->build, p->cpu.caps.pdpe1gb,
					   UINT64_C(0x7f0000000000), 0x1000, "nowhere"),
			 PT_ENOTMAPPED);
	assert_int_equal(p->wx.n, 0);
	assert_int_equal(p->build.plan.n, entries);
	/* a full list: refused before the plan is touched */
	p->wx.n = PTLAB_WX_EXEMPT_MAX;
	assert_int_equal(ptlab_wx_identity(&p->wx, &p->build, p->cpu.caps.pdpe1gb, 0x1000, 0x1000,
					   "full"), PT_ECAPACITY);
	assert_int_equal(p->wx.n, PTLAB_WX_EXEMPT_MAX);
	assert_int_equal(p->build.plan.n, entries);
	assert_int_equal(plan_flags(&p->build.plan, 0x1000) & RWX, PT_WRITE);
	free(x);
}

/*
 * The runtime-code rule of the W^X audit (ptlab_wx_runtime), for a map of
 * conventional RAM, runtime code and runtime data: only runtime code, only
 * after the hand-off, and with a Memory Attributes Table only where the
 * table leaves it RWX.  Expected per page from the map and the table
 * written here.
 */
static void test_runtime_code_rule(void **state)
{
	static struct pt_mem_range map[] = {
		{ 0x100000, 0x10000, PT_EFI_CONVENTIONAL, 0 },
		{ 0x110000, 0x4000, PT_EFI_RT_CODE, 0 },
		{ 0x114000, 0x2000, PT_EFI_RT_DATA, 0 },
	};
	static struct pt_mat_range mat[] = {
		{ 0x110000, 0x1000, PT_EXEC, false, false, PT_EFI_RT_CODE, 0 },
		{ 0x111000, 0x2000, PT_WRITE | PT_EXEC, true, false, PT_EFI_RT_CODE, 0 },
	};
	struct ptlab *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	p->build.map = (struct pt_memmap){ .range = map, .cap = NR(map), .n = NR(map) };
	p->build.mat = (struct pt_mat){ .range = mat, .cap = NR(mat), .n = 0 };
	for (uint64_t pa = 0xff000; pa < 0x117000; pa += PT_PAGE_SIZE) {
		bool code = pa >= 0x110000 && pa < 0x114000;
		bool rwx_in_mat = pa >= 0x111000 && pa < 0x113000;

		p->build.mat.n = 0;
		assert_false(ptlab_wx_runtime(&p->build, false, pa));
		if (ptlab_wx_runtime(&p->build, true, pa) != code)
			fail_msg("pa 0x%llx without a table: %d, want %d", (unsigned long long)pa,
				 !code, code);
		p->build.mat.n = NR(mat);
		assert_false(ptlab_wx_runtime(&p->build, false, pa));
		if (ptlab_wx_runtime(&p->build, true, pa) != (code && rwx_in_mat))
			fail_msg("pa 0x%llx with the table: %d, want %d", (unsigned long long)pa,
				 !(code && rwx_in_mat), code && rwx_in_mat);
	}
	free(p);
}

UNIT_MAIN(
	cmocka_unit_test(test_smm_map_low_ram_is_two_pieces_around_the_hole),
	cmocka_unit_test(test_smm_map_exemptions_are_the_ram_pieces_and_the_hole_keeps_its_attributes),
	cmocka_unit_test(test_low_ram_pieces_by_type),
	cmocka_unit_test(test_list_find_add_and_full),
	cmocka_unit_test(test_identity_refused_changes_nothing),
	cmocka_unit_test(test_cache_of_a_listed_range),
	cmocka_unit_test(test_runtime_code_rule))
