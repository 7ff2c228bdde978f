/* SPDX-License-Identifier: MIT */
/*
 * Bringing the other CPUs onto the built tables and judging them: which
 * CPUs there are, their blocks, how they are started (the firmware's MP
 * services with boot services kept, INIT-SIPI-SIPI after the hand-off),
 * the bounded waits and the verdicts.  What the CPUs run on our tables is
 * smp/ (firmware-free); this is the part that needs the firmware.
 */
#ifndef PTLAB_EFI_BRINGUP_H
#define PTLAB_EFI_BRINGUP_H

struct ptlab;
struct pt_space;

/*
 * Every CPU on the built tables: per-CPU checks on each AP, shootdowns by
 * IPI, a churn read by the APs.  smp_run: the firmware mode's, through MP
 * services (boot services needed).  smp_handoff_run: the hand-off modes',
 * each AP started by INIT-SIPI-SIPI and parked after.
 */
void smp_run(struct ptlab *p);
void smp_handoff_run(struct ptlab *p);

/*
 * Hand-off mode, before ExitBootServices: CPUs, blocks, trampoline, LAPIC
 * in @recovery.
 */
void smp_handoff_prepare(struct ptlab *p, struct pt_space *recovery);

#endif /* PTLAB_EFI_BRINGUP_H */
