/* SPDX-License-Identifier: MIT */
/*
 * Thin wrappers of EFI_MP_SERVICES_PROTOCOL (see mp.h): one firmware call
 * each, its result as it came.  Firmware calls (boot services):
 * LocateProtocol, GetNumberOfProcessors, GetProcessorInfo, StartupAllAPs.
 */
#include <efi.h>
#include <efilib.h>

#include "fw/mp.h"

static EFI_GUID mp_guid = PTLAB_MP_SERVICES_GUID;

PTLAB_MP_SERVICES *fw_mp_locate(void)
{
	PTLAB_MP_SERVICES *mp = NULL;

	if (uefi_call_wrapper(BS->LocateProtocol, 3, &mp_guid, NULL, (void **)&mp) != EFI_SUCCESS)
		return NULL;
	return mp;
}

bool fw_mp_count(PTLAB_MP_SERVICES *mp, UINTN *n, UINTN *enabled)
{
	return uefi_call_wrapper(mp->GetNumberOfProcessors, 3, mp, n, enabled) == EFI_SUCCESS;
}

bool fw_mp_info(PTLAB_MP_SERVICES *mp, UINTN i, PTLAB_PROCESSOR_INFORMATION *info)
{
	return uefi_call_wrapper(mp->GetProcessorInfo, 3, mp, i, info) == EFI_SUCCESS;
}

EFI_STATUS fw_mp_startup_all(PTLAB_MP_SERVICES *mp, PTLAB_AP_PROCEDURE proc, EFI_EVENT ev,
			     UINTN timeout_us, void *arg)
{
	return uefi_call_wrapper(mp->StartupAllAPs, 7, mp, proc, FALSE, ev, timeout_us, arg, NULL);
}
