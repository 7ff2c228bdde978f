/* SPDX-License-Identifier: MIT */
/*
 * The live checks of the built tables, run on our CR3 with the CPU as the
 * oracle: what it loads, stores, fetches and faults on against what the
 * plan and the pool say - the identity and HHDM aliases, far mappings, the
 * image alias, page faults, the paging mode, the canonical boundary - and
 * the sweep of all RAM (hand-off mode) and the teardown of the HHDM.
 * Results go to the in-memory report only: no firmware service may be
 * called (our tables are loaded through ptlab_live).  The static checks
 * before the switch are checks.c's.
 *
 * Each check's registry entry follows its code, and the module's table ends
 * the file.
 */
#include "checks/livechecks.h"
#include "checks/checks.h"
#include "live/flush.h"
#include "report/fmt.h"
#include "state/state.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "checks/checkkit.h"
#include "checks/inject.h"
#include "checks/registry.h"

#include <ptlab/pte.h>

/* ---- live checks ------------------------------------------------------------- */

static bool fault_is(const struct trap_fault *f, uint32_t vector, uint64_t error, uint64_t cr2)
{
	return f->vector == vector && f->error == error && f->cr2 == cr2;
}

static void fault_fail(struct report *rep, const char *name, uint64_t va, uint64_t err_want,
		       int faulted, const struct trap_fault *f)
{
	if (!faulted)
		report_fail(rep, "%s: access to 0x%llx did not fault (expected #PF error 0x%llx)",
			    name, (unsigned long long)va, (unsigned long long)err_want);
	else
		report_fail(rep, "%s: expected #PF cr2=0x%llx error=0x%llx, got vector %u "
			    "cr2=0x%llx error=0x%llx", name, (unsigned long long)va,
			    (unsigned long long)err_want, f->vector, (unsigned long long)f->cr2,
			    (unsigned long long)f->error);
}

/* Write through one alias, read through the other, both ways. */
static int alias_rw(uint64_t a, uint64_t b, uint64_t v1, uint64_t v2)
{
	struct trap_fault f;
	uint64_t got = 0;

	if (probe_write64(a, v1, &f) || probe_read64(b, &got, &f) || got != v1)
		return 1;
	if (probe_write64(b, v2, &f) || probe_read64(a, &got, &f) || got != v2)
		return 1;
	return 0;
}

/*
 * A check could not get a frame from the pool: the allocation is the
 * failure, and when --fail-alloc's countdown has run out, it says so.
 */
static void alloc_failed(const struct check_run *run, const char *what, int err)
{
	if (run->opts->fail_alloc && !run->build->frames.fail_at)
		report_fail(run->rep, "%s: frame allocation failed: %s (the failure --fail-alloc=%llu "
			    "injected, or a later one)", what, pt_strerror(err),
			    (unsigned long long)run->opts->fail_alloc);
	else
		report_fail(run->rep, "%s: frame allocation failed: %s (frames in use %llu)", what,
			    pt_strerror(err), (unsigned long long)run->build->frames.in_use);
}

static void check_alias_pool(struct check_run *run, const struct ptlab_check *self)
{
	uint64_t pa[4];
	unsigned n = 0, bad = 0;
	int err = PT_OK;

	for (; n < 4; n++)
		if ((err = pt_frames_alloc(&run->build->frames, &pa[n])) != PT_OK)
			break;
	if (n)
		inject_begin(run, self, pa[0]);
	for (unsigned i = 0; i < n; i++)
		for (uint64_t off = 0; off < PT_PAGE_SIZE; off += PT_PAGE_SIZE / 4)
			bad += alias_rw(pa[i] + off, run->build->plan.hhdm_base + pa[i] + off,
					ptlab_pattern(pa[i] + off, 1), ptlab_pattern(pa[i] + off, 2));
	inject_end(run, self);
	for (unsigned i = 0; i < n; i++)
		pt_frames_free(&run->build->frames, pa[i]);
	if (n < 4)
		alloc_failed(run, "alias", err);
	else if (!bad)
		report_ok(run->rep, "alias: pool frames written through identity read back through "
			  "the HHDM and the reverse");
	else
		report_fail(run->rep, "alias: %u mismatches in %u pool frames", bad, n);
}

