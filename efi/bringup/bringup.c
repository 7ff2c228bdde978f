/* SPDX-License-Identifier: MIT */
/*
 * Bringing every CPU onto our tables (see bringup.h); what they run there
 * is smp/.  The SMP checks in firmware mode: the APs are the firmware's,
 * reached through EFI_MP_SERVICES_PROTOCOL (PI spec Vol. 2).  ptlab never
 * sends INIT or SIPI to them.
 *
 *   1. Count the CPUs and record each one's APIC ID (GetProcessorInfo).
 *      (Hand-off mode, below: the MADT, checked against GetProcessorInfo.)
 *   2. Allocate a block per CPU, map the test pages and the local APIC (UC).
 *   3. StartupAllAPs, non-blocking (a WaitEvent): the call returns at once
 *      and the APs run smp_ap_entry on our tables (smp.c).
 *   4. Once every AP reported its per-CPU checks, the BSP goes on our tables
 *      too (ptlab_live) for the shootdowns and the churn, then tells the APs
 *      to leave.
 *   5. Back on the firmware's state: wait until every AP has restored its
 *      own firmware state and the event says the procedures returned; only
 *      then is anything of ours freed.  Every wait is bounded.
 *
 * Firmware calls (boot services): the MP services through fw/mp.h
 * (LocateProtocol, GetNumberOfProcessors, GetProcessorInfo,
 * StartupAllAPs), CreateEvent, CheckEvent, CloseEvent, Stall,
 * AllocatePages/FreePages; the configuration table (the MADT, hand-off
 * preparation).  Never while our tables are loaded.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/efistatus.h"
#include "acpi/acpi.h"
#include "checks/elsewhere.h"
#include "checks/checkkit.h"
#include "bringup/bringup.h"
#include "checks/inject.h"
#include "fw/firmware.h"
#include "fw/mp.h"
#include "fw/owned.h"
#include "fw/sink.h"
#include "report/fmt.h"
#include "cpu/claim.h"
#include "smp/smp.h"
#include "smp/smp_tramp.h"
#include "live/live.h"

#define START_WAIT_S    90u     /* all APs through their per-CPU checks */
#define AP_BUDGET_S     240u    /* an AP leaves on its own after this */
#define EVENT_WAIT_S    30u
#define APIC_BASE_X2    (UINT64_C(1) << 10)
#define APIC_BASE_EN    (UINT64_C(1) << 11)

/* TSC ticks in @s seconds by the run's calibration @t (1 GHz when it has none). */
static uint64_t s_to_tsc(const struct ptlab_time *t, uint64_t s)
{
	return s * 1000000 * (t->tsc_per_us ? t->tsc_per_us : 1000);
}

/* The "# smp:" fact on @rep: the counts given, where @sh's APIC IDs came from, its IPIs. */
static void fact(struct report *rep, const struct smp_shared *sh, unsigned cpus, unsigned started,
		 unsigned on_tables, const char *method)
{
	report_fact(rep, "smp", "cpus=%u started=%u on_tables=%u method=%s apic_ids=%s "
		    "x2apic=%d ipis=%llu", cpus, started, on_tables, method,
		    sh->source ? sh->source : "none", sh->x2apic, (unsigned long long)sh->ipis);
}

/*
 * Map the xAPIC page at @pa UC in @s (our tables) unless the plan already
 * did; 1 when we mapped it, 0 when it was, -1 after a failure line on @rep.
 */
static int map_apic(struct report *rep, struct pt_space *s, uint64_t pa)
{
	struct pt_leaf l;

	if (pt_translate(s, pa, &l) == PT_OK) {
		if (l.pa == pa && (l.flags & PT_WRITE) && PT_CACHE_OF(l.flags) == PT_CACHE_UC)
			return 0;
		report_fail(rep, "smp: the local APIC at 0x%llx is mapped, but not identity RW UC",
			    (unsigned long long)pa);
		return -1;
	}
	if (pt_map(s, pa, pa, PT_PAGE_SIZE, PT_WRITE | PT_CACHE(PT_CACHE_UC),
		   PT_PAGE_4K, NULL)) {
		report_fail(rep, "smp: could not map the local APIC at 0x%llx",
			    (unsigned long long)pa);
		return -1;
	}
	return 1;
}

