/* SPDX-License-Identifier: MIT */
/*
 * Which CPU writes the run's verdict after ExitBootServices (claim.c).
 *
 * Without boot services every CPU that takes an exception in ptlab's
 * window (docs/handoff.md, "Exceptions after ExitBootServices") may want
 * to close the report: the BSP at its end or on its fatal path, an AP
 * from its park handler (smp/aptrap.c).  The first one to claim the
 * verdict writes it; every other one halts.  An AP that claims it stops
 * the BSP with an NMI first: the BSP's NMI (trap.c's dispatcher calls
 * claim_nmi()) finds the verdict another CPU's and halts, saying so in
 * memory (claim_wait_stopped), so one CPU alone appends to the report.
 *
 * A CPU is named by its initial APIC ID (CPUID), so no per-CPU state is
 * needed.  Firmware-free; no lock but one atomic word.
 */
#ifndef PTLAB_EFI_CPU_CLAIM_H
#define PTLAB_EFI_CPU_CLAIM_H

#include <stdbool.h>
#include <stdint.h>

/* The calling CPU's initial APIC ID: CPUID 0Bh's x2APIC ID, else 01h's. */
uint32_t cpu_apic_id(void);

/*
 * Claim the verdict for the calling CPU.  True when it is now the
 * caller's (or already was); false when another CPU holds it.
 */
bool claim_verdict(void);

/* True when a CPU other than the caller holds the verdict. */
bool claim_other(void);

/*
 * The BSP's NMI: when another CPU holds the verdict, say "stopped" and
 * halt for good (interrupts off); else return, and the NMI is handled as
 * before.
 */
void claim_nmi(void);

/* Say "stopped" and halt for good: a CPU that lost the claim. */
__attribute__((noreturn)) void claim_yield(void);

/*
 * The holder: wait until a CPU said "stopped" (claim_nmi, claim_yield) or
 * the TSC passed @deadline.  True when one did.
 */
bool claim_wait_stopped(uint64_t deadline);

/* The host tests: nobody holds the verdict, nobody stopped. */
void claim_reset(void);

#endif /* PTLAB_EFI_CPU_CLAIM_H */
