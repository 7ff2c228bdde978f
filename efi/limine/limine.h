/* SPDX-License-Identifier: MIT */
/*
 * The Limine boot protocol's data for x86-64, as its specification
 * (PROTOCOL.md of the limine-bootloader/limine repository, base revisions
 * 0, 1 and 2) lays it out: the request identifiers, the base revision tag,
 * the request delimiters, and the layout of every request, response and
 * structure a response points to.
 *
 * The kernel's memory is little-endian x86-64: every field below is a
 * fixed-width integer at a fixed offset.  Pointers the protocol defines are
 * held as uint64_t addresses here (the loader never dereferences them as C
 * pointers: they are HHDM addresses of the kernel's address space, not of
 * ours), so the layouts are the same on the host and in the firmware, and
 * the _Static_asserts at the end pin every offset the code relies on.
 */
#ifndef PTLAB_EFI_LIMINE_H
#define PTLAB_EFI_LIMINE_H

#include <stddef.h>
#include <stdint.h>

/* The first two words of every request identifier. */
#define LM_MAGIC0 UINT64_C(0xc7b1dd30df4c8b88)
#define LM_MAGIC1 UINT64_C(0x0a82e883a194f07b)

/*
 * The base revision tag: three words, the first two a magic, the third
 * the base revision the kernel asks for.  The loader sets the third to 0
 * when it honours the revision asked for and leaves it alone when it does
 * not (it then boots with a revision of its own choice).  No tag: 0.
 */
#define LM_BASE_REV_MAGIC0 UINT64_C(0xf9562b2d5c95a6c8)
#define LM_BASE_REV_MAGIC1 UINT64_C(0x6a7b384944536bdc)
#define LM_BASE_REV_WORDS  3u

/* The requests delimiters: four words open the area, two close it. */
#define LM_START_MARKER0 UINT64_C(0xf6b8f4b39de7d1ae)
#define LM_START_MARKER1 UINT64_C(0xfab91a6940fcb9cf)
#define LM_START_MARKER2 UINT64_C(0x785c6ed015d3e316)
#define LM_START_MARKER3 UINT64_C(0x181e920a7852b9d9)
#define LM_START_WORDS   4u
#define LM_END_MARKER0   UINT64_C(0xadc0e0531bb10d03)
#define LM_END_MARKER1   UINT64_C(0x9572709f31764c62)
#define LM_END_WORDS     2u

/*
 * The x86-64 features ptlab knows, by the 3rd and 4th words of their
 * identifier (lm_req_ids[]).  The later names of the specification
 * (executable file, executable address, date at boot) are the same
 * identifiers as kernel file, kernel address and boot time.
 */
enum lm_req_kind {
	LM_REQ_BOOTLOADER_INFO,
	LM_REQ_FIRMWARE_TYPE,
	LM_REQ_STACK_SIZE,
	LM_REQ_HHDM,
	LM_REQ_FRAMEBUFFER,
	LM_REQ_PAGING_MODE,
	LM_REQ_SMP,
	LM_REQ_MEMMAP,
	LM_REQ_ENTRY_POINT,
	LM_REQ_KERNEL_FILE,        /* "executable file" */
	LM_REQ_MODULE,
	LM_REQ_RSDP,
	LM_REQ_SMBIOS,
	LM_REQ_EFI_SYSTEM_TABLE,
	LM_REQ_EFI_MEMMAP,
	LM_REQ_BOOT_TIME,          /* "date at boot" */
	LM_REQ_KERNEL_ADDRESS,     /* "executable address" */
	LM_REQ_DTB,                /* known but not x86-64's: never answered */
	LM_REQ_TERMINAL,           /* withdrawn from the protocol: never answered */
	LM_REQ_COUNT,
};

/* lm_req_ids[kind][0..1]: words 2 and 3 of the identifier (lmreq.c). */
extern const uint64_t lm_req_ids[LM_REQ_COUNT][2];

/* Every request starts so; the words past @response are the request's own. */
#define LM_REQ_ID        0u    /* u64 id[4] */
#define LM_REQ_REVISION  32u   /* u64 */
#define LM_REQ_RESPONSE  40u   /* u64: HHDM address of the response, written by the loader */
#define LM_REQ_EXTRA     48u   /* first request-specific word */
#define LM_REQ_HDR_BYTES 48u

