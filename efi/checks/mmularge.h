/* SPDX-License-Identifier: MIT */
/*
 * mmu-large-pre (mmularge.c): 1 GiB and 2 MiB leaves probed with offsets
 * below the leaf's size before the switch to our CR3, under a root that is
 * a copy of the firmware's (which maps code, stack, GDT, IDT and TSS with
 * its own, 2 MiB-or-smaller, entries), so that a CPU that gets a large
 * leaf wrong is named by a check instead of ending the run when our own
 * 1 GiB leaves are loaded.  Firmware-free (no firmware call while it runs).
 */
#ifndef PTLAB_EFI_MMULARGE_H
#define PTLAB_EFI_MMULARGE_H

#include "checks/registry.h"

extern const struct ptlab_check mmu_large_pre;

#endif
