/* SPDX-License-Identifier: MIT */
/* covers: efi/checks/registry.c efi/checks/inject.c efi/checks/checkkit.c */
/*
 * The check registry (efi/checks/registry.c, with efi/checks/inject.c and
 * efi/opts/opts.c, linked as they are): a check added in this file alone -
 * an entry in a table of its own, given to the runner as a registry - is
 * run in its phase and only there, its fault is planted right before it
 * and taken back right after, and --inject accepts its name only from a
 * registry that holds it.  A phase runs its own entries only, in table
 * order, and a fault planted as a live phase is entered is there before
 * the phase's first check runs.
 *
 * The entry's fault is a real recorded change: the page at TEST_VA made
 * read-only in a space built in an arena (arena.h), observed by the check
 * through pt_translate.  At the seams: ptlab_live_phase (live/live.c on the
 * machine) marks the phase live and runs it; ptlab_flush (a privileged
 * flush there) counts; ptlab_deadline_passed answers as the test says.
 * A check is given the run's view (struct check_run), made from the run's
 * state by check_run_of.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/checks/checkkit.h"
#include "arena.h"

#include "../../efi/checks/inject.h"
#include "../../efi/checks/registry.h"
#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/opts.h"
#include "../../efi/report/report.h"
#include "../../efi/state/state.h"
#include "../../efi/live/live.h"

#define TEST_VA UINT64_C(0x0000010000000000)

/* What the seams and the checks saw. */
static struct {
	const char *live_what;           /* the live phase running, or NULL */
	enum ptlab_phase ran_in[8];      /* the extra check: the phase of each run */
	unsigned extra_runs;
	bool writable_during;            /* TEST_VA writable while the extra check ran */
	const char *other_live_what;     /* the live phase the other check ran in */
	unsigned other_runs;
	unsigned enter_plants;           /* AT_ENTRY plants seen before the phase ran */
	bool entry_before_run;
	unsigned phases_at_enter_plant;  /* live phases counted when the AT_ENTRY fault was planted */
	unsigned lead_runs;
	unsigned lead_plants;            /* the lead check's own BEFORE fault planted */
	unsigned enter_plants_at_lead;   /* AT_ENTRY plants seen when the phase's first check ran */
	unsigned phases_at_lead;         /* live phases counted when it ran */
	char order[16];                  /* each test check's letter, as they ran */
	unsigned norder;
	unsigned flushes;
	enum ptlab_phase current;
	const struct check_run *lead_run;   /* the view the lead check was given, */
	struct check_run lead_run_copy;     /* and what it held then */
	bool lead_deadline;                 /* what check_deadline_passed told it */
	bool lead_gone;                     /* its build's boot_services_gone as it ran */
	const struct ptlab_time *deadline_asked; /* the time ptlab_deadline_passed was asked about */
	const bool *deadline_marks;         /* and the flag it would set */
	bool deadline_says;                 /* what the seam answers */
} seen;

/* ---- seams ---- */

static int live_phase(struct ptlab *p, const struct ptlab_live_phase *ph)
{
	int ret;

	seen.live_what = ph->what;
	if (ph->enter)
		ph->enter(p, ph->ctx);
	/* counted after the entry's faults, before the checks, as live/live.c does */
	p->live.phases++;
	p->live.on = true;
	ret = ph->run(p, ph->ctx);
	p->live.on = false;
	seen.live_what = NULL;
	return ret;
}

static void count_flush(const struct pt_flushlist *fl)
{
	(void)fl;
	seen.flushes++;
}

/* The run's deadline (live/live.c on the machine): as the test sets it. */
static bool deadline_passed(const struct ptlab_time *t, const struct opts *o, struct report *rep,
			    bool *aborted)
{
	(void)o;
	(void)rep;
	seen.deadline_asked = t;
	seen.deadline_marks = aborted;
	return seen.deadline_says;
}

/* the one definition of the seams (tests/seams.h), through these hooks */
#define UNREACHED(what) fail_msg("%s called: no hook of this test's", what)
#define SEAM_HOOKS { .live_phase = live_phase, .flush = count_flush, \
		     .deadline_passed = deadline_passed }
