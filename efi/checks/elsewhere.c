/* SPDX-License-Identifier: MIT */
/*
 * The checks other parts of the run report - the run's end, the churn,
 * the SMP bring-up, the paging-mode switch, the kernel hand-over - as
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

const struct ptlab_check check_linux_digest = {
	"linux: the tables handed over are the checked plan built again", PTLAB_PHASE_ELSEWHERE,
	NULL, { "linux-digest", "page 0 mapped before the comparison with the checked build",
		PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_linux_mapped = {
	"linux: identity mapped as the boot protocol needs", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "linux-unmapped", "a page of the kernel's range unmapped from them", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_linux_entry = {
	"linux: the CPU reads the kernel's entry on the tables handed over", PTLAB_PHASE_ELSEWHERE,
	NULL, { "linux-entry", "the entry bytes expected with one byte flipped", PTLAB_FAULT_HOOK,
		NULL, NULL },
};

const struct ptlab_check check_limine_digest = {
	"limine: the tables handed over are the checked plan built again", PTLAB_PHASE_ELSEWHERE,
	NULL, { "limine-digest", "page 0 mapped before the comparison with the checked build",
		PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_segments = {
	"limine: the kernel's segments mapped at their addresses with their permissions",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-segment", "the W (or else X) bit of the last page of the kernel's first segment flipped",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_read = {
	"limine: the CPU reads the responses through the HHDM and the entry as in the file",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-entry", "the entry bytes expected with one byte flipped", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_limine_layout = {
	"limine: the HHDM and paging mode responses as the paging mode's layout fixes them",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-layout", "the other paging mode's HHDM offset written into the HHDM response",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_identity = {
	"limine: base revision 0: the identity map RWX as the protocol lays it out",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-identity", "the page below 4 GiB left no-execute after the identity map was widened",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_masked = {
	"limine: the legacy PIC and the I/O APICs' lines masked", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-unmasked", "the first I/O APIC line to mask unmasked instead", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_limine_aps = {
	"limine: every AP parked on the tables handed over", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-park", "the first AP's CR3 as it reported it taken for wrong",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

ptlab_check_table elsewhere_table = {
	&check_frames_returned, &check_memory_types, &check_smp_madt, &check_smp_aps_on_tables,
	&check_smp_ap_alias, &check_smp_ap_call, &check_smp_ap_pf, &check_smp_ap_ad,
	&check_smp_shootdowns, &check_la57_preconditions, &check_la57_back_to_4,
	&check_linux_digest, &check_linux_mapped, &check_linux_entry, &check_limine_digest,
	&check_limine_segments, &check_limine_read, &check_limine_layout, &check_limine_identity, &check_limine_aps,
	&check_limine_masked, NULL,
};
