/* SPDX-License-Identifier: MIT */
/*
 * 5-level paging during a run, without the firmware: the switch through the
 * trampoline (la57tramp.h) with its preconditions, the plan's RX page for the
 * trampoline, and the test points of the switch.
 */
#ifndef PTLAB_EFI_LIVE_LA57_H
#define PTLAB_EFI_LIVE_LA57_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_caps;
struct opts;
struct ptlab;
struct ptlab_build;
struct ptlab_live;
struct report;

/*
 * The run's paging levels: --levels (in @o), else @asked (a kernel's
 * request; 0: none), else the firmware's own, @fw_levels.  Five without
 * LA57 in @caps becomes four, after a SKIP of the 5-level phase on @rep.
 * When the answer is not @fw_levels the run switches (the trampoline).
 */
unsigned la57_levels(struct report *rep, const struct opts *o, const struct cpu_caps *caps,
		     unsigned fw_levels, unsigned asked);

/*
 * The test-only faults of the switch's checks (--inject; their registry
 * entries are checks/elsewhere.c's): every switch refused, or every
 * switch after the first.  la57_switch's preconditions plant them.
 */
#define LA57_FAULT_REFUSE       "la57-refuse"
#define LA57_FAULT_REFUSE_LATER "la57-refuse-later"

/*
 * Switch the CPU to @levels-level paging with @root in CR3, through the
 * trampoline.  Interrupts must be off.  Every precondition (CPUID, IA-32e
 * mode, CR4 bits, the root, trampoline and stack below 4 GiB, the trampoline
 * executable and its data writable in the loaded and in the target tables)
 * is checked first; a failing one is reported as a failed check naming
 * @what, and nothing is changed: returns -1.  0 on success.
 */
int la57_switch(struct ptlab *p, unsigned levels, uint64_t root, const char *what);

/*
 * @b's plan carries the trampoline's code page @tramp (live.la57_tramp; 0:
 * the run does not switch, nothing done) RX in the identity map
 * (pt_plan_identity_perm, at b->levels, 1 GiB leaves when @has_1g); called
 * after every pt_plan_build.  Returns PT_OK or PT_ECAPACITY.
 */
int la57_plan_fixup(struct ptlab_build *b, uint64_t tramp, bool has_1g);

/* Is @pa the trampoline's code page (mapped RX in the identity map), per @live? */
bool la57_is_code_page(const struct ptlab_live *live, uint64_t pa);

/* Before the first live phase: the switch's preconditions, as a test point. */
void la57_check_ready(struct ptlab *p);

/*
 * At the end of a run of @levels levels: every live phase @live counted
 * ran in the run's paging mode with our root (a test point on @rep, at 5
 * levels or when the run switched), and the switch count (a fact).
 */
void la57_report_end(struct report *rep, unsigned levels, const struct ptlab_live *live);

/*
 * Last resort for the fatal exception path (@ctx is the run's struct
 * ptlab): back to the firmware's paging mode with its CR3 when the CPU is
 * in the other one, so the firmware's CPU state can be restored.  Only the
 * firmware mode installs it, through la57_arm_fatal_leave(): a hand-off
 * run's fatal path loads the recovery hierarchy (trap_set_fatal_home),
 * which has the run's levels, so no switch back is wanted there.
 */
void la57_fatal_leave(void *ctx);

/* la57_fatal_leave() for the run @p from now on; NULL: never again. */
void la57_arm_fatal_leave(struct ptlab *p);

#endif /* PTLAB_EFI_LIVE_LA57_H */