#include "../seams.h"

/* ---- the checks added here ---- */

/* Each check notes its letter as it runs: the order the runner ran them in. */
static void ran(char letter)
{
	if (seen.norder < sizeof(seen.order) - 1)
		seen.order[seen.norder++] = letter;
}

static bool page_writable(const struct pt_space *s)
{
	struct pt_leaf l;

	assert_int_equal(pt_translate(s, TEST_VA, &l), PT_OK);
	return (l.flags & PT_WRITE) != 0;
}

static void extra_check(struct check_run *run, const struct ptlab_check *self)
{
	(void)self;
	ran('X');
	if (seen.extra_runs < 8)
		seen.ran_in[seen.extra_runs] = seen.current;
	seen.extra_runs++;
	seen.writable_during = page_writable(&run->build->space);
	/* the fault is the check's own: no other check's fault is planted */
	assert_true(run->inject->n <= 1);
	if (page_writable(&run->build->space))
		report_ok(run->rep, "extra: the test page is writable");
	else
		report_fail(run->rep, "extra: the test page is read-only");
}

static int extra_plant(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	assert_int_equal(arg, 0);   /* the runner plants it, not a hook */
	return inject_protect(run, self, TEST_VA, 0);
}

static const struct ptlab_check extra = {
	"extra: the test page is writable", PTLAB_PHASE_CPU, extra_check,
	{ "extra-read-only", "the test page made read-only", PTLAB_FAULT_BEFORE, extra_plant,
	  NULL },
};

/* A second check, in another phase, with a fault planted as its phase is entered. */
static void other_check(struct check_run *run, const struct ptlab_check *self)
{
	ran('O');
	seen.other_runs++;
	seen.other_live_what = seen.live_what;
	seen.entry_before_run = seen.enter_plants == 1 && inject_on(run->opts, self);
}

static int other_plant(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)self;
	(void)arg;
	seen.enter_plants++;
	seen.phases_at_enter_plant = run->live->phases;
	return 0;
}

static const struct ptlab_check other = {
	"other: a live check", PTLAB_PHASE_LIVE, other_check,
	{ "other-at-entry", "nothing", PTLAB_FAULT_AT_ENTRY, other_plant, NULL },
};

/*
 * The live phase's first check, ahead of the one with the AT_ENTRY fault:
 * that fault is the state the phase begins in, so this check sees it too.
 */
static void lead_check(struct check_run *run, const struct ptlab_check *self)
{
	(void)self;
	ran('L');
	seen.lead_runs++;
	seen.enter_plants_at_lead = seen.enter_plants;
	seen.phases_at_lead = run->live->phases;
	seen.lead_run = run;
	seen.lead_run_copy = *run;
	seen.lead_deadline = check_deadline_passed(run);
	seen.lead_gone = run->build->boot_services_gone;
}

static int lead_plant(struct check_run *run, const struct ptlab_check *self, uint64_t arg)
{
	(void)run;
	(void)self;
	(void)arg;
	seen.lead_plants++;
	return 0;
}

static const struct ptlab_check lead = {
	"lead: the first live check", PTLAB_PHASE_LIVE, lead_check,
	{ "lead-before", "nothing", PTLAB_FAULT_BEFORE, lead_plant, NULL },
};

/* The live phase's last check. */
static void tail_check(struct check_run *run, const struct ptlab_check *self)
{
	(void)run;
	(void)self;
	ran('T');
}

static const struct ptlab_check tail = {
	"tail: the last live check", PTLAB_PHASE_LIVE, tail_check,
	{ "tail-hook", "nothing", PTLAB_FAULT_HOOK, NULL, NULL },
};

/* The CPU phase's check between the live ones: a phase picks its own out of the table. */
static ptlab_check_table test_table = { &lead, &extra, &other, &tail, NULL };
static ptlab_check_table other_only = { &other, NULL };

