/* SPDX-License-Identifier: MIT */
/*
 * Every CPU on ptlab's tables (see smp.h): the AP procedure, the APs' trap
 * handler, the per-CPU checks and the BSP's shootdown and churn sequence.
 *
 * An AP, called by the firmware: finds its block by its APIC ID, moves to
 * its own stack, saves the firmware's state, loads its own GDT (with its own
 * TSS and IST stacks), the APs' IDT and our CR3, runs its per-CPU checks,
 * masks every interrupt source of its local APIC but the shootdown vector,
 * and serves commands with interrupts on until the BSP says EXIT (or the
 * deadline passes).  Whatever happened, it puts its local APIC and the
 * firmware's CR3, GDT, segments, TR, IDT and interrupt flag back before it
 * returns; nothing of the firmware's memory is written.
 *
 * In hand-off mode the same body runs on an AP ptlab started itself
 * (INIT-SIPI-SIPI through the trampoline of smp_asm.S): there is no
 * firmware state to go back to, so at the end the AP halts with interrupts
 * off on the recovery tables.
 *
 * No firmware calls: the APs run this on our tables, called through MP
 * services (bringup/bringup.c) or started by SIPI (hand-off mode).
 */
#include "checks/checkkit.h"
#include "checks/elsewhere.h"
#include "live/flush.h"
#include "report/fmt.h"
#include "report/report.h"
#include "checks/inject.h"
#include "smp/smp.h"
#include "smp/smp_tramp.h"
#include "cpu/gdt.h"
#include "live/live.h"

#include <ptlab/pte.h>

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


/* smp_asm.S */
extern const char smp_stubs[] __attribute__((visibility("hidden")));
extern const char smp_guard_resume[] __attribute__((visibility("hidden")));
void smp_on_stack(void (*fn)(void *), void *arg, uint64_t top) __attribute__((visibility("hidden")));
int smp_guard(int (*fn)(void *), void *arg, uint64_t *slot) __attribute__((visibility("hidden")));

/*
 * What every CPU shares (struct smp_shared).  It lives in the image
 * because the image is identity mapped in every hierarchy a CPU runs on
 * here (the firmware's, the recovery tables and ours): an AP reaches it
 * through the pointer it was given (the MP services' procedure argument,
 * its block's sh) whichever of those it has in CR3, and nothing has to be
 * allocated or mapped for it first.  The BSP reaches it through the run's
 * state only (p->smp, set by smp_shared_reset); nothing else names it.
 */
static struct smp_shared shared;

/* The APs' IDT, one for all of them: a hardware table, in the image for the same reason. */
static struct idt_gate smp_idt[256] __attribute__((aligned(16)));

struct smp_shared *smp_shared_reset(struct ptlab *p)
{
	shared = (struct smp_shared){ .p = p, .raise_index = -1 };
	p->smp = &shared;
	return &shared;
}

static inline void barrier(void)
{
	__asm__ volatile("" : : : "memory");
}

static inline void cpu_pause(void)
{
	__asm__ volatile("pause" : : : "memory");
}

uint32_t smp_apic_id(void)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		if (r[1] != 0)          /* EBX = 0: the leaf is not implemented */
			return r[3];
	}
	cpuid(1, 0, r);
	return r[1] >> 24;
}

/* ---- local APIC ---- */

static uint32_t apic_read(const struct smp_shared *sh, uint32_t reg)
{
	if (sh->x2apic)
		return (uint32_t)rdmsr(0x800u + (reg >> 4));
	return *(volatile uint32_t *)(uintptr_t)(sh->apic_va + reg);
}

static void apic_write(const struct smp_shared *sh, uint32_t reg, uint32_t v)
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

/* Save TPR, SVR and the LVTs; mask every LVT, raise TPR, software-enable the APIC. */
static void apic_mask(struct smp_cpu *c)
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

static void apic_unmask(struct smp_cpu *c)
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

#define APIC_ICR_INIT    0x500u
#define APIC_ICR_STARTUP 0x600u
#define APIC_ICR_LEVEL   (1u << 15)

/* BSP: write the ICR for @apic; false when the previous IPI stayed pending. */
static bool send_icr(struct smp_shared *sh, uint32_t apic, uint32_t low)
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

/* BSP: the shootdown IPI (fixed, physical destination) to @apic. */
static bool send_ipi(struct smp_shared *sh, uint32_t apic)
{
	sh->ipis++;
	return send_icr(sh, apic, APIC_ICR_ASSERT | SMP_VEC_SHOOT);
}

/* BSP: INIT to @apic (assert, then de-assert in xAPIC mode as older CPUs want). */
static bool send_init(struct smp_shared *sh, uint32_t apic)
{
	bool ok = send_icr(sh, apic, APIC_ICR_INIT | APIC_ICR_ASSERT | APIC_ICR_LEVEL);

	if (ok && !sh->x2apic)
		ok = send_icr(sh, apic, APIC_ICR_INIT | APIC_ICR_LEVEL);
	return ok;
}

static void delay_us(const struct smp_shared *sh, uint64_t us)
{
	uint64_t end = rdtsc() + us * (sh->tsc_per_us ? sh->tsc_per_us : 1000);

	while (rdtsc() < end)
		cpu_pause();
}

/* ---- the APs' trap handler ---- */

static struct smp_cpu *this_cpu(void)
{
	struct desc_ptr g;

	sgdt(&g);
	return (struct smp_cpu *)(uintptr_t)g.base;
}

