/* SPDX-License-Identifier: MIT */
/*
 * Our GDT, TSS and IDT, and the C side of exception handling: probe fixups,
 * guards, and the fatal path.  Entry stubs, probes and the guard recovery
 * point are in trap_asm.S.
 *
 * No firmware calls.
 */
#include <stddef.h>

#include "cpu/claim.h"
#include "cpu/cpu.h"
#include "cpu/gdt.h"
#include "cpu/trap.h"

#define HIDDEN __attribute__((visibility("hidden")))

#define GATE_INTR	0x8e	/* present, DPL 0, 64-bit interrupt gate */
#define GATE_PRESENT	0x80

/* A guard's record on its stack; layout fixed by trap_guard_asm. */
struct guard_rec {
	uint64_t pad;
	struct guard_rec *prev;
	struct trap_fault *f;
	uint64_t r15, r14, r13, r12, rbp, rbx;
	uint64_t ret;
};

/* trap_asm.S */
extern const char trap_stubs[] HIDDEN;
extern const struct trap_extable_entry trap_extable_start[] HIDDEN;
extern const struct trap_extable_entry trap_extable_end[] HIDDEN;
extern const char trap_exec_fixup[] HIDDEN;
extern const char trap_guard_resume[] HIDDEN;
int trap_guard_asm(int (*fn)(void *), void *arg, struct trap_fault *f) HIDDEN;

/* Shared with trap_asm.S. */
HIDDEN uint32_t trap_exec_armed;
HIDDEN uint64_t trap_exec_va;
HIDDEN uint64_t trap_exec_rsp;
HIDDEN struct guard_rec *trap_guard_cur;

struct trap_fault trap_fatal_fault;

/*
 * Our GDT: a 64-bit code descriptor at the firmware's CS index, a data
 * descriptor at its SS index (none for a null SS), our TSS in the first two
 * free slots.  As large as any GDT can be, because the firmware's selectors
 * decide where our descriptors go; it doubles as the scratch copy of the
 * firmware's GDT that restores the firmware's TSS (cpu_state_restore).
 */
static uint64_t gdt[CPU_GDT_MAX_ENTRIES] __attribute__((aligned(16)));
static uint16_t gdt_limit;
static uint16_t sel_cs, sel_ss, sel_tss;

static struct tss64 tss_static __attribute__((aligned(16)));
static struct tss64 *tss = &tss_static;
static bool tss_left;
static struct idt_gate idt[256] __attribute__((aligned(16)));
static uint8_t ist_stacks[4][TRAP_IST_STACK_SIZE] __attribute__((aligned(16)));

static struct cpu_state fw_state;
static bool installed;
static unsigned int dispatch_depth;

/*
 * Lay out our GDT around the firmware's CS and SS selectors, so that no
 * segment register is ever loaded: CS and SS keep their selectors, and an
 * iretq that reloads them finds a flat 64-bit descriptor at the same index.
 * False when that is impossible (a selector in the LDT, RPL not 0, a null CS,
 * CS and SS sharing an index).
 */
static bool gdt_build(uint16_t cs, uint16_t ss)
{
	/* ltr marks the TSS busy, so the layout is rebuilt at each install */
	if (!cpu_gdt_layout(gdt, CPU_GDT_MAX_ENTRIES, cs, ss, (uint64_t)(uintptr_t)tss,
			    sizeof(*tss) - 1, &gdt_limit, &sel_tss))
		return false;
	sel_cs = cs;
	sel_ss = ss;
	return true;
}

static void tss_build(void)
{
	unsigned int i;

	*tss = (struct tss64){ .iopb = sizeof(*tss) };
	for (i = 0; i < 4; i++)
		tss->ist[i] = (uint64_t)(uintptr_t)&ist_stacks[i][TRAP_IST_STACK_SIZE];
	/* Never used at CPL 0; point it somewhere harmless anyway. */
	tss->rsp[0] = tss->ist[TRAP_IST_DF - 1];
}