/* The HHDM page of the pool frame @arg points at its complement. */
static int plant_pool_alias(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	return inject_remap(run, self, run->build->plan.hhdm_base + arg);
}

static const struct ptlab_check alias_pool = {
	"alias: pool frames", PTLAB_PHASE_LIVE, check_alias_pool,
	{ "alias-pool", "the HHDM page of a pool frame points at a frame holding its complement",
	  PTLAB_FAULT_HOOK, plant_pool_alias, NULL },
};

static void check_alias_ram(struct check_run *run, const struct ptlab_check *self)
{
	unsigned ranges = 0, points = 0, bad = 0;
	uint64_t first = 0;

	(void)self;
	for (unsigned i = 0; i < run->build->map.n && !check_deadline_passed(run); i++) {
		const struct pt_mem_range *r = &run->build->map.range[i];
		enum pt_mem_class c = pt_mem_class_of(r->type);
		uint64_t pts[2] = { r->pa, r->pa + r->len - 8 };

		if (c == PT_MEM_MMIO || c == PT_MEM_RESERVED || r->pa + r->len > PT_IDENTITY_END)
			continue;
		for (unsigned k = 0; k < 2; k++) {
			struct trap_fault f;
			uint64_t x = 0, y = 0, pa = pts[k];

			if (pa < PT_PAGE_SIZE)
				pa = PT_PAGE_SIZE;   /* page 0 is the null guard */
			if (pa >= r->pa + r->len)
				continue;
			/* read only: this is firmware code and data, ACPI tables, DMA rings */
			points++;
			if (probe_read64(pa, &x, &f) || probe_read64(run->build->plan.hhdm_base + pa, &y, &f) ||
			    x != y) {
				if (!bad++)
					first = pa;
			}
		}
		ranges++;
	}
	if (!points)
		report_fail(run->rep, "alias: no RAM range checked (%u ranges in the map)", run->build->map.n);
	else if (!bad)
		report_ok(run->rep, "alias: %u RAM ranges read the same through identity and HHDM "
			  "(%u points)", ranges, points);
	else
		report_fail(run->rep, "alias: %u reads differ between identity and HHDM; first pa=0x%llx",
			    bad, (unsigned long long)first);
}

/* The first point check_alias_ram reads: the first RAM range's first page past page 0. */
static uint64_t first_alias_ram_point(const struct pt_memmap *map)
{
	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		enum pt_mem_class c = pt_mem_class_of(r->type);
		uint64_t pa = r->pa < PT_PAGE_SIZE ? PT_PAGE_SIZE : r->pa;

		if (c == PT_MEM_MMIO || c == PT_MEM_RESERVED || r->pa + r->len > PT_IDENTITY_END)
			continue;
		if (pa < r->pa + r->len)
			return pa;
	}
	return 0;
}

static int plant_ram_alias(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	uint64_t pa = first_alias_ram_point(&run->build->map);

	(void)arg;
	return pa ? inject_remap(run, self, run->build->plan.hhdm_base + pa) : -1;
}

static const struct ptlab_check alias_ram = {
	"alias: RAM ranges through identity and HHDM", PTLAB_PHASE_LIVE, check_alias_ram,
	{ "alias-ram", "the HHDM page of the first RAM point points at a frame holding its "
	  "complement", PTLAB_FAULT_BEFORE, plant_ram_alias, NULL },
};