/*
 * Spin until no AP is still @busy(c, @state), or until @end (a TSC value);
 * true when none is.
 */
static bool wait_aps(const struct smp_shared *sh,
		     bool (*busy)(const struct smp_cpu *c, uint32_t state), uint32_t state,
		     uint64_t end)
{
	for (;;) {
		bool waiting = false;

		for (unsigned i = 0; i < sh->ncpu; i++)
			waiting |= !sh->cpu[i]->bsp && busy(sh->cpu[i], state);
		if (!waiting)
			return true;
		if (rdtsc() > end)
			return false;
		__asm__ volatile("pause");
	}
}

/* Short of @state; one that faulted or left already (deadline) brings nothing more. */
static bool short_of(const struct smp_cpu *c, uint32_t state)
{
	return c->state < state && !c->faulted && c->state != SMP_ST_LEFT;
}

/* Started and not yet gone from our tables. */
static bool not_left(const struct smp_cpu *c, uint32_t state)
{
	(void)state;
	return c->state != SMP_ST_NONE && c->state != SMP_ST_LEFT;
}

static bool all_past(const struct smp_shared *sh, uint32_t state, uint64_t end)
{
	return wait_aps(sh, short_of, state, end);
}

static bool all_left(const struct smp_shared *sh, uint64_t end)
{
	return wait_aps(sh, not_left, 0, end);
}

/*
 * What differs in an AP's end between the two ways of starting it, as its
 * starter knows: what a faulting AP did then (parked on the recovery
 * tables, or back to the firmware's state and returned), and whether an AP
 * that never ran is a failure of its own (the MP services were asked to
 * run the procedure on every AP; an AP sent INIT-SIPI-SIPI that never came
 * shows in the count of those that reached the built tables).
 */
struct ap_end {
	const char *then;
	bool must_start;
};

static const struct ap_end ap_end_parked = {
	.then = "the AP parked",
	.must_start = false,
};

static const struct ap_end ap_end_returned = {
	.then = "the AP restored the firmware's state and returned",
	.must_start = true,
};

/* How AP @c ended, judged by @how and reported on @rep (nothing when all went well). */
static void report_ap_end(struct report *rep, const struct smp_cpu *c, const struct ap_end *how)
{
	if (c->sel_mismatch)
		report_fail(rep, "smp cpu %u (apic %u): the firmware runs it with CS=0x%x SS=0x%x, "
			    "the BSP with CS=0x%x SS=0x%x; no segment register is loaded, so it "
			    "stayed on the firmware's state", c->index, c->apic,
			    (unsigned)(c->sel_mismatch >> 16), (unsigned)(c->sel_mismatch & 0xffff),
			    c->sh->sel_cs, c->sh->sel_ss);
	if (c->faulted) {
		char who[48];

		fmt_snprintf(who, sizeof(who), "smp cpu %u (apic %u)", c->index, c->apic);
		report_exception(rep, &(struct report_exc){ .who = who,
				 .then = how->then }, &c->fault);
	}
	if (c->strays)
		report_fail(rep, "smp cpu %u (apic %u): %u interrupts arrived although every "
			    "source but the shootdown vector was masked (last vector %u)", c->index,
			    c->apic, (unsigned)c->strays, c->stray_vec);
	if (c->timed_out)
		report_fail(rep, "smp cpu %u (apic %u): left on its deadline, not told to",
			    c->index, c->apic);
	if (c->state == SMP_ST_NONE && how->must_start)
		report_fail(rep, "smp cpu %u (apic %u): never ran the procedure", c->index,
			    c->apic);
}

/* ---- hand-off mode ---- */

extern const char smp_tramp_start[] __attribute__((visibility("hidden")));
extern const char smp_tramp_end[] __attribute__((visibility("hidden")));

