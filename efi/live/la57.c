/* SPDX-License-Identifier: MIT */
/*
 * 5-level paging during a run, no firmware call: the switch through the
 * trampoline with the checks made before every switch, the plan's RX page
 * for the trampoline, and the switch's test points.
 */

#include "live/la57.h"
#include "live/la57tramp.h"
#include "cpu/trap.h"
#include "opts/opts.h"
#include "report/fmt.h"
#include "report/report.h"
#include "state/state.h"

#include <ptlab/pte.h>

#define BELOW_4G        UINT64_C(0x100000000)
#define CR4_PCIDE       (UINT64_C(1) << 17)
#define CR4_CET         (UINT64_C(1) << 23)

/* ---- preconditions ---- */

/*
 * --inject=la57-refuse|la57-refuse-later: why the next switch is refused,
 * or NULL, from the options @o and the switches @live counted.  The faults
 * are those of checks/elsewhere.c's entries for the switch's checks, named
 * by the same macros (la57.h).
 */
unsigned la57_levels(struct report *rep, const struct opts *o, const struct cpu_caps *caps,
		     unsigned fw_levels, unsigned asked)
{
	unsigned levels = o->levels ? o->levels : asked ? asked : fw_levels;

	if (levels == 5 && !caps->la57) {
		report_skip(rep, "5-level phase", "--levels=5 but the CPU has no LA57 "
			    "(CPUID.(EAX=7,ECX=0):ECX[16]=0); the 4-level suite runs instead");
		levels = 4;
	}
	return levels;
}

static const char *injected_refusal(const struct opts *o, const struct ptlab_live *live)
{
	if (opts_fault_given(o, LA57_FAULT_REFUSE))
		return "--inject=" LA57_FAULT_REFUSE;
	if (opts_fault_given(o, LA57_FAULT_REFUSE_LATER) && live->la57_switches)
		return "--inject=" LA57_FAULT_REFUSE_LATER;
	return NULL;
}

/*
 * The trampoline at @tramp in the hierarchy at @root, walked with a copy
 * of the run's environment @e: code page identity RX-able, data page RW.
 */
static bool tramp_mapped(const struct pt_env *e, uint64_t tramp, uint64_t root, unsigned levels)
{
	struct pt_env env = *e;
	struct pt_space s = { .env = &env, .root_pa = root & PTE_ADDR_MASK, .levels = levels };
	uint64_t code = tramp, data = code + LA57_DATA;
	struct pt_leaf l;

	/* foreign tables (the firmware's) may hold 1 GiB leaves whatever CPUID says */
	env.has_1g = true;
	if (pt_translate(&s, code, &l) != PT_OK || l.pa != code || !(l.flags & PT_EXEC))
		return false;
	for (uint64_t off = 0; off < PT_PAGE_SIZE; off += PT_PAGE_SIZE - 8)
		if (pt_translate(&s, data + off, &l) != PT_OK || l.pa != data + off ||
		    !(l.flags & PT_WRITE))
			return false;
	return true;
}

/*
 * NULL when a switch from the loaded tables to @levels with @root may go
 * ahead, else the reason (a constant or @why, @n bytes).  @irq_checked:
 * interrupts must be off.
 */
static const char *precondition(const struct ptlab *p, unsigned levels, uint64_t root,
				bool irq_checked, char *why, size_t n)
{
	uint64_t cr0 = read_cr0(), cr4 = read_cr4(), efer = read_efer(), cr3 = read_cr3();
	unsigned cur = (cr4 & CR4_LA57) ? 5 : 4;

	if (injected_refusal(&p->opts, &p->live))
		return injected_refusal(&p->opts, &p->live);
	if (!p->live.la57_tramp)
		return "no trampoline was allocated";
	if (levels == 5 && !p->cpu.caps.la57)
		return "the CPU has no LA57 (CPUID.(EAX=7,ECX=0):ECX[16]=0)";
	if (p->live.la57_tramp + LA57_PAGES * PT_PAGE_SIZE > BELOW_4G) {
		fmt_snprintf(why, n, "the trampoline and its stack at 0x%llx are not "
			     "below 4 GiB", (unsigned long long)p->live.la57_tramp);
		return why;
	}
	if ((root & (PT_PAGE_SIZE - 1)) || root >= BELOW_4G) {
		fmt_snprintf(why, n, "the %u-level root 0x%llx is not a page below 4 GiB "
			     "(CR3 is 32 bits wide with paging off)", levels,
			     (unsigned long long)root);
		return why;
	}
	if (!(cr0 & CR0_PG) || !(efer & EFER_LMA) || !(cr4 & CR4_PAE)) {
		fmt_snprintf(why, n, "the CPU is not in IA-32e mode with PAE paging "
			     "(cr0=0x%llx cr4=0x%llx efer=0x%llx)", (unsigned long long)cr0,
			     (unsigned long long)cr4, (unsigned long long)efer);
		return why;
	}
	if (cr4 & CR4_CET)
		return "CR4.CET is set: shadow stacks do not follow the trampoline's far returns";
	if (irq_checked && (read_rflags() & RFLAGS_IF))
		return "interrupts are enabled";
	if (!tramp_mapped(&p->build.env, p->live.la57_tramp, cr3, cur)) {
		fmt_snprintf(why, n, "the trampoline 0x%llx is not identity mapped "
			     "(code executable, data writable) in the loaded %u-level tables 0x%llx",
			     (unsigned long long)p->live.la57_tramp, cur, (unsigned long long)cr3);
		return why;
	}
	if (!tramp_mapped(&p->build.env, p->live.la57_tramp, root, levels)) {
		fmt_snprintf(why, n, "the trampoline 0x%llx is not identity mapped "
			     "(code executable, data writable) in the %u-level tables 0x%llx",
			     (unsigned long long)p->live.la57_tramp, levels, (unsigned long long)root);
		return why;
	}
	return NULL;
}

