/* SPDX-License-Identifier: MIT */
/*
 * The static checks of the built tables (checks.c): their entries, in the
 * order they run, and the fault helper the live checks share with them.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_CHECKS_H
#define PTLAB_EFI_CHECKS_H

#include <stdint.h>

#include "checks/registry.h"

extern ptlab_check_table checks_table;

/*
 * A fault's change (inject.h): the page at @va made writable and executable
 * (the audit's exemption bit set), recorded for @self's inject_end.  0 when
 * made, -1 when not (@va 0 or not mapped).
 */
int checks_make_wx(struct check_run *run, const struct ptlab_check *self, uint64_t va);

#endif