/* Request-specific words (offsets in the request). */
#define LM_STACK_SIZE_OFF      48u   /* stack size request: bytes wanted */
#define LM_PAGING_MODE_OFF     48u   /* paging mode request: preferred mode */
#define LM_PAGING_MAX_OFF      56u   /*   request revision >= 1: highest mode */
#define LM_PAGING_MIN_OFF      64u   /*   request revision >= 1: lowest mode */
#define LM_SMP_FLAGS_OFF       48u   /* SMP request: LM_SMP_X2APIC */
#define LM_ENTRY_POINT_OFF     48u   /* entry point request: the entry's va */
#define LM_MODULE_COUNT_OFF    48u   /* module request revision >= 1: internal modules */
#define LM_MODULE_LIST_OFF     56u   /*   va of an array of pointers to lm_internal_module */

/* The largest request ptlab reads (paging mode, revision 1). */
#define LM_REQ_MAX_BYTES       72u

/* Stack at entry when no stack size request asks for more. */
#define LM_STACK_DEFAULT       UINT64_C(65536)

/* firmware_type */
#define LM_FIRMWARE_X86BIOS  0u
#define LM_FIRMWARE_UEFI32   1u
#define LM_FIRMWARE_UEFI64   2u

/* paging modes of x86-64 */
#define LM_PAGING_4LVL       0u
#define LM_PAGING_5LVL       1u
#define LM_PAGING_DEFAULT    LM_PAGING_4LVL
#define LM_PAGING_MIN        LM_PAGING_4LVL
#define LM_PAGING_MAX        LM_PAGING_5LVL

/* SMP request flags and response flags */
#define LM_SMP_X2APIC        UINT64_C(1)

/* memory map entry types */
#define LM_MEM_USABLE                 0u
#define LM_MEM_RESERVED               1u
#define LM_MEM_ACPI_RECLAIMABLE       2u
#define LM_MEM_ACPI_NVS               3u
#define LM_MEM_BAD_MEMORY             4u
#define LM_MEM_BOOTLOADER_RECLAIMABLE 5u
#define LM_MEM_KERNEL_AND_MODULES     6u
#define LM_MEM_FRAMEBUFFER            7u
#define LM_MEM_TYPE_COUNT             8u

/* framebuffer memory_model */
#define LM_FB_RGB            1u

/* file media_type */
#define LM_MEDIA_GENERIC     0u
#define LM_MEDIA_OPTICAL     1u
#define LM_MEDIA_TFTP        2u

/* internal module flags */
#define LM_INTERNAL_MODULE_REQUIRED   UINT64_C(1)
#define LM_INTERNAL_MODULE_COMPRESSED UINT64_C(2)

/*
 * Responses.  Every one starts with its revision; the revisions ptlab
 * gives are LM_RESP_REV_* below (the framebuffer's 1 carries video modes,
 * the module's stays 0: a 1 would say internal modules were loaded).
 */
struct lm_resp_bootloader_info {
	uint64_t revision;
	uint64_t name;             /* HHDM address of a NUL-terminated ASCII string */
	uint64_t version;          /* likewise */
};

struct lm_resp_firmware_type {
	uint64_t revision;
	uint64_t firmware_type;    /* LM_FIRMWARE_* */
};

/* Stack size and entry point responses: the revision alone. */
struct lm_resp_empty {
	uint64_t revision;
};

struct lm_resp_hhdm {
	uint64_t revision;
	uint64_t offset;           /* the HHDM's virtual base */
};

struct lm_resp_framebuffer {
	uint64_t revision;
	uint64_t count;
	uint64_t framebuffers;     /* HHDM address of @count HHDM addresses of struct lm_framebuffer */
};

struct lm_framebuffer {
	uint64_t address;          /* HHDM address of the pixels */
	uint64_t width;
	uint64_t height;
	uint64_t pitch;            /* bytes per line */
	uint16_t bpp;
	uint8_t memory_model;      /* LM_FB_RGB */
	uint8_t red_mask_size;
	uint8_t red_mask_shift;
	uint8_t green_mask_size;
	uint8_t green_mask_shift;
	uint8_t blue_mask_size;
	uint8_t blue_mask_shift;
	uint8_t unused[7];
	uint64_t edid_size;
	uint64_t edid;             /* HHDM address of the EDID, 0 when none */
	/* response revision 1 */
	uint64_t mode_count;
	uint64_t modes;            /* HHDM address of @mode_count HHDM addresses of struct lm_video_mode */
};

