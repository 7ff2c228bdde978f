/* SPDX-License-Identifier: MIT */
/*
 * The firmware-table audit (fwaudit.c): the firmware's own hierarchy, CR3
 * at entry, walked and judged as ours are.  Firmware-free.
 */
#ifndef PTLAB_EFI_FWAUDIT_H
#define PTLAB_EFI_FWAUDIT_H

struct check_run;

/*
 * Walk the firmware's own tables (CR3 at entry, run->cpu) and report what
 * they map, as a fact on run->rep.  Stops at the --timeout deadline.
 */
void ptlab_audit_firmware(const struct check_run *run);

#endif