void smp_ap_dispatch(struct trap_frame *fr)
{
	struct smp_cpu *c = this_cpu();
	struct smp_shared *sh = c->sh;

	if (c->depth++) {
		/* an exception in the handler itself: nothing sane is left */
		trap_fault_record(&c->fault, fr);
		c->faulted = 1;
		cpu_halt();
	}
	if (fr->vector == SMP_VEC_SHOOT) {
		uint32_t seq = sh->shoot_seq;

		barrier();
		ptlab_flush(&sh->shoot);
		apic_write(sh, APIC_EOI, 0);
		c->shoot_ack = seq;
		goto out;
	}
	if (fr->vector >= 32 || fr->vector == TRAP_VEC_NMI) {
		/* every other source is masked: a stray is counted, not fatal */
		c->strays++;
		c->stray_vec = (uint32_t)fr->vector;
		if (fr->vector >= 32 && fr->vector != c->spurious_vec)
			apic_write(sh, APIC_EOI, 0);
		goto out;
	}
	/* the probes' table is trap.c's: the APs run the same probes */
	if (trap_probe_fixup(fr))
		goto out;
	trap_fault_record(&c->fault, fr);
	c->faulted = 1;
	if (fr->vector == TRAP_VEC_MC)
		wrmsr(MSR_IA32_MCG_STATUS, 0);
	if (!c->guard_rsp)
		cpu_halt();
	fr->rip = (uint64_t)(uintptr_t)smp_guard_resume;
	fr->rsp = c->guard_rsp;
	fr->rax = (uint64_t)(int64_t)TRAP_GUARD_FAULTED;
	fr->rflags = 0x2;
	fr->cs = sh->sel_cs;
	fr->ss = sh->sel_ss;
out:
	c->depth--;
}

/* ---- blocks, GDT, TSS, IDT ---- */

_Static_assert(sizeof(struct smp_cpu) <= PT_PAGE_SIZE, "the block's first page holds struct smp_cpu");

int smp_prepare_cpu(struct smp_cpu *c, uint64_t block)
{
	const struct smp_shared *sh = c->sh;

	if (!cpu_gdt_layout(c->gdt, SMP_GDT_ENTRIES, sh->sel_cs, sh->sel_ss,
			    (uint64_t)(uintptr_t)&c->tss, sizeof(c->tss) - 1, &c->gdt_limit,
			    &c->sel_tss))
		return -1;
	c->gdt_copy = (uint64_t *)(uintptr_t)(block + PT_PAGE_SIZE);
	c->stack_top = block + (2 + SMP_STACK_PAGES) * PT_PAGE_SIZE;
	c->tss = (struct tss64){ .iopb = sizeof(c->tss) };
	for (unsigned i = 0; i < 4; i++)
		c->tss.ist[i] = c->stack_top + (i + 1) * SMP_IST_PAGES * PT_PAGE_SIZE;
	c->tss.rsp[0] = c->tss.ist[0];

	for (unsigned v = 0; v < 256; v++) {
		uint64_t off = (uint64_t)(uintptr_t)(smp_stubs + 16 * v);
		uint8_t ist = v == TRAP_VEC_DF ? TRAP_IST_DF : v == TRAP_VEC_NMI ? TRAP_IST_NMI :
			      v == TRAP_VEC_MC ? TRAP_IST_MC : v == TRAP_VEC_PF ? TRAP_IST_PF : 0;

		smp_idt[v] = (struct idt_gate){ (uint16_t)off, sh->sel_cs, ist, 0x8e,
						(uint16_t)(off >> 16), (uint32_t)(off >> 32), 0 };
	}
	return 0;
}

/* ---- the AP ---- */

static void obs_read(uint64_t va, struct smp_obs *o)
{
	struct trap_fault f;
	uint64_t v = 0;

	o->faulted = probe_read64(va, &v, &f) != 0;
	o->value = v;
	o->vector = o->faulted ? f.vector : 0;
	o->error = o->faulted ? (uint32_t)f.error : 0;
	o->cr2 = o->faulted ? f.cr2 : 0;
}

static void obs_write(uint64_t va, uint64_t v, struct smp_obs *o)
{
	struct trap_fault f;

	o->faulted = probe_write64(va, v, &f) != 0;
	o->value = v;
	o->vector = o->faulted ? f.vector : 0;
	o->error = o->faulted ? (uint32_t)f.error : 0;
	o->cr2 = o->faulted ? f.cr2 : 0;
}

/* Called through the image's high alias by every AP. */
static __attribute__((noinline)) uint64_t smp_alias_callee(uint64_t x)
{
	return x * 5 + 7;
}

static void ap_checks(struct smp_cpu *c)
{
	struct smp_shared *sh = c->sh;
	uint64_t (*fn)(uint64_t) = (uint64_t (*)(uint64_t))(uintptr_t)
		(sh->image_va + ((uint64_t)(uintptr_t)smp_alias_callee - sh->image_base));
	volatile uint64_t *e = (volatile uint64_t *)(uintptr_t)c->ad_pte_pa;
	struct smp_obs o;

	obs_read(c->own_pa, &c->alias_ident);
	obs_read(sh->hhdm_base + c->own_pa, &c->alias_hhdm);
	obs_write(sh->hhdm_base + c->own_pa, c->alias_write, &o);
	obs_read(c->own_pa, &c->alias_back);

	/* --inject=ap-call: the call's argument is wrong, so its result must be */
	c->call_got = fn(c->apic + inject_on(&sh->p->opts, &check_smp_ap_call));

	obs_read(c->pf_va, &c->pf_read);
	obs_write(c->pf_va, 0, &c->pf_write);

	*e &= ~PTE_AD_MASK;
	invlpg(c->ad_va);
	obs_read(c->ad_va, &o);
	c->ad_read = *e & PTE_AD_MASK;
	*e &= ~PTE_AD_MASK;
	invlpg(c->ad_va);
	obs_write(c->ad_va, o.value, &o);
	c->ad_write = *e & PTE_AD_MASK;
	c->checks_done = true;

	/* --raise=ap-fault: a push with RSP on an unmapped page; the #PF arrives on the IST stack */
	if (sh->raise_index == (int)c->index)
		__asm__ volatile("mov %0, %%rsp\n\tpushq $0"
				 : : "r"(PTLAB_UNMAPPED_VA + 0x10000) : "memory");
}

