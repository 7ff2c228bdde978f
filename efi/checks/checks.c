/* SPDX-License-Identifier: MIT */
/*
 * The static checks of the built tables.  Each compares an expected value
 * computed one way (the plan, the memory map) with a value observed another
 * way (the software walk): the structural lint, the minimum table count, the
 * plan's key points, the memory map's coverage, the W^X audit and what the
 * switch to our CR3 needs mapped.  They run with the firmware's CR3; the
 * checks with ours loaded, the CPU as the oracle, are livechecks.c's.
 *
 * No firmware calls: they run on plain memory.  Each check's registry entry
 * follows its code, and the module's table ends the file.
 */
#include "checks/checks.h"
#include "checks/mmularge.h"
#include "state/state.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "checks/checkkit.h"
#include "live/la57.h"
#include "checks/inject.h"
#include "checks/registry.h"

#include <ptlab/pte.h>

/* ---- static checks -------------------------------------------------------- */

static void check_lint(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_lint l;
	int err = ptlab_lint(run->build, false, &l);

	(void)self;
	if (err == PT_OK)
		report_ok(run->rep, "tables: structural lint clean (%llu tables)",
			  (unsigned long long)l.tables);
	else
		report_fail(run->rep, "tables: structural lint: %s errors=%llu reserved=%llu ps=%llu "
			    "empty=%llu shared=%llu foreign=%llu stats=%llu hints=%llu first va=0x%llx "
			    "level=%d",
			    pt_strerror(err), (unsigned long long)l.errors,
			    (unsigned long long)l.reserved_bits, (unsigned long long)l.bad_ps,
			    (unsigned long long)l.empty_tables, (unsigned long long)l.shared_tables,
			    (unsigned long long)l.foreign_tables, (unsigned long long)l.stats_mismatch,
			    (unsigned long long)l.bad_hints, (unsigned long long)l.first_bad_va,
			    l.first_bad_level);
}

/* PS in a root entry is reserved at every level count. */
static int plant_root_ps(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return inject_root_bits(run, self, 0, PTE_PS);
}

static const struct ptlab_check lint = {
	"tables: structural lint", PTLAB_PHASE_STATIC, check_lint,
	{ "lint-ps", "PS set in the root's first entry (reserved at that level) while the lint runs",
	  PTLAB_FAULT_BEFORE, plant_root_ps, NULL },
};

