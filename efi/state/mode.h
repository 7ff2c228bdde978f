/* SPDX-License-Identifier: MIT */
/*
 * A mode: what the firmware mode, the hand-off mode and the kernel mode
 * differ in, as one table of operations and properties.  The shared code
 * (the pipeline in core/run.c, the live phases, the checks, the SMP
 * checks) calls the operations and reads the properties, which describe
 * the machine's state, not a mode: run_start (core/run.c) copies
 * boot_services_gone into the build (struct ptlab_build), where it decides
 * the plan's caps and the firmware-table audit (core/run.c), the expected
 * attributes and the W^X exemption of runtime code (the checks, through
 * their view's build) and the wording of the record that no 5-level switch
 * is needed (live/la57.c).
 * What differs by who started a thing (how an AP's end reads, whether the
 * fatal path switches paging levels back) is passed or installed by the
 * caller that knows.  The shared code never tests which mode it is.  The
 * implementations: core/fwmode.c, core/handoff.c, core/kernel.c
 * (core/mode.h picks one from the options).  The end of a run is not an
 * operation: core/end.c is the one --end path for every mode, and what
 * differs there is only whether boot services are still there; the
 * kernel mode's different end is its after_checks (the jump).
 *
 * Firmware-free, so that the checks may call through it: the one
 * operation that needs what the firmware handed the application takes an
 * opaque struct mode_boot (core/mode.h).
 */
#ifndef PTLAB_EFI_MODE_H
#define PTLAB_EFI_MODE_H

#include <stdbool.h>

struct opts;
struct ptlab;
struct mode_boot;

struct mode {
	/*
	 * The tables are planned for, built and checked after
	 * ExitBootServices: boot-services memory is ours, the firmware's own
	 * tables are gone (audited before leaving), the Memory Attributes
	 * Table decides the runtime ranges, APs are started and parked by us.
	 */
	bool boot_services_gone;

	/* Defaults of its own for options the user did not give (NULL: none). */
	void (*option_defaults)(struct opts *o);

	/*
	 * The whole run after run_start().  Returns only with boot services
	 * alive (the firmware mode always; a hand-off mode when it could not
	 * leave them); the caller then ends the run (core/end.h).
	 */
	void (*run)(struct ptlab *p, const struct mode_boot *b);

	/*
	 * Around each live phase (live/live.c's ptlab_live): enter before
	 * our tables are loaded, 0 or -1 when no live phase may run (reported,
	 * the run aborted); leave after it, whatever happened, with the
	 * mode's home state (the firmware's CPU state, or the recovery CR3).
	 */
	int (*live_enter)(struct ptlab *p, const char *what);
	void (*live_leave)(struct ptlab *p);

	/* The SMP checks: every CPU on the built tables. */
	void (*smp)(struct ptlab *p);

	/* Checks only this mode can make, after the churn, live (NULL: none). */
	void (*own_checks)(struct ptlab *p);

	/*
	 * Hand-off modes (core/handoff.c calls these; NULL: nothing).
	 * before_exit: before ExitBootServices, once the map is normalized
	 * (@map_cap: ranges the final map may have); PT_OK, or an error
	 * already reported, and then boot services are kept.  plan: after the
	 * final plan, its exemptions.  after_checks: after the checks and the
	 * facts, with the checked tables; returns only when the run ends the
	 * hand-off's way.
	 */
	int (*before_exit)(struct ptlab *p, const struct mode_boot *b, unsigned map_cap);
	int (*plan)(struct ptlab *p);
	void (*after_checks)(struct ptlab *p);
};

#endif /* PTLAB_EFI_MODE_H */
