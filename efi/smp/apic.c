/* SPDX-License-Identifier: MIT */
/*
 * The local APIC of every CPU on our tables (see apic.h): register access,
 * an AP's masking and its undoing, the BSP's interrupt command register
 * (shootdown IPIs, INIT, SIPI), and the TSC waits.
 *
 * No firmware calls: the CPUs run this on our tables, or after the
 * hand-off, when there is no firmware left.
 */
#include "smp/smp.h"
#include "smp/apic.h"

static uint32_t apic_read(const struct smp_shared *sh, uint32_t reg)
{
	if (sh->x2apic)
		return (uint32_t)rdmsr(0x800u + (reg >> 4));
	return *(volatile uint32_t *)(uintptr_t)(sh->apic_va + reg);
}

void apic_write(const struct smp_shared *sh, uint32_t reg, uint32_t v)
{
	if (sh->x2apic)
		wrmsr(0x800u + (reg >> 4), v);
	else
		*(volatile uint32_t *)(uintptr_t)(sh->apic_va + reg) = v;
}

static const uint32_t lvt_reg[6] = {
	APIC_LVT_TIMER, APIC_LVT_LINT0, APIC_LVT_LINT1, APIC_LVT_ERROR, APIC_LVT_PERF,
	APIC_LVT_THERMAL,
};

/* LVT entries this APIC has: timer, LINT0/1, error always; perf from 4, thermal from 5. */
static unsigned apic_lvts(const struct smp_shared *sh)
{
	unsigned max = (apic_read(sh, APIC_VERSION) >> 16) & 0xff;

	return max >= 5 ? 6 : max >= 4 ? 5 : 4;
}

void apic_mask(struct smp_cpu *c)
{
	const struct smp_shared *sh = c->sh;
	unsigned n = apic_lvts(sh);

	c->apic_save[0] = apic_read(sh, APIC_TPR);
	c->apic_save[1] = apic_read(sh, APIC_SVR);
	for (unsigned i = 0; i < n; i++)
		c->apic_save[2 + i] = apic_read(sh, lvt_reg[i]);
	c->apic_saved = true;
	c->spurious_vec = c->apic_save[1] & 0xff;
	for (unsigned i = 0; i < n; i++)
		apic_write(sh, lvt_reg[i], c->apic_save[2 + i] | APIC_LVT_MASKED);
	apic_write(sh, APIC_TPR, SMP_TPR_MASK);
	if (!(c->apic_save[1] & APIC_SVR_ENABLE))
		apic_write(sh, APIC_SVR, c->apic_save[1] | APIC_SVR_ENABLE);
}

void apic_unmask(struct smp_cpu *c)
{
	const struct smp_shared *sh = c->sh;
	unsigned n = apic_lvts(sh);

	if (!c->apic_saved)
		return;
	for (unsigned i = 0; i < n; i++)
		apic_write(sh, lvt_reg[i], c->apic_save[2 + i]);
	apic_write(sh, APIC_SVR, c->apic_save[1]);
	apic_write(sh, APIC_TPR, c->apic_save[0]);
	c->apic_saved = false;
}

bool apic_send_icr(struct smp_shared *sh, uint32_t apic, uint32_t low)
{
	uint64_t end = rdtsc() + 100000 * (sh->tsc_per_us ? sh->tsc_per_us : 1000);

	if (sh->x2apic) {
		wrmsr(MSR_X2APIC_ICR, ((uint64_t)apic << 32) | low);
		return true;
	}
	while (apic_read(sh, APIC_ICR_LO) & APIC_ICR_PENDING)
		if (rdtsc() > end)
			return false;
		else
			cpu_pause();
	apic_write(sh, APIC_ICR_HI, apic << 24);
	apic_write(sh, APIC_ICR_LO, low);
	return true;
}

bool apic_send_ipi(struct smp_shared *sh, uint32_t apic)
{
	sh->ipis++;
	return apic_send_icr(sh, apic, APIC_ICR_ASSERT | SMP_VEC_SHOOT);
}

bool apic_send_init(struct smp_shared *sh, uint32_t apic)
{
	bool ok = apic_send_icr(sh, apic, APIC_ICR_INIT | APIC_ICR_ASSERT | APIC_ICR_LEVEL);

	if (ok && !sh->x2apic)
		ok = apic_send_icr(sh, apic, APIC_ICR_INIT | APIC_ICR_LEVEL);
	return ok;
}

void smp_delay_us(const struct smp_shared *sh, uint64_t us)
{
	uint64_t end = rdtsc() + us * (sh->tsc_per_us ? sh->tsc_per_us : 1000);

	while (rdtsc() < end)
		cpu_pause();
}

uint64_t smp_deadline_us(const struct smp_shared *sh, uint64_t us)
{
	return rdtsc() + us * (sh->tsc_per_us ? sh->tsc_per_us : 1000);
}
