/* SPDX-License-Identifier: MIT */
/*
 * The Linux/x86 boot protocol's data, firmware-free (host-tested): the
 * bzImage setup header read and judged, the kernel's slot in the memory
 * map, the e820 table made from the final map, and the zero page
 * (struct boot_params) filled in.  Offsets and flags are those of the
 * kernel's Documentation/arch/x86/boot.rst ("The Linux/x86 Boot Protocol"
 * and its 64-bit section) and of its uapi header bootparam.h.
 */
#ifndef PTLAB_EFI_LINUXBOOT_H
#define PTLAB_EFI_LINUXBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#define LB_ZERO_PAGE_BYTES   4096u
#define LB_SECTOR            512u
#define LB_HDR_OFF           0x1f1u    /* the setup header, in the file and the zero page */
#define LB_MIN_FILE          0x270u    /* up to and including the 2.12 fields we read */
#define LB_ENTRY64_OFF       0x200u    /* the 64-bit entry, from the load address */
#define LB_MIN_VERSION       0x020cu   /* 2.12: xloadflags, the 64-bit entry's flag */
#define LB_LOADER_UNDEFINED  0xffu     /* type_of_loader: "undefined" (boot.rst) */
#define LB_SETUP_COPY        0x290u    /* the file bytes the zero page takes its header from */

/* xloadflags */
#define LB_XLF_KERNEL_64            (1u << 0)
#define LB_XLF_CAN_BE_LOADED_ABOVE_4G (1u << 1)
#define LB_XLF_5LEVEL               (1u << 5)

/* e820 types (the kernel's enum e820_type) */
#define LB_E820_RAM       1u
#define LB_E820_RESERVED  2u
#define LB_E820_ACPI      3u
#define LB_E820_NVS       4u
#define LB_E820_UNUSABLE  5u
#define LB_E820_PMEM      7u

#define LB_E820_IN_PARAMS 128u         /* entries the zero page holds */
#define LB_SETUP_E820_EXT 1u           /* setup_data type of the rest */
#define LB_SETUP_DATA_HDR 16u          /* next (u64), type (u32), len (u32) */
#define LB_E820_ENTRY     20u          /* addr (u64), size (u64), type (u32), packed */

#define LB_VIDEO_TYPE_EFI         0x70u
#define LB_VIDEO_CAP_64BIT_BASE   (1u << 1)

/* What the setup header says, read and judged by lb_parse(). */
struct lb_kernel {
	uint16_t version;          /* protocol, 0x020f for 2.15 */
	uint8_t setup_sects;       /* as read; 0 means 4 */
	uint8_t loadflags;
	uint16_t xloadflags;
	uint8_t relocatable;
	uint32_t kernel_alignment;
	uint64_t pref_address;
	uint32_t init_size;
	uint32_t initrd_addr_max;  /* highest byte an initrd may occupy */
	uint32_t cmdline_size;     /* longest command line, without its NUL */
	uint32_t hdr_end;          /* file offset past the setup header (0x202 + byte 0x201) */
	uint64_t pm_offset;        /* file offset of the protected-mode kernel */
	uint64_t pm_bytes;         /* its length in the file */
};

enum lb_err {
	LB_OK = 0,
	LB_ETRUNCATED = -1,   /* shorter than its header or its setup sectors say */
	LB_EMAGIC = -2,       /* no 0xAA55 boot flag or no "HdrS": not a bzImage */
	LB_EVERSION = -3,     /* protocol older than 2.12 */
	LB_E32BIT = -4,       /* no 64-bit entry (XLF_KERNEL_64 clear) */
	LB_EINITSIZE = -5,    /* init_size smaller than the kernel it must hold */
	LB_EALIGN = -6,       /* kernel_alignment not a power of two of at least 4 KiB */
	LB_ELEVELS = -7,      /* 5 levels asked, the kernel or the CPU cannot have them */
	LB_ECMDLINE = -8,     /* command line longer than cmdline_size */
};

/**
 * lb_parse() - read and judge a bzImage's setup header
 * @file: the whole file, @len bytes
 * @k:    filled on success
 * @why:  a message naming the field and its value on failure
 *
 * Return: LB_OK, or the first of enum lb_err that applies; @k is then
 * partly filled and must not be used.
 */
int lb_parse(const uint8_t *file, uint64_t len, struct lb_kernel *k, char *why, size_t whylen);

/**
 * lb_check_run() - what this run asks of the kernel, and of the CPU for it
 * @levels:  paging levels asked for the jump (4 or 5: --levels, or the
 *           firmware's when not given)
 * @la57:    the CPU has LA57 (CPUID.(EAX=7,ECX=0):ECX[16])
 * @cmdline: length of the command line without its NUL
 *
 * One policy for 5 levels: the kernel is handed over at the levels asked or
 * not at all.  A kernel without XLF_5LEVEL, and a CPU without LA57 (the run
 * would build 4 levels), are both refused for --levels=5, never dropped to
 * 4 levels.  The kernel is judged first.
 *
 * Return: LB_OK, LB_ELEVELS or LB_ECMDLINE, with @why set.
 */
