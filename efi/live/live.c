/* SPDX-License-Identifier: MIT */
/*
 * Running with ptlab's tables in CR3.
 *
 * The rule: while our CR3 is loaded, interrupts are off, our IDT handles
 * every vector and no firmware service is called (the firmware would touch
 * memory, such as the LAPIC, that the memory map need not describe).  Each
 * live phase is bracketed here, the mode's way (state/mode.h): in firmware
 * mode the firmware's CPU state is saved by trap_install() and put back by
 * trap_uninstall(), after hand-off the recovery CR3 is loaded again,
 * whatever happened.
 */
#include "live/flush.h"
#include "live/live.h"
#include "state/state.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "live/la57.h"
#include "live/la57tramp.h"

#include <ptlab/pte.h>

static void env_flush(void *ctx, const struct pt_flushlist *fl)
{
	struct ptlab *p = ctx;

	if (p->live.on)
		ptlab_flush(fl);
}

static int env_alloc(void *ctx, uint64_t *pa)
{
	return pt_frames_alloc(&((struct ptlab *)ctx)->build.frames, pa);
}

static void env_free(void *ctx, uint64_t pa)
{
	pt_frames_free(&((struct ptlab *)ctx)->build.frames, pa);
}

/* Firmware mode: all of our memory is identity mapped in both hierarchies. */
static void *env_p2v(void *ctx, uint64_t pa)
{
	(void)ctx;
	return (void *)(uintptr_t)pa;
}

void ptlab_env_init(struct ptlab *p)
{
	p->build.env = (struct pt_env){
		.ctx = p,
		.alloc_frame = env_alloc,
		.free_frame = env_free,
		.phys_to_virt = env_p2v,
		.flush = env_flush,
		.maxphyaddr = p->cpu.caps.maxphyaddr,
		.has_1g = p->cpu.caps.pdpe1gb,
	};
	/* the layout the firmware programmed, not an assumed one */
	if (p->cpu.caps.pat) {
		uint64_t msr = read_pat();

		for (unsigned i = 0; i < 8; i++)
			p->build.env.pat.type[i] = (uint8_t)(msr >> (8 * i)) & 7;
	} else {
		pt_pat_default(&p->build.env.pat);
	}
}

bool ptlab_deadline_passed(const struct ptlab_time *t, const struct opts *o, struct report *rep,
			   bool *aborted)
{
	if (!t->deadline || rdtsc() < t->deadline)
		return false;
	if (!*aborted)
		report_fail(rep, "timeout: the run passed --timeout=%llu s",
			    (unsigned long long)o->timeout);
	*aborted = true;
	return true;
}

struct live_call {
	struct ptlab *p;
	const struct ptlab_live_phase *ph;
};

static int live_body(void *arg)
{
	struct live_call *c = arg;
	struct ptlab *p = c->p;
	int ret;

	write_efer(read_efer() | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	if (la57_active() != (p->build.levels == 5)) {
		/* our tables have the other number of levels: through the trampoline */
		if (la57_switch(p, p->build.levels, p->build.our_cr3, c->ph->what)) {
			p->aborted = true;
			return 0;
		}
	} else {
		write_cr3(p->build.our_cr3);
	}
	if (c->ph->enter)
		c->ph->enter(p, c->ph->ctx);
	p->live.cr4 = read_cr4();
	p->live.phases++;
	p->live.at_levels += ((p->live.cr4 & CR4_LA57) != 0) == (p->build.levels == 5) &&
			     (read_cr3() & PTE_ADDR_MASK) == p->build.our_cr3;
	p->live.on = true;
	ret = c->ph->run(p, c->ph->ctx);
	p->live.on = false;
	return ret;
}

int ptlab_live_phase(struct ptlab *p, const struct ptlab_live_phase *ph)
{
	struct live_call c = { p, ph };
	const char *what = ph->what;
	struct trap_fault f;
	int ret;

	/* the mode's way in (our IDT) and back out (its home CPU state) */
	if (p->mode->live_enter(p, what))
		return TRAP_GUARD_FAULTED;
	ret = trap_guard(live_body, &c, &f);
	p->live.on = false;
	p->mode->live_leave(p);
	if (ret == TRAP_GUARD_FAULTED) {
		p->aborted = true;
		report_exception(p->rep, &(struct report_exc){ .who = what, .rsp = true }, &f);
	}
	return ret;
}

uint64_t ptlab_us(const struct ptlab_time *t, uint64_t ticks)
{
	return t->tsc_per_us ? ticks / t->tsc_per_us : 0;
}

/* A plain function as a phase: @ctx is the function. */
struct live_fn {
	int (*fn)(struct ptlab *p);
};

static int run_fn(struct ptlab *p, void *ctx)
{
	return ((const struct live_fn *)ctx)->fn(p);
}

int ptlab_live(struct ptlab *p, int (*fn)(struct ptlab *p), const char *what)
{
	struct live_fn f = { fn };
	const struct ptlab_live_phase ph = { .what = what, .run = run_fn, .ctx = &f };

	return ptlab_live_phase(p, &ph);
}