static void ap_probe(struct smp_cpu *c)
{
	struct smp_shared *sh = c->sh;
	uint64_t cr4 = read_cr4();

	/*
	 * CR4.SMAP follows the command and stays as it is between commands: a
	 * write to CR4 that changes SMAP may flush the TLB (QEMU does), which
	 * would hide the stale translation the probe is looking for.
	 */
	if (sh->probe_smap != ((cr4 & CR4_SMAP) != 0))
		write_cr4(sh->probe_smap ? cr4 | CR4_SMAP : cr4 & ~CR4_SMAP);
	if (sh->probe_smap)
		clac();
	for (unsigned i = 0; i < sh->nprobe && i < SMP_PROBE_MAX; i++) {
		obs_read(sh->probe_va[i], &c->obs[i]);
		if (!sh->probe_compare)
			continue;
		c->compared++;
		if (!smp_obs_matches(&c->obs[i], &sh->want[i]) && !c->mismatches++) {
			c->bad_step = sh->step;
			c->bad_va = sh->probe_va[i];
			c->bad_want = sh->want[i];
			c->bad_got = c->obs[i];
		}
	}
}

static int ap_body(void *arg)
{
	struct smp_cpu *c = arg;
	struct smp_shared *sh = c->sh;
	uint32_t last = 0;
	unsigned k = 0;

	ap_checks(c);
	apic_mask(c);
	c->state = SMP_ST_CHECKED;
	sti();
	for (;;) {
		uint32_t seq = sh->seq;

		if (seq != last) {
			uint32_t cmd;

			barrier();
			cmd = sh->cmd;
			if (cmd == SMP_CMD_PROBE)
				ap_probe(c);
			last = seq;
			barrier();
			c->done_seq = seq;
			if (cmd == SMP_CMD_EXIT)
				break;
			continue;
		}
		if (sh->reading && sh->read_pages) {
			struct smp_obs o;

			/* keep translations of the churn window cached between agreed points */
			obs_read(sh->read_va + (k++ % sh->read_pages) * PT_PAGE_SIZE, &o);
			c->idle_reads++;
		}
		cpu_pause();
		if (rdtsc() > sh->deadline) {
			c->timed_out = true;
			break;
		}
	}
	cli();
	return 0;
}

/*
 * Back to the firmware's state without writing its memory (cpu_state_restore:
 * a TR the firmware had is reloaded through a copy of its GDT in the
 * block's scratch page; a firmware that never loaded TR keeps ours, see
 * cpu.h).
 */
static void ap_restore(struct smp_cpu *c)
{
	cpu_state_restore_noirq(&c->fw, c->gdt_copy, PT_PAGE_SIZE);
	if (c->fw.irq_on)
		sti();
}

static void ap_main(void *arg)
{
	struct smp_cpu *c = arg;
	struct smp_shared *sh = c->sh;
	struct desc_ptr gdtr = { c->gdt_limit, (uint64_t)(uintptr_t)c->gdt };
	struct desc_ptr idtr = { sizeof(smp_idt) - 1, (uint64_t)(uintptr_t)smp_idt };

	cpu_state_save(&c->fw);
	if (c->fw.cs != sh->sel_cs || c->fw.ss != sh->sel_ss) {
		/*
		 * No segment register is ever loaded: our GDT has descriptors
		 * at the BSP's CS and SS indices only, so an AP that runs with
		 * other selectors stays on the firmware's state.
		 */
		c->sel_mismatch = (uint32_t)c->fw.cs << 16 | c->fw.ss;
		c->state = SMP_ST_LEFT;
		return;
	}
	/* --inject=ap-off-tables: the last AP leaves without loading our CR3 */
	if (inject_on(&sh->p->opts, &check_smp_aps_on_tables) && c->index == sh->ncpu - 1) {
		c->state = SMP_ST_LEFT;
		return;
	}
	cli();
	lgdt(&gdtr);
	ltr(c->sel_tss);
	lidt(&idtr);
	write_efer(read_efer() | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(sh->our_cr3);
	c->on_tables = 1;
	c->state = SMP_ST_ON_TABLES;

	smp_guard(ap_body, c, &c->guard_rsp);

	cli();
	apic_unmask(c);
	ap_restore(c);
	barrier();
	c->state = SMP_ST_LEFT;
}

void smp_ap_proc(struct smp_shared *sh)
{
	int i;

	if (sh->closed)
		return;
	i = smp_table_find(&sh->table, smp_apic_id());
	if (i < 0 || !sh->cpu[i] || sh->cpu[i]->bsp) {
		__atomic_fetch_add(&sh->unknown, 1, __ATOMIC_SEQ_CST);
		return;
	}
	sh->cpu[i]->state = SMP_ST_ENTERED;
	smp_on_stack(ap_main, sh->cpu[i], sh->cpu[i]->stack_top);
}

/* ---- the BSP's sequence ---- */

static const char *cpu_name(const struct smp_cpu *c)
{
	return c->name;
}

static bool active(const struct smp_cpu *c)
{
	return c && !c->bsp && c->state == SMP_ST_CHECKED && !c->faulted && !c->lost;
}

static uint64_t deadline_us(const struct smp_shared *sh, uint64_t us)
{
	return rdtsc() + us * (sh->tsc_per_us ? sh->tsc_per_us : 1000);
}

/*
 * Publish @cmd to @sh's APs and wait for every active AP to complete it;
 * one that does not is marked lost after a failure line on @rep.
 */
static void command(struct smp_shared *sh, struct report *rep, uint32_t cmd)
{
	uint32_t seq;
	uint64_t end;

	sh->cmd = cmd;
	barrier();
	seq = sh->seq + 1;
	sh->seq = seq;
	end = deadline_us(sh, WAIT_US);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		while (active(c) && c->done_seq != seq && rdtsc() < end)
			cpu_pause();
		if (active(c) && c->done_seq != seq) {
			c->lost = true;
			report_fail(rep, "smp: %s did not answer command %u within %u s", cpu_name(c),
				    seq, WAIT_US / 1000000);
		}
	}
}

