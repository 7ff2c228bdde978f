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

/* each(): run @c if it is of the phase, its fault around it and its lines keyed by it. */
static bool run_one(const struct ptlab_check *c, void *arg)
{
	const struct phase_run *ph = arg;

	if (c->phase != ph->ph || !c->run)
		return false;
	if (c->fault.when == PTLAB_FAULT_BEFORE)
		inject_begin(ph->run, c, 0);
	ph->run->rep->check = c->fault.name;
	c->run(ph->run, c);
	ph->run->rep->check = NULL;
	inject_end(ph->run, c);
	return false;
}

/* The phase's checks in order; @p is the run only for ptlab_live_phase. */
static int run_checks(struct ptlab *p, void *ctx)
{
	const struct phase_run *ph = ctx;

	(void)p;
	each(ph->r, run_one, ctx);
	return 0;
}

/* each(): plant @c's fault when it is of the phase and planted as the phase is entered. */
static bool plant_at_entry(const struct ptlab_check *c, void *arg)
{
	const struct phase_run *ph = arg;

	if (c->phase == ph->ph && c->fault.when == PTLAB_FAULT_AT_ENTRY)
		inject_begin(ph->run, c, 0);
	return false;
}

/* The faults planted as the phase is entered, before it is counted. */
static void enter_phase(struct ptlab *p, void *ctx)
{
	(void)p;
	each(((const struct phase_run *)ctx)->r, plant_at_entry, ctx);
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

/* each(): plant @c's fault when it is planted right after the build (@arg: the view). */
static bool plant_after_build(const struct ptlab_check *c, void *arg)
{
	if (c->fault.when == PTLAB_FAULT_AFTER_BUILD)
		inject_begin(arg, c, 0);
	return false;
}

void registry_after_build(struct ptlab *p, const struct ptlab_registry *r)
{
	struct check_run run;

	each(r, plant_after_build, check_run_of(p, &run));
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

int checks_run(struct ptlab *p, enum ptlab_phase ph)
{
	return registry_run(p, p->checks, ph);
}

void checks_after_build(struct ptlab *p)
{
	registry_after_build(p, p->checks);
}
