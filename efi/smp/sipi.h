/* SPDX-License-Identifier: MIT */
/*
 * Hand-off mode's start of the APs (sipi.c): after ExitBootServices ptlab
 * starts every AP itself, by INIT-SIPI-SIPI through the real-mode
 * trampoline of smp_asm.S.  Part of smp.h's interface, which includes this
 * header.
 */
#ifndef PTLAB_EFI_SMP_SIPI_H
#define PTLAB_EFI_SMP_SIPI_H

#include <stdbool.h>
#include <stdint.h>

struct ptlab;
struct smp_shared;

/*
 * Hand-off mode.  smp_handoff_init_aps: INIT to every AP right after
 * ExitBootServices (before any firmware memory is reused), the local APIC
 * mapped in the current tables.  smp_handoff_live (through ptlab_live):
 * SIPI-SIPI each AP onto the built tables, the per-CPU checks, the
 * shootdowns and the churn, then every AP parks (hlt, IF=0) on park_cr3.
 * Called again before a kernel is entered, so every AP waits for its SIPI.
 * Returns the INITs the local APIC accepted (0 when @sh, the run's p->smp,
 * is NULL: smp_handoff_prepare, bringup/bringup.h, did not run).
 */
unsigned smp_handoff_init_aps(struct smp_shared *sh);
int smp_handoff_live(struct ptlab *p);

/*
 * A kernel that takes its APs parked (the Limine protocol), after
 * smp_handoff_init_aps(): SIPI-SIPI CPU @index (an AP) of @sh (the run's
 * p->smp; NULL: false) through the trampoline onto @cr3 (below 4 GiB, of
 * @levels levels), to call entry(@arg) on @stack_top; true once *@arrived
 * became non-zero (the entry's first word of life), within 10 s.  Else
 * the AP is sent INIT again and false returned.  One AP at a time: the
 * trampoline's data page is shared.
 */
bool smp_handoff_start_at(struct smp_shared *sh, unsigned levels, unsigned index, uint64_t cr3,
			  uint64_t stack_top, uint64_t arg, uint64_t entry,
			  const volatile uint32_t *arrived);

#endif