/*
 * Invalidate @fl on every active AP of @sh but @skip (an index, or -1)
 * with an IPI; wait for the acks.  Returns the APs that acknowledged; one
 * that did not is marked lost after a failure line on @rep.
 */
static unsigned shootdown(struct smp_shared *sh, struct report *rep, const struct pt_flushlist *fl,
			  int skip)
{
	unsigned acked = 0;
	uint32_t seq;
	uint64_t end;

	sh->shoot = *fl;
	barrier();
	seq = sh->shoot_seq + 1;
	sh->shoot_seq = seq;
	barrier();
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (active(sh->cpu[i]) && (int)i != skip && !send_ipi(sh, sh->cpu[i]->apic))
			report_fail(rep, "smp: the local APIC did not accept the IPI to %s",
				    cpu_name(sh->cpu[i]));
	end = deadline_us(sh, WAIT_US);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c) || (int)i == skip)
			continue;
		while (active(c) && c->shoot_ack != seq && rdtsc() < end)
			cpu_pause();
		if (c->shoot_ack == seq) {
			acked++;
		} else if (active(c)) {
			c->lost = true;
			report_fail(rep, "smp: %s did not acknowledge shootdown %u within %u s",
				    cpu_name(c), seq, WAIT_US / 1000000);
		}
	}
	return acked;
}

static unsigned nactive(const struct smp_shared *sh)
{
	unsigned n = 0;

	for (unsigned i = 0; i < sh->ncpu; i++)
		n += active(sh->cpu[i]);
	return n;
}

static uint64_t pattern_of(uint64_t pa)
{
	return UINT64_C(0x534d500000000000) | (pa >> 3);
}

static uint64_t plant(uint64_t pa)
{
	uint64_t v = pattern_of(pa);

	*(volatile uint64_t *)(uintptr_t)pa = v;
	return v;
}

static struct smp_expect want_value(uint64_t v)
{
	return (struct smp_expect){ .value = v };
}

static struct smp_expect want_fault(uint64_t va, uint32_t error)
{
	return (struct smp_expect){ .fault = true, .error = error, .cr2 = va };
}

/*
 * What the BSP's shootdown checks use of the run: the page every CPU
 * shares, the report, the options (--inject) and the tables in CR3.
 */
struct bsp {
	struct smp_shared *sh;
	struct report *rep;
	const struct opts *o;
	struct pt_space *space;
};

/*
 * Every AP of @sh reads @n addresses; each must see @before (the
 * translation is cached then).  False after a failure line on @rep.
 */
static bool cache_all(struct smp_shared *sh, struct report *rep, const char *name,
		      const uint64_t *va, const struct smp_expect *before, unsigned n)
{
	char got[64];

	for (unsigned k = 0; k < n; k++)
		sh->probe_va[k] = va[k];
	sh->nprobe = n;
	command(sh, rep, SMP_CMD_PROBE);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c))
			continue;
		for (unsigned k = 0; k < n; k++) {
			if (smp_obs_matches(&c->obs[k], &before[k]))
				continue;
			smp_obs_text(&c->obs[k], got, sizeof(got));
			check_report(rep, &check_smp_shootdowns, false,
				     "%s: %s could not read 0x%llx before the change: %s",
				     name, cpu_name(c), (unsigned long long)va[k], got);
			return false;
		}
	}
	return true;
}

/*
 * Every AP of v->sh reads @n addresses after the shootdown; judge each
 * against @now / @before, on v->rep (check_smp_shootdowns).
 */
static void judge_all(const struct bsp *v, const char *name, const uint64_t *va,
		      const struct smp_expect *now, const struct smp_expect *before, unsigned n,
		      int skip, unsigned acked)
{
	struct smp_shared *sh = v->sh;
	unsigned bad = 0, seen = 0;
	char got[64], want[64];

	command(sh, v->rep, SMP_CMD_PROBE);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c))
			continue;
		seen++;
		for (unsigned k = 0; k < n; k++) {
			enum smp_verdict vd = smp_judge(&c->obs[k], &now[k], &before[k]);
			struct smp_obs w = { .value = now[k].value, .faulted = now[k].fault,
					     .vector = now[k].fault ? TRAP_VEC_PF : 0,
					     .error = now[k].error, .cr2 = now[k].cr2 };

			if (vd == SMP_SAW_NEW) {
				/* an unchanged neighbour proves nothing about the withheld IPI */
				if ((int)i == skip && !smp_obs_matches(&w, &before[k]))
					report_note(v->rep, "inject: missing-shootdown not provoked: "
						    "%s dropped the stale translation of 0x%llx by itself",
						    cpu_name(c), (unsigned long long)va[k]);
				continue;
			}
			bad++;
			smp_obs_text(&c->obs[k], got, sizeof(got));
			smp_obs_text(&w, want, sizeof(want));
			check_report(v->rep, &check_smp_shootdowns, false,
				     "%s: %s at 0x%llx %s: %s, expected %s%s", name, cpu_name(c),
				     (unsigned long long)va[k],
				     vd == SMP_SAW_OLD ? "still used the stale translation" :
				     "saw neither translation", got, want,
				     (int)i != skip ? "" :
				     inject_on(v->o, &check_smp_shootdowns) ?
				     " (IPI withheld: --inject=missing-shootdown-all)" :
				     " (IPI withheld: --inject=missing-shootdown)");
		}
	}
	if (!bad && seen)
		check_report(v->rep, &check_smp_shootdowns, true,
			     "%s: %u AP%s saw the change after the IPI (%u acknowledged), "
			     "%u probe%s each", name, seen, seen == 1 ? "" : "s", acked, n,
			     n == 1 ? "" : "s");
}

/*
 * The AP whose shootdown IPI --inject=missing-shootdown (once, *@used
 * then) or missing-shootdown-all (every time) withholds: the last active
 * one, named in a note the first time; -1 when none is withheld.
 */