static uint8_t vector_ist(unsigned int v)
{
	switch (v) {
	case TRAP_VEC_DF:
		return TRAP_IST_DF;
	case TRAP_VEC_NMI:
		return TRAP_IST_NMI;
	case TRAP_VEC_MC:
		return TRAP_IST_MC;
	case TRAP_VEC_PF:
		return TRAP_IST_PF;
	default:
		return 0;
	}
}

static void idt_build(void)
{
	unsigned int v;

	for (v = 0; v < 256; v++) {
		uint64_t off = (uint64_t)(uintptr_t)(trap_stubs + 16 * v);

		idt[v] = (struct idt_gate){
			.off0 = (uint16_t)off,
			.sel = sel_cs,
			.ist = vector_ist(v),
			.type = GATE_INTR,
			.off1 = (uint16_t)(off >> 16),
			.off2 = (uint32_t)(off >> 32),
		};
	}
}

int trap_install(void)
{
	struct desc_ptr gdtr, idtr;

	if (installed)
		return -1;
	cpu_state_save(&fw_state);
	if (!gdt_build(fw_state.cs, fw_state.ss))
		return -1;
	cli();

	tss_build();
	idt_build();
	gdtr = (struct desc_ptr){ gdt_limit, (uint64_t)(uintptr_t)gdt };
	idtr = (struct desc_ptr){ sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };

	/* no segment register is loaded: CS and SS are valid in both GDTs */
	lgdt(&gdtr);
	ltr(sel_tss);
	lidt(&idtr);

	trap_exec_armed = 0;
	trap_guard_cur = NULL;
	dispatch_depth = 0;
	installed = true;
	return 0;
}

/*
 * After the firmware's state is back: when it had no TSS, ours stays loaded
 * (TR cannot be loaded with a null selector).  Its IST and RSP0 pointers are
 * cleared, since they point into this image, which the firmware unloads.
 */
static void after_restore(void)
{
	tss_left = fw_state.tr == 0;
	if (tss_left) {
		for (unsigned int i = 0; i < 7; i++)
			tss->ist[i] = 0;
		for (unsigned int i = 0; i < 3; i++)
			tss->rsp[i] = 0;
	}
}

int trap_uninstall(void)
{
	if (!installed)
		return -1;
	installed = false;
	cpu_state_restore(&fw_state, gdt, sizeof(gdt));
	after_restore();
	return 0;
}

void trap_set_tss(void *page)
{
	if (!installed)
		tss = page ? page : &tss_static;
}

uint64_t trap_tss_base(void)
{
	return (uint64_t)(uintptr_t)tss;
}

bool trap_tss_left_loaded(void)
{
	return tss_left;
}

const struct cpu_state *trap_entry_state(void)
{
	return &fw_state;
}

bool trap_installed(void)
{
	return installed;
}

void trap_gate_set_present(unsigned int vector, bool present)
{
	if (vector >= 256)
		return;
	if (present)
		idt[vector].type |= GATE_PRESENT;
	else
		idt[vector].type &= (uint8_t)~GATE_PRESENT;
}

int trap_guard(int (*fn)(void *), void *arg, struct trap_fault *f)
{
	f->vector = TRAP_VEC_NONE;
	if (!installed)
		return TRAP_GUARD_FAULTED;
	return trap_guard_asm(fn, arg, f);
}

void trap_fault_record(struct trap_fault *f, const struct trap_frame *frame)
{
	f->vector = (uint32_t)frame->vector;
	f->error = frame->error;
	f->cr2 = frame->vector == TRAP_VEC_PF ? frame->cr2 : 0;
	f->rip = frame->rip;
	f->rsp = frame->rsp;
}

/*
 * Faults a probe may report: the CPU points RIP at the access.  Not the
 * traps (#DB, #BP, #OF), not NMI, #DF or #MC, not interrupts: those never
 * describe the probed access.
 */
static bool vector_is_probe_fault(uint64_t v)
{
	if (v >= 32)
		return false;
	switch (v) {
	case 1:
	case TRAP_VEC_NMI:
	case 3:
	case 4:
	case TRAP_VEC_DF:
	case TRAP_VEC_MC:
		return false;
	default:
		return true;
	}
}

