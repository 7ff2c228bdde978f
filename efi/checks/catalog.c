/* SPDX-License-Identifier: MIT */
/*
 * The app's check registry: the modules' tables in the order the run
 * reaches them.  Firmware-free.
 */
#include "checks/catalog.h"
#include "checks/elsewhere.h"
#include "checks/cpuchecks.h"
#include "checks/checks.h"
#include "checks/livechecks.h"
#include "checks/registry.h"

static const struct ptlab_check *const *const app_tables[] = {
	checks_table, livechecks_table, cpuchecks_table, elsewhere_table,
};

const struct ptlab_registry ptlab_checks = {
	app_tables, sizeof(app_tables) / sizeof(app_tables[0]),
};

int checks_run(struct ptlab *p, enum ptlab_phase ph)
{
	return registry_run(p, &ptlab_checks, ph);
}

void checks_after_build(struct ptlab *p)
{
	registry_after_build(p, &ptlab_checks);
}

int checks_accept_injects(const struct opts *o, char *err, size_t errlen)
{
	return registry_accept(&ptlab_checks, o, err, errlen);
}
