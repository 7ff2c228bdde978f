/* SPDX-License-Identifier: MIT */
/*
 * Every CPU on ptlab's tables (see smp.h), the APs' side: the state they
 * share with the BSP, the AP procedure, the APs' trap handler and IDT, and
 * the per-CPU checks and commands as an AP runs them.  The BSP's side is
 * bsp.c (the checks it drives and judges) and sipi.c (starting the APs in
 * hand-off mode); the local APIC is apic.c.
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
#include "checks/elsewhere.h"
#include "live/flush.h"
#include "checks/inject.h"
#include "smp/smp.h"
#include "smp/apic.h"
#include "cpu/claim.h"
#include "cpu/gdt.h"

#include <ptlab/pte.h>

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
	i = smp_table_find(&sh->table, cpu_apic_id());
	if (i < 0 || !sh->cpu[i] || sh->cpu[i]->bsp) {
		__atomic_fetch_add(&sh->unknown, 1, __ATOMIC_SEQ_CST);
		return;
	}
	sh->cpu[i]->state = SMP_ST_ENTERED;
	smp_on_stack(ap_main, sh->cpu[i], sh->cpu[i]->stack_top);
}

/* ---- hand-off mode: the AP's entry ---- */

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

	/*
	 * Started by our trampoline: its selectors are ours to replace.  The
	 * APs' IDT right after the GDT, whose code selector its gates use (the
	 * park IDT's is the trampoline's, aptrap.h); TR already holds this
	 * CPU's TSS, loaded again from our GDT.
	 */
	cli();
	lgdt(&gdtr);
	lidt(&idtr);
	cpu_load_data_segs(sh->sel_ss, sh->sel_ss, sh->sel_ss, sh->sel_ss, sh->sel_ss);
	cpu_load_cs(sh->sel_cs);
	ltr(c->sel_tss);
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
