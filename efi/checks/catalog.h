/* SPDX-License-Identifier: MIT */
/*
 * The app's registry (catalog.c): the modules' tables, in the order the
 * phases run them.  Firmware-free.
 */
#ifndef PTLAB_EFI_CATALOG_H
#define PTLAB_EFI_CATALOG_H

#include <stddef.h>

#include "checks/registry.h"

struct opts;
struct ptlab;

extern const struct ptlab_registry ptlab_checks;

/* registry_run(), registry_after_build() and registry_accept() on the app's registry. */
int checks_run(struct ptlab *p, enum ptlab_phase ph);
void checks_after_build(struct ptlab *p);
int checks_accept_injects(const struct opts *o, char *err, size_t errlen);

#endif