static int skip_for_inject(const struct bsp *v, bool *used)
{
	bool all = inject_on(v->o, &check_smp_shootdowns);

	if ((v->o->inject != OPTS_INJECT_MISSING_SHOOTDOWN || *used) && !all)
		return -1;
	for (int i = (int)v->sh->ncpu - 1; i >= 0; i--)
		if (active(v->sh->cpu[i])) {
			if (!*used)
				report_note(v->rep, "inject: missing-shootdown%s: no IPI to %s",
					    all ? "-all" : "", cpu_name(v->sh->cpu[i]));
			*used = true;
			return i;
		}
	return -1;
}

/* Remove a test mapping from v->space everywhere: our CPU, and every AP by IPI. */
static void clean(const struct bsp *v, uint64_t va, uint64_t len)
{
	struct pt_flushlist fl;

	if (pt_unmap(v->space, va, len, PT_SPARSE, &fl) == PT_OK) {
		ptlab_flush(&fl);
		shootdown(v->sh, v->rep, &fl, -1);
	}
}

struct scenario {
	const char *name;
	uint64_t va, len;           /* the test mapping */
	uint64_t pa;
	uint64_t to;                /* where a remap points the mapping */
	enum pt_page_size size;
	unsigned flags;
	unsigned n;                 /* probes */
	uint64_t probe[2];
	struct smp_expect before[2], now[2];
	bool smap;
};

/*
 * Map in v->space, cache on every AP, change on the BSP (@change), shoot
 * down, judge, clean up; reported on v->rep.
 */
static void run_scenario(const struct bsp *v, struct scenario *s,
			 int (*change)(struct pt_space *sp, const struct scenario *s,
				       struct pt_flushlist *fl),
			 bool *injected)
{
	struct smp_shared *sh = v->sh;
	struct pt_flushlist fl;
	unsigned acked;
	int skip, err;

	if (!nactive(sh)) {
		report_skip(v->rep, s->name, "no AP is running on the tables");
		return;
	}
	err = pt_map(v->space, s->va, s->pa, s->len, s->flags, s->size, &fl);
	if (err) {
		check_report(v->rep, &check_smp_shootdowns, false,
			     "%s: could not map the test leaf: %s", s->name, pt_strerror(err));
		return;
	}
	ptlab_flush(&fl);
	sh->probe_smap = s->smap;
	if (!cache_all(sh, v->rep, s->name, s->probe, s->before, s->n)) {
		sh->probe_smap = false;
		clean(v, s->va, s->len);
		return;
	}
	err = change(v->space, s, &fl);
	if (err) {
		sh->probe_smap = false;
		check_report(v->rep, &check_smp_shootdowns, false,
			     "%s: the change was refused: %s", s->name, pt_strerror(err));
		clean(v, s->va, s->len);
		return;
	}
	ptlab_flush(&fl);
	skip = skip_for_inject(v, injected);
	acked = shootdown(sh, v->rep, &fl, skip);
	judge_all(v, s->name, s->probe, s->now, s->before, s->n, skip, acked);
	sh->probe_smap = false;
	clean(v, s->va, s->len);
}

/* The scenarios' changes in @sp, the tables in CR3: the library's result, @fl to flush. */
static int ch_remap(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_remap(sp, s->va, s->len, s->to, PT_NOSPLIT, fl);
}

static int ch_unmap(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_unmap(sp, s->va, s->len, 0, fl);
}

static int ch_protect_user(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_protect(sp, s->va, s->len, PT_USER, fl);
}

static int ch_split(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_unmap(sp, s->probe[0], PT_PAGE_SIZE, 0, fl);
}

/* Frames in the data area (D = data_pa): 2 MiB X = D, Y = D + 2M, Z = D + 6M; 4 KiB pages at D + 4M. */
#define FRAME_4K_A(d)     ((d) + (UINT64_C(4) << 20) + 0x40000)
#define FRAME_CHURN(d, j) ((d) + (UINT64_C(4) << 20) + 0x80000 + (uint64_t)(j) * PT_PAGE_SIZE)
#define FRAME_OWN(d, i)   ((d) + (UINT64_C(4) << 20) + (uint64_t)(i) * PT_PAGE_SIZE)
#define FRAME_ANCHOR(d)   ((d) + (UINT64_C(4) << 20) + 0x42000)
#define VA_4K             (SMP_AREA + 16 * PT_PAGE_SIZE)
#define VA_ANCHOR         (SMP_AREA + 511 * PT_PAGE_SIZE)
#define VA_AD(i)          (SMP_AREA + (64 + (uint64_t)(i)) * PT_PAGE_SIZE)
#define VA_2M             (SMP_AREA + PT_SIZE_2M)
#define VA_SPLIT          (SMP_AREA + 2 * PT_SIZE_2M)
#define OFF_2M            0x7000u

/*
 * The shootdown scenarios on v's tables, with frames of the data area at
 * @data_pa; the protect scenario only when the CPU has SMAP (@smap).
 */
