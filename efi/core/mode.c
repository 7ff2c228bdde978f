/* SPDX-License-Identifier: MIT */
/* Which mode a run's options choose (see mode.h).  No firmware calls. */
#include "core/handoff.h"
#include "core/kernel.h"
#include "core/fwmode.h"
#include "core/mode.h"

const struct mode *mode_pick(const struct opts *o)
{
	if (o->mode != OPTS_MODE_HANDOFF)
		return &mode_firmware;
	return o->kernel[0] ? &mode_kernel : &mode_handoff;
}
