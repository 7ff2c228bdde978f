/* SPDX-License-Identifier: MIT */
/*
 * Hand-off mode's park IDT (aptrap.c): what catches an exception on an AP
 * that ptlab started by INIT-SIPI-SIPI, from the trampoline's first 64-bit
 * instruction until the AP runs on an IDT of its own (smp.c's, in the
 * hand-off checks) or leaves for a kernel (the Limine protocol's
 * goto_address).  Every vector goes to one handler on the AP's first IST
 * stack (its TSS, loaded by the trampoline), so a bad RSP is caught too;
 * the gates' selector is TRAMP_SEL_PARK_CODE, a 64-bit code descriptor in
 * every GDT such an AP loads (the trampoline's, the Limine protocol's).
 *
 * The handler names its CPU by APIC ID, records the fault in its block,
 * and, when it can claim the verdict (cpu/claim.h: nobody has closed the
 * report, the BSP has not handed over), loads the recovery tables, stops
 * the BSP with an NMI and hands the fault to the mode's report function,
 * which writes it, the closing line and the --end action.  Otherwise it
 * halts where it is.  Part of smp.h's interface, which includes it.
 */
#ifndef PTLAB_EFI_SMP_APTRAP_H
#define PTLAB_EFI_SMP_APTRAP_H

#include <stdint.h>

struct smp_shared;
struct trap_fault;
struct trap_frame;

/* The mode's report of an AP's fatal exception: @who names the CPU ("cpu 1 (apic 1)"). */
typedef void smp_fatal_fn(void *ctx, const char *who, const struct trap_fault *f);

/*
 * Build the park IDT for the CPUs of @sh (the run's p->smp) and say whom
 * an AP's exception goes to: @report(@ctx, ...), after ExitBootServices.
 */
void smp_park_prepare(struct smp_shared *sh, smp_fatal_fn *report, void *ctx);

/* The park IDT's base and (in *@limit) its limit; limit 0 before smp_park_prepare(). */
uint64_t smp_park_idt(uint16_t *limit);

/* "cpu N (apic M)" for the calling CPU, as @sh's table numbers it (N "?" when unlisted). */
void smp_cpu_label(const struct smp_shared *sh, char *buf, unsigned size);

/* The park IDT's dispatcher: every stub of smp_asm.S's park table calls it; never returns. */
void smp_park_dispatch(struct trap_frame *frame) __attribute__((visibility("hidden")));

#endif
