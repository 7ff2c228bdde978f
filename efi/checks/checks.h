/* SPDX-License-Identifier: MIT */
/*
 * The checks of the built tables (checks.c): static, live, sweep and
 * teardown entries, in the order they run.  Firmware-free.
 */
#ifndef PTLAB_EFI_CHECKS_H
#define PTLAB_EFI_CHECKS_H

#include "checks/registry.h"

extern ptlab_check_table checks_table;

#endif
