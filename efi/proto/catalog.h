/* SPDX-License-Identifier: MIT */
/*
 * The app's registry (catalog.c): the modules' tables, in the order the
 * phases run them, and the boot protocols'.  Firmware-free.
 */
#ifndef PTLAB_EFI_PROTO_CATALOG_H
#define PTLAB_EFI_PROTO_CATALOG_H

#include "checks/registry.h"

extern const struct ptlab_registry ptlab_checks;

#endif
