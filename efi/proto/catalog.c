/* SPDX-License-Identifier: MIT */
/*
 * The app's check registry: the shared modules' tables in the order the
 * run reaches them, then each boot protocol's.  The run holds it as
 * p->checks (main.c sets it); the registry's host tools and tests link it
 * to list every entry.  Firmware-free.
 */
#include "proto/catalog.h"
#include "checks/elsewhere.h"
#include "checks/cpuchecks.h"
#include "checks/checks.h"
#include "checks/livechecks.h"
#include "checks/mmuperm.h"
#include "checks/mmutlb.h"
#include "checks/registry.h"
#include "limine/lmchecks.h"
#include "linux/lxchecks.h"

static const struct ptlab_check *const *const app_tables[] = {
	checks_table, livechecks_table, cpuchecks_table, mmuperm_table, mmutlb_table, elsewhere_table, linux_checks_table,
	limine_checks_table,
};

const struct ptlab_registry ptlab_checks = {
	app_tables, sizeof(app_tables) / sizeof(app_tables[0]),
};
