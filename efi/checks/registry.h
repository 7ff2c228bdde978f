/* SPDX-License-Identifier: MIT */
/*
 * The check registry: every check is one entry - its whole name, the
 * phase it runs in, the function that runs it and its fault (the
 * --inject name that proves it can fail, what that fault breaks, and how
 * it is planted).  The runner (registry.c) runs a phase as a loop over
 * the entries of that phase, in order, planting each entry's fault (when
 * asked for) right before it and taking it back right after, so no other
 * check sees it.
 *
 * The entries live next to their checks: a module (checks.c,
 * cpuchecks.c) defines each check's entry and ends with its table of
 * them, and a registry is the list of those tables (catalog.c has the
 * app's; each module's header, e.g. checks.h, declares its table).
 * Adding a check to a module is a change of that one C file:
 *  - the check, void check_x(struct check_run *run, const struct ptlab_check *self),
 *    reporting its test points (report_ok/report_fail on run->rep);
 *  - its entry, static const struct ptlab_check x = { "x: whole name",
 *    PTLAB_PHASE_..., check_x, { "x-fault", "what it breaks", when,
 *    plant, NULL } }, plant making the fault with inject.h's recorded
 *    changes (or NULL, the body asking inject_on(run->opts, self));
 *  - &x in the module's table, where in its phase it is to run.
 * --inject=x-fault is then accepted, planted and taken back around it.
 * The entry is the only place its names and what its fault breaks are
 * written: the build prints every entry as a line (tools/listchecks.c,
 * $(BUILD)/gen/checks.tsv) and docs/faults.md's table is made from those
 * lines and tests/boot/faults.tsv, which names the entry by its fault name
 * only, saying which boot proves it (faulttable.py and faults.sh refuse
 * an entry without such a row, or a row naming no entry).  A new module
 * adds its table to catalog.c.  The entries of checks that other code
 * reports (check_report(), checkkit.h) are elsewhere.c's, declared in
 * elsewhere.h for that code.
 *
 * The fault's name is also the check's key in the report: while the
 * runner runs a check, and when check_report() reports for an ELSEWHERE
 * entry, each test point ends in " # check=NAME" (report.h), so a reader
 * finds a check's lines by that key and not by their words.
 *
 * Firmware-free.
 */
#ifndef PTLAB_EFI_REGISTRY_H
#define PTLAB_EFI_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct opts;
struct ptlab;
struct ptlab_build;
struct ptlab_cpu;
struct ptlab_data;
struct ptlab_inject;
struct ptlab_live;
struct ptlab_time;
struct ptlab_wx;
struct report;

/*
 * What a check sees of the run: the parts of the run's state (struct
 * ptlab, state.h) that checks, their faults and their helpers read or
 * change, and the facts of the machine's state their expectations depend
 * on.  Made from the run in one place, check_run_of() (registry.c), so
 * that the kernel being handed over, the hand-off's own state, the churn,
 * the SMP state and the mode's operations are out of a check's reach.
 * Valid while the run's state is: it points into it.
 */
struct check_run {
	struct report *rep;
	const struct opts *opts;
	const struct ptlab_cpu *cpu;
	struct ptlab_build *build;            /* the tables checks map, unmap and probe */
	const struct ptlab_data *data;        /* the frames test mappings point at */
	const struct ptlab_live *live;
	const struct ptlab_wx *wx;            /* the W^X exemptions of the plan */
	struct ptlab_inject *inject;          /* the faults planted (inject.c) */
	const struct ptlab_time *t;
	/* set by a check that finds the run cannot go on (the live phases are not entered) */
	bool *aborted;
	/*
	 * Where the run's state is, for check_liveness (the state must be
	 * mapped writable on our tables): an address, nothing read through it.
	 */
	const void *state;
};

/* Fill @c from the run @p; returns @c. */
struct check_run *check_run_of(struct ptlab *p, struct check_run *c);

/*
 * The check view of @p for the one call it is an argument of (a compound
 * literal lives to the end of the enclosing block): for the code outside
 * the checks that has the run and calls a check's function or a fault's
 * hook (inject_begin, ptlab_audit_firmware).
 */
#define CHECK_RUN(p) check_run_of((p), &(struct check_run){ .rep = NULL })

/*
 * Past the run's --timeout deadline?  The first time, the timeout is
 * reported as a failure and the run marked aborted (live.h's
 * ptlab_deadline_passed); long loops stop when this says true.
 */
