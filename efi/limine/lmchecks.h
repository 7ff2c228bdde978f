/* SPDX-License-Identifier: MIT */
/*
 * The Limine hand-over's checks (lmchecks.c), for the registry (proto/catalog.c)
 * and for lmhandoff.c, which reports them.  Firmware-free.
 */
#ifndef PTLAB_EFI_LIMINE_LMCHECKS_H
#define PTLAB_EFI_LIMINE_LMCHECKS_H

#include "checks/registry.h"

extern ptlab_check_table limine_checks_table;

extern const struct ptlab_check check_limine_digest;
extern const struct ptlab_check check_limine_segments;
extern const struct ptlab_check check_limine_read;
extern const struct ptlab_check check_limine_layout;
extern const struct ptlab_check check_limine_identity;
extern const struct ptlab_check check_limine_masked;
extern const struct ptlab_check check_limine_aps;

#endif
