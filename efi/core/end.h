/* SPDX-License-Identifier: MIT */
/*
 * The end of a run (end.c): the --end action, one path for every mode.
 * What differs is whether boot services are still there - after a mode's
 * run returned to efi_main, or after ExitBootServices - and that decides
 * how a line gets out and which actions can be done at all.
 */
#ifndef PTLAB_EFI_END_H
#define PTLAB_EFI_END_H

#include <efi.h>
#include <efilib.h>

#include "core/verdict.h"

/*
 * The --end action for @p's verdict, after the report was closed.
 * @boot_services: still there.  With them: return (--end=return, or when
 * ResetSystem returned), wait for a key or a timeout then shut down,
 * halt, isa-debug-exit, shutdown or reboot.  Without them return and wait
 * cannot be done and shut down instead (only --kernel gets there with
 * them), ResetSystem is tried only when the firmware says it works, and
 * the CPU halts when nothing ended the machine: no return then.
 */
void end_run(struct ptlab *p, bool boot_services);

/*
 * A line ("...\n") at the very end, after the report.  With boot services:
 * the console and COM1.  Without: COM1 and, when the report is on the
 * screen (@fb's console, the run's), the screen.
 */
void end_say(struct ptlab_fb *fb, bool boot_services, const char *line);

/* efi_main's status for @v: success, EFI_UNSUPPORTED (nothing checked), EFI_ABORTED. */
EFI_STATUS end_status(enum verdict v);

/*
 * Boot services: "press a key (or wait N s) WHAT", then wait for either.
 * True when a key ended the wait; the key is read, so that it reaches
 * nobody after us (a boot menu would take it as a choice).
 */
bool end_wait_key(const char *what, unsigned seconds);

#endif /* PTLAB_EFI_END_H */