/*
 * A block for each CPU of @ids (the BSP is @bsp_apic), in the order given,
 * in @sh (the run's shared page); @o: the options (--raise=ap-fault marks
 * the last AP).  0, or -1 with the reason in *why.
 */
static int make_blocks(struct smp_shared *sh, const struct opts *o, const struct smp_table *ids,
		       uint32_t bsp_apic, const char **why)
{
	EFI_PHYSICAL_ADDRESS blocks = 0;
	uint64_t pages = (uint64_t)ids->n * SMP_CPU_PAGES;
	struct cpu_state now;

	/* the selectors every GDT of ours keeps (trap.h): the BSP's, as they are now */
	cpu_state_save(&now);
	sh->sel_cs = now.cs;
	sh->sel_ss = now.ss;

	if (owned_alloc(AllocateAnyPages, EfiLoaderData, pages * PT_PAGE_SIZE, &blocks) !=
	    EFI_SUCCESS) {
		*why = "no memory for the per-CPU blocks";
		return -1;
	}
	sh->blocks = blocks;
	sh->block_pages = pages;
	for (unsigned i = 0; i < ids->n; i++) {
		uint64_t block = blocks + (uint64_t)i * SMP_CPU_PAGES * PT_PAGE_SIZE;
		struct smp_cpu *c = (struct smp_cpu *)(uintptr_t)block;
		int idx = smp_table_add(&sh->table, ids->apic[i]);

		*c = (struct smp_cpu){ .sh = sh, .index = (unsigned)idx, .apic = ids->apic[i],
				       .bsp = ids->apic[i] == bsp_apic };
		fmt_snprintf(c->name, sizeof(c->name), "cpu %u (apic %u)", c->index, c->apic);
		if (smp_prepare_cpu(c, block)) {
			*why = "the firmware's CS and SS selectors leave no room for our GDT layout";
			return -1;
		}
		sh->cpu[idx] = c;
		if (!c->bsp && o->raise == OPTS_RAISE_AP_FAULT)
			sh->raise_index = idx;     /* the last AP */
	}
	sh->ncpu = sh->table.n;
	return 0;
}

/* The enabled CPUs as the MP services list them; false when it cannot. */
static bool mp_list(PTLAB_MP_SERVICES *mp, struct smp_table *t, uint32_t *bsp_apic)
{
	UINTN n = 0, enabled = 0;

	if (!fw_mp_count(mp, &n, &enabled))
		return false;
	for (UINTN i = 0; i < n && t->n < SMP_MAX_CPUS; i++) {
		PTLAB_PROCESSOR_INFORMATION info = { 0 };

		if (!fw_mp_info(mp, i, &info) ||
		    !(info.StatusFlag & PTLAB_MP_PROCESSOR_ENABLED))
			continue;
		if (smp_table_add(t, (uint32_t)info.ProcessorId) >= 0 &&
		    (info.StatusFlag & PTLAB_MP_PROCESSOR_AS_BSP))
			*bsp_apic = (uint32_t)info.ProcessorId;
	}
	return true;
}

/*
 * The enabled CPUs of the firmware's MADT into @t: ACPI_OK, or the ACPI
 * error that kept them out (ACPI_ENOTFOUND: no MADT) with its length, or 0,
 * in *@len for the report.
 */
static int madt_ids(struct smp_table *t, uint32_t *len)
{
	const struct acpi_mem identity = ACPI_MEM_IDENTITY;
	uint64_t pa = fw_acpi_rsdp();
	struct acpi_rsdp r;
	struct acpi_madt m;
	int err;

	*len = 0;
	if (!pa)
		return ACPI_ENOTFOUND;
	if ((err = acpi_rsdp_read(&identity, pa, &r)) ||
	    (err = acpi_find(&identity, &r, "APIC", &pa, len)))
		return err;
	if ((err = acpi_madt_read(acpi_at(&identity, pa, *len), *len, &m)) < 0)
		return err;
	for (unsigned i = 0; i < m.ncpu; i++)
		smp_table_add(t, m.cpu[i].apic);
	return ACPI_OK;
}