static void shootdown_checks(const struct bsp *v, uint64_t data_pa, bool smap)
{
	uint64_t a = FRAME_4K_A(data_pa), b = a + PT_PAGE_SIZE;
	uint64_t x = data_pa, y = data_pa + PT_SIZE_2M, z = data_pa + 3 * PT_SIZE_2M;
	bool injected = false;
	struct scenario s;

	/* 4 KiB remap: A -> B */
	s = (struct scenario){ .name = "shootdown 4K remap", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .to = b, .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K } };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_value(plant(b));
	run_scenario(v, &s, ch_remap, &injected);

	/* 4 KiB unmap */
	s = (struct scenario){ .name = "shootdown 4K unmap", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K } };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_fault(VA_4K, 0);
	run_scenario(v, &s, ch_unmap, &injected);

	/* 4 KiB protect: supervisor -> user, seen by a read with SMAP on */
	s = (struct scenario){ .name = "shootdown 4K protect", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K }, .smap = true };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_fault(VA_4K, PF_ERR_P);
	if (smap)
		run_scenario(v, &s, ch_protect_user, &injected);
	else
		report_skip(v->rep, s.name, "no SMAP: a permission change a read can see needs it");

	/* 2 MiB leaf remap: X -> Y */
	s = (struct scenario){ .name = "shootdown 2M remap", .va = VA_2M, .len = PT_SIZE_2M, .pa = x,
			       .to = y, .size = PT_PAGE_2M, .n = 1, .probe = { VA_2M + OFF_2M } };
	s.before[0] = want_value(plant(x + OFF_2M));
	s.now[0] = want_value(plant(y + OFF_2M));
	run_scenario(v, &s, ch_remap, &injected);

	/* 2 MiB leaf unmap */
	s = (struct scenario){ .name = "shootdown 2M unmap", .va = VA_2M, .len = PT_SIZE_2M, .pa = x,
			       .size = PT_PAGE_2M, .n = 1, .probe = { VA_2M + OFF_2M } };
	s.before[0] = want_value(plant(x + OFF_2M));
	s.now[0] = want_fault(VA_2M + OFF_2M, 0);
	run_scenario(v, &s, ch_unmap, &injected);

	/* a 2 MiB leaf split by unmapping one page: that page faults, its neighbour keeps its frame */
	s = (struct scenario){ .name = "shootdown 2M split", .va = VA_SPLIT, .len = PT_SIZE_2M,
			       .pa = z, .size = PT_PAGE_2M, .n = 2,
			       .probe = { VA_SPLIT + 5 * PT_PAGE_SIZE, VA_SPLIT + 6 * PT_PAGE_SIZE } };
	s.before[0] = want_value(plant(z + 5 * PT_PAGE_SIZE));
	s.before[1] = want_value(plant(z + 6 * PT_PAGE_SIZE));
	s.now[0] = want_fault(VA_SPLIT + 5 * PT_PAGE_SIZE, 0);
	s.now[1] = s.before[1];
	run_scenario(v, &s, ch_split, &injected);
}

#define CHURN_STEPS 32u

/*
 * The SMP churn: seeded map/unmap/remap/protect steps in the SMP area of
 * v's tables, each shot down and compared by every AP with the shadow
 * model, seeded with v's --seed; the frames in the data area at @data_pa.
 * Stops at the deadline in @t (marking *@aborted, live.h's
 * ptlab_deadline_passed).
 */
static void churn_checks(const struct bsp *v, const struct ptlab_time *t, bool *aborted,
			 uint64_t data_pa)
{
	struct smp_shared *sh = v->sh;
	uint64_t fv[SMP_CHURN_FRAMES];
	struct smp_churn ch;
	unsigned steps = 0, bad = 0, seen = 0;
	char got[64], want[64];
	bool injected = false;
	int skip, withheld = -1;

	if (!nactive(sh)) {
		report_skip(v->rep, "smp churn", "no AP is running on the tables");
		return;
	}
	for (unsigned j = 0; j < SMP_CHURN_FRAMES; j++)
		fv[j] = plant(FRAME_CHURN(data_pa, j));
	smp_churn_init(&ch, v->o->seed);
	for (unsigned k = 0; k < SMP_CHURN_PAGES; k++)
		sh->probe_va[k] = SMP_AREA + k * PT_PAGE_SIZE;
	sh->nprobe = SMP_CHURN_PAGES;
	sh->read_va = SMP_AREA;
	sh->read_pages = SMP_CHURN_PAGES;
	barrier();
	sh->reading = 1;
	for (; steps < CHURN_STEPS && nactive(sh) && !ptlab_deadline_passed(t, v->o, v->rep, aborted);
	     steps++) {
		struct smp_step st = smp_churn_next(&ch);
		uint64_t va = SMP_AREA + st.page * PT_PAGE_SIZE;
		unsigned fl_w = st.writable ? PT_WRITE : 0;
		struct pt_flushlist fl;
		int err;

		switch (st.op) {
		case SMP_OP_MAP:
			err = pt_map(v->space, va, FRAME_CHURN(data_pa, st.frame), PT_PAGE_SIZE, fl_w, PT_PAGE_4K, &fl);
			break;
		case SMP_OP_UNMAP:
			err = pt_unmap(v->space, va, PT_PAGE_SIZE, 0, &fl);
			break;
		case SMP_OP_REMAP:
			err = pt_remap(v->space, va, PT_PAGE_SIZE, FRAME_CHURN(data_pa, st.frame), 0, &fl);
			break;
		default:
			err = pt_protect(v->space, va, PT_PAGE_SIZE, fl_w, &fl);
			break;
		}
		if (err) {
			check_report(v->rep, &check_smp_shootdowns, false,
				     "smp churn: step %u op %u at 0x%llx refused: %s", steps,
				     (unsigned)st.op, (unsigned long long)va, pt_strerror(err));
			break;
		}
		ptlab_flush(&fl);
		/* --inject=missing-shootdown: one AP misses the first visible change too */
		skip = -1;
		if (st.op == SMP_OP_REMAP || st.op == SMP_OP_UNMAP)
			skip = skip_for_inject(v, &injected);
		if (skip >= 0)
			withheld = skip;
		shootdown(sh, v->rep, &fl, skip);
		/* the agreed point: every AP compares the whole window with the shadow */
		for (unsigned k = 0; k < SMP_CHURN_PAGES; k++)
			sh->want[k] = smp_churn_expect(&ch, k, SMP_AREA + k * PT_PAGE_SIZE, fv);
		sh->step = steps;
		sh->probe_compare = true;
		command(sh, v->rep, SMP_CMD_PROBE);
		sh->probe_compare = false;
	}
	sh->reading = 0;
	clean(v, SMP_AREA, SMP_CHURN_PAGES * PT_PAGE_SIZE);
	if (withheld >= 0 && !sh->cpu[withheld]->mismatches)
		report_note(v->rep, "inject: missing-shootdown not provoked in the churn: %s dropped "
			    "the stale translation by itself", cpu_name(sh->cpu[withheld]));
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];
		struct smp_obs w;

		if (!c || c->bsp || !c->compared)
			continue;
		seen++;
		if (!c->mismatches)
			continue;
		bad++;
		w = (struct smp_obs){ .value = c->bad_want.value, .faulted = c->bad_want.fault,
				      .vector = c->bad_want.fault ? TRAP_VEC_PF : 0,
				      .error = c->bad_want.error, .cr2 = c->bad_want.cr2 };
		smp_obs_text(&c->bad_got, got, sizeof(got));
		smp_obs_text(&w, want, sizeof(want));
		check_report(v->rep, &check_smp_shootdowns, false,
			     "smp churn: %s disagreed with the shadow model %llu times; first "
			     "at step %u va=0x%llx: expected %s, observed %s", cpu_name(c),
			     (unsigned long long)c->mismatches, c->bad_step,
			     (unsigned long long)c->bad_va, want, got);
	}
	if (!bad && seen && steps == CHURN_STEPS)
		check_report(v->rep, &check_smp_shootdowns, true,
			     "smp churn: %u map/unmap/remap/protect steps with shootdowns, %u AP%s "
			     "agreed with the shadow model at every step (%u pages each)", steps, seen,
			     seen == 1 ? "" : "s", SMP_CHURN_PAGES);
	else if (!bad)
		check_report(v->rep, &check_smp_shootdowns, false,
			     "smp churn: only %u of %u steps ran with %u APs", steps,
			     CHURN_STEPS, seen);
}

