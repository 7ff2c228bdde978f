/* SPDX-License-Identifier: MIT */
/*
 * The one place an EFI_STATUS is named (efistatus.c): every message that
 * prints a firmware status prints "status 0x... (NAME)" with the name
 * this gives.  Firmware-free (a status is a 64-bit number here), so the
 * host tests hold every name against the UEFI specification's table.
 */
#ifndef PTLAB_EFI_LIB_EFISTATUS_H
#define PTLAB_EFI_LIB_EFISTATUS_H

#include <stdint.h>

/*
 * The UEFI specification's name of status @st (Appendix D, "Status
 * Codes"): "EFI_SUCCESS", "EFI_NOT_FOUND", "EFI_TFTP_ERROR",
 * "EFI_WARN_STALE_DATA", ...; for a code the specification does not
 * define, "a status the UEFI spec does not name".  Never NULL.
 */
const char *efi_status_name(uint64_t st);

#endif
