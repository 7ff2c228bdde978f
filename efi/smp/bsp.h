/* SPDX-License-Identifier: MIT */
/*
 * The BSP's side of the SMP checks on our tables (bsp.c): the shootdown
 * scenarios and the churn it runs with every AP, the verdicts on what each
 * AP observed in its per-CPU checks, and the SMP area's test pages.
 * Part of smp.h's interface, which includes this header.
 */
#ifndef PTLAB_EFI_SMP_BSP_H
#define PTLAB_EFI_SMP_BSP_H

struct ptlab;
struct report;
struct smp_cpu;
struct smp_shared;

/* CPU @c as the report names it: "cpu N (apic M)". */
const char *smp_cpu_name(const struct smp_cpu *c);

/*
 * The BSP's part on our tables (run through ptlab_live): shootdowns and
 * churn, then every AP is told to leave.  Hand-off mode runs it too, once
 * its APs are on the tables (smp_handoff_live).
 */
int smp_bsp_live(struct ptlab *p);

/* Report on @rep what AP @c observed in its per-CPU checks (BSP, any state). */
void smp_report_cpu(struct report *rep, struct smp_cpu *c);

/* Tell every AP to leave (a plain memory write). */
void smp_send_exit(struct smp_shared *sh);

/* Map / unmap the test pages of the SMP area (BSP, before / after the APs ran). */
int smp_map_area(struct ptlab *p);
void smp_unmap_area(struct ptlab *p);

#endif