/* Map one pool frame at @va, prove it both ways, unmap it and prove it faults. */
static void far_mapping(struct check_run *run, const struct ptlab_check *self, uint64_t va,
			const char *where)
{
	struct pt_space *s = &run->build->space;
	struct pt_flushlist fl;
	struct trap_fault f;
	uint64_t pa, got = 0;
	int err, faulted;
	char what[64];

	err = pt_frames_alloc(&run->build->frames, &pa);
	if (err != PT_OK) {
		fmt_snprintf(what, sizeof(what), "far mapping %s", where);
		alloc_failed(run, what, err);
		return;
	}
	err = pt_map(s, va, pa, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K, &fl);
	if (err) {
		report_fail(run->rep, "far mapping %s: map 0x%llx: %s", where,
			    (unsigned long long)va, pt_strerror(err));
		pt_frames_free(&run->build->frames, pa);
		return;
	}
	ptlab_flush(&fl);
	if (alias_rw(va + 8, pa + 8, ptlab_pattern(pa, 3), ptlab_pattern(pa, 4)) ||
	    alias_rw(va + PT_PAGE_SIZE - 8, run->build->plan.hhdm_base + pa + PT_PAGE_SIZE - 8,
		     ptlab_pattern(pa, 5), ptlab_pattern(pa, 6))) {
		report_fail(run->rep, "far mapping %s: 0x%llx and its frame's aliases disagree", where,
			    (unsigned long long)va);
		pt_unmap(s, va, PT_PAGE_SIZE, 0, &fl);
		ptlab_flush(&fl);
		pt_frames_free(&run->build->frames, pa);
		return;
	}
	/* a neighbour keeps the page's table, so no unmap frees it (which would flush) */
	inject_begin(run, self, va ^ PT_PAGE_SIZE);
	err = pt_unmap(s, va, PT_PAGE_SIZE, 0, &fl);
	if (!inject_on(run->opts, self))
		ptlab_flush(&fl);
	pt_frames_free(&run->build->frames, pa);
	faulted = probe_read64(va, &got, &f);
	if (inject_on(run->opts, self))
		ptlab_flush(&fl);
	inject_end(run, self);
	if (err)
		report_fail(run->rep, "far mapping %s: unmap: %s", where, pt_strerror(err));
	else if (faulted == 1 && fault_is(&f, TRAP_VEC_PF, 0, va))
		report_ok(run->rep, "far mapping %s: 0x%llx written and read back, faults once unmapped",
			  where, (unsigned long long)va);
	else
		fault_fail(run->rep, "far mapping", va, 0, faulted, &f);
}

/*
 * The first GiB of the 57-bit high half the plan leaves free: its bottom,
 * or the first GiB above the HHDM when the plan's HHDM starts there (a
 * Limine hand-off at 5 levels).
 */
static uint64_t la57_high_free(const struct pt_plan *pl)
{
	uint64_t va = PTLAB_LA57_HIGH_BOTTOM;

	for (unsigned i = 0; i < pl->n; i++) {
		const struct pt_plan_entry *e = &pl->entry[i];

		if (e->kind == PT_PLAN_HHDM && e->va >= PTLAB_LA57_HIGH_BOTTOM &&
		    e->va < PT_HHDM_BASE && e->va + e->len > va)
			va = pt_align_up(e->va + e->len, PT_SIZE_1G);
	}
	return va;
}

/* Map a page far out, prove it both ways, unmap it and prove it faults: per address. */
static void check_far_mappings(struct check_run *run, const struct ptlab_check *self)
{
	far_mapping(run, self, PTLAB_SCRATCH_LOW + 0x5000, "above 512 GiB");
	far_mapping(run, self, PTLAB_TOP_LOW_PAGE, "top of the 48-bit lower half");
	far_mapping(run, self, PTLAB_SCRATCH_HIGH + 0x7000, "in the high half");
	if (run->build->levels == 5) {
		uint64_t free = la57_high_free(&run->build->plan);

		/* only 57-bit addresses reach these */
		far_mapping(run, self, PTLAB_LA57_ABOVE_128T + 3 * PT_PAGE_SIZE, "above 128 TiB");
		far_mapping(run, self, PTLAB_LA57_TOP_LOW_PAGE, "top of the 57-bit lower half");
		far_mapping(run, self, free + 5 * PT_PAGE_SIZE,
			    free == PTLAB_LA57_HIGH_BOTTOM ? "bottom of the 57-bit high half" :
			    "57-bit high half above the HHDM");
	}
}

/* The unmapped page at @arg mapped to a pool frame of its own. */
static int plant_map(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	return inject_map(run, self, arg, 0, PT_WRITE);
}

static const struct ptlab_check far_mappings = {
	"far mapping", PTLAB_PHASE_LIVE, check_far_mappings,
	{ "far-unflushed", "the far page unmapped without invlpg: the stale translation still "
	  "reads", PTLAB_FAULT_HOOK, plant_map, NULL },
};