/* Is every ID of @a in @b and the other way round? */
static bool same_ids(const struct smp_table *a, const struct smp_table *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (smp_table_find(b, a->apic[i]) < 0)
			return false;
	return true;
}

/*
 * Hand-off mode, before ExitBootServices: the CPUs from the MADT (checked
 * against GetProcessorInfo when the MP services exist, else from them),
 * the per-CPU blocks, the trampoline's two pages and the local APIC mapped
 * UC in the recovery tables (INIT goes out on them).
 */
void smp_handoff_prepare(struct ptlab *p, struct pt_space *recovery)
{
	struct smp_shared *sh = smp_shared_reset(p);
	PTLAB_MP_SERVICES *mp = NULL;
	EFI_PHYSICAL_ADDRESS tramp = 0x9ffff;
	uint64_t apic_base = rdmsr(MSR_APIC_BASE);
	struct smp_table madt = { 0 }, mpt = { 0 };
	const struct smp_table *ids;
	uint32_t bsp = cpu_apic_id(), mp_bsp = bsp, madt_len;
	int err = madt_ids(&madt, &madt_len);
	int nm = err ? -1 : (int)madt.n;
	struct pt_leaf l;

	sh->tsc_per_us = p->t.tsc_per_us;
	if (!(mp = fw_mp_locate()) || !mp_list(mp, &mpt, &mp_bsp))
		mp = NULL;
	if (err && err != ACPI_ENOTFOUND)
		check_report(p->rep, &check_smp_madt, false, "smp: %s is malformed (%s): %u "
			     "bytes", madt_len ? "the MADT" : "the RSDP or its root table",
			     acpi_strerror(err), madt_len);
	if (nm > 0 && mp) {
		struct smp_table seen = madt;

		/* --inject=madt-id: the comparison is given one APIC ID of the MADT changed */
		if (inject_on(&p->opts, &check_smp_madt))
			seen.apic[seen.n - 1] ^= 0x80;
		if (same_ids(&seen, &mpt) && mp_bsp == bsp)
			check_report(p->rep, &check_smp_madt, true,
				     "smp: the MADT and GetProcessorInfo agree on %u APIC ID%s, "
				     "the BSP is %u", madt.n, madt.n == 1 ? "" : "s", bsp);
		else
			check_report(p->rep, &check_smp_madt, false,
				     "smp: the MADT lists %u enabled CPUs, GetProcessorInfo %u "
				     "(BSP %u / %u)", madt.n, mpt.n, bsp, mp_bsp);
	}
	ids = nm > 0 ? &madt : mp ? &mpt : NULL;
	sh->source = nm > 0 ? "madt" : "mp-services";
	if (!ids) {
		sh->handoff_skip = "neither an MADT nor EFI_MP_SERVICES_PROTOCOL lists the CPUs";
		return;
	}
	if (ids->n < 2 || smp_table_find(ids, bsp) < 0) {
		sh->handoff_skip = ids->n < 2 ? "one CPU: no AP to start" :
				   "the BSP's APIC ID is not in the list of CPUs";
		sh->ncpu = 1;
		return;
	}
	if (!(apic_base & APIC_BASE_EN)) {
		sh->handoff_skip = "the local APIC is disabled";
		return;
	}
	sh->x2apic = (apic_base & APIC_BASE_X2) != 0;
	sh->apic_pa = apic_base & ~UINT64_C(0xfff) &
		      ((UINT64_C(1) << p->cpu.caps.maxphyaddr) - 1);
	if (smp_tramp_end - smp_tramp_start > (long)PT_PAGE_SIZE ||
	    owned_alloc(AllocateMaxAddress, EfiLoaderData, 2 * PT_PAGE_SIZE, &tramp) != EFI_SUCCESS ||
	    !smp_tramp_place_ok(tramp)) {
		sh->handoff_skip = "no two pages for the trampoline below 640 KiB";
		return;
	}
	sh->tramp_pa = tramp;
	CopyMem((void *)(uintptr_t)tramp, (void *)smp_tramp_start,
		(UINTN)(smp_tramp_end - smp_tramp_start));
	if (make_blocks(p->smp, &p->opts, ids, bsp, &sh->handoff_skip)) {
		sh->ncpu = 0;
		return;
	}
	/* INIT goes out on the recovery tables: the local APIC must be mapped there */
	if (!sh->x2apic) {
		if (pt_translate(recovery, sh->apic_pa, &l) != PT_OK &&
		    pt_map(recovery, sh->apic_pa, sh->apic_pa, PT_PAGE_SIZE,
			   PT_WRITE | PT_CACHE(PT_CACHE_UC), PT_PAGE_4K, NULL)) {
			sh->handoff_skip = "the local APIC could not be mapped in the recovery tables";
			sh->ncpu = 0;
			return;
		}
		sh->apic_va = sh->apic_pa;
	}
	sh->park_cr3 = p->live.home_cr3;
	sh->has_pat = p->cpu.caps.pat;
}