/* The BSP's view of run @p for the shootdown checks. */
static struct bsp bsp_of(struct ptlab *p)
{
	return (struct bsp){ p->smp, p->rep, &p->opts, &p->build.space };
}

int smp_bsp_live(struct ptlab *p)
{
	const struct bsp v = bsp_of(p);

	shootdown_checks(&v, p->data.pa, p->cpu.caps.smap);
	churn_checks(&v, &p->t, &p->aborted, p->data.pa);
	smp_send_exit(p->smp);
	return 0;
}

void smp_send_exit(struct smp_shared *sh)
{
	sh->cmd = SMP_CMD_EXIT;
	barrier();
	sh->seq = sh->seq + 1;
}

/* ---- per-CPU results ---- */

void smp_report_cpu(struct report *rep, struct smp_cpu *c)
{
	const char *n = cpu_name(c);
	char a[64], b[64];

	if (!c->checks_done)
		return;
	if (!c->alias_ident.faulted && !c->alias_hhdm.faulted && !c->alias_back.faulted &&
	    c->alias_ident.value == pattern_of(c->own_pa) && c->alias_hhdm.value == pattern_of(c->own_pa) &&
	    c->alias_back.value == c->alias_write)
		check_report(rep, &check_smp_ap_alias, true,
			     "smp %s: its own frame read through identity and HHDM, written "
			     "through the HHDM and read back through identity", n);
	else
		check_report(rep, &check_smp_ap_alias, false,
			     "smp %s: aliases: identity 0x%llx hhdm 0x%llx back 0x%llx, expected "
			     "0x%llx and 0x%llx", n, (unsigned long long)c->alias_ident.value,
			     (unsigned long long)c->alias_hhdm.value,
			     (unsigned long long)c->alias_back.value,
			     (unsigned long long)pattern_of(c->own_pa), (unsigned long long)c->alias_write);
	if (c->call_got == (uint64_t)c->apic * 5 + 7)
		check_report(rep, &check_smp_ap_call, true,
			     "smp %s: a call through the image alias at 0x%llx returned", n,
			     (unsigned long long)c->sh->image_va);
	else
		check_report(rep, &check_smp_ap_call, false,
			     "smp %s: the image alias call returned 0x%llx, expected 0x%llx", n,
			     (unsigned long long)c->call_got, (unsigned long long)c->apic * 5 + 7);
	{
		struct smp_expect r = want_fault(c->pf_va, 0), w = want_fault(c->pf_va, PF_ERR_W);

		if (smp_obs_matches(&c->pf_read, &r) && smp_obs_matches(&c->pf_write, &w)) {
			check_report(rep, &check_smp_ap_pf, true,
				     "smp %s: #PF on its own unmapped page, cr2=0x%llx errors 0x0 "
				     "(read) and 0x2 (write)", n, (unsigned long long)c->pf_va);
		} else {
			smp_obs_text(&c->pf_read, a, sizeof(a));
			smp_obs_text(&c->pf_write, b, sizeof(b));
			check_report(rep, &check_smp_ap_pf, false,
				     "smp %s: at 0x%llx a read gave %s and a write %s, expected "
				     "#PF errors 0x0 and 0x2", n, (unsigned long long)c->pf_va, a, b);
		}
	}
	if (c->ad_read == PTE_A && c->ad_write == PTE_AD_MASK)
		check_report(rep, &check_smp_ap_ad, true,
			     "smp %s: A/D on its own page: a read set A only, a write A and D", n);
	else
		check_report(rep, &check_smp_ap_ad, false,
			     "smp %s: A/D on its own page: after a read 0x%llx, after a write "
			     "0x%llx (expected 0x20 and 0x60)", n, (unsigned long long)c->ad_read,
			     (unsigned long long)c->ad_write);
}

/* ---- the SMP area ---- */

int smp_map_area(struct ptlab *p)
{
	struct smp_shared *sh = p->smp;
	int err = pt_map(&p->build.space, VA_ANCHOR, FRAME_ANCHOR(p->data.pa), PT_PAGE_SIZE, 0, PT_PAGE_4K, NULL);

	for (unsigned i = 0; !err && i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];
		struct pt_leaf l;

		c->own_pa = FRAME_OWN(p->data.pa, i);
		c->alias_write = ~plant(c->own_pa);
		c->pf_va = PTLAB_UNMAPPED_VA + PT_SIZE_2M + (uint64_t)i * PT_PAGE_SIZE;
		c->ad_va = VA_AD(i);
		err = pt_map(&p->build.space, c->ad_va, c->own_pa, PT_PAGE_SIZE,
			     inject_on(&p->opts, &check_smp_ap_ad) ? 0 : PT_WRITE, PT_PAGE_4K, NULL);
		if (!err)
			err = pt_translate(&p->build.space, c->ad_va, &l);
		if (!err)
			c->ad_pte_pa = l.entry_pa;
		if (!err && !c->bsp) {
			inject_begin(CHECK_RUN(p), &check_smp_ap_alias, p->build.plan.hhdm_base + c->own_pa);
			inject_begin(CHECK_RUN(p), &check_smp_ap_pf, c->pf_va);
		}
	}
	return err;
}

