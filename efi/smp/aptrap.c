/* SPDX-License-Identifier: MIT */
/*
 * Hand-off mode's park IDT and its handler (see aptrap.h).
 *
 * Everything the handler touches is reachable on every table an AP runs
 * on in ptlab's window: the IDT, the stubs and this code are in the image,
 * identity mapped in the recovery tables, the checked tables and the
 * tables handed over to a kernel; the IST stacks are in the AP's block
 * (ptlab's LoaderData pages, identity mapped in all of them).  It loads
 * the recovery tables before it writes anything else: they map the
 * report, the framebuffer and the local APIC.
 *
 * No firmware calls.
 */
#include "cpu/claim.h"
#include "report/fmt.h"
#include "smp/smp.h"
#include "smp/apic.h"

#define MSR_APIC_BASE_REG 0x1bu
#define APIC_BASE_EXTD    (UINT64_C(1) << 10)
#define APIC_ICR_NMI      0x400u
#define STOP_WAIT_US      500000u   /* for the BSP to say it stopped */

/* smp_asm.S */
extern const char smp_park_stubs[] __attribute__((visibility("hidden")));

static struct idt_gate park_idt[256] __attribute__((aligned(16)));
static struct {
	struct smp_shared *sh;
	smp_fatal_fn *report;
	void *ctx;
	volatile uint8_t depth[SMP_MAX_CPUS + 1];   /* the last: a CPU not in the table */
} park;

void smp_park_prepare(struct smp_shared *sh, smp_fatal_fn *report, void *ctx)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t off = (uint64_t)(uintptr_t)(smp_park_stubs + 16 * v);

		/* every vector on IST 1: the stack the AP was on may be the fault */
		park_idt[v] = (struct idt_gate){ (uint16_t)off, TRAMP_SEL_PARK_CODE, TRAP_IST_DF,
						 0x8e, (uint16_t)(off >> 16), (uint32_t)(off >> 32),
						 0 };
	}
	park.sh = sh;
	park.report = report;
	park.ctx = ctx;
}

uint64_t smp_park_idt(uint16_t *limit)
{
	*limit = park.sh ? sizeof(park_idt) - 1 : 0;
	return (uint64_t)(uintptr_t)park_idt;
}

void smp_cpu_label(const struct smp_shared *sh, char *buf, unsigned size)
{
	uint32_t apic = cpu_apic_id();
	int i = sh ? smp_table_find(&sh->table, apic) : -1;

	if (i >= 0)
		fmt_snprintf(buf, size, "cpu %d (apic %u)", i, apic);
	else
		fmt_snprintf(buf, size, "cpu ? (apic %u)", apic);
}

/*
 * An NMI to the BSP, in the calling AP's own APIC mode (a Limine AP may
 * have turned x2APIC on itself); the xAPIC's registers are identity mapped
 * in the recovery tables (bringup.c).
 */
static void nmi_bsp(const struct smp_shared *sh)
{
	uint32_t bsp = 0;
	bool found = false;

	for (unsigned i = 0; i < sh->ncpu && i < SMP_MAX_CPUS; i++)
		if (sh->cpu[i] && sh->cpu[i]->bsp) {
			bsp = sh->cpu[i]->apic;
			found = true;
		}
	if (!found)
		return;
	if (rdmsr(MSR_APIC_BASE_REG) & APIC_BASE_EXTD) {
		wrmsr(MSR_X2APIC_ICR, (uint64_t)bsp << 32 | APIC_ICR_NMI | APIC_ICR_ASSERT);
	} else if (sh->apic_va) {
		volatile uint32_t *icr_lo = (volatile uint32_t *)(uintptr_t)(sh->apic_va + APIC_ICR_LO);
		volatile uint32_t *icr_hi = (volatile uint32_t *)(uintptr_t)(sh->apic_va + APIC_ICR_HI);
		uint64_t end = smp_deadline_us(sh, 100000);

		while ((*icr_lo & APIC_ICR_PENDING) && rdtsc() < end)
			cpu_pause();
		*icr_hi = bsp << 24;
		*icr_lo = APIC_ICR_NMI | APIC_ICR_ASSERT;
	}
}

void smp_park_dispatch(struct trap_frame *fr)
{
	struct smp_shared *sh = park.sh;
	int i = sh ? smp_table_find(&sh->table, cpu_apic_id()) : -1;
	struct smp_cpu *c = i >= 0 ? sh->cpu[i] : NULL;
	struct trap_fault f;
	char who[48];

	if (park.depth[i >= 0 ? (unsigned)i : SMP_MAX_CPUS]++)
		cpu_halt();     /* an exception in this handler: nothing sane is left */
	trap_fault_record(&f, fr);
	if (c) {
		c->fault = f;
		c->faulted = 1;
	}
	/*
	 * The verdict already written (the BSP handed over, or another CPU
	 * closed the report): this CPU's exception is not ptlab's to report,
	 * and the tables may be the kernel's now.  Halt where we are.
	 */
	if (!sh || !sh->park_cr3 || !park.report || !claim_verdict())
		cpu_halt();
	write_cr3(sh->park_cr3);
	nmi_bsp(sh);
	claim_wait_stopped(smp_deadline_us(sh, STOP_WAIT_US));
	smp_cpu_label(sh, who, sizeof(who));
	park.report(park.ctx, who, &f);
	cpu_halt();
}