struct lm_video_mode {
	uint64_t pitch;
	uint64_t width;
	uint64_t height;
	uint16_t bpp;
	uint8_t memory_model;
	uint8_t red_mask_size;
	uint8_t red_mask_shift;
	uint8_t green_mask_size;
	uint8_t green_mask_shift;
	uint8_t blue_mask_size;
	uint8_t blue_mask_shift;
	/* 33 bytes of fields, padded to 40 as the kernel's C compiler pads it */
};

struct lm_resp_paging_mode {
	uint64_t revision;
	uint64_t mode;             /* the mode the loader enabled */
};

struct lm_resp_smp {
	uint64_t revision;
	uint32_t flags;            /* LM_SMP_X2APIC when x2APIC was enabled */
	uint32_t bsp_lapic_id;
	uint64_t cpu_count;        /* the BSP included */
	uint64_t cpus;             /* HHDM address of @cpu_count HHDM addresses of struct lm_smp_info */
};

/*
 * One per CPU.  An AP waits until @goto_address becomes non-zero (one
 * atomic 8-byte write by the kernel), then jumps there with RDI = the HHDM
 * address of its own lm_smp_info and RSP on its own stack.  0 for every
 * CPU when the BSP enters the kernel; unused for the BSP.
 */
struct lm_smp_info {
	uint32_t processor_id;     /* ACPI processor UID (MADT) */
	uint32_t lapic_id;
	uint64_t reserved;
	uint64_t goto_address;
	uint64_t extra_argument;   /* the kernel's */
};
#define LM_SMP_INFO_GOTO   16u   /* offset of goto_address: what a parked AP polls */
#define LM_SMP_INFO_EXTRA  24u

struct lm_resp_memmap {
	uint64_t revision;
	uint64_t entry_count;
	uint64_t entries;          /* HHDM address of @entry_count HHDM addresses of struct lm_memmap_entry */
};

struct lm_memmap_entry {
	uint64_t base;
	uint64_t length;
	uint64_t type;             /* LM_MEM_* */
};

struct lm_uuid {
	uint32_t a;
	uint16_t b;
	uint16_t c;
	uint8_t d[8];
};

struct lm_file {
	uint64_t revision;
	uint64_t address;          /* HHDM address of the file's bytes, 4 KiB aligned */
	uint64_t size;
	uint64_t path;             /* HHDM address of the path, leading slash */
	uint64_t cmdline;          /* HHDM address of the command line ("" when none) */
	uint32_t media_type;       /* LM_MEDIA_* */
	uint32_t unused;
	uint32_t tftp_ip;
	uint32_t tftp_port;
	uint32_t partition_index;  /* 1-based, 0 unknown */
	uint32_t mbr_disk_id;
	struct lm_uuid gpt_disk_uuid;
	struct lm_uuid gpt_part_uuid;
	struct lm_uuid part_uuid;
};

/* The kernel file response: the kernel's own file. */
struct lm_resp_file {
	uint64_t revision;
	uint64_t file;             /* HHDM address of struct lm_file */
};

struct lm_resp_module {
	uint64_t revision;
	uint64_t module_count;
	uint64_t modules;          /* HHDM address of @module_count HHDM addresses of struct lm_file */
};

/* What a module request of revision 1 lists (in the kernel's image). */
struct lm_internal_module {
	uint64_t path;             /* kernel va of the path, relative to the kernel's */
	uint64_t cmdline;          /* kernel va */
	uint64_t flags;            /* LM_INTERNAL_MODULE_* */
};

/* RSDP, EFI system table: one address (HHDM) */
struct lm_resp_address {
	uint64_t revision;
	uint64_t address;
};

struct lm_resp_smbios {
	uint64_t revision;
	uint64_t entry_32;         /* HHDM address of the 32-bit entry point, 0 when none */
	uint64_t entry_64;         /* likewise, 64-bit */
};

