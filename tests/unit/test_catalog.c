/* SPDX-License-Identifier: MIT */
/*
 * The app's check registry as the run gets it: ptlab_checks
 * (efi/proto/catalog.c) over the modules' tables (checks.c, livechecks.c,
 * cpuchecks.c, elsewhere.c, linux/lxchecks.c, limine/lmchecks.c), linked
 * as they are.  Every entry must be one the runner
 * (registry.c) and --inject can use: named, its fault named (the runner
 * compares every entry's fault name when it looks one up), in a phase that
 * exists, run by the phase loops exactly when it is not reported
 * elsewhere, its fault planted by someone; the whole names and the fault
 * names each unique, and no fault name one of the churn's (opts.c), since
 * --inject gives those to the churn and never to the registry.
 *
 * Nothing here runs a check: the machine's seams the modules call are
 * defined below only to link them, and fail the test if one is reached.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/checks/elsewhere.h"
#include "../../efi/checks/mmuperm.h"
#include "../../efi/checks/mmutlb.h"
#include "../../efi/checks/cpuchecks.h"
#include "../../efi/checks/checks.h"
#include "../../efi/checks/livechecks.h"
#include "../../efi/proto/catalog.h"
#include "../../efi/live/la57.h"
#include "../../efi/checks/registry.h"
#include "../../efi/cpu/trap.h"
#include "../../efi/cpu/user.h"
#include "../../efi/opts/opts.h"
#include "../../efi/state/state.h"
#include "../../efi/live/live.h"
#include "../../efi/limine/lmchecks.h"
#include "../../efi/linux/lxchecks.h"

/* ---- seams: never reached ---- */

#define UNREACHED(what) fail_msg("%s called: this test runs no check", what)

#include "../catalog_seams.h"

/* ---- the entries ---- */

#define MAX_ENTRIES 256

/*
 * Every entry of ptlab_checks, walked here table by table to each NULL
 * (not through registry.c, whose count is compared with it below).  Each
 * must have its names, or the runner's look-ups (and the comparisons
 * here) read through NULL: every test fails on such an entry first.
 */
static unsigned entries(const struct ptlab_check **out)
{
	unsigned n = 0;

	for (unsigned t = 0; t < ptlab_checks.ntables; t++)
		for (const struct ptlab_check *const *e = ptlab_checks.tables[t]; *e; e++) {
			assert_true(n < MAX_ENTRIES);
			assert_non_null((*e)->name);
			assert_non_null((*e)->fault.name);
			out[n++] = *e;
		}
	return n;
}

static bool live_phase(enum ptlab_phase ph)
{
	return ph == PTLAB_PHASE_LIVE || ph == PTLAB_PHASE_CPU || ph == PTLAB_PHASE_SWEEP ||
	       ph == PTLAB_PHASE_TEARDOWN;
}

static void test_catalog_holds_the_modules_tables(void **state)
{
	const struct ptlab_check *e[MAX_ENTRIES];
	const unsigned n = entries(e);

	(void)state;
	assert_int_equal(ptlab_checks.ntables, 8);
	assert_ptr_equal(ptlab_checks.tables[0], checks_table);
	assert_ptr_equal(ptlab_checks.tables[1], livechecks_table);
	assert_ptr_equal(ptlab_checks.tables[2], cpuchecks_table);
	assert_ptr_equal(ptlab_checks.tables[3], mmuperm_table);
	assert_ptr_equal(ptlab_checks.tables[4], mmutlb_table);
	assert_ptr_equal(ptlab_checks.tables[5], elsewhere_table);
	assert_ptr_equal(ptlab_checks.tables[6], linux_checks_table);
	assert_ptr_equal(ptlab_checks.tables[7], limine_checks_table);
	assert_int_equal(registry_count(&ptlab_checks), n);
	/* the checks other folders' hooks name are entries of it */
	assert_ptr_equal(registry_find_fault(&ptlab_checks, "leak-frame"), &check_frames_returned);
	assert_ptr_equal(registry_find_fault(&ptlab_checks, "linux-entry"), &check_linux_entry);
}