int la57_switch(struct ptlab *p, unsigned levels, uint64_t root, const char *what)
{
	char why[200];
	const char *no = precondition(p, levels, root, true, why, sizeof(why));
	uint64_t cr4;

	if (no) {
		report_fail(p->rep, "la57: %s: switch to %u-level paging refused: %s", what, levels,
			    no);
		return -1;
	}
	cr4 = read_cr4() & ~CR4_PCIDE;
	cr4 = levels == 5 ? cr4 | CR4_LA57 : cr4 & ~CR4_LA57;
	la57_tramp_run(p->live.la57_tramp, cr4, root,
		       p->opts.raise == OPTS_RAISE_LA57_WINDOW && levels == 5,
		       p->cpu.caps.hypervisor && p->opts.end == OPTS_END_QEMU);
	if (la57_active() != (levels == 5) || (read_cr3() & PTE_ADDR_MASK) != root) {
		report_fail(p->rep, "la57: %s: after the switch CR4=0x%llx CR3=0x%llx, expected "
			    "%u levels with 0x%llx", what, (unsigned long long)read_cr4(),
			    (unsigned long long)read_cr3(), levels, (unsigned long long)root);
		return -1;
	}
	p->live.la57_switches++;
	return 0;
}

void la57_check_ready(struct ptlab *p)
{
	char why[200];
	const char *no;

	if (!p->live.la57_tramp)
		return;
	if (la57_active() == (p->build.levels == 5)) {
		report_ok(p->rep, "la57: already in %u-level paging (CR4=0x%llx)%s", p->build.levels,
			  (unsigned long long)read_cr4(),
			  p->build.boot_services_gone ? " since the hand-off" : "");
		return;
	}
	no = precondition(p, p->build.levels, p->build.our_cr3, false, why, sizeof(why));
	if (no) {
		/* keyed by the fault name of its registry entry (checks/elsewhere.c), a room above */
		report_keyed(p->rep, LA57_FAULT_REFUSE, false,
			     "la57: switch to %u-level paging refused before the window: %s",
			     p->build.levels, no);
		p->aborted = true;
		return;
	}
	report_keyed(p->rep, LA57_FAULT_REFUSE, true,
		     "la57: switch preconditions hold: CPUID LA57, IA-32e mode with PAE, "
		     "no CET, trampoline 0x%llx, its stack and the roots 0x%llx (loaded) and 0x%llx "
		     "(ours) below 4 GiB, trampoline identity mapped in both",
		     (unsigned long long)p->live.la57_tramp, (unsigned long long)read_cr3(),
		     (unsigned long long)p->build.our_cr3);
}

void la57_report_end(struct report *rep, unsigned levels, const struct ptlab_live *live)
{
	if (levels != 5 && !live->la57_tramp)
		return;
	report_fact(rep, "la57", "live_phases=%llu at_%u_levels=%llu switches=%llu",
		    (unsigned long long)live->phases, levels,
		    (unsigned long long)live->at_levels, (unsigned long long)live->la57_switches);
	if (live->phases && live->at_levels == live->phases)
		report_ok(rep, "la57: all %llu live phases ran with CR4.LA57=%d and our root in CR3 "
			  "(%llu switches)", (unsigned long long)live->phases, levels == 5,
			  (unsigned long long)live->la57_switches);
	else if (live->phases)
		report_fail(rep, "la57: %llu of %llu live phases ran in %u-level paging with our root",
			    (unsigned long long)live->at_levels, (unsigned long long)live->phases,
			    levels);
}

void la57_arm_fatal_leave(struct ptlab *p)
{
	trap_set_fatal_leave(p ? la57_fatal_leave : NULL, p);
}

void la57_fatal_leave(void *ctx)
{
	struct ptlab *p = ctx;

	/* trap.c calls it once: a fault in the switch goes straight on */
	if (!p || la57_active() == (p->cpu.fw_levels == 5))
		return;
	la57_switch(p, p->cpu.fw_levels, p->cpu.fw_cr3 & PTE_ADDR_MASK, "fatal exception");
}

/* ---- the plan ---- */

bool la57_is_code_page(const struct ptlab_live *live, uint64_t pa)
{
	return live->la57_tramp && (pa & ~(PT_PAGE_SIZE - 1)) == live->la57_tramp;
}

int la57_plan_fixup(struct ptlab_build *b, uint64_t tramp, bool has_1g)
{
	int err;

	if (!tramp)
		return PT_OK;
	/* RX, split out of the identity entry holding it; its HHDM alias stays RW+NX */
	err = pt_plan_identity_perm(&b->plan, tramp, PT_PAGE_SIZE, PT_EXEC, b->levels, has_1g);
	/* not identity mapped at all: the precondition check refuses the switch */
	return err == PT_ENOTMAPPED ? PT_OK : err;
}
