/* SPDX-License-Identifier: MIT */
/*
 * The modes (state/mode.h's struct mode): the firmware mode (fwmode.c),
 * the hand-off mode (handoff.c) and the kernel mode (kernel.c: a hand-off
 * that ends in a kernel), and which one a run's options choose.
 */
#ifndef PTLAB_EFI_CORE_MODE_H
#define PTLAB_EFI_CORE_MODE_H

#include <efi.h>
#include <efilib.h>

#include "state/state.h"

/* What the firmware handed the application, for a mode's run. */
struct mode_boot {
	EFI_LOADED_IMAGE *li;        /* our loaded image */
	EFI_HANDLE image;            /* its handle (ExitBootServices takes it) */
	uint64_t t0;                 /* TSC at the run's start, for the time facts */
};

/* The mode @o chooses: --mode=firmware|handoff, a hand-off with --kernel. */
const struct mode *mode_pick(const struct opts *o);

#endif /* PTLAB_EFI_CORE_MODE_H */