void smp_unmap_area(struct ptlab *p)
{
	inject_end(CHECK_RUN(p), &check_smp_ap_alias);
	inject_end(CHECK_RUN(p), &check_smp_ap_pf);
	pt_unmap(&p->build.space, SMP_AREA, 3 * PT_SIZE_2M, PT_SPARSE, NULL);
}

/* ---- hand-off mode: INIT-SIPI-SIPI ---- */

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
			sent += send_init(sh, sh->cpu[i]->apic);
	sh->init_tsc = rdtsc();
	return sent;
}

/*
 * The C entry of an AP the trampoline brought onto our tables (CR3, EFER,
 * CR0 and CR4 set, on its own stack): its GDT, TSS and IDT, the BSP's PAT,
 * the same per-CPU checks and command loop as in firmware mode; at the end
 * it halts with interrupts off on the recovery tables, never to return.
 */
void smp_ap_handoff(struct smp_cpu *c)
{
	struct smp_shared *sh = c->sh;
	struct desc_ptr gdtr = { c->gdt_limit, (uint64_t)(uintptr_t)c->gdt };
	struct desc_ptr idtr = { sizeof(smp_idt) - 1, (uint64_t)(uintptr_t)smp_idt };

	/* --inject=ap-off-tables: the last AP halts before it reports in */
	while (inject_on(&sh->p->opts, &check_smp_aps_on_tables) && c->index == sh->ncpu - 1)
		__asm__ volatile("cli; hlt");

	/* started by our trampoline: its selectors are ours to replace */
	cli();
	lgdt(&gdtr);
	cpu_load_data_segs(sh->sel_ss, sh->sel_ss, sh->sel_ss, sh->sel_ss, sh->sel_ss);
	cpu_load_cs(sh->sel_cs);
	ltr(c->sel_tss);
	lidt(&idtr);
	if (sh->has_pat)
		cpu_switch_pat(sh->pat);
	c->state = SMP_ST_ENTERED;
	c->on_tables = 1;
	c->state = SMP_ST_ON_TABLES;

	smp_guard(ap_body, c, &c->guard_rsp);

	cli();
	write_cr3(sh->park_cr3);
	barrier();
	c->state = SMP_ST_LEFT;
	cpu_halt();
}

static bool wait_state(const struct smp_cpu *c, uint32_t state, uint64_t us)
{
	uint64_t end = deadline_us(c->sh, us);

	while (c->state < state && !c->faulted && rdtsc() < end)
		cpu_pause();
	return c->state >= state || c->faulted;
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
			    (unsigned long long)sh->tramp_pa, cpu_name(c),
			    (unsigned long long)cr3);
		return false;
	}
	barrier();
	/* INIT, at least 10 ms, SIPI, 200 us, SIPI (the second one only if still needed) */
	while (rdtsc() < sh->init_tsc + INIT_DELAY_US * sh->tsc_per_us)
		cpu_pause();
	send_icr(sh, c->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT | vector);
	delay_us(sh, SIPI_DELAY_US);
	if (c->state == SMP_ST_NONE)
		send_icr(sh, c->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT | vector);
	if (wait_state(c, SMP_ST_ON_TABLES, SIPI_WAIT_US))
		return true;
	/* back to wait-for-SIPI, so a late start cannot take the next AP's stack */
	send_init(sh, c->apic);
	c->lost = true;
	check_report(rep, &check_smp_aps_on_tables, false,
		     "smp: %s did not answer INIT-SIPI-SIPI within %u s", cpu_name(c),
		     SIPI_WAIT_US / 1000000);
	return false;
}

int smp_handoff_live(struct ptlab *p)
{
	struct smp_shared *sh = p->smp;
	const struct bsp v = bsp_of(p);

	if (sh->has_pat)
		sh->pat = read_pat();
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (!sh->cpu[i]->bsp)
			start_ap(p->rep, p->build.levels, p->build.our_cr3, sh->cpu[i]);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!c->bsp && !c->lost && !wait_state(c, SMP_ST_CHECKED, WAIT_US)) {
			c->lost = true;
			report_fail(p->rep, "smp: %s did not finish its per-CPU checks", cpu_name(c));
		}
	}
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (!sh->cpu[i]->bsp)
			smp_report_cpu(p->rep, sh->cpu[i]);
	shootdown_checks(&v, p->data.pa, p->cpu.caps.smap);
	churn_checks(&v, &p->t, &p->aborted, p->data.pa);
	smp_send_exit(sh);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!c->bsp && c->on_tables && !wait_state(c, SMP_ST_LEFT, WAIT_US))
			report_fail(p->rep, "smp: %s did not park", cpu_name(c));
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
	barrier();
	while (rdtsc() < sh->init_tsc + INIT_DELAY_US * sh->tsc_per_us)
		cpu_pause();
	send_icr(sh, sh->cpu[index]->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT |
		 (uint32_t)(sh->tramp_pa >> 12));
	delay_us(sh, SIPI_DELAY_US);
	if (!*arrived)
		send_icr(sh, sh->cpu[index]->apic, APIC_ICR_STARTUP | APIC_ICR_ASSERT |
			 (uint32_t)(sh->tramp_pa >> 12));
	end = deadline_us(sh, SIPI_WAIT_US);
	while (!*arrived && rdtsc() < end)
		cpu_pause();
	if (*arrived)
		return true;
	send_init(sh, sh->cpu[index]->apic);   /* so a late start cannot take the next AP's stack */
	return false;
}