bool trap_probe_fixup(struct trap_frame *frame)
{
	const struct trap_extable_entry *e;

	if (!vector_is_probe_fault(frame->vector))
		return false;
	for (e = trap_extable_start; e < trap_extable_end; e++) {
		if ((uint64_t)(uintptr_t)&e->insn + (int64_t)e->insn != frame->rip)
			continue;
		trap_fault_record((struct trap_fault *)(uintptr_t)frame->r11, frame);
		frame->rip = (uint64_t)(uintptr_t)&e->fixup + (int64_t)e->fixup;
		return true;
	}
	return false;
}

/* The fatal path's callbacks (trap_set_fatal_home, trap_set_fatal_leave), each with its context. */
static struct {
	uint64_t home_cr3;
	void (*report)(void *ctx, const struct trap_fault *f);
	void *report_ctx;
	void (*leave)(void *ctx);
	void *leave_ctx;
} fatal;

void trap_set_fatal_home(uint64_t home_cr3,
			 void (*report)(void *ctx, const struct trap_fault *f), void *ctx)
{
	fatal.home_cr3 = home_cr3;
	fatal.report = report;
	fatal.report_ctx = ctx;
}

void trap_set_fatal_leave(void (*leave)(void *ctx), void *ctx)
{
	fatal.leave = leave;
	fatal.leave_ctx = ctx;
}

static __attribute__((noreturn)) void trap_fatal(const struct trap_frame *frame)
{
	trap_fault_record(&trap_fatal_fault, frame);
	if (fatal.leave) {
		void (*leave)(void *ctx) = fatal.leave;

		fatal.leave = NULL;   /* a fault while leaving goes straight on */
		leave(fatal.leave_ctx);
	}
	if (fatal.home_cr3) {
		/* no firmware state to go back to: our own tables, GDT and IDT stay */
		write_cr3(fatal.home_cr3);
	} else {
		installed = false;
		cpu_state_restore_noirq(&fw_state, gdt, sizeof(gdt));
		after_restore();
	}
	if (fatal.report) {
		void (*report)(void *ctx, const struct trap_fault *f) = fatal.report;

		fatal.report = NULL;   /* a fault while reporting halts at once */
		report(fatal.report_ctx, &trap_fatal_fault);
	}
	cpu_halt();
}

/*
 * Called by the common entry code (TRAP_ENTRY, trapentry.h) for every vector with the frame it built.  Resolves
 * the exception by editing the frame (probe fixup or guard recovery) and
 * returning, or halts through trap_fatal().
 */
void trap_dispatch(struct trap_frame *frame)
{
	struct guard_rec *g;

	/* an AP that holds the verdict stops the BSP with an NMI (claim.h) */
	if (frame->vector == TRAP_VEC_NMI)
		claim_nmi();
	if (dispatch_depth++)
		trap_fatal(frame);	/* exception inside the dispatcher */

	if (vector_is_probe_fault(frame->vector)) {
		if (trap_exec_armed && frame->rip == trap_exec_va) {
			trap_fault_record((struct trap_fault *)(uintptr_t)frame->r11, frame);
			trap_exec_armed = 0;
			frame->rip = (uint64_t)(uintptr_t)trap_exec_fixup;
			frame->rsp = trap_exec_rsp;
			goto out;
		}
	}
	if (trap_probe_fixup(frame))
		goto out;

	g = trap_guard_cur;
	if (!g)
		trap_fatal(frame);
	trap_fault_record(g->f, frame);
	if (frame->vector == TRAP_VEC_MC) {
		struct cpu_caps caps;

		/* Clear MCIP, or the next #MC shuts the machine down. */
		cpu_caps_read(&caps);
		if (caps.mca)
			wrmsr(MSR_IA32_MCG_STATUS, 0);
	}
	trap_exec_armed = 0;
	frame->rip = (uint64_t)(uintptr_t)trap_guard_resume;
	frame->rsp = (uint64_t)(uintptr_t)g;
	frame->rax = (uint64_t)(int64_t)TRAP_GUARD_FAULTED;
	frame->rflags = 0x2;
	frame->cs = sel_cs;
	frame->ss = sel_ss;
out:
	dispatch_depth--;
}
