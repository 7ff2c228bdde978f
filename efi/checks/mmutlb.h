/* SPDX-License-Identifier: MIT */
/*
 * The MMU matrix's TLB and control-change families (mmutlb.c),
 * in the order they run.  Firmware-free.
 */
#ifndef PTLAB_EFI_MMUTLB_H
#define PTLAB_EFI_MMUTLB_H

#include "checks/registry.h"

extern ptlab_check_table mmutlb_table;

#endif