struct lm_resp_efi_memmap {
	uint64_t revision;
	uint64_t memmap;           /* HHDM address of the UEFI memory map */
	uint64_t memmap_size;      /* bytes */
	uint64_t desc_size;
	uint64_t desc_version;
};

struct lm_resp_boot_time {
	uint64_t revision;
	int64_t boot_time;         /* UNIX time at boot, seconds */
};

struct lm_resp_kernel_address {
	uint64_t revision;
	uint64_t physical_base;
	uint64_t virtual_base;
};

/* The response revisions ptlab gives. */
#define LM_RESP_REV_DEFAULT      0u
#define LM_RESP_REV_FRAMEBUFFER  1u
#define LM_RESP_REV_MODULE       1u   /* internal modules are loaded (listed first) */
#define LM_FILE_REV              0u

_Static_assert(sizeof(struct lm_resp_bootloader_info) == 24, "bootloader info");
_Static_assert(sizeof(struct lm_resp_hhdm) == 16, "hhdm");
_Static_assert(sizeof(struct lm_resp_framebuffer) == 24, "framebuffer response");
_Static_assert(offsetof(struct lm_framebuffer, bpp) == 32, "fb bpp");
_Static_assert(offsetof(struct lm_framebuffer, memory_model) == 34, "fb model");
_Static_assert(offsetof(struct lm_framebuffer, blue_mask_shift) == 40, "fb blue shift");
_Static_assert(offsetof(struct lm_framebuffer, edid_size) == 48, "fb edid size");
_Static_assert(offsetof(struct lm_framebuffer, edid) == 56, "fb edid");
_Static_assert(offsetof(struct lm_framebuffer, mode_count) == 64, "fb mode count");
_Static_assert(sizeof(struct lm_framebuffer) == 80, "framebuffer");
_Static_assert(offsetof(struct lm_video_mode, bpp) == 24, "mode bpp");
_Static_assert(sizeof(struct lm_video_mode) == 40, "video mode");
_Static_assert(sizeof(struct lm_resp_paging_mode) == 16, "paging mode");
_Static_assert(offsetof(struct lm_resp_smp, flags) == 8, "smp flags");
_Static_assert(offsetof(struct lm_resp_smp, bsp_lapic_id) == 12, "smp bsp");
_Static_assert(offsetof(struct lm_resp_smp, cpu_count) == 16, "smp count");
_Static_assert(offsetof(struct lm_resp_smp, cpus) == 24, "smp cpus");
_Static_assert(sizeof(struct lm_resp_smp) == 32, "smp response");
_Static_assert(offsetof(struct lm_smp_info, lapic_id) == 4, "smp info lapic");
_Static_assert(offsetof(struct lm_smp_info, goto_address) == LM_SMP_INFO_GOTO, "smp info goto");
_Static_assert(offsetof(struct lm_smp_info, extra_argument) == LM_SMP_INFO_EXTRA, "smp info extra");
_Static_assert(sizeof(struct lm_smp_info) == 32, "smp info");
_Static_assert(sizeof(struct lm_resp_memmap) == 24, "memmap response");
_Static_assert(sizeof(struct lm_memmap_entry) == 24, "memmap entry");
_Static_assert(sizeof(struct lm_uuid) == 16, "uuid");
_Static_assert(offsetof(struct lm_file, media_type) == 40, "file media");
_Static_assert(offsetof(struct lm_file, partition_index) == 56, "file partition");
_Static_assert(offsetof(struct lm_file, gpt_disk_uuid) == 64, "file disk uuid");
_Static_assert(offsetof(struct lm_file, part_uuid) == 96, "file part uuid");
_Static_assert(sizeof(struct lm_file) == 112, "file");
_Static_assert(sizeof(struct lm_resp_file) == 16, "kernel file response");
_Static_assert(sizeof(struct lm_resp_module) == 24, "module response");
_Static_assert(sizeof(struct lm_internal_module) == 24, "internal module");
_Static_assert(sizeof(struct lm_resp_smbios) == 24, "smbios");
_Static_assert(sizeof(struct lm_resp_efi_memmap) == 40, "efi memmap");
_Static_assert(sizeof(struct lm_resp_boot_time) == 16, "boot time");
_Static_assert(sizeof(struct lm_resp_kernel_address) == 24, "kernel address");

#endif
