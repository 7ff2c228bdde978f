/* SPDX-License-Identifier: MIT */
/* The firmware mode's run (fwmode.c). */
#ifndef PTLAB_EFI_FWMODE_H
#define PTLAB_EFI_FWMODE_H

#include <efi.h>
#include <efilib.h>

#include "state/state.h"

/*
 * After run_start: the whole run with boot services alive (@t0: its start,
 * for the time facts); everything it allocated is freed before it returns.
 */
void fwmode_run(struct ptlab *p, EFI_LOADED_IMAGE *li, uint64_t t0);

#endif
