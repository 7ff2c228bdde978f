/* SPDX-License-Identifier: MIT */
/* The test's stand-in for gnu-efi's efilib.h (see efi.h beside it). */
#ifndef PTLAB_TEST_EFISTUB_EFILIB_H
#define PTLAB_TEST_EFISTUB_EFILIB_H

#include "efi.h"

extern EFI_BOOT_SERVICES *BS;

#endif
