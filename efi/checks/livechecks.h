/* SPDX-License-Identifier: MIT */
/*
 * The live checks of the built tables (livechecks.c): live, sweep and
 * teardown entries, in the order they run.  Firmware-free.
 */
#ifndef PTLAB_EFI_LIVECHECKS_H
#define PTLAB_EFI_LIVECHECKS_H

#include "checks/registry.h"

extern ptlab_check_table livechecks_table;

#endif