/* Called through the image's high-half alias: must not touch data. */
static __attribute__((noinline)) uint64_t alias_callee(uint64_t x)
{
	return x * 3 + 1;
}

static const uint64_t alias_const = UINT64_C(0x50544c4142210000);

/* The image alias of @addr, an address in the image. */
static uint64_t image_alias_of(const struct ptlab_build *b, const void *addr)
{
	return b->image_va + ((uint64_t)(uintptr_t)addr - b->image.base);
}

static void check_image_alias(struct check_run *run, const struct ptlab_check *self)
{
	uint64_t fn_va = image_alias_of(run->build, (const void *)(uintptr_t)alias_callee);
	uint64_t data_va = image_alias_of(run->build, &alias_const);
	uint64_t (*fn)(uint64_t) = (uint64_t (*)(uint64_t))(uintptr_t)fn_va;
	volatile uint64_t arg = 0x1234;
	struct trap_fault f;
	uint64_t got = 0, r;

	(void)self;
	r = fn(arg);
	if (probe_read64(data_va, &got, &f))
		got = ~alias_const;
	if (got != alias_const)
		report_fail(run->rep, "image alias: constant read through 0x%llx = 0x%llx, expected 0x%llx",
			    (unsigned long long)data_va, (unsigned long long)got,
			    (unsigned long long)alias_const);
	else if (r != arg * 3 + 1)
		report_fail(run->rep, "image alias: function at 0x%llx returned 0x%llx",
			    (unsigned long long)fn_va, (unsigned long long)r);
	else
		report_ok(run->rep, "image alias: function called and constant read at 0x%llx",
			  (unsigned long long)run->build->image_va);
}

/* The image alias of the constant's page points at its complement. */
static int plant_image_alias(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return inject_remap(run, self, image_alias_of(run->build, &alias_const));
}

static const struct ptlab_check image_alias = {
	"image alias: call and constant", PTLAB_PHASE_LIVE, check_image_alias,
	{ "image-alias", "the image alias of the constant's page points at a frame holding its "
	  "complement", PTLAB_FAULT_BEFORE, plant_image_alias, NULL },
};

static void check_faults(struct check_run *run, const struct ptlab_check *self)
{
	const uint64_t va = PTLAB_UNMAPPED_VA + 0x123000;
	/* gnu-efi's linker script puts .rodata in .data: the read-only page is text */
	uint64_t ro = (uint64_t)(uintptr_t)alias_callee, got = 0, old = 0, pa;
	struct trap_fault f;
	int faulted;

	inject_begin(run, self, va);
	inject_begin(run, self, ro);
	faulted = probe_read64(va, &got, &f);
	if (faulted == 1 && fault_is(&f, TRAP_VEC_PF, 0, va))
		report_ok(run->rep, "#PF: read of unmapped 0x%llx faults, error 0, cr2 exact",
			  (unsigned long long)va);
	else
		fault_fail(run->rep, "#PF read unmapped", va, 0, faulted, &f);

	faulted = probe_write64(va + 8, 1, &f);
	if (faulted == 1 && fault_is(&f, TRAP_VEC_PF, PF_ERR_W, va + 8))
		report_ok(run->rep, "#PF: write to unmapped page faults, error 2, cr2 exact");
	else
		fault_fail(run->rep, "#PF write unmapped", va + 8, PF_ERR_W, faulted, &f);

	/* the same bytes back, so a wrongly writable page is not damaged */
	probe_read64(ro, &old, &f);
	faulted = probe_write64(ro, old, &f);
	if (faulted == 1 && fault_is(&f, TRAP_VEC_PF, PF_ERR_P | PF_ERR_W, ro))
		report_ok(run->rep, "#PF: write to read-only image text faults, error 3");
	else
		fault_fail(run->rep, "#PF write read-only", ro, PF_ERR_P | PF_ERR_W, faulted, &f);

	if ((faulted = pt_frames_alloc(&run->build->frames, &pa)) != PT_OK) {
		alloc_failed(run, "#PF fetch NX", faulted);
		return;
	}
	*(volatile uint8_t *)(uintptr_t)pa = 0xc3;   /* ret */
	inject_begin(run, self, pa);
	faulted = probe_exec(pa, &f);
	inject_end(run, self);
	pt_frames_free(&run->build->frames, pa);
	if (faulted == 1 && fault_is(&f, TRAP_VEC_PF, PF_ERR_P | PF_ERR_ID, pa))
		report_ok(run->rep, "#PF: fetch from an NX data page faults, error 0x11");
	else
		fault_fail(run->rep, "#PF fetch NX", pa, PF_ERR_P | PF_ERR_ID, faulted, &f);
}