static void check_minimum(struct check_run *run, const struct ptlab_check *self)
{
	const uint64_t *t = run->build->tables_built, *min = run->build->plan.min_tables;
	unsigned bad = 0;

	(void)self;
	for (unsigned l = 0; l < run->build->levels; l++)
		bad += t[l] != min[l];
	if (!bad)
		report_ok(run->rep, "tables: built exactly the plan's minimum (%llu pages, %u levels%s)",
			  (unsigned long long)run->build->plan.min_total, run->build->levels,
			  run->build->levels == 5 ? ", one PML5" : "");
	else
		report_fail(run->rep, "tables: built pt=%llu pd=%llu pdpt=%llu pml4=%llu pml5=%llu, "
			    "minimum pt=%llu pd=%llu pdpt=%llu pml4=%llu pml5=%llu",
			    (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
			    (unsigned long long)t[3], (unsigned long long)t[4],
			    (unsigned long long)min[0], (unsigned long long)min[1],
			    (unsigned long long)min[2], (unsigned long long)min[3],
			    (unsigned long long)min[4]);
}

/* A page outside the plan, in a root slot the plan leaves empty. */
static int plant_extra_page(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return inject_map(run, self, PTLAB_SCRATCH_LOW + (UINT64_C(8) << 30), run->data->pa, 0);
}

static const struct ptlab_check minimum = {
	"tables: built exactly the plan's minimum", PTLAB_PHASE_STATIC, check_minimum,
	{ "extra-table", "one page mapped outside the plan before the tables are counted: three "
	  "tables more than the minimum", PTLAB_FAULT_AFTER_BUILD, plant_extra_page, NULL },
};

/*
 * What the plan says of @va: 1 and the pa and flags it expects when an entry
 * holds it, 0 when nothing should be mapped there.
 */
static int plan_expect(const struct ptlab_build *b, uint64_t va, uint64_t *pa, unsigned *flags)
{
	const struct pt_plan_entry *e = pt_plan_find(&b->plan, va);

	if (!e)
		return 0;
	*pa = e->pa + (va - e->va);
	*flags = e->flags & PT_ATTR_MASK;
	return 1;
}

/* Compare the software walk at @va with the plan; 0 when they agree. */
static int key_point(const struct ptlab_build *b, uint64_t va, uint64_t *bad_va, char *why)
{
	struct pt_leaf leaf;
	uint64_t pa = 0;
	unsigned flags = 0;
	int want = plan_expect(b, va, &pa, &flags);
	int err = pt_translate(&b->space, va, &leaf);

	if (!pt_canonical(va, b->levels))
		return 0;
	if (want && err == PT_OK && leaf.pa == pa && leaf.flags == flags)
		return 0;
	if (!want && err == PT_ENOTMAPPED)
		return 0;
	if (!*bad_va && !*why) {
		*bad_va = va;
		*why = want ? (err ? 'u' : leaf.pa != pa ? 'a' : 'f') : 'm';
	}
	return 1;
}

static const char *why_text(char why)
{
	switch (why) {
	case 'u': return "planned but not mapped";
	case 'a': return "maps the wrong frame";
	case 'f': return "has the wrong attributes";
	default: return "mapped but not planned";
	}
}

static void check_plan_points(struct check_run *run, const struct ptlab_check *self)
{
	uint64_t bad = 0, points = 0, bad_va = 0;
	char why = 0;

	(void)self;
	for (unsigned i = 0; i < run->build->plan.n; i++) {
		const struct pt_plan_entry *e = &run->build->plan.entry[i];
		uint64_t pts[4] = { e->va, e->va + e->len - PT_PAGE_SIZE, e->va - PT_PAGE_SIZE, e->va + e->len };

		for (unsigned k = 0; k < 4; k++, points++)
			bad += key_point(run->build, pts[k], &bad_va, &why);
	}
	if (!bad)
		report_ok(run->rep, "plan: %llu key points translate as planned",
			  (unsigned long long)points);
	else
		report_fail(run->rep, "plan: %llu of %llu key points differ; first va=0x%llx %s",
			    (unsigned long long)bad, (unsigned long long)points,
			    (unsigned long long)bad_va, why_text(why));
}

/* W toggled on the page at @va. */
static int toggle_write(struct check_run *run, const struct ptlab_check *self, uint64_t va)
{
	struct pt_leaf l;

	if (!va || pt_translate(&run->build->space, va, &l) != PT_OK)
		return -1;
	return inject_protect(run, self, va, l.flags ^ PT_WRITE);
}

static int plant_plan_point(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return run->build->plan.n ? toggle_write(run, self, run->build->plan.entry[0].va) : -1;
}

static const struct ptlab_check plan_points = {
	"plan: key points translate as planned", PTLAB_PHASE_STATIC, check_plan_points,
	{ "plan-point", "W toggled on the first page of the first plan entry", PTLAB_FAULT_BEFORE,
	  plant_plan_point, NULL },
};

/*
 * Expected attributes of the page at @pa in a memory-map range of @type,
 * from its class and, when the tables are checked after ExitBootServices
 * (@boot_services_gone), the Memory Attributes Table @mat (independent of
 * the plan code).
 */
static unsigned class_flags(const struct pt_mat *mat, bool boot_services_gone, uint32_t type,
			    uint64_t pa)
{
	if (boot_services_gone) {
		const struct pt_mat_range *m;

		if (type == PT_EFI_BS_CODE)
			return PT_WRITE;
		if ((type == PT_EFI_RT_CODE || type == PT_EFI_RT_DATA) && mat->n &&
		    (m = pt_mat_find(mat, pa)))
			return m->flags;
		if (type == PT_EFI_RT_CODE && !mat->n)
			return PT_WRITE | PT_EXEC;
	}
	switch (pt_mem_class_of(type)) {
	case PT_MEM_FW_CODE:
		return PT_EXEC;
	case PT_MEM_MMIO:
		return PT_WRITE | PT_CACHE(PT_CACHE_UC);
	case PT_MEM_RESERVED:
		return PT_CACHE(PT_CACHE_UC);
	default:
		return PT_WRITE;
	}
}

static bool in_image(const struct pt_image *img, uint64_t pa)
{
	return pa >= img->base && pa < img->base + img->size;
}

static int coverage_point(const struct check_run *run, uint64_t va, uint64_t pa, unsigned flags,
			  bool hhdm)
{
	struct pt_leaf leaf;

	if (pt_translate(&run->build->space, va, &leaf) != PT_OK || leaf.pa != pa)
		return 1;
	/* the image's own pages carry section permissions in the identity map */
	if (!hhdm && in_image(&run->build->image, pa))
		return 0;
	/* the LA57 trampoline's code page is RX there */
	if (!hhdm && la57_is_code_page(run->live, pa))
		return leaf.flags != ((flags & ~PT_WRITE) | PT_EXEC);
	return leaf.flags != ptlab_wx_expect(run->wx, va, pa, flags);
}

static void check_memmap_coverage(struct check_run *run, const struct ptlab_check *self)
{
	uint64_t bad = 0, first = 0, checked = 0;

	(void)self;
	for (unsigned i = 0; i < run->build->map.n; i++) {
		const struct pt_mem_range *r = &run->build->map.range[i];
		enum pt_mem_class c = pt_mem_class_of(r->type);
		uint64_t ends[2] = { r->pa, r->pa + r->len - PT_PAGE_SIZE };

		for (unsigned k = 0; k < 2; k++) {
			uint64_t pa = ends[k];
			unsigned flags = class_flags(&run->build->mat, run->build->boot_services_gone,
						     r->type, pa);
			int b = 0;

			if (pa == 0)
				continue;   /* the null guard */
			if (pa < PT_IDENTITY_END)
				b |= coverage_point(run, pa, pa, flags, false);
			if (c != PT_MEM_MMIO && c != PT_MEM_RESERVED &&
			    run->build->plan.hhdm_base + pa < PT_IMAGE_BASE)
				b |= coverage_point(run, run->build->plan.hhdm_base + pa, pa, flags, true);
			checked++;
			if (b && !bad++)
				first = pa;
		}
	}
	if (!bad)
		report_ok(run->rep, "memmap: %u ranges identity mapped (and RAM in the HHDM) with "
			  "their class's permissions (%llu points)", run->build->map.n,
			  (unsigned long long)checked);
	else
		report_fail(run->rep, "memmap: %llu of %llu range ends wrong; first pa=0x%llx",
			    (unsigned long long)bad, (unsigned long long)checked,
			    (unsigned long long)first);
}

/* The first memory-map range with a page the identity map holds, not page 0, not ours. */
static uint64_t some_range_page(const struct ptlab_build *b)
{
	for (unsigned i = 0; i < b->map.n; i++) {
		const struct pt_mem_range *r = &b->map.range[i];

		if (r->pa && r->pa < PT_IDENTITY_END && pt_mem_class_of(r->type) == PT_MEM_RAM &&
		    !in_image(&b->image, r->pa))
			return r->pa;
	}
	return 0;
}

static int plant_memmap_point(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return toggle_write(run, self, some_range_page(run->build));
}

static const struct ptlab_check memmap_coverage = {
	"memmap: ranges mapped with their class's permissions", PTLAB_PHASE_STATIC,
	check_memmap_coverage,
	{ "memmap-point", "W toggled on the identity page of the first RAM range",
	  PTLAB_FAULT_BEFORE, plant_memmap_point, NULL },
};

/* ---- W^X audit of our tables (the firmware's: fwaudit.c) ---- */

struct audit {
	const struct check_run *run;
	uint64_t leaves[3];
	struct ptlab_wx_tally wx;   /* the judgement of every leaf (checkkit.h) */
	uint64_t listed[PTLAB_WX_EXEMPT_MAX];   /* W+X bytes under each exemption */
};

/*
 * Our tables' W+X exemptions: the run's list first (the bytes counted
 * under their entry), then runtime code.
 */
static enum ptlab_wx_exemption own_wx_exemption(const void *ctx, uint64_t va, uint64_t pa,
						uint64_t size)
{
	struct audit *a = (struct audit *)ctx;
	const struct check_run *run = a->run;
	const struct wx_exempt *e = ptlab_wx_find(run->wx, va, pa, size);

	if (e) {
		a->listed[e - run->wx->e] += size;
		return PTLAB_WX_LISTED;
	}
	return ptlab_wx_runtime(run->build, run->build->boot_services_gone, pa) ?
	       PTLAB_WX_RUNTIME : PTLAB_WX_FORBIDDEN;
}

static void audit_init(const struct check_run *run, struct audit *a,
		       enum ptlab_wx_exemption (*exempt)(const void *, uint64_t, uint64_t, uint64_t))
{
	*a = (struct audit){ .run = run,
			     .wx = { .map = &run->build->map, .exempt = exempt, .ctx = a } };
}

static int audit_leaf(void *arg, const struct pt_leaf *l)
{
	struct audit *a = arg;

	if (l->level < 3)
		a->leaves[l->level]++;
	return ptlab_wx_visit(&a->wx, l);
}

static void audit_space(const struct check_run *run, const struct pt_space *s, struct audit *a)
{
	audit_init(run, a, own_wx_exemption);
	pt_visit(s, 0, 0, audit_leaf, a);
}

/*
 * The exemption list as the audit found it: the W+X bytes under it, then
 * every entry by range and reason with the W+X bytes the tables have in it.
 */
static void note_listed(const struct check_run *run, const struct audit *a)
{
	char line[2048];

	ptlab_wx_describe(run->wx, a->listed, line, sizeof(line));
	report_note(run->rep, "audit: %llu bytes mapped RWX under the run's %u W^X exemptions; "
		    "exempt: %s", (unsigned long long)a->wx.wx_listed, run->wx->n, line);
}

static void check_audit(struct check_run *run, const struct ptlab_check *self)
{
	struct audit a;

	(void)self;
	audit_space(run, &run->build->space, &a);
	if (a.wx.wx_exempt)
		report_note(run->rep, "audit: %llu bytes of runtime code mapped RWX (no Memory "
			    "Attributes Table for them): exempt after the hand-off",
			    (unsigned long long)a.wx.wx_exempt);
	if (run->wx->n)
		note_listed(run, &a);
	if (!a.wx.wx_bytes && !a.wx.page0 && !a.wx.mmio_x_bytes)
		report_ok(run->rep, "audit: no writable+executable page, page 0 not present, MMIO NX");
	else
		report_fail(run->rep, "audit: wx_bytes=%llu (first va=0x%llx) page0=%d mmio_exec_bytes=%llu",
			    (unsigned long long)a.wx.wx_bytes, (unsigned long long)a.wx.wx_first,
			    a.wx.page0, (unsigned long long)a.wx.mmio_x_bytes);
}

/* The page at @va made writable and executable (the audit's exemption bit set). */
int checks_make_wx(struct check_run *run, const struct ptlab_check *self, uint64_t va)
{
	struct pt_leaf l;

	if (!va || pt_translate(&run->build->space, va, &l) != PT_OK)
		return -1;
	return inject_protect(run, self, va, l.flags | PT_WRITE | PT_EXEC | PT_ALLOW_WX);
}

static int plant_wx_page(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	return checks_make_wx(run, self, some_range_page(run->build));
}

static const struct ptlab_check audit = {
	"audit: no writable+executable page", PTLAB_PHASE_STATIC, check_audit,
	{ "wx-page", "a RAM page mapped writable and executable", PTLAB_FAULT_BEFORE,
	  plant_wx_page, NULL },
};

/* ---- pre-switch liveness ---- */

static uint64_t current_rsp(void)
{
	uint64_t rsp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
	return rsp;
}

struct live_need {
	const char *what;
	uint64_t va;
	unsigned need;   /* PT_WRITE and/or PT_EXEC that must be present */
};

static int table_mapped(void *arg, unsigned level, uint64_t pa)
{
	const struct pt_space *s = arg;
	struct pt_leaf l;

	(void)level;
	return pt_translate(s, pa, &l) != PT_OK || l.pa != pa || !(l.flags & PT_WRITE);
}

static void check_liveness(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	struct desc_ptr gdtr, idtr;
	struct live_need need[7];
	unsigned n = 0;

	(void)self;
	/* our GDT and IDT as the live phases will load them (installed for good after hand-off) */
	if (trap_installed()) {
		sgdt(&gdtr);
		sidt(&idtr);
	} else {
		trap_install();
		sgdt(&gdtr);
		sidt(&idtr);
		trap_uninstall();
	}
	need[n++] = (struct live_need){ "rip", (uint64_t)(uintptr_t)check_liveness, PT_EXEC };
	need[n++] = (struct live_need){ "rsp", current_rsp(), PT_WRITE };
	need[n++] = (struct live_need){ "gdt", gdtr.base, 0 };
	need[n++] = (struct live_need){ "idt", idtr.base, 0 };
	need[n++] = (struct live_need){ "tss", trap_tss_base(), 0 };
	need[n++] = (struct live_need){ "state", (uint64_t)(uintptr_t)run->state, PT_WRITE };
	need[n++] = (struct live_need){ "report", (uint64_t)(uintptr_t)run->rep->buf, PT_WRITE };
	for (unsigned i = 0; i < n; i++) {
		struct pt_leaf l;

		if (pt_translate(s, need[i].va, &l) != PT_OK || l.pa != need[i].va ||
		    (l.flags & need[i].need) != need[i].need) {
			report_fail(run->rep, "liveness: %s at 0x%llx not identity mapped with the "
				    "access it needs", need[i].what, (unsigned long long)need[i].va);
			*run->aborted = true;
			return;
		}
	}
	if (pt_visit_tables(s, table_mapped, s)) {
		report_fail(run->rep, "liveness: a table frame is not identity mapped writable");
		*run->aborted = true;
		return;
	}
	report_ok(run->rep, "liveness: rip, rsp, gdt, idt, state, report and every table mapped");
}

/* A few pages around this frame's stack read-only: the caller's RSP is among them. */
static int plant_stack_ro(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	volatile uint64_t here = 0;
	struct pt_leaf l;
	int bad = 0;

	(void)arg;
	for (int k = -2; k <= 2; k++) {
		uint64_t va = ((uint64_t)(uintptr_t)&here & ~(PT_PAGE_SIZE - 1)) +
			      (uint64_t)(int64_t)k * PT_PAGE_SIZE;

		if (pt_translate(&run->build->space, va, &l) == PT_OK)
			bad |= inject_protect(run, self, va, l.flags & ~PT_WRITE);
	}
	return bad;
}

static const struct ptlab_check liveness = {
	"liveness: what the switch needs is mapped", PTLAB_PHASE_STATIC, check_liveness,
	{ "stack-read-only", "the stack's pages read-only in our tables (the run stops before the "
	  "switch)", PTLAB_FAULT_BEFORE, plant_stack_ro, NULL },
};

ptlab_check_table checks_table = {
	&lint, &minimum, &plan_points, &memmap_coverage, &audit, &mmu_large_pre, &liveness, NULL,
};