void smp_handoff_run(struct ptlab *p)
{
	struct smp_shared *sh = p->smp;
	unsigned started = 1, on_tables = 1, aps = 0;
	int apic_mapped = 0;

	/* !sh: smp_handoff_prepare did not run, so no AP is known */
	if (!sh || sh->handoff_skip || sh->ncpu < 2) {
		if (sh && sh->ncpu == 1)
			fact(p->rep, p->smp, 1, 1, 1, "init-sipi");
		report_skip(p->rep, "smp", "%s", sh && sh->handoff_skip ? sh->handoff_skip : "no AP");
		return;
	}
	if (p->build.our_cr3 >= (UINT64_C(1) << 32)) {
		report_skip(p->rep, "smp", "the built root 0x%llx is above 4 GiB: an AP loads CR3 in "
			    "32-bit mode", (unsigned long long)p->build.our_cr3);
		return;
	}
	sh->our_cr3 = p->build.our_cr3;
	sh->image_base = p->build.image.base;
	sh->image_va = p->build.image_va;
	sh->hhdm_base = p->build.plan.hhdm_base;
	sh->deadline = rdtsc() + s_to_tsc(&p->t, AP_BUDGET_S);
	if (!sh->x2apic) {
		apic_mapped = map_apic(p->rep, &p->build.space, sh->apic_pa);
		if (apic_mapped < 0)
			return;
	}
	/* the trampoline's code page executable in the built tables while APs start */
	if (smp_map_area(p) || pt_protect(&p->build.space, sh->tramp_pa, PT_PAGE_SIZE, PT_EXEC, NULL)) {
		report_fail(p->rep, "smp: could not map the test pages and the trampoline");
		goto out;
	}
	ptlab_live(p, smp_handoff_live, "smp");
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (c->bsp)
			continue;
		aps++;
		started += c->state != SMP_ST_NONE;
		on_tables += c->on_tables != 0;
		report_ap_end(p->rep, c, &ap_end_parked);
	}
	if (on_tables == aps + 1 && !p->aborted)
		check_report(p->rep, &check_smp_aps_on_tables, true,
			     "smp: %u AP%s started by INIT-SIPI-SIPI ran on the built tables "
			     "and %s parked (hlt, interrupts off)", aps, aps == 1 ? "" : "s",
			     aps == 1 ? "is" : "are");
	else
		check_report(p->rep, &check_smp_aps_on_tables, false,
			     "smp: %u of %u APs reached the built tables", on_tables - 1, aps);
	fact(p->rep, p->smp, (unsigned)sh->ncpu, started, on_tables, "init-sipi");
out:
	pt_protect(&p->build.space, sh->tramp_pa, PT_PAGE_SIZE, PT_WRITE, NULL);
	smp_unmap_area(p);
	if (apic_mapped > 0)
		pt_unmap(&p->build.space, sh->apic_pa, PT_PAGE_SIZE, 0, NULL);
}