/* The unmapped probe page mapped; read-only text or an NX frame made W+X. */
static int plant_accessible(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	struct pt_leaf l;

	if (pt_translate(&run->build->space, arg, &l) != PT_OK)
		return plant_map(run, self, arg);
	return checks_make_wx(run, self, arg);
}

static const struct ptlab_check page_faults = {
	"#PF: unmapped, read-only and NX pages fault", PTLAB_PHASE_LIVE, check_faults,
	{ "pf-mapped", "the probes' pages made accessible: the unmapped page mapped, the text "
	  "page writable, the data page executable", PTLAB_FAULT_HOOK, plant_accessible, NULL },
};

/* The mode the CPU is in, as it reports it, against the run's. */
static void check_paging_mode(struct check_run *run, const struct ptlab_check *self)
{
	uint64_t cr4 = read_cr4(), cr3 = read_cr3();
	int la57 = (cr4 & CR4_LA57) != 0;

	(void)self;
	report_fact(run->rep, "paging", "levels=%u la57=%d cr4=0x%llx cr3=0x%llx switches=%llu",
		    la57 ? 5 : 4, la57, (unsigned long long)cr4, (unsigned long long)cr3,
		    (unsigned long long)run->live->la57_switches);
	if (la57 == (run->build->levels == 5) && (cr3 & PTE_ADDR_MASK) == run->build->our_cr3)
		report_ok(run->rep, "paging: CR4.LA57=%d with our %u-level root 0x%llx in CR3", la57,
			  run->build->levels, (unsigned long long)run->build->our_cr3);
	else
		report_fail(run->rep, "paging: CR4=0x%llx CR3=0x%llx, expected %u levels with root "
			    "0x%llx", (unsigned long long)cr4, (unsigned long long)cr3, run->build->levels,
			    (unsigned long long)run->build->our_cr3);
}

/* The same translations under another root: CR3 no longer holds ours. */
static int plant_root_copy(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return inject_root_copy(run, self);
}

static const struct ptlab_check paging_mode = {
	"paging: CR4.LA57 and our root in CR3", PTLAB_PHASE_LIVE, check_paging_mode,
	{ "cr3-copy", "the live checks begin on a copy of our root: the same translations under "
	  "another CR3", PTLAB_FAULT_AT_ENTRY, plant_root_copy, NULL },
};

/*
 * The canonical boundary, both ways: a non-canonical access raises #GP
 * (error 0), never #PF.  At 4 levels 2^47 is already beyond it; at 5
 * levels 2^47 maps (check_far_mapping) and 2^56 is beyond it.
 */
static void noncanonical(struct check_run *run, const struct ptlab_check *self, uint64_t va)
{
	struct trap_fault f;
	uint64_t got = 0;
	/* --inject=canonical-probe: @va made canonical, so the probe meets a #PF or a mapping */
	uint64_t probe = inject_on(run->opts, self) ?
		va & ((UINT64_C(1) << (run->build->levels == 5 ? 56 : 47)) - 1) : va;
	int faulted = probe_read64(probe, &got, &f);

	if (pt_canonical(va, run->build->levels))
		report_fail(run->rep, "canonical: 0x%llx is canonical at %u levels", (unsigned long long)va,
			    run->build->levels);
	else if (faulted == 1 && f.vector == TRAP_VEC_GP && f.error == 0)
		report_ok(run->rep, "canonical: a read of 0x%llx raises #GP (not #PF) at %u levels",
			  (unsigned long long)va, run->build->levels);
	else if (!faulted)
		report_fail(run->rep, "canonical: a read of 0x%llx at %u levels completed",
			    (unsigned long long)va, run->build->levels);
	else
		report_fail(run->rep, "canonical: a read of 0x%llx at %u levels raised vector %u (%s) "
			    "error 0x%llx cr2=0x%llx, expected #GP", (unsigned long long)va, run->build->levels,
			    f.vector, report_vector_name(f.vector), (unsigned long long)f.error,
			    (unsigned long long)f.cr2);
}

