/* SPDX-License-Identifier: MIT */
/*
 * The hand-off mode (handoff.c): mode_handoff (core/mode.h), and its parts
 * the kernel mode (kernel.c), a hand-off that ends in a kernel, shares.
 */
#ifndef PTLAB_EFI_HANDOFF_H
#define PTLAB_EFI_HANDOFF_H

#include "core/mode.h"

/*
 * The run after run_start: leave boot services and run everything on all
 * of RAM.  Returns only when it could not leave boot services (reported);
 * otherwise the run ends in the mode's after_checks (a kernel), or in
 * ResetSystem, isa-debug-exit or hlt.
 */
void handoff_run(struct ptlab *p, const struct mode_boot *b);

/* The hand-off's option defaults: --end=shutdown, a longer churn (not given). */
void handoff_option_defaults(struct opts *o);

/* A live phase after ExitBootServices: nothing to enter; back to the recovery CR3 after. */
int handoff_live_enter(struct ptlab *p, const char *what);
void handoff_live_leave(struct ptlab *p);

/* The hand-off's own check: a written and read frame in every usable RAM range (live). */
void handoff_ram_sweep(struct ptlab *p);

/*
 * @rep's closing line, the report out on COM1 and, when there is one
 * (@fb, the run's framebuffer), the whole of it on the screen: the last
 * report output of a hand-off.
 */
void handoff_emit_final(struct report *rep, struct ptlab_fb *fb);

/*
 * The operations of struct mode the hand-off mode is made of: mode_handoff
 * is these, mode_kernel these and its kernel's steps (kernel.c).
 */
#define HANDOFF_MODE_OPS                                                     \
	.boot_services_gone = true, .option_defaults = handoff_option_defaults, \
	.run = handoff_run, .live_enter = handoff_live_enter,                 \
	.live_leave = handoff_live_leave, .smp = smp_handoff_run,             \
	.own_checks = handoff_ram_sweep

/* The hand-off mode: the run after ExitBootServices, on all of RAM. */
extern const struct mode mode_handoff;

#endif
