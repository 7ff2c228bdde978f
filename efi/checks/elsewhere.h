/* SPDX-License-Identifier: MIT */
/*
 * The checks reported by another part of the run (elsewhere.c): the SMP
 * bring-up, the churn, the paging-mode switch.  The
 * registry holds them for their faults; the code that reports one names
 * its entry here (check_report, inject_on).  Firmware-free.
 */
#ifndef PTLAB_EFI_ELSEWHERE_H
#define PTLAB_EFI_ELSEWHERE_H

#include "checks/registry.h"

/* The module's table. */
extern ptlab_check_table elsewhere_table;

/*
 * Checks reported elsewhere whose faults are hooks in other folders'
 * code: the hook names the entry (elsewhere.c).
 */
extern const struct ptlab_check check_frames_returned;
extern const struct ptlab_check check_memory_types;
extern const struct ptlab_check check_smp_madt;
extern const struct ptlab_check check_smp_aps_on_tables;
extern const struct ptlab_check check_smp_ap_alias;
extern const struct ptlab_check check_smp_ap_call;
extern const struct ptlab_check check_smp_ap_pf;
extern const struct ptlab_check check_smp_ap_ad;
extern const struct ptlab_check check_smp_shootdowns;
extern const struct ptlab_check check_la57_preconditions;
extern const struct ptlab_check check_la57_back_to_4;
extern const struct ptlab_check check_handoff_ap_exception;
extern const struct ptlab_check check_handoff_bsp_exception;

#endif
