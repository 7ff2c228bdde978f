/* SPDX-License-Identifier: MIT */
/*
 * The app's check registry (efi/proto/catalog.c) as a table: one
 * tab-separated line per entry, in the order the run reaches them,
 *
 *   FAULT  NAME  PHASE  WHEN  BREAKS
 *
 * FAULT the entry's --inject name (its key: unique, test_catalog.c proves
 * it), NAME its whole name, PHASE and WHEN its phase and when its fault is
 * planted (the words below), BREAKS what the fault breaks.  The modules
 * are linked as the app has them, so the table is what the registry holds
 * and nothing typed again: tools/faulttable.py and tests/boot/faults.sh
 * read it (the Makefile writes it to $(BUILD)/gen/checks.tsv).
 *
 * Nothing here runs a check: the machine's seams the modules call are
 * defined below only to link them, and end the program if one is reached.
 * Exit status 1, with the entry named on stderr, when a field could not
 * stand in the table (empty, or holding a tab or a line break).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/catalog.h"
#include "live/la57.h"
#include "checks/registry.h"
#include "cpu/trap.h"
#include "cpu/user.h"
#include "state/state.h"
#include "live/live.h"

/* ---- seams: never reached ---- */

static void unreached(const char *what)
{
	fprintf(stderr, "listchecks: %s called: this program runs no check\n", what);
	abort();
}

#define UNREACHED(what) unreached(what)
#include "../tests/catalog_seams.h"

/* ---- the table ---- */

/* The table's word for a phase; NULL for a value the enum does not have. */
static const char *phase_word(enum ptlab_phase ph)
{
	switch (ph) {
	case PTLAB_PHASE_STATIC: return "static";
	case PTLAB_PHASE_LIVE: return "live";
	case PTLAB_PHASE_CPU: return "cpu";
	case PTLAB_PHASE_SWEEP: return "sweep";
	case PTLAB_PHASE_TEARDOWN: return "teardown";
	case PTLAB_PHASE_ELSEWHERE: return "elsewhere";
	case PTLAB_PHASE_COUNT: break;
	}
	return NULL;
}

/* The table's word for when a fault is planted; NULL for a value the enum does not have. */
static const char *when_word(enum ptlab_fault_when w)
{
	switch (w) {
	case PTLAB_FAULT_BEFORE: return "before";
	case PTLAB_FAULT_AT_ENTRY: return "at-entry";
	case PTLAB_FAULT_AFTER_BUILD: return "after-build";
	case PTLAB_FAULT_HOOK: return "hook";
	}
	return NULL;
}

/* True when @s can be one field of a tab-separated line. */
static bool field_ok(const char *s)
{
	return s && *s && !strpbrk(s, "\t\r\n");
}

int main(void)
{
	unsigned n = 0;

	for (unsigned t = 0; t < ptlab_checks.ntables; t++)
		for (const struct ptlab_check *const *e = ptlab_checks.tables[t]; *e; e++, n++) {
			const struct ptlab_check *c = *e;
			const char *f[5] = {
				c->fault.name, c->name, phase_word(c->phase),
				when_word(c->fault.when), c->fault.breaks,
			};

			for (unsigned i = 0; i < 5; i++) {
				if (field_ok(f[i]))
					continue;
				fprintf(stderr, "listchecks: entry %u of table %u ('%s'): field %u "
					"is empty, unknown or holds a tab or line break\n",
					n, t, c->name ? c->name : "?", i + 1);
				return 1;
			}
			printf("%s\t%s\t%s\t%s\t%s\n", f[0], f[1], f[2], f[3], f[4]);
		}
	if (!n) {
		fprintf(stderr, "listchecks: the registry has no entry\n");
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