/*
 * Whether the AP checks can run: the built hierarchy has the firmware's
 * level count, the MP services exist and list more than one CPU (their
 * APIC IDs into @ids, the BSP's into *@bsp), the local APIC is enabled
 * (IA32_APIC_BASE into *@apic_base).  Otherwise false after a skip or a
 * failure line on the report.
 */
static bool smp_can_run(struct ptlab *p, PTLAB_MP_SERVICES **mp, struct smp_table *ids,
			uint32_t *bsp, uint64_t *apic_base)
{
	if (p->build.levels != p->cpu.fw_levels) {
		/*
		 * The APs run the firmware's paging mode inside its MP services;
		 * a root of the other level count would be walked as the wrong
		 * table type.  Switching every AP through the LA57 trampoline is
		 * not done.
		 */
		report_skip(p->rep, "smp", "the APs run the firmware's %u-level paging and the built "
			    "hierarchy has %u levels", p->cpu.fw_levels, p->build.levels);
		return false;
	}
	smp_shared_reset(p)->source = "mp-services";
	if (!(*mp = fw_mp_locate())) {
		fact(p->rep, p->smp, 1, 1, 1, "none");
		report_skip(p->rep, "smp", "the firmware has no EFI_MP_SERVICES_PROTOCOL");
		return false;
	}
	if (!mp_list(*mp, ids, bsp)) {
		report_fail(p->rep, "smp: GetNumberOfProcessors failed");
		return false;
	}
	if (ids->n < 2) {
		fact(p->rep, p->smp, ids->n, 1, 1, "mp-services");
		report_skip(p->rep, "smp", "one CPU: no AP to run the per-CPU and shootdown checks");
		return false;
	}
	*apic_base = rdmsr(MSR_APIC_BASE);
	if (!(*apic_base & APIC_BASE_EN)) {
		report_skip(p->rep, "smp", "the local APIC is disabled (IA32_APIC_BASE=0x%llx)",
			    (unsigned long long)*apic_base);
		return false;
	}
	return true;
}

/*
 * After the APs' run: each AP's end reported, and whether all @aps of them
 * ran on our tables and came back (@returned: out of our procedure,
 * @signaled: the firmware's event), with the run's smp fact.
 */
static void smp_judge_end(struct ptlab *p, struct smp_shared *sh, unsigned aps, bool returned,
			  bool signaled)
{
	unsigned started = 1, on_tables = 1;

	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (c->bsp)
			continue;
		started += c->state != SMP_ST_NONE;
		on_tables += c->on_tables != 0;
		report_ap_end(p->rep, c, &ap_end_returned);
	}
	if (sh->unknown)
		report_fail(p->rep, "smp: %u procedure calls found no CPU with their APIC ID",
			    (unsigned)sh->unknown);
	if (!returned || !signaled)
		report_fail(p->rep, "smp: the APs did not all return (%s)", returned ?
			    "the firmware did not signal the end" : "an AP is still in our procedure");
	else if (on_tables == aps + 1 && started == aps + 1)
		check_report(p->rep, &check_smp_aps_on_tables, true,
			     "smp: %u AP%s ran on our tables and returned on their own "
			     "firmware state", aps, aps == 1 ? "" : "s");
	else
		check_report(p->rep, &check_smp_aps_on_tables, false,
			     "smp: %u of %u APs reached our tables", on_tables - 1, aps);
	fact(p->rep, p->smp, (unsigned)sh->ncpu, started, on_tables, "mp-services");
	for (unsigned i = 0; i < sh->ncpu; i++) {
		const struct smp_cpu *c = sh->cpu[i];

		if (c->bsp || !c->on_tables)
			continue;
		if (c->fw.tr)
			report_note(p->rep, "smp: the firmware's TR on the APs (0x%x) was reloaded from "
				    "a copy of its GDT", c->fw.tr);
		else
			report_note(p->rep, "smp: the firmware loaded no TR on the APs: ours stays "
				    "loaded, unused at CPL 0 with IST-free firmware gates");
		break;
	}
}

