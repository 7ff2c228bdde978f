/* SPDX-License-Identifier: MIT */
/*
 * Code that ptlab writes into pages of its own and then runs while the
 * firmware's page tables are loaded (memattr.c): the LA57 switch's
 * trampoline.  Firmware that enforces no-execute may map such pages NX;
 * UEFI 2.10's EFI_MEMORY_ATTRIBUTE_PROTOCOL is how a loader asks for them
 * to be executable (and read-only) and gives them back as they were.
 * Firmware without the protocol leaves EfiLoaderCode executable (edk2's
 * PcdDxeNxMemoryProtectionPolicy never sets NX for the code types), which
 * is why such pages are allocated as EfiLoaderCode.  Boot services only.
 */
#ifndef PTLAB_EFI_MEMATTR_H
#define PTLAB_EFI_MEMATTR_H

#include <efi.h>
#include <stdbool.h>
#include <stdint.h>

/* UEFI 2.10 memory attributes the protocol takes and gives */
#define MEMATTR_RP UINT64_C(0x2000)
#define MEMATTR_XP UINT64_C(0x4000)
#define MEMATTR_RO UINT64_C(0x20000)

/* Does the firmware offer EFI_MEMORY_ATTRIBUTE_PROTOCOL?  (LocateProtocol) */
bool memattr_present(void);

/*
 * Make [@pa, @pa + @bytes) (page-aligned, already written) read-only and
 * executable in the firmware's tables: SetMemoryAttributes(RO), then
 * ClearMemoryAttributes(XP), in that order so the pages are never both
 * writable and executable.  The attributes they had are kept for
 * memattr_restore().  *@before: those attributes (0 without the
 * protocol).  EFI_SUCCESS, also when the firmware has no protocol (there
 * is nothing to ask: the pages must be EfiLoaderCode); else the status of
 * the call that failed, with the attributes put back.
 */
EFI_STATUS memattr_make_code(uint64_t pa, uint64_t bytes, uint64_t *before);

/*
 * Give the pages made code at @pa their attributes back (XP set again,
 * RO cleared again, as they were), before they are written or freed; the
 * status of the call that failed (EFI_NOT_FOUND: the protocol is gone).
 * Nothing, and no firmware call, for pages memattr_make_code() did not
 * change.
 */
EFI_STATUS memattr_restore(uint64_t pa);

#endif
