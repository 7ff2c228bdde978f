/* SPDX-License-Identifier: MIT */
/*
 * Hand-off mode's start of the APs (see sipi.h): INIT to every AP right
 * after ExitBootServices, then INIT-SIPI-SIPI through the real-mode
 * trampoline of smp_asm.S onto the built tables (the checks of bsp.c
 * follow), or, for a kernel that takes its APs parked, onto the kernel's.
 *
 * No firmware calls: after the hand-off there is no firmware to call.
 */
#include "checks/checkkit.h"
#include "checks/elsewhere.h"
#include "report/report.h"
#include "smp/smp.h"
#include "smp/smp_tramp.h"
#include "smp/apic.h"

extern const char smp_tramp_start[] __attribute__((visibility("hidden")));
extern const char smp_tramp_pm32[] __attribute__((visibility("hidden")));
extern const char smp_tramp_lm64[] __attribute__((visibility("hidden")));
extern const char smp_tramp_end[] __attribute__((visibility("hidden")));

#define SIPI_WAIT_US   (10u * 1000000u)
#define INIT_DELAY_US  10000u
#define SIPI_DELAY_US  200u

unsigned smp_handoff_init_aps(struct smp_shared *sh)
{
	unsigned sent = 0;

	if (!sh)
		return 0;       /* smp_handoff_prepare did not run: no AP is known */

	for (unsigned i = 0; i < sh->ncpu; i++)
		if (sh->cpu[i] && !sh->cpu[i]->bsp)
			sent += apic_send_init(sh, sh->cpu[i]->apic);
	sh->init_tsc = rdtsc();
	return sent;
}

static bool wait_state(const struct smp_cpu *c, uint32_t state, uint64_t us)
{
	uint64_t end = smp_deadline_us(c->sh, us);

	while (c->state < state && !c->faulted && rdtsc() < end)
		cpu_pause();
	return c->state >= state || c->faulted;
}

/* The trampoline's TSS and IDT for AP @c: its own IST stacks, the park IDT (aptrap.h). */
static void tramp_park(struct smp_tramp_data *d, const struct smp_cpu *c)
{
	uint16_t limit;
	uint64_t idt = smp_park_idt(&limit);

	smp_tramp_park(d, (uint64_t)(uintptr_t)&c->tss, sizeof(c->tss) - 1, idt, limit);
}

/*
 * Start AP @c with INIT (already sent), SIPI, 200 us, SIPI onto the
 * tables at @cr3 of @levels levels; wait for it on them.  False (@c lost)
 * after a failure line on @rep.
 */
static bool start_ap(struct report *rep, unsigned levels, uint64_t cr3, struct smp_cpu *c)
{
	struct smp_shared *sh = c->sh;
	struct smp_tramp_data *d = (struct smp_tramp_data *)(uintptr_t)(sh->tramp_pa + TD_PAGE_OFF);
	uint32_t cr4 = (uint32_t)(CR4_PAE | (levels == 5 ? CR4_LA57 : 0));
	uint32_t vector = (uint32_t)(sh->tramp_pa >> 12);

	if (!smp_tramp_fill(d, sh->tramp_pa, (uint32_t)(smp_tramp_pm32 - smp_tramp_start),
			    (uint32_t)(smp_tramp_lm64 - smp_tramp_start), cr3, cr4,
			    c->stack_top, (uint64_t)(uintptr_t)c,
			    (uint64_t)(uintptr_t)smp_ap_handoff)) {
		report_fail(rep, "smp: the trampoline at 0x%llx cannot start %s (root 0x%llx)",
			    (unsigned long long)sh->tramp_pa, smp_cpu_name(c),
			    (unsigned long long)cr3);
		return false;
	}
	tramp_park(d, c);
	barrier();
	/* INIT, at least 10 ms, SIPI, 200 us, SIPI (the second one only if still needed) */
	while (rdtsc() < sh->init_tsc + INIT_DELAY_US * sh->tsc_per_us)
		cpu_pause();
	apic_send_icr(sh, c->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT | vector);
	smp_delay_us(sh, SIPI_DELAY_US);
	if (c->state == SMP_ST_NONE)
		apic_send_icr(sh, c->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT | vector);
	if (wait_state(c, SMP_ST_ON_TABLES, SIPI_WAIT_US))
		return true;
	/* back to wait-for-SIPI, so a late start cannot take the next AP's stack */
	apic_send_init(sh, c->apic);
	c->lost = true;
	check_report(rep, &check_smp_aps_on_tables, false,
		     "smp: %s did not answer INIT-SIPI-SIPI within %u s", smp_cpu_name(c),
		     SIPI_WAIT_US / 1000000);
	return false;
}

int smp_handoff_live(struct ptlab *p)
{
	struct smp_shared *sh = p->smp;

	if (sh->has_pat)
		sh->pat = read_pat();
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (!sh->cpu[i]->bsp)
			start_ap(p->rep, p->build.levels, p->build.our_cr3, sh->cpu[i]);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!c->bsp && !c->lost && !wait_state(c, SMP_ST_CHECKED, WAIT_US)) {
			c->lost = true;
			report_fail(p->rep, "smp: %s did not finish its per-CPU checks", smp_cpu_name(c));
		}
	}
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (!sh->cpu[i]->bsp)
			smp_report_cpu(p->rep, sh->cpu[i]);
	smp_bsp_live(p);	/* the shootdowns and the churn, then every AP leaves */
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!c->bsp && c->on_tables && !wait_state(c, SMP_ST_LEFT, WAIT_US))
			report_fail(p->rep, "smp: %s did not park", smp_cpu_name(c));
	}
	return 0;
}

bool smp_handoff_start_at(struct smp_shared *sh, unsigned levels, unsigned index, uint64_t cr3,
			  uint64_t stack_top, uint64_t arg, uint64_t entry,
			  const volatile uint32_t *arrived)
{
	struct smp_tramp_data *d;
	uint32_t cr4 = (uint32_t)(CR4_PAE | (levels == 5 ? CR4_LA57 : 0));
	uint64_t end;

	if (!sh || !sh->tramp_pa || index >= sh->ncpu || sh->cpu[index]->bsp)
		return false;
	d = (struct smp_tramp_data *)(uintptr_t)(sh->tramp_pa + TD_PAGE_OFF);
	if (!smp_tramp_fill(d, sh->tramp_pa, (uint32_t)(smp_tramp_pm32 - smp_tramp_start),
			    (uint32_t)(smp_tramp_lm64 - smp_tramp_start), cr3, cr4, stack_top, arg,
			    entry))
		return false;
	tramp_park(d, sh->cpu[index]);
	barrier();
	while (rdtsc() < sh->init_tsc + INIT_DELAY_US * sh->tsc_per_us)
		cpu_pause();
	apic_send_icr(sh, sh->cpu[index]->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT |
		 (uint32_t)(sh->tramp_pa >> 12));
	smp_delay_us(sh, SIPI_DELAY_US);
	if (!*arrived)
		apic_send_icr(sh, sh->cpu[index]->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT |
			 (uint32_t)(sh->tramp_pa >> 12));
	end = smp_deadline_us(sh, SIPI_WAIT_US);
	while (!*arrived && rdtsc() < end)
		cpu_pause();
	if (*arrived)
		return true;
	apic_send_init(sh, sh->cpu[index]->apic);   /* so a late start cannot take the next AP's stack */
	return false;
}
