/* SPDX-License-Identifier: MIT */
/*
 * The check registry's runner (see registry.h): a phase is a loop over the
 * entries of that phase, each check's fault planted right before it and
 * taken back right after.  The checks get the run's view made here,
 * check_run_of(), the one place a struct check_run is made from the run.
 * Firmware-free; a live phase runs through ptlab_live_phase() (live/live.c,
 * a link seam for the host tests).
 */
#include "checks/registry.h"
#include "checks/inject.h"
#include "opts/opts.h"
#include "report/fmt.h"
#include "report/report.h"
#include "state/state.h"
#include "live/live.h"

struct phase_run {
	const struct ptlab_registry *r;
	enum ptlab_phase ph;
	struct check_run *run;
};

struct check_run *check_run_of(struct ptlab *p, struct check_run *c)
{
	*c = (struct check_run){
		.rep = p->rep,
		.opts = &p->opts,
		.cpu = &p->cpu,
		.build = &p->build,
		.data = &p->data,
		.live = &p->live,
		.wx = &p->wx,
		.inject = &p->inject,
		.t = &p->t,
		.aborted = &p->aborted,
		.state = p,
	};
	return c;
}

bool check_deadline_passed(const struct check_run *run)
{
	return ptlab_deadline_passed(run->t, run->opts, run->rep, run->aborted);
}

const char *registry_phase_name(enum ptlab_phase ph)
{
	static const char *const names[PTLAB_PHASE_COUNT] = {
		[PTLAB_PHASE_STATIC] = "static checks",
		[PTLAB_PHASE_LIVE] = "live checks",
		[PTLAB_PHASE_CPU] = "cpu checks",
		[PTLAB_PHASE_SWEEP] = "ram sweep",
		[PTLAB_PHASE_TEARDOWN] = "teardown",
		[PTLAB_PHASE_ELSEWHERE] = "elsewhere",
	};

	return (unsigned)ph < PTLAB_PHASE_COUNT ? names[ph] : "none";
}

/* Call @fn on every entry of @r, tables in order; the first for which it says true. */
static const struct ptlab_check *each(const struct ptlab_registry *r,
				      bool (*fn)(const struct ptlab_check *c, void *arg), void *arg)
{
	for (unsigned t = 0; t < r->ntables; t++)
		for (const struct ptlab_check *const *c = r->tables[t]; *c; c++)
			if (fn(*c, arg))
				return *c;
	return NULL;
}

/* The phase's checks, each with its fault around it; @p is the run only for ptlab_live_phase. */
static int run_checks(struct ptlab *p, void *ctx)
{
	const struct phase_run *ph = ctx;
	struct report *rep = ph->run->rep;

	(void)p;
	for (unsigned t = 0; t < ph->r->ntables; t++) {
		for (const struct ptlab_check *const *e = ph->r->tables[t]; *e; e++) {
			const struct ptlab_check *c = *e;

			if (c->phase != ph->ph || !c->run)
				continue;
			if (c->fault.when == PTLAB_FAULT_BEFORE)
				inject_begin(ph->run, c, 0);
			rep->check = c->fault.name;
			c->run(ph->run, c);
			rep->check = NULL;
			inject_end(ph->run, c);
		}
	}
	return 0;
}

/* The faults planted as the phase is entered, before it is counted. */
static void enter_phase(struct ptlab *p, void *ctx)
{
	const struct phase_run *ph = ctx;

	(void)p;
	for (unsigned t = 0; t < ph->r->ntables; t++)
		for (const struct ptlab_check *const *e = ph->r->tables[t]; *e; e++)
			if ((*e)->phase == ph->ph && (*e)->fault.when == PTLAB_FAULT_AT_ENTRY)
				inject_begin(ph->run, *e, 0);
}

int registry_run(struct ptlab *p, const struct ptlab_registry *r, enum ptlab_phase ph)
{
	struct check_run run;
	struct phase_run pr = { r, ph, check_run_of(p, &run) };
	const struct ptlab_live_phase live = {
		.what = registry_phase_name(ph), .run = run_checks, .enter = enter_phase, .ctx = &pr,
	};
	int ret;

	switch (ph) {
	case PTLAB_PHASE_STATIC:
		return run_checks(p, &pr);
	case PTLAB_PHASE_LIVE:
	case PTLAB_PHASE_CPU:
	case PTLAB_PHASE_SWEEP:
	case PTLAB_PHASE_TEARDOWN:
		ret = ptlab_live_phase(p, &live);
		/* a phase an exception ended left its check's key set: its line was that check's */
		p->rep->check = NULL;
		return ret;
	default:
		return 0;   /* run by their own parts of the run */
	}
}


void registry_after_build(struct ptlab *p, const struct ptlab_registry *r)
{
	struct check_run run;

	check_run_of(p, &run);
	for (unsigned t = 0; t < r->ntables; t++)
		for (const struct ptlab_check *const *e = r->tables[t]; *e; e++)
			if ((*e)->fault.when == PTLAB_FAULT_AFTER_BUILD)
				inject_begin(&run, *e, 0);
}

static bool named(const struct ptlab_check *c, void *name)
{
	const char *a = c->fault.name, *b = name;

	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static bool counted(const struct ptlab_check *c, void *n)
{
	(void)c;
	++*(unsigned *)n;
	return false;
}

unsigned registry_count(const struct ptlab_registry *r)
{
	unsigned n = 0;

	each(r, counted, &n);
	return n;
}

const struct ptlab_check *registry_find_fault(const struct ptlab_registry *r, const char *name)
{
	return each(r, named, (void *)(uintptr_t)name);
}

int registry_accept(const struct ptlab_registry *r, const struct opts *o, char *err,
		    size_t errlen)
{
	for (unsigned i = 0; i < o->nfaults; i++) {
		if (registry_find_fault(r, o->faults[i]))
			continue;
		if (err && errlen)
			fmt_snprintf(err, errlen, "--inject: no fault '%s': no check of the %u has it, "
				     "nor is it one of the churn's (docs/faults.md)", o->faults[i], registry_count(r));
		return -1;
	}
	return 0;
}
