/* SPDX-License-Identifier: MIT */
/*
 * The firmware-table audit (fwaudit.c): the firmware's own hierarchy, CR3
 * at entry, walked and judged as ours are.  Firmware-free.
 */
#ifndef PTLAB_EFI_FWAUDIT_H
#define PTLAB_EFI_FWAUDIT_H

struct ptlab;

/* Walk the firmware's own tables (CR3 at entry) and report what they map. */
void ptlab_audit_firmware(struct ptlab *p);

#endif
