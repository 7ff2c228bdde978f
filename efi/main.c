/* SPDX-License-Identifier: MIT */
/*
 * Minimal ptlab entry point: proves the toolchain, the image and the boot
 * harness.  Prints one marker line on ConOut, then reports success through
 * QEMU's isa-debug-exit device (port 0xf4) when running under a hypervisor.
 * Replaced by the real application.
 */
#include <efi.h>
#include <efilib.h>

#define DEBUG_EXIT_PORT 0xf4
#define DEBUG_EXIT_PASS 0x10	/* QEMU exits with (0x10 << 1) | 1 = 33 */

static int under_hypervisor(void)
{
	UINT32 eax = 1, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return (ecx >> 31) & 1;
}

static void debug_exit(UINT32 code)
{
	__asm__ volatile("outl %0, %w1" : : "a"(code), "Nd"(DEBUG_EXIT_PORT));
}

/* crt0-efi-x86_64.o calls efi_main with the SysV convention: no EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	Print(L"ptlab: hello\n");
	if (under_hypervisor())
		debug_exit(DEBUG_EXIT_PASS);
	return EFI_SUCCESS;
}