/* Just beyond the canonical range of the run's levels, both halves. */
static void check_noncanonical(struct check_run *run, const struct ptlab_check *self)
{
	if (run->build->levels == 5) {
		noncanonical(run, self, PTLAB_LA57_NONCANON_LOW);
		noncanonical(run, self, PTLAB_LA57_NONCANON_HIGH);
	} else {
		noncanonical(run, self, PTLAB_LA57_ABOVE_128T);
		noncanonical(run, self, PTLAB_LA57_HIGH_BOTTOM);
	}
}

static const struct ptlab_check canonical = {
	"canonical: a non-canonical read raises #GP", PTLAB_PHASE_LIVE, check_noncanonical,
	{ "canonical-probe", "the probe's upper bits cleared: a canonical address, so #PF "
	  "instead of #GP", PTLAB_FAULT_HOOK, NULL, NULL },
};

/* ---- teardown ------------------------------------------------------------------ */

static int unmap_piece(struct check_run *run, const struct ptlab_check *self, uint64_t va,
		       uint64_t len, uint64_t *bad_va)
{
	struct pt_flushlist fl;
	struct trap_fault f;
	uint64_t got, last = va + len - PT_PAGE_SIZE;
	int err;

	if (inject_on(run->opts, self))
		probe_read64(va, &got, &f);   /* cached, then unmapped without invlpg */
	err = pt_unmap(&run->build->space, va, len, 0, &fl);

	if (err) {
		*bad_va = va;
		return err;
	}
	if (!inject_on(run->opts, self))
		ptlab_flush(&fl);
	if (probe_read64(va, &got, &f) != 1 || !fault_is(&f, TRAP_VEC_PF, 0, va) ||
	    probe_read64(last, &got, &f) != 1 || !fault_is(&f, TRAP_VEC_PF, 0, last)) {
		*bad_va = f.vector == TRAP_VEC_NONE ? va : f.cr2;
		return 1;
	}
	return 0;
}

static void check_teardown(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t pieces = 0, bad_va = 0, before = pt_table_count(s);
	int err = 0;

	for (unsigned i = 0; i < run->build->plan.n && !err && !check_deadline_passed(run); i++) {
		const struct pt_plan_entry *e = &run->build->plan.entry[i];
		/* an off-alignment cut, so large leaves are split on the way */
		uint64_t cut = ((e->len / 3) & ~(PT_PAGE_SIZE - 1)) + PT_PAGE_SIZE * 3;

		if (e->kind != PT_PLAN_HHDM)
			continue;
		if (cut >= e->len) {
			err = unmap_piece(run, self, e->va, e->len, &bad_va);
			pieces++;
			continue;
		}
		err = unmap_piece(run, self, e->va, cut, &bad_va);
		if (!err)
			err = unmap_piece(run, self, e->va + cut, e->len - cut, &bad_va);
		pieces += 2;
	}
	if (!err) {
		struct pt_lint l;

		/* every table the HHDM used and nothing else is gone: no empty table, counts agree */
		if (ptlab_lint(run->build, false, &l)) {
			report_fail(run->rep, "teardown: tables after the HHDM went: lint errors=%llu "
				    "empty=%llu stats=%llu hints=%llu", (unsigned long long)l.errors,
				    (unsigned long long)l.empty_tables, (unsigned long long)l.stats_mismatch,
				    (unsigned long long)l.bad_hints);
			return;
		}
		if (pt_translate(s, run->build->plan.hhdm_base, &(struct pt_leaf){ 0 }) != PT_ENOTMAPPED)
			err = 1;
	}
	if (err)
		report_fail(run->rep, "teardown: HHDM piece at 0x%llx: %s", (unsigned long long)bad_va,
			    err > 0 ? "still readable after unmap, or wrong fault" : pt_strerror(err));
	else
		report_ok(run->rep, "teardown: HHDM unmapped in %llu pieces, each then faults "
			  "(tables %llu -> %llu)", (unsigned long long)pieces,
			  (unsigned long long)before, (unsigned long long)pt_table_count(s));
}

