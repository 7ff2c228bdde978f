/* SPDX-License-Identifier: MIT */
/*
 * A bzImage as the tests write it: the offsets of the Linux/x86 boot
 * protocol (the kernel's Documentation/arch/x86/boot.rst) written here
 * independently of efi/linux/linuxboot.[ch], and a valid synthetic kernel
 * (tests/unit/bzimage.c) for the unit tests and the fuzz target to vary.
 */
#ifndef PTLAB_TEST_BZIMAGE_H
#define PTLAB_TEST_BZIMAGE_H

#include <stddef.h>
#include <stdint.h>

/* setup header offsets */
#define O_SETUP_SECTS   0x1f1u
#define O_SYSSIZE       0x1f4u
#define O_BOOT_FLAG     0x1feu
#define O_JUMP          0x201u
#define O_MAGIC         0x202u
#define O_VERSION       0x206u
#define O_TYPE_OF_LOADER 0x210u
#define O_LOADFLAGS     0x211u
#define O_RAMDISK       0x218u
#define O_RAMDISK_SIZE  0x21cu
#define O_CMDLINE       0x228u
#define O_INITRD_MAX    0x22cu
#define O_KERNEL_ALIGN  0x230u
#define O_RELOCATABLE   0x234u
#define O_XLOADFLAGS    0x236u
#define O_CMDLINE_SIZE  0x238u
#define O_SETUP_DATA    0x250u
#define O_PREF_ADDRESS  0x258u
#define O_INIT_SIZE     0x260u

/* boot_params fields outside the setup header */
#define O_ACPI_RSDP     0x070u
#define O_EXT_RAMDISK   0x0c0u
#define O_EXT_RAMDISK_SIZE 0x0c4u
#define O_EXT_CMDLINE   0x0c8u
#define O_EFI_INFO      0x1c0u   /* struct efi_info: 8 u32 fields */
#define O_E820_ENTRIES  0x1e8u
#define O_SECURE_BOOT   0x1ecu
#define O_E820_TABLE    0x2d0u
#define ZP_BYTES        4096u
#define E820_ENTRY      20u
#define E820_IN_ZP      128u

/* The synthetic kernel: 3 setup sectors after the boot sector, a 64 KiB kernel. */
#define T_SETUP_SECTS   3u
#define T_PM_OFFSET     ((T_SETUP_SECTS + 1u) * 512u)
#define T_SYSSIZE       0x1000u                  /* 16-byte units */
#define T_PM_BYTES      (T_SYSSIZE * 16u)
#define T_FILE_BYTES    (T_PM_OFFSET + T_PM_BYTES)
#define T_VERSION       0x020fu
#define T_JUMP          0x6au                    /* header ends at 0x26c */
#define T_LOADFLAGS     0x01u
#define T_INITRD_MAX    UINT32_C(0x7fffffff)
#define T_ALIGN         UINT32_C(0x200000)
#define T_RELOCATABLE   1u
#define T_XLF           0x0003u                  /* KERNEL_64 | CAN_BE_LOADED_ABOVE_4G */
#define T_CMDLINE_SIZE  UINT32_C(2047)
#define T_PREF          UINT64_C(0x1000000)
#define T_INIT_SIZE     UINT32_C(0x01234000)

/* A valid bzImage of @len bytes (at least T_FILE_BYTES): setup code filled
 * with a pattern, then the header fields above.  Caller frees. */
uint8_t *bz_image(size_t len);

#endif
