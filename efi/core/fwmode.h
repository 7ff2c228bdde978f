/* SPDX-License-Identifier: MIT */
/*
 * The firmware mode (fwmode.c): the run with boot services kept.
 */
#ifndef PTLAB_EFI_FWMODE_H
#define PTLAB_EFI_FWMODE_H

#include "state/mode.h"

extern const struct mode mode_firmware;

#endif
