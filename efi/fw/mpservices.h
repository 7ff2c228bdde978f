/* SPDX-License-Identifier: MIT */
/*
 * EFI_MP_SERVICES_PROTOCOL (UEFI Platform Initialization specification,
 * Vol. 2, "Multiprocessor Services Protocol"); gnu-efi has no header for it.
 * Only what ptlab calls is typed precisely; the rest are opaque slots.
 */
#ifndef PTLAB_EFI_MPSERVICES_H
#define PTLAB_EFI_MPSERVICES_H

#include <efi.h>

#define PTLAB_MP_SERVICES_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

/* EFI_PROCESSOR_INFORMATION.StatusFlag */
#define PTLAB_MP_PROCESSOR_AS_BSP   0x1u
#define PTLAB_MP_PROCESSOR_ENABLED  0x2u
#define PTLAB_MP_PROCESSOR_HEALTHY  0x4u

typedef struct {
	UINT32 Package, Core, Thread;
} PTLAB_CPU_PHYSICAL_LOCATION;

typedef struct {
	UINT32 Package, Module, Tile, Die, Core, Thread;
} PTLAB_CPU_PHYSICAL_LOCATION2;

typedef struct {
	UINT64 ProcessorId;          /* the local APIC ID on x86 */
	UINT32 StatusFlag;
	PTLAB_CPU_PHYSICAL_LOCATION Location;
	/* PI 1.7 extension: filled only when asked for (bit 24 of the number) */
	PTLAB_CPU_PHYSICAL_LOCATION2 Location2;
} PTLAB_PROCESSOR_INFORMATION;

typedef VOID (EFIAPI *PTLAB_AP_PROCEDURE)(VOID *Buffer);

struct _PTLAB_MP_SERVICES;

typedef EFI_STATUS (EFIAPI *PTLAB_MP_GET_NUMBER_OF_PROCESSORS)(
	struct _PTLAB_MP_SERVICES *This, UINTN *NumberOfProcessors,
	UINTN *NumberOfEnabledProcessors);
typedef EFI_STATUS (EFIAPI *PTLAB_MP_GET_PROCESSOR_INFO)(
	struct _PTLAB_MP_SERVICES *This, UINTN ProcessorNumber,
	PTLAB_PROCESSOR_INFORMATION *ProcessorInfoBuffer);
typedef EFI_STATUS (EFIAPI *PTLAB_MP_STARTUP_ALL_APS)(
	struct _PTLAB_MP_SERVICES *This, PTLAB_AP_PROCEDURE Procedure, BOOLEAN SingleThread,
	EFI_EVENT WaitEvent, UINTN TimeoutInMicroSeconds, VOID *ProcedureArgument,
	UINTN **FailedCpuList);
typedef EFI_STATUS (EFIAPI *PTLAB_MP_WHOAMI)(struct _PTLAB_MP_SERVICES *This,
					       UINTN *ProcessorNumber);

typedef struct _PTLAB_MP_SERVICES {
	PTLAB_MP_GET_NUMBER_OF_PROCESSORS GetNumberOfProcessors;
	PTLAB_MP_GET_PROCESSOR_INFO GetProcessorInfo;
	PTLAB_MP_STARTUP_ALL_APS StartupAllAPs;
	VOID *StartupThisAP;
	VOID *SwitchBSP;
	VOID *EnableDisableAP;
	PTLAB_MP_WHOAMI WhoAmI;
} PTLAB_MP_SERVICES;

#endif