/*
 * Named, as entries() asserts, and not emptily: a fault's name is what
 * --inject gives (opts keeps it in OPTS_FAULT_NAME_MAX bytes); what it
 * breaks is said for the reader (registry.h).
 */
static void test_catalog_every_entry_is_named(void **state)
{
	const struct ptlab_check *e[MAX_ENTRIES];
	const unsigned n = entries(e);

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		assert_true(e[i]->name[0] != '\0');
		assert_true(e[i]->fault.name[0] != '\0');
		assert_true(strlen(e[i]->fault.name) < OPTS_FAULT_NAME_MAX);
		assert_non_null(e[i]->fault.breaks);
	}
}

static void test_catalog_phases_and_faults_are_usable(void **state)
{
	const struct ptlab_check *e[MAX_ENTRIES];
	const unsigned n = entries(e);

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		const struct ptlab_check *c = e[i];

		assert_true((unsigned)c->phase < PTLAB_PHASE_COUNT);
		/* the phase loops run every entry with a function, and only theirs */
		assert_int_equal(c->run == NULL, c->phase == PTLAB_PHASE_ELSEWHERE);
		assert_true((unsigned)c->fault.when <= PTLAB_FAULT_HOOK);
		/* the runner plants these itself: with nothing to plant, no fault */
		if (c->fault.when != PTLAB_FAULT_HOOK)
			assert_non_null(c->fault.plant);
		/* only a live phase is entered */
		if (c->fault.when == PTLAB_FAULT_AT_ENTRY)
			assert_true(live_phase(c->phase));
		/* a fault planted by the runner is one a check it runs judges */
		if (c->fault.when == PTLAB_FAULT_BEFORE)
			assert_true(c->phase != PTLAB_PHASE_ELSEWHERE);
	}
}

static void test_catalog_names_are_unique(void **state)
{
	const struct ptlab_check *e[MAX_ENTRIES];
	const unsigned n = entries(e);

	(void)state;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			if (!strcmp(e[i]->name, e[j]->name))
				fail_msg("two checks named '%s'", e[i]->name);
			if (!strcmp(e[i]->fault.name, e[j]->fault.name))
				fail_msg("'%s' and '%s' both have fault '%s'", e[i]->name, e[j]->name,
					 e[i]->fault.name);
		}
	/* so each fault name finds its own entry */
	for (unsigned i = 0; i < n; i++)
		assert_ptr_equal(registry_find_fault(&ptlab_checks, e[i]->fault.name), e[i]);
}

static void test_catalog_no_fault_is_the_churns(void **state)
{
	const struct ptlab_check *e[MAX_ENTRIES];
	const unsigned n = entries(e);

	(void)state;
	for (unsigned v = OPTS_INJECT_NONE; v < OPTS_INJECT_COUNT; v++) {
		const char *churn = opts_inject_name((enum opts_inject)v);

		for (unsigned i = 0; i < n; i++)
			if (!strcmp(e[i]->fault.name, churn))
				fail_msg("'%s' has the churn's fault name '%s'", e[i]->name, churn);
	}
	/* and --inject hands each of the registry's names to the registry, not the churn */
	for (unsigned i = 0; i < n; i++) {
		char line[64] = "--inject=";
		char err[200] = "";
		struct opts o;

		strncat(line, e[i]->fault.name, sizeof(line) - strlen(line) - 1);
		assert_int_equal(opts_parse_ascii(line, strlen(line), &o, err, sizeof(err)), OPTS_OK);
		assert_int_equal(o.inject, OPTS_INJECT_NONE);
		assert_true(opts_fault_given(&o, e[i]->fault.name));
		assert_int_equal(registry_accept(&ptlab_checks, &o, err, sizeof(err)), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_holds_the_modules_tables),
		cmocka_unit_test(test_catalog_every_entry_is_named),
		cmocka_unit_test(test_catalog_phases_and_faults_are_usable),
		cmocka_unit_test(test_catalog_names_are_unique),
		cmocka_unit_test(test_catalog_no_fault_is_the_churns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
