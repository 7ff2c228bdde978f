/* SPDX-License-Identifier: MIT */
/*
 * Running on our own tables: the bracket around each live phase
 * (live.c), the library's environment callbacks, the TLB and cache
 * maintenance (flush.c), the --timeout deadline and TSC time.  The
 * 5-level switch the bracket goes through is la57.h.  Firmware-free: the
 * host tests that link a module calling these define their own (link
 * seams).
 */
#ifndef PTLAB_EFI_LIVE_H
#define PTLAB_EFI_LIVE_H

#include <stdbool.h>
#include <stdint.h>

struct opts;
struct ptlab;
struct ptlab_time;
struct report;
struct pt_flushlist;

/* ---- live.c: running code with our tables in CR3 ---- */

/*
 * Run fn(p) with our GDT/IDT, interrupts off, EFER.NXE and CR0.WP set and
 * our CR3 loaded; back to the mode's home state after (p->mode's
 * live_enter and live_leave: the firmware's CPU state, or after hand-off
 * the recovery CR3).  An unexpected
 * exception is reported as a failed check named @what and sets p->aborted.
 * Returns fn's result, or TRAP_GUARD_FAULTED.
 */
int ptlab_live(struct ptlab *p, int (*fn)(struct ptlab *p), const char *what);

/*
 * ptlab_live() for a phase that needs a context: run(p, ctx) live, and
 * before it, when set, enter(p, ctx) right after our CR3 is loaded and
 * before the phase is counted (live.phases, live.at_levels).
 */
struct ptlab_live_phase {
	const char *what;
	int (*run)(struct ptlab *p, void *ctx);
	void (*enter)(struct ptlab *p, void *ctx);
	void *ctx;
};

int ptlab_live_phase(struct ptlab *p, const struct ptlab_live_phase *ph);

/*
 * Past the deadline in @t (--timeout, in @o)?  The first time, a failure
 * line goes to @rep and *@aborted is set; long loops stop when this says
 * true.
 */
bool ptlab_deadline_passed(const struct ptlab_time *t, const struct opts *o, struct report *rep,
			   bool *aborted);

/* The environment callbacks: identity phys_to_virt, the pool, flush when live. */
void ptlab_env_init(struct ptlab *p);

/* Microseconds for @ticks (0 when the TSC is not calibrated). */
uint64_t ptlab_us(const struct ptlab_time *t, uint64_t ticks);

#endif /* PTLAB_EFI_LIVE_H */