bool check_deadline_passed(const struct check_run *run);

/* The phases, in the order a run reaches them. */
enum ptlab_phase {
	PTLAB_PHASE_STATIC,	/* software checks of the built tables, the firmware's CR3 */
	PTLAB_PHASE_LIVE,	/* our tables in CR3, the CPU as the oracle */
	PTLAB_PHASE_CPU,	/* focused checks of what the CPU does with our entries, live */
	PTLAB_PHASE_SWEEP,	/* hand-off: a frame of every usable RAM range, live */
	PTLAB_PHASE_TEARDOWN,	/* the HHDM unmapped in pieces, live */
	/*
	 * Reported by another part of the run (the SMP bring-up, the churn,
	 * the paging-mode switch, the kernel hand-over, the run's end): the
	 * registry holds them for their faults only, which are hooks there.
	 */
	PTLAB_PHASE_ELSEWHERE,
	PTLAB_PHASE_COUNT
};

/* When a check's fault is planted; it is taken back right after the check in every case. */
enum ptlab_fault_when {
	/* the runner plants it right before the check */
	PTLAB_FAULT_BEFORE,
	/*
	 * right when the check's live phase is entered, before that phase is
	 * counted (the check is about the state the phase begins in)
	 */
	PTLAB_FAULT_AT_ENTRY,
	/* right after the build, before its tables are counted (registry_after_build) */
	PTLAB_FAULT_AFTER_BUILD,
	/*
	 * inside the check, mid-operation: its body asks inject_on() or calls
	 * inject_begin()/inject_end() with its own entry
	 */
	PTLAB_FAULT_HOOK,
};

struct ptlab_check;

/*
 * The fault of one check.  @plant makes the change (through inject.h's
 * recorded changes, so inject_end() takes it back; @arg is what the check
 * told inject_begin(), 0 from the runner) and returns 0 when done; NULL
 * when the fault is a condition in the check's body.  @remove, when set,
 * takes back what @plant made that no record covers.
 */
struct ptlab_fault {
	const char *name;		/* --inject=NAME */
	const char *breaks;		/* what it breaks, for the reader */
	enum ptlab_fault_when when;
	int (*plant)(struct check_run *run, const struct ptlab_check *self, uint64_t arg);
	void (*remove)(struct check_run *run, const struct ptlab_check *self);
};

struct ptlab_check {
	const char *name;		/* the whole name, as the test points begin */
	enum ptlab_phase phase;
	/* runs the check; @self is its entry, for its fault's hooks (NULL: ELSEWHERE) */
	void (*run)(struct check_run *run, const struct ptlab_check *self);
	struct ptlab_fault fault;
};

/* A module's table: its entries in order, ended by NULL. */
typedef const struct ptlab_check *const ptlab_check_table[];

/* A registry: modules' tables, in order. */
struct ptlab_registry {
	const struct ptlab_check *const *const *tables;
	unsigned ntables;
};

/* The live phases' names, as an unexpected exception in one reports it. */
const char *registry_phase_name(enum ptlab_phase ph);

/*
 * Run phase @ph of @r: each entry of the phase in order, its fault
 * planted around it.  A live phase runs in one ptlab_live_phase() (our
 * tables in CR3); the static one with the firmware's CR3.  The checks get
 * check_run_of(@p).  Returns 0, or
 * TRAP_GUARD_FAULTED when a live phase ended in an unexpected exception.
 */
int registry_run(struct ptlab *p, const struct ptlab_registry *r, enum ptlab_phase ph);

/* Plant the PTLAB_FAULT_AFTER_BUILD faults asked for (each taken back after its check). */
void registry_after_build(struct ptlab *p, const struct ptlab_registry *r);

/* registry_run() and registry_after_build() on the run's registry, p->checks. */
int checks_run(struct ptlab *p, enum ptlab_phase ph);
void checks_after_build(struct ptlab *p);

/* The entry whose fault is named @name, or NULL. */
const struct ptlab_check *registry_find_fault(const struct ptlab_registry *r, const char *name);

/*
 * Refuse a --inject name that is no fault of @r (the churn's own five are
 * opts.c's): 0 when every name is known, else -1 with the message in @err.
 */
int registry_accept(const struct ptlab_registry *r, const struct opts *o, char *err,
		    size_t errlen);

/* Entries in @r, all its tables. */
unsigned registry_count(const struct ptlab_registry *r);

#endif