static const struct ptlab_check teardown = {
	"teardown: each HHDM piece then faults", PTLAB_PHASE_TEARDOWN, check_teardown,
	{ "teardown-unflushed", "a cached HHDM piece unmapped without invlpg", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

/* ---- hand-off: all RAM is ours ------------------------------------------------ */

/*
 * Sample frames of every usable RAM range (first, middle, last free frame):
 * map each at a scratch address, write a pattern through it, read it back
 * through the identity map and the HHDM.  Runs live.
 */
#define SWEEP_VA (PTLAB_SCRATCH_LOW + (UINT64_C(128) << 30))

static void check_ram_sweep(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	const uint64_t va = SWEEP_VA;
	unsigned touched = 0, bad = 0, high = 0;
	uint64_t first_bad = 0;

	for (unsigned i = 0; i < run->build->frames.nranges && !check_deadline_passed(run); i++) {
		const struct pt_frames_range *r = &run->build->frames.range[i];
		uint64_t picks[3] = { r->pa, r->pa + (r->frames / 2) * PT_PAGE_SIZE,
				      r->pa + (r->frames - 1) * PT_PAGE_SIZE };
		bool any = false;

		for (unsigned k = 0; k < 3; k++) {
			struct pt_flushlist fl;
			struct trap_fault f;
			uint64_t pa = picks[k], v = ptlab_pattern(pa, 7 + k), a = 0, b = 0;
			int bad_here;

			if (pt_map(s, va, pa, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K, &fl))
				continue;
			if (!inject_on(run->opts, self))
				ptlab_flush(&fl);
			/* the map may have taken this very frame for a table */
			if (pt_frames_in_use(&run->build->frames, pa)) {
				pt_unmap(s, va, PT_PAGE_SIZE, 0, &fl);
				ptlab_flush(&fl);
				continue;
			}
			bad_here = probe_write64(va, v, &f) || probe_read64(pa, &a, &f) ||
				   probe_read64(run->build->plan.hhdm_base + pa, &b, &f) || a != v || b != v;
			pt_unmap(s, va, PT_PAGE_SIZE, 0, &fl);
			if (!inject_on(run->opts, self))
				ptlab_flush(&fl);
			if (bad_here && !bad++)
				first_bad = pa;
			any = true;
			high += pa >= (UINT64_C(4) << 30);
		}
		touched += any;
	}
	if (!bad && touched == run->build->frames.nranges)
		report_ok(run->rep, "ram sweep: frames in all %u usable ranges written through a "
			  "scratch mapping, read back through identity and HHDM (%u above 4 GiB)",
			  touched, high);
	else
		report_fail(run->rep, "ram sweep: %u of %u ranges touched, %u mismatches (first pa=0x%llx)",
			    touched, run->build->frames.nranges, bad, (unsigned long long)first_bad);
}

/*
 * The page after the sweep's scratch page mapped: it keeps the scratch
 * page's table, so no unmap of the scratch page frees it (which would flush).
 */
static int plant_sweep_neighbour(struct check_run *run, const struct ptlab_check *self,
				 uint64_t arg)
{
	(void)arg;
	return inject_map(run, self, SWEEP_VA + PT_PAGE_SIZE, 0, PT_WRITE);
}

static const struct ptlab_check ram_sweep = {
	"ram sweep: every usable range written and read back", PTLAB_PHASE_SWEEP, check_ram_sweep,
	{ "sweep-unflushed", "the scratch page unmapped and mapped again without invlpg: the "
	  "next write lands in the previous frame", PTLAB_FAULT_BEFORE, plant_sweep_neighbour,
	  NULL },
};

ptlab_check_table livechecks_table = {
	&paging_mode, &alias_pool, &alias_ram, &far_mappings, &canonical, &image_alias,
	&page_faults, &ram_sweep, &teardown, NULL,
};
