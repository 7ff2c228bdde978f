/* SPDX-License-Identifier: MIT */
/*
 * The Linux hand-over's checks (lxchecks.c), for the registry (proto/catalog.c)
 * and for linux.c, which reports them.  Firmware-free.
 */
#ifndef PTLAB_EFI_LINUX_LXCHECKS_H
#define PTLAB_EFI_LINUX_LXCHECKS_H

#include "checks/registry.h"

extern ptlab_check_table linux_checks_table;

extern const struct ptlab_check check_linux_digest;
extern const struct ptlab_check check_linux_mapped;
extern const struct ptlab_check check_linux_entry;

#endif
