/* SPDX-License-Identifier: MIT */
/*
 * The test's stand-in for the few gnu-efi declarations efi/fw/memattr.c
 * uses, so that the file builds for the host as it is (test_memattr.c,
 * mk/unit.mk).  EFIAPI is the Microsoft convention, as on the firmware.
 */
#ifndef PTLAB_TEST_EFISTUB_EFI_H
#define PTLAB_TEST_EFISTUB_EFI_H

#include <stdint.h>

typedef uint8_t UINT8;
typedef uint16_t UINT16;
typedef uint32_t UINT32;
typedef uint64_t UINT64;
typedef uint64_t UINTN;
typedef void VOID;
typedef UINTN EFI_STATUS;
typedef UINT64 EFI_PHYSICAL_ADDRESS;

typedef struct {
	UINT32 Data1;
	UINT16 Data2;
	UINT16 Data3;
	UINT8 Data4[8];
} EFI_GUID;

#define EFIAPI __attribute__((ms_abi))

#define EFI_ERR(n) ((EFI_STATUS)0x8000000000000000ull | (n))
#define EFI_SUCCESS 0
#define EFI_INVALID_PARAMETER EFI_ERR(2)
#define EFI_OUT_OF_RESOURCES EFI_ERR(9)
#define EFI_NOT_FOUND EFI_ERR(14)
#define EFI_ACCESS_DENIED EFI_ERR(15)
#define EFI_NO_MAPPING EFI_ERR(17)

/* gnu-efi with GNU_EFI_USE_MS_ABI: a direct call */
#define uefi_call_wrapper(f, n, ...) ((f)(__VA_ARGS__))

typedef struct {
	EFI_STATUS (EFIAPI *LocateProtocol)(EFI_GUID *guid, VOID *registration, VOID **iface);
} EFI_BOOT_SERVICES;

#endif