int lb_check_run(const struct lb_kernel *k, unsigned levels, bool la57, size_t cmdline,
		 char *why, size_t whylen);

/**
 * lb_next_slot() - the lowest place for @size bytes at or above @from
 * @map:   the normalized memory map
 * @from:  lowest acceptable address
 * @size:  bytes, > 0
 * @align: a power of two
 * @limit: the slot must end at or below it
 *
 * Only conventional memory counts; the slot lies inside one range.
 * Return: true with *@pa set, false when there is none.
 */
bool lb_next_slot(const struct pt_memmap *map, uint64_t from, uint64_t size, uint64_t align,
		  uint64_t limit, uint64_t *pa);

/* One e820 entry as the kernel reads it (written packed by lb_fill_params()). */
struct lb_e820 {
	uint64_t addr, size;
	uint32_t type;
};

/** lb_e820_type() - the e820 type of a memory-map range of EFI type @type */
uint32_t lb_e820_type(uint32_t efi_type);

/* 640 KiB: the end of the RAM real mode reaches. */
#define LB_LOW_RAM_END 0xa0000u

/**
 * lb_low_ram() - the RAM below 640 KiB, piece by piece
 * @map: the normalized memory map
 * @out: the pieces: each a run of contiguous RAM pages (lb_e820_type RAM)
 *       between page 1 and LB_LOW_RAM_END, in address order; a hole or a
 *       range of another type (reserved, ACPI, ...) ends a piece
 * @cap: room in @out
 *
 * The decompressor puts its 32-bit trampoline in RAM there (it picks it from
 * the e820 table and the BIOS data area); only RAM may be made RWX for it.
 *
 * Return: the number of pieces, or -1 when there are more than @cap (@out
 * then holds the first @cap).
 */
int lb_low_ram(const struct pt_memmap *map, struct pt_range *out, unsigned cap);

/**
 * lb_e820_build() - the e820 table of the final memory map
 *
 * Every range in address order, by lb_e820_type(); neighbours of one type
 * that touch are one entry.  Return: entries written, or -1 when more than
 * @cap were needed (nothing useful in @out then).
 */
int lb_e820_build(const struct pt_memmap *map, struct lb_e820 *out, unsigned cap);

/* The framebuffer, as screen_info describes it. */
struct lb_fb {
	uint64_t base;
	uint64_t size;
	uint32_t width, height;
	uint32_t stride_bytes;
	bool bgr;                 /* blue in the low byte (else red) */
};

/* Where the loader placed what the kernel reads. */
struct lb_load {
	uint64_t cmdline_pa;
	uint64_t initrd_pa, initrd_bytes;   /* 0 bytes: none */
	uint64_t acpi_rsdp;                 /* 0: none */
	uint64_t setup_data_pa;             /* 0: nothing beyond 128 e820 entries */
	const struct lb_fb *fb;             /* NULL: no framebuffer */
};

/**
 * lb_fill_params() - the zero page
 * @zp:     LB_ZERO_PAGE_BYTES bytes, overwritten
 * @file:   the bzImage (its setup header is copied from 0x1f1 to hdr_end)
 * @e820:   @n entries; past LB_E820_IN_PARAMS they go to @ext
 * @ext:    the SETUP_E820_EXT node's bytes (header and entries), or NULL
 *          when @n <= LB_E820_IN_PARAMS; its size is lb_e820_ext_bytes(n)
 *
 * type_of_loader 0xff, the command line, initrd and ACPI RSDP pointers
 * (with their ext_ high halves), screen_info for an EFI framebuffer.
 */
void lb_fill_params(uint8_t *zp, const uint8_t *file, const struct lb_kernel *k,
		    const struct lb_load *ld, const struct lb_e820 *e820, unsigned n, uint8_t *ext);

/* Bytes of the SETUP_E820_EXT node for @n entries (0 when they all fit). */
static inline uint64_t lb_e820_ext_bytes(unsigned n)
{
	return n > LB_E820_IN_PARAMS ?
		LB_SETUP_DATA_HDR + (uint64_t)(n - LB_E820_IN_PARAMS) * LB_E820_ENTRY : 0;
}

/* Zero-page offsets the loader and its tests read back. */
#define LB_ZP_ACPI_RSDP        0x070u
#define LB_ZP_EXT_RAMDISK      0x0c0u
#define LB_ZP_EXT_RAMDISK_SIZE 0x0c4u
#define LB_ZP_EXT_CMDLINE      0x0c8u
#define LB_ZP_E820_ENTRIES     0x1e8u
#define LB_ZP_TYPE_OF_LOADER   0x210u
#define LB_ZP_RAMDISK          0x218u
#define LB_ZP_RAMDISK_SIZE     0x21cu
#define LB_ZP_CMDLINE          0x228u
#define LB_ZP_SETUP_DATA       0x250u
#define LB_ZP_E820_TABLE       0x2d0u

#endif