static const struct ptlab_check *const *const both_tables[] = { other_only, test_table };
static const struct ptlab_registry with_extra = { &both_tables[1], 1 };
static const struct ptlab_registry without_extra = { both_tables, 1 };

/* ---- a run's state over an arena ---- */

struct fx {
	struct arena a;
	struct ptlab p;
	struct report rep;
	char buf[4096];
};

static struct fx fx;


static void fx_init(const char *options)
{
	char err[200] = "";
	struct pt_flushlist fl;
	uint64_t pa;

	memset(&seen, 0, sizeof(seen));
	memset(&fx.p, 0, sizeof(fx.p));
	arena_init(&fx.a, 64);
	report_init(&fx.rep, fx.buf, sizeof(fx.buf));
	fx.p.rep = &fx.rep;
	assert_int_equal(opts_parse_ascii(options, strlen(options), &fx.p.opts, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(pt_create(&fx.p.build.space, &fx.a.env, 4), PT_OK);
	assert_int_equal(pt_frames_alloc(&fx.a.frames, &pa), PT_OK);
	assert_int_equal(pt_map(&fx.p.build.space, TEST_VA, pa, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K,
				&fl), PT_OK);
}

static void fx_fini(void)
{
	struct pt_flushlist fl;
	struct pt_leaf l;

	assert_int_equal(pt_translate(&fx.p.build.space, TEST_VA, &l), PT_OK);
	assert_int_equal(pt_unmap(&fx.p.build.space, TEST_VA, PT_PAGE_SIZE, 0, &fl), PT_OK);
	pt_frames_free(&fx.a.frames, l.pa);
	pt_destroy(&fx.p.build.space);
	assert_int_equal(fx.a.frames.in_use, 0);
	arena_fini(&fx.a);
}

/* Every phase in order, as a run reaches them. */
static void run_all(const struct ptlab_registry *r)
{
	for (unsigned ph = 0; ph < PTLAB_PHASE_COUNT; ph++) {
		seen.current = (enum ptlab_phase)ph;
		assert_int_equal(registry_run(&fx.p, r, (enum ptlab_phase)ph), 0);
	}
}

static void test_registry_runs_the_added_check_in_its_phase(void **state)
{
	(void)state;
	fx_init("--end=qemu");
	run_all(&with_extra);
	/* once, in the CPU phase, live, with no fault planted */
	assert_int_equal(seen.extra_runs, 1);
	assert_int_equal(seen.ran_in[0], PTLAB_PHASE_CPU);
	assert_true(seen.writable_during);
	assert_int_equal(seen.other_runs, 1);
	assert_string_equal(seen.other_live_what, "live checks");
	assert_int_equal(seen.enter_plants, 0);
	assert_int_equal(fx.rep.passed, 1);
	assert_int_equal(fx.rep.failed, 0);
	assert_null(strstr(fx.buf, "inject:"));
	fx_fini();
}

static void test_registry_plants_and_removes_the_added_fault(void **state)
{
	(void)state;
	fx_init("--end=qemu --inject=extra-read-only");
	assert_true(opts_fault_given(&fx.p.opts, "extra-read-only"));
	run_all(&with_extra);
	/* planted right before the check: it saw the page read-only and failed */
	assert_int_equal(seen.extra_runs, 1);
	assert_false(seen.writable_during);
	assert_int_equal(fx.rep.failed, 1);
	assert_non_null(strstr(fx.buf, "not ok 1 - extra: the test page is read-only"));
	assert_non_null(strstr(fx.buf, "# inject: extra-read-only planted"));
	/* taken back right after: writable again, nothing left recorded */
	assert_true(page_writable(&fx.p.build.space));
	assert_int_equal(fx.p.inject.n, 0);
	/* the other check's fault was not asked for */
	assert_int_equal(seen.enter_plants, 0);
	fx_fini();
}

/*
 * The lines a check reports carry its key (its fault's name) while the
 * runner runs it, and only then; check_report() keys a line reported
 * outside the phase loops by the entry it is given.
 */
static void test_registry_keys_each_check_s_lines(void **state)
{
	(void)state;
	fx_init("--end=qemu --inject=extra-read-only");
	run_all(&with_extra);
	assert_non_null(strstr(fx.buf, "not ok 1 - extra: the test page is read-only "
				       "# check=extra-read-only\n"));
	assert_null(fx.rep.check);
	assert_int_equal(report_ok(&fx.rep, "after the phases"), 0);
	assert_non_null(strstr(fx.buf, " - after the phases\n"));
	assert_int_equal(check_report(fx.p.rep, &extra, false, "elsewhere: %u", 7u), 0);
	assert_int_equal(check_report(fx.p.rep, &other, true, "elsewhere too"), 0);
	assert_non_null(strstr(fx.buf, " - elsewhere: 7 # check=extra-read-only\n"));
	assert_non_null(strstr(fx.buf, "\nok 4 - elsewhere too # check=other-at-entry\n"));
	assert_null(fx.rep.check);
	assert_int_equal(fx.rep.failed, 2);
	fx_fini();
}

static void test_registry_plants_at_phase_entry(void **state)
{
	(void)state;
	fx_init("--end=qemu --inject=other-at-entry,lead-before");
	run_all(&with_extra);
	assert_int_equal(seen.other_runs, 1);
	assert_int_equal(seen.enter_plants, 1);
	assert_true(seen.entry_before_run);
	/* the live phase's first check is another's, with a fault of its own ... */
	assert_int_equal(seen.lead_runs, 1);
	assert_int_equal(seen.lead_plants, 1);
	assert_int_equal(seen.order[0], 'L');
	/* ... and the AT_ENTRY fault was planted before it ran, */
	assert_int_equal(seen.enter_plants_at_lead, 1);
	/* as the phase was entered: before it was counted, not in it */
	assert_int_equal(seen.phases_at_lead, 1);
	assert_int_equal(seen.phases_at_enter_plant, 0);
	assert_int_equal(fx.p.inject.n, 0);
	/* the extra check is untouched by another check's fault */
	assert_true(seen.writable_during);
	fx_fini();
}

static void test_registry_inject_accepts_the_added_name(void **state)
{
	struct opts o;
	char err[200] = "";
	const char *line = "--inject=extra-read-only,lint-ps,missing-invlpg";

	(void)state;
	assert_int_equal(opts_parse_ascii(line, strlen(line), &o, err, sizeof(err)), OPTS_OK);
	/* the churn's own fault is opts'; the others are the registry's to judge */
	assert_int_equal(o.inject, OPTS_INJECT_MISSING_INVLPG);
	assert_int_equal(o.nfaults, 2);
	assert_ptr_equal(registry_find_fault(&with_extra, "extra-read-only"), &extra);
	assert_null(registry_find_fault(&without_extra, "extra-read-only"));
	assert_int_equal(registry_count(&with_extra), 4);
	/* lint-ps is no fault of these registries: refused, by name */
	assert_int_equal(registry_accept(&with_extra, &o, err, sizeof(err)), -1);
	assert_string_equal(err, "--inject: no fault 'lint-ps': no check of the 4 has it, nor is it "
			    "one of the churn's (docs/faults.md)");

	line = "--inject=extra-read-only,other-at-entry --inject=wrong-frame";
	assert_int_equal(opts_parse_ascii(line, strlen(line), &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(registry_accept(&with_extra, &o, err, sizeof(err)), 0);
	/* without the added table its name is unknown */
	assert_int_equal(registry_accept(&without_extra, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no fault 'extra-read-only'"));
}

static void test_registry_runs_a_phase_in_table_order(void **state)
{
	(void)state;
	fx_init("--end=qemu");
	run_all(&with_extra);
	/* the live three in the table's order, then the CPU phase's one */
	assert_string_equal(seen.order, "LOTX");
	fx_fini();
}

static void test_registry_runs_only_the_phase_asked_for(void **state)
{
	(void)state;
	fx_init("--end=qemu");
	seen.current = PTLAB_PHASE_LIVE;
	assert_int_equal(registry_run(&fx.p, &with_extra, PTLAB_PHASE_LIVE), 0);
	assert_string_equal(seen.order, "LOT");
	seen.norder = 0;
	memset(seen.order, 0, sizeof(seen.order));
	seen.current = PTLAB_PHASE_CPU;
	assert_int_equal(registry_run(&fx.p, &with_extra, PTLAB_PHASE_CPU), 0);
	assert_string_equal(seen.order, "X");
	assert_int_equal(seen.ran_in[0], PTLAB_PHASE_CPU);
	/* the phases with no entry here run none */
	seen.norder = 0;
	memset(seen.order, 0, sizeof(seen.order));
	for (unsigned ph = 0; ph < PTLAB_PHASE_COUNT; ph++)
		if (ph != PTLAB_PHASE_LIVE && ph != PTLAB_PHASE_CPU)
			assert_int_equal(registry_run(&fx.p, &with_extra, (enum ptlab_phase)ph), 0);
	assert_string_equal(seen.order, "");
	fx_fini();
}

/*
 * A check is given the run's parts (the build's boot_services_gone among them) and the run's
 * deadline (check_run_of), not the run: each part is the run's own, so a
 * change through it is the run's, and the deadline is the run's.
 */
static void test_registry_gives_a_check_the_run_s_parts(void **state)
{
	const struct check_run *r = &seen.lead_run_copy;

	(void)state;
	fx_init("--end=qemu");
	fx.p.build.boot_services_gone = true;
	seen.deadline_says = true;
	assert_int_equal(registry_run(&fx.p, &with_extra, PTLAB_PHASE_LIVE), 0);
	assert_int_equal(seen.lead_runs, 1);
	assert_ptr_equal(r->rep, &fx.rep);
	assert_ptr_equal(r->opts, &fx.p.opts);
	assert_ptr_equal(r->cpu, &fx.p.cpu);
	assert_ptr_equal(r->build, &fx.p.build);
	assert_ptr_equal(r->data, &fx.p.data);
	assert_ptr_equal(r->live, &fx.p.live);
	assert_ptr_equal(r->wx, &fx.p.wx);
	assert_ptr_equal(r->inject, &fx.p.inject);
	assert_ptr_equal(r->t, &fx.p.t);
	assert_ptr_equal(r->aborted, &fx.p.aborted);
	assert_ptr_equal(r->state, &fx.p);
	/* what the check saw while it ran, not the fixture read after it */
	assert_true(seen.lead_gone);
	/* the deadline it asked about is the run's */
	assert_true(seen.lead_deadline);
	assert_ptr_equal(seen.deadline_asked, &fx.p.t);
	assert_ptr_equal(seen.deadline_marks, &fx.p.aborted);
	fx_fini();

	fx_init("--end=qemu");
	assert_int_equal(registry_run(&fx.p, &with_extra, PTLAB_PHASE_LIVE), 0);
	assert_int_equal(seen.lead_runs, 1);
	assert_false(seen.lead_gone);
	assert_false(seen.lead_deadline);
	fx_fini();
}

/* A registry without the added table never runs it: what the tests above tell apart. */
static void test_registry_without_the_table_skips_it(void **state)
{
	(void)state;
	fx_init("--end=qemu");
	run_all(&without_extra);
	assert_int_equal(seen.extra_runs, 0);
	assert_int_equal(seen.other_runs, 1);
	fx_fini();
}

UNIT_MAIN(
	cmocka_unit_test(test_registry_runs_the_added_check_in_its_phase),
	cmocka_unit_test(test_registry_plants_and_removes_the_added_fault),
	cmocka_unit_test(test_registry_plants_at_phase_entry),
	cmocka_unit_test(test_registry_keys_each_check_s_lines),
	cmocka_unit_test(test_registry_inject_accepts_the_added_name),
	cmocka_unit_test(test_registry_without_the_table_skips_it),
	cmocka_unit_test(test_registry_gives_a_check_the_run_s_parts),
	cmocka_unit_test(test_registry_runs_a_phase_in_table_order),
	cmocka_unit_test(test_registry_runs_only_the_phase_asked_for))