void smp_run(struct ptlab *p)
{
	struct smp_shared *sh;
	PTLAB_MP_SERVICES *mp = NULL;
	struct smp_table ids = { 0 };
	uint32_t bsp = cpu_apic_id();
	const char *why = NULL;
	EFI_EVENT ev = NULL;
	EFI_STATUS st;
	uint64_t apic_base, apic_pa = 0;
	unsigned aps = 0;
	int apic_mapped = 0;
	bool returned = false, signaled = false;

	if (!smp_can_run(p, &mp, &ids, &bsp, &apic_base))
		return;
	sh = p->smp;
	sh->x2apic = (apic_base & APIC_BASE_X2) != 0;
	apic_pa = apic_base & ~UINT64_C(0xfff) & ((UINT64_C(1) << p->cpu.caps.maxphyaddr) - 1);
	if (make_blocks(p->smp, &p->opts, &ids, bsp, &why)) {
		report_fail(p->rep, "smp: %s", why);
		return;
	}
	for (unsigned i = 0; i < sh->table.n; i++)
		aps += !sh->cpu[i]->bsp;
	sh->ncpu = sh->table.n;
	sh->our_cr3 = p->build.our_cr3;
	sh->image_base = p->build.image.base;
	sh->image_va = p->build.image_va;
	sh->hhdm_base = p->build.plan.hhdm_base;
	sh->tsc_per_us = p->t.tsc_per_us;
	if (!sh->x2apic) {
		apic_mapped = map_apic(p->rep, &p->build.space, apic_pa);
		if (apic_mapped < 0)
			goto out;
		sh->apic_va = apic_pa;
	}
	if (smp_map_area(p)) {
		report_fail(p->rep, "smp: could not map the per-CPU test pages");
		goto out;
	}

	sh->deadline = rdtsc() + s_to_tsc(&p->t, AP_BUDGET_S);
	if (uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL, &ev) != EFI_SUCCESS) {
		report_fail(p->rep, "smp: CreateEvent failed");
		goto out;
	}
	st = fw_mp_startup_all(mp, smp_ap_entry, ev, (UINTN)(AP_BUDGET_S + 60) * 1000000,
			       (void *)sh);
	if (st != EFI_SUCCESS) {
		report_fail(p->rep, "smp: StartupAllAPs failed: status 0x%llx (%s)",
			    (unsigned long long)st, efi_status_name(st));
		signaled = returned = true;     /* nothing runs */
		goto out;
	}
	if (!all_past(sh, SMP_ST_CHECKED, rdtsc() + s_to_tsc(&p->t, START_WAIT_S)))
		report_fail(p->rep, "smp: not every AP finished its per-CPU checks within %u s",
			    START_WAIT_S);
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (!sh->cpu[i]->bsp)
			smp_report_cpu(p->rep, sh->cpu[i]);
	sink_emit(p->rep);

	if (!p->aborted)
		ptlab_live(p, smp_bsp_live, "smp");
	smp_send_exit(sh);

	returned = all_left(sh, sh->deadline + s_to_tsc(&p->t, 10));
	{
		uint64_t end = rdtsc() + s_to_tsc(&p->t, EVENT_WAIT_S);

		while (!(signaled = uefi_call_wrapper(BS->CheckEvent, 1, ev) == EFI_SUCCESS) &&
		       rdtsc() < end)
			uefi_call_wrapper(BS->Stall, 1, 1000);
	}
	smp_judge_end(p, sh, aps, returned, signaled);
out:
	sh->closed = 1;
	smp_unmap_area(p);
	if (apic_mapped > 0)
		pt_unmap(&p->build.space, apic_pa, PT_PAGE_SIZE, 0, NULL);
	if (ev)
		uefi_call_wrapper(BS->CloseEvent, 1, ev);
	/* an AP that may still run our code keeps its memory: a leak, not a corruption */
	if (!ev || (returned && signaled))
		owned_free(sh->blocks, sh->block_pages * PT_PAGE_SIZE);
	else
		p->aborted = true;
}
