/* SPDX-License-Identifier: MIT */
/*
 * The local APIC as the CPUs of smp/ use it: its registers (xAPIC MMIO or
 * x2APIC MSRs, as the shared state says), an AP's masking of every
 * interrupt source but the shootdown vector, the BSP's IPIs (shootdown,
 * INIT, SIPI), and the waits between the CPUs, bounded by the TSC.
 * For smp/'s own files only.
 */
#ifndef PTLAB_EFI_SMP_APIC_H
#define PTLAB_EFI_SMP_APIC_H

#include <stdbool.h>
#include <stdint.h>

struct smp_cpu;
struct smp_shared;

#define WAIT_US       (20u * 1000000u)   /* one command or one shootdown, under load */

/* xAPIC register offsets; the x2APIC MSR is 0x800 + offset / 16 (SDM Vol. 3A §11.12.1). */
#define APIC_TPR      0x080u
#define APIC_EOI      0x0b0u
#define APIC_SVR      0x0f0u
#define APIC_VERSION  0x030u
#define APIC_ICR_LO   0x300u
#define APIC_ICR_HI   0x310u
#define APIC_LVT_TIMER   0x320u
#define APIC_LVT_THERMAL 0x330u
#define APIC_LVT_PERF    0x340u
#define APIC_LVT_LINT0   0x350u
#define APIC_LVT_LINT1   0x360u
#define APIC_LVT_ERROR   0x370u
#define APIC_LVT_MASKED  (1u << 16)
#define APIC_SVR_ENABLE  (1u << 8)
#define APIC_ICR_PENDING (1u << 12)
#define APIC_ICR_ASSERT  (1u << 14)
#define MSR_X2APIC_ICR   0x830u
#define APIC_ICR_INIT    0x500u
#define APIC_ICR_STARTUP 0x600u
#define APIC_ICR_LEVEL   (1u << 15)

static inline void barrier(void)
{
	__asm__ volatile("" : : : "memory");
}

static inline void cpu_pause(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/* Write @v to register @reg (an xAPIC offset) of the calling CPU's local APIC. */
void apic_write(const struct smp_shared *sh, uint32_t reg, uint32_t v);

/* Save TPR, SVR and the LVTs; mask every LVT, raise TPR, software-enable the APIC. */
void apic_mask(struct smp_cpu *c);

/* Put back what apic_mask() saved on AP @c (nothing when it saved nothing). */
void apic_unmask(struct smp_cpu *c);

/* BSP: write the ICR for @apic; false when the previous IPI stayed pending. */
bool apic_send_icr(struct smp_shared *sh, uint32_t apic, uint32_t low);

/* BSP: the shootdown IPI (fixed, physical destination) to @apic. */
bool apic_send_ipi(struct smp_shared *sh, uint32_t apic);

/* BSP: INIT to @apic (assert, then de-assert in xAPIC mode as older CPUs want). */
bool apic_send_init(struct smp_shared *sh, uint32_t apic);

/* Spin @us microseconds on the TSC (1000 ticks a microsecond when @sh knows no rate). */
void smp_delay_us(const struct smp_shared *sh, uint64_t us);

/* The TSC value @us microseconds from now, the same way. */
uint64_t smp_deadline_us(const struct smp_shared *sh, uint64_t us);

#endif
