/* SPDX-License-Identifier: MIT */
/*
 * The MMU matrix's permission, reserved-bit and A/D families (mmuperm.c),
 * in the order they run.  Firmware-free.
 */
#ifndef PTLAB_EFI_MMUPERM_H
#define PTLAB_EFI_MMUPERM_H

#include "checks/registry.h"

extern ptlab_check_table mmuperm_table;

#endif
