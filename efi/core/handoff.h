/* SPDX-License-Identifier: MIT */
/* The hand-off mode's run (handoff.c). */
#ifndef PTLAB_EFI_HANDOFF_H
#define PTLAB_EFI_HANDOFF_H

#include <efi.h>
#include <efilib.h>

#include "state/state.h"

/*
 * --mode=handoff, after run_start: leave boot services and run everything
 * on all of RAM.  Returns only when it could not leave boot services
 * (reported); otherwise the run ends in ResetSystem, isa-debug-exit or hlt.
 */
void handoff_run(struct ptlab *p, EFI_LOADED_IMAGE *li, EFI_HANDLE image);

#endif
