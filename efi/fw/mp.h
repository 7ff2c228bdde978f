/* SPDX-License-Identifier: MIT */
/*
 * The firmware's MP services (fw/mpservices.h), wrapped: the protocol
 * found, its CPUs counted and described, a procedure started on every
 * AP.  Boot services required; never called with our tables loaded.  What
 * is done with them is bringup/.
 */
#ifndef PTLAB_EFI_FW_MP_H
#define PTLAB_EFI_FW_MP_H

#include <stdbool.h>

#include <efi.h>

#include "fw/mpservices.h"

/* EFI_MP_SERVICES_PROTOCOL (LocateProtocol), or NULL when the firmware has none. */
PTLAB_MP_SERVICES *fw_mp_locate(void);

/* GetNumberOfProcessors: *@n logical CPUs, *@enabled of them enabled; false when it fails. */
bool fw_mp_count(PTLAB_MP_SERVICES *mp, UINTN *n, UINTN *enabled);

/* GetProcessorInfo of CPU number @i into *@info; false when it fails. */
bool fw_mp_info(PTLAB_MP_SERVICES *mp, UINTN i, PTLAB_PROCESSOR_INFORMATION *info);

/*
 * StartupAllAPs, every AP at once and without blocking: @proc(@arg) on
 * each enabled AP, @ev signalled once all returned or @timeout_us passed
 * (no list of failed CPUs asked for).  Returns the firmware's status;
 * EFI_SUCCESS: the APs are running @proc.
 */
EFI_STATUS fw_mp_startup_all(PTLAB_MP_SERVICES *mp, PTLAB_AP_PROCEDURE proc, EFI_EVENT ev,
			     UINTN timeout_us, void *arg);

#endif /* PTLAB_EFI_FW_MP_H */
