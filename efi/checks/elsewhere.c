/* SPDX-License-Identifier: MIT */
/*
 * The checks other parts of the run report - the run's end, the churn,
 * the SMP bring-up, the paging-mode switch - as
 * registry entries: their faults are hooks in that code, which names them
 * by these entries (registry.h).  Firmware-free.
 */
#include "checks/elsewhere.h"
#include "checks/inject.h"
#include "checks/registry.h"
#include "live/la57.h"
#include "report/report.h"
#include "state/state.h"

#include <ptlab/pte.h>

/* --inject=leak-frame: a pool frame taken and never given back. */
static int leak_frame(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	uint64_t f;

	(void)self;
	(void)arg;
	if (pt_frames_alloc(&run->build->frames, &f) != PT_OK)
		return -1;
	report_note(run->rep, "inject: leak-frame: frame 0x%llx is never returned",
		    (unsigned long long)f);
	return 0;
}

const struct ptlab_check check_frames_returned = {
	"frames: every frame taken was returned", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "leak-frame", "a pool frame taken and never returned", PTLAB_FAULT_AFTER_BUILD,
	  leak_frame, NULL },
};

/* --inject=typed-alias: a typed-window frame back in the identity map, write-back. */
static int typed_alias(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)arg;
	if (!run->data->typed_len)
		return -1;
	return inject_map(run, self, run->data->typed_pa, run->data->typed_pa, PT_WRITE);
}

const struct ptlab_check check_memory_types = {
	"memory types: the typed-window rule", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "typed-alias", "a typed-window frame mapped write-back in the identity map for the "
	  "churn's audit", PTLAB_FAULT_HOOK, typed_alias, NULL },
};

const struct ptlab_check check_smp_madt = {
	"smp: the MADT and GetProcessorInfo agree", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "madt-id", "the comparison is given one APIC ID changed", PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_smp_aps_on_tables = {
	"smp: the APs ran on our tables", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "ap-off-tables", "the last AP leaves (or halts) without loading our CR3",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/* The AP's own frame's HHDM page (@arg) pointed at its complement. */
static int ap_alias(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	return inject_remap(run, self, arg);
}

const struct ptlab_check check_smp_ap_alias = {
	"smp cpu N: its own frame through identity and HHDM", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "ap-alias", "the HHDM page of the AP's frame points at a frame holding its complement",
	  PTLAB_FAULT_HOOK, ap_alias, NULL },
};

const struct ptlab_check check_smp_ap_call = {
	"smp cpu N: a call through the image alias", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "ap-call", "the AP passes a wrong argument, so the result it reports is wrong",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/* The AP's unmapped page (@arg) mapped to a pool frame. */
static int ap_pf_mapped(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	return inject_map(run, self, arg, 0, PT_WRITE);
}

const struct ptlab_check check_smp_ap_pf = {
	"smp cpu N: #PF on its own unmapped page", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "ap-pf-mapped", "the AP's unmapped page mapped", PTLAB_FAULT_HOOK, ap_pf_mapped, NULL },
};

const struct ptlab_check check_smp_ap_ad = {
	"smp cpu N: A/D on its own page", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "ap-ad-read-only", "the AP's A/D page mapped read-only", PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_smp_shootdowns = {
	"shootdowns and the SMP churn: every AP sees each change", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "missing-shootdown-all", "no shootdown IPI to the last AP, ever", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_la57_preconditions = {
	"la57: switch preconditions hold", PTLAB_PHASE_ELSEWHERE, NULL,
	{ LA57_FAULT_REFUSE, "the preconditions refuse every switch", PTLAB_FAULT_HOOK, NULL,
	  NULL },
};

const struct ptlab_check check_la57_back_to_4 = {
	"handoff: back to 4-level paging for the runtime services", PTLAB_PHASE_ELSEWHERE, NULL,
	{ LA57_FAULT_REFUSE_LATER, "the preconditions refuse every switch after the first",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/*
 * An exception after ExitBootServices that no guard expects ends the run
 * with a verdict written by the CPU that took it (docs/handoff.md): the
 * failing test point is the exception's line, keyed by one of these.
 */
const struct ptlab_check check_handoff_ap_exception = {
	"handoff: no AP takes an exception while ptlab parks it", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "park-stack", "the first AP parked for a Limine-protocol kernel given a non-canonical "
	  "stack pointer, as a stack size that wrapped gives", PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_handoff_bsp_exception = {
	"handoff: the BSP takes no exception outside the checks", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "bsp-fatal", "a read of an unmapped page on the BSP right after ExitBootServices, "
	  "outside every guard", PTLAB_FAULT_HOOK, NULL, NULL },
};

ptlab_check_table elsewhere_table = {
	&check_frames_returned, &check_memory_types, &check_smp_madt, &check_smp_aps_on_tables,
	&check_smp_ap_alias, &check_smp_ap_call, &check_smp_ap_pf, &check_smp_ap_ad,
	&check_smp_shootdowns, &check_la57_preconditions, &check_la57_back_to_4,
	&check_handoff_ap_exception, &check_handoff_bsp_exception, NULL,
};
