/* SPDX-License-Identifier: MIT */
/*
 * The focused checks of what the CPU does with our entries (cpuchecks.c),
 * in the order they run.  Firmware-free.
 */
#ifndef PTLAB_EFI_CPUCHECKS_H
#define PTLAB_EFI_CPUCHECKS_H

#include "checks/registry.h"

extern ptlab_check_table cpuchecks_table;

#endif
