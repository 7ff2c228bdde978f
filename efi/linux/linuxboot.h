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

/*
 * The zero page as the kernel reads it: struct boot_params, its struct
 * setup_header and struct screen_info, packed, every field at the offset
 * boot.rst and zero-page.rst give (asserted below).  Fields ptlab never
 * writes are byte arrays of their size.
 */
struct lb_setup_header {
	uint8_t setup_sects;           /* 0x1f1 */
	uint16_t root_flags;           /* 0x1f2 */
	uint32_t syssize;              /* 0x1f4: 16-byte paragraphs of the protected-mode kernel */
	uint16_t ram_size;             /* 0x1f8 */
	uint16_t vid_mode;             /* 0x1fa */
	uint16_t root_dev;             /* 0x1fc */
	uint16_t boot_flag;            /* 0x1fe: 0xaa55 */
	uint8_t jump[2];               /* 0x200: jmp short; byte 0x201 sizes the header */
	uint32_t header;               /* 0x202: "HdrS" */
	uint16_t version;              /* 0x206 */
	uint32_t realmode_swtch;       /* 0x208 */
	uint16_t start_sys_seg;        /* 0x20c */
	uint16_t kernel_version;       /* 0x20e */
	uint8_t type_of_loader;        /* 0x210 */
	uint8_t loadflags;             /* 0x211 */
	uint16_t setup_move_size;      /* 0x212 */
	uint32_t code32_start;         /* 0x214 */
	uint32_t ramdisk_image;        /* 0x218 */
	uint32_t ramdisk_size;         /* 0x21c */
	uint32_t bootsect_kludge;      /* 0x220 */
	uint16_t heap_end_ptr;         /* 0x224 */
	uint8_t ext_loader_ver;        /* 0x226 */
	uint8_t ext_loader_type;       /* 0x227 */
	uint32_t cmd_line_ptr;         /* 0x228 */
	uint32_t initrd_addr_max;      /* 0x22c */
	uint32_t kernel_alignment;     /* 0x230 */
	uint8_t relocatable_kernel;    /* 0x234 */
	uint8_t min_alignment;         /* 0x235 */
	uint16_t xloadflags;           /* 0x236 (2.12) */
	uint32_t cmdline_size;         /* 0x238 */
	uint32_t hardware_subarch;     /* 0x23c */
	uint64_t hardware_subarch_data; /* 0x240 */
	uint32_t payload_offset;       /* 0x248 */
	uint32_t payload_length;       /* 0x24c */
	uint64_t setup_data;           /* 0x250 */
	uint64_t pref_address;         /* 0x258 */
	uint32_t init_size;            /* 0x260 */
	uint32_t handover_offset;      /* 0x264 */
	uint32_t kernel_info_offset;   /* 0x268 (2.15) */
} __attribute__((packed));

struct lb_screen_info {
	uint8_t text[0x0f];            /* 0x00: text-mode fields */
	uint8_t orig_video_isVGA;      /* 0x0f */
	uint16_t orig_video_points;    /* 0x10 */
	uint16_t lfb_width;            /* 0x12 */
	uint16_t lfb_height;           /* 0x14 */
	uint16_t lfb_depth;            /* 0x16 */
	uint32_t lfb_base;             /* 0x18 */
	uint32_t lfb_size;             /* 0x1c */
	uint16_t cl_magic, cl_offset;  /* 0x20 */
	uint16_t lfb_linelength;       /* 0x24 */
	uint8_t red_size, red_pos;     /* 0x26 */
	uint8_t green_size, green_pos; /* 0x28 */
	uint8_t blue_size, blue_pos;   /* 0x2a */
	uint8_t rsvd_size, rsvd_pos;   /* 0x2c */
	uint16_t vesapm_seg, vesapm_off; /* 0x2e */
	uint16_t pages;                /* 0x32 */
	uint16_t vesa_attributes;      /* 0x34 */
	uint32_t capabilities;         /* 0x36 */
	uint32_t ext_lfb_base;         /* 0x3a */
	uint8_t reserved[2];           /* 0x3e */
} __attribute__((packed));

/* What an EFI loader tells the kernel (struct efi_info). */
struct lb_efi_info {
	uint32_t loader_signature;     /* 0x1c0: "EL64" */
	uint32_t systab;               /* 0x1c4 */
	uint32_t memdesc_size;         /* 0x1c8 */
	uint32_t memdesc_version;      /* 0x1cc */
	uint32_t memmap;               /* 0x1d0 */
	uint32_t memmap_size;          /* 0x1d4 */
	uint32_t systab_hi;            /* 0x1d8 */
	uint32_t memmap_hi;            /* 0x1dc */
} __attribute__((packed));

struct lb_e820_entry {
	uint64_t addr, size;
	uint32_t type;
} __attribute__((packed));

#define LB_E820_IN_PARAMS 128u         /* entries the zero page holds */

struct lb_boot_params {
	struct lb_screen_info screen_info;     /* 0x000 */
	uint8_t apm_bios_info[0x14];           /* 0x040 */
	uint8_t pad2[4];                       /* 0x054 */
	uint64_t tboot_addr;                   /* 0x058 */
	uint8_t ist_info[0x10];                /* 0x060 */
	uint64_t acpi_rsdp_addr;               /* 0x070 */
	uint8_t pad3[8];                       /* 0x078 */
	uint8_t hd0_info[16], hd1_info[16];    /* 0x080 */
	uint8_t sys_desc_table[16];            /* 0x0a0 */
	uint8_t olpc_ofw_header[16];           /* 0x0b0 */
	uint32_t ext_ramdisk_image;            /* 0x0c0 */
	uint32_t ext_ramdisk_size;             /* 0x0c4 */
	uint32_t ext_cmd_line_ptr;             /* 0x0c8 */
	uint8_t pad4[112];                     /* 0x0cc */
	uint32_t cc_blob_address;              /* 0x13c */
	uint8_t edid_info[0x80];               /* 0x140 */
	struct lb_efi_info efi_info;           /* 0x1c0 */
	uint32_t alt_mem_k;                    /* 0x1e0 */
	uint32_t scratch;                      /* 0x1e4 */
	uint8_t e820_entries;                  /* 0x1e8 */
	uint8_t eddbuf_entries;                /* 0x1e9 */
	uint8_t edd_mbr_sig_buf_entries;       /* 0x1ea */
	uint8_t kbd_status;                    /* 0x1eb */
	uint8_t secure_boot;                   /* 0x1ec */
	uint8_t pad5[2];                       /* 0x1ed */
	uint8_t sentinel;                      /* 0x1ef */
	uint8_t pad6[1];                       /* 0x1f0 */
	struct lb_setup_header hdr;            /* 0x1f1 */
	uint8_t pad7[0x290 - 0x1f1 - sizeof(struct lb_setup_header)];
	uint32_t edd_mbr_sig_buffer[16];       /* 0x290 */
	struct lb_e820_entry e820_table[LB_E820_IN_PARAMS]; /* 0x2d0 */
	uint8_t pad8[48];                      /* 0xcd0 */
	uint8_t eddbuf[0x1ec];                 /* 0xd00 */
	uint8_t pad9[276];                     /* 0xeec */
} __attribute__((packed));

#define LB_BP_AT(field, off) \
	_Static_assert(offsetof(struct lb_boot_params, field) == (off), #field " at " #off)
LB_BP_AT(screen_info.orig_video_isVGA, 0x00f);
LB_BP_AT(screen_info.lfb_linelength, 0x024);
LB_BP_AT(screen_info.pages, 0x032);
LB_BP_AT(screen_info.capabilities, 0x036);
LB_BP_AT(screen_info.ext_lfb_base, 0x03a);
LB_BP_AT(tboot_addr, 0x058);
LB_BP_AT(acpi_rsdp_addr, 0x070);
LB_BP_AT(ext_ramdisk_image, 0x0c0);
LB_BP_AT(ext_ramdisk_size, 0x0c4);
LB_BP_AT(ext_cmd_line_ptr, 0x0c8);
LB_BP_AT(cc_blob_address, 0x13c);
LB_BP_AT(edid_info, 0x140);
LB_BP_AT(efi_info.loader_signature, 0x1c0);
LB_BP_AT(efi_info.systab, 0x1c4);
LB_BP_AT(efi_info.memdesc_size, 0x1c8);
LB_BP_AT(efi_info.memdesc_version, 0x1cc);
LB_BP_AT(efi_info.memmap, 0x1d0);
LB_BP_AT(efi_info.memmap_size, 0x1d4);
LB_BP_AT(efi_info.systab_hi, 0x1d8);
LB_BP_AT(efi_info.memmap_hi, 0x1dc);
LB_BP_AT(alt_mem_k, 0x1e0);
LB_BP_AT(e820_entries, 0x1e8);
LB_BP_AT(secure_boot, 0x1ec);
LB_BP_AT(sentinel, 0x1ef);
LB_BP_AT(hdr.setup_sects, 0x1f1);
LB_BP_AT(hdr.syssize, 0x1f4);
LB_BP_AT(hdr.boot_flag, 0x1fe);
LB_BP_AT(hdr.jump, 0x200);
LB_BP_AT(hdr.header, 0x202);
LB_BP_AT(hdr.version, 0x206);
LB_BP_AT(hdr.type_of_loader, 0x210);
LB_BP_AT(hdr.loadflags, 0x211);
LB_BP_AT(hdr.ramdisk_image, 0x218);
LB_BP_AT(hdr.ramdisk_size, 0x21c);
LB_BP_AT(hdr.cmd_line_ptr, 0x228);
LB_BP_AT(hdr.initrd_addr_max, 0x22c);
LB_BP_AT(hdr.kernel_alignment, 0x230);
LB_BP_AT(hdr.relocatable_kernel, 0x234);
LB_BP_AT(hdr.xloadflags, 0x236);
LB_BP_AT(hdr.cmdline_size, 0x238);
LB_BP_AT(hdr.setup_data, 0x250);
LB_BP_AT(hdr.pref_address, 0x258);
LB_BP_AT(hdr.init_size, 0x260);
LB_BP_AT(hdr.handover_offset, 0x264);
LB_BP_AT(hdr.kernel_info_offset, 0x268);
LB_BP_AT(edd_mbr_sig_buffer, 0x290);
LB_BP_AT(e820_table, 0x2d0);
LB_BP_AT(eddbuf, 0xd00);
_Static_assert(sizeof(struct lb_setup_header) == 0x26c - 0x1f1, "setup_header ends at 0x26c");
_Static_assert(sizeof(struct lb_screen_info) == 0x40, "screen_info is 0x40 bytes");
_Static_assert(sizeof(struct lb_boot_params) == 4096, "boot_params is the zero page");
#undef LB_BP_AT

#define LB_ZERO_PAGE_BYTES   ((unsigned)sizeof(struct lb_boot_params))
#define LB_SECTOR            512u
#define LB_HDR_OFF           ((unsigned)offsetof(struct lb_boot_params, hdr))
#define LB_MIN_FILE          0x270u    /* up to and including the 2.12 fields we read */
#define LB_ENTRY64_OFF       0x200u    /* the 64-bit entry, from the load address */
#define LB_MIN_VERSION       0x020cu   /* 2.12: xloadflags, the 64-bit entry's flag */
#define LB_RSDP_VERSION      0x020eu   /* 2.14: acpi_rsdp_addr */
#define LB_LOADER_UNDEFINED  0xffu     /* type_of_loader: "undefined" (boot.rst) */
#define LB_SETUP_COPY        0x290u    /* the file bytes the zero page takes its header from */
#define LB_EFI_SIGNATURE_64  UINT32_C(0x34364c45)   /* "EL64": a 64-bit EFI loader */
#define LB_SECURE_BOOT_DISABLED 2u     /* boot_params.secure_boot (the kernel's efi_secureboot_mode) */
#define LB_SECURE_BOOT_ENABLED  3u

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
#define LB_E820_SOFT_RESERVED UINT32_C(0xefffffff)

#define LB_EFI_MEMORY_SP  (UINT64_C(1) << 18)   /* EFI_MEMORY_SP: specific-purpose memory */

#define LB_SETUP_E820_EXT 1u           /* setup_data type of the rest */
#define LB_SETUP_DATA_HDR ((unsigned)sizeof(struct lb_setup_data_hdr))
#define LB_E820_ENTRY     ((unsigned)sizeof(struct lb_e820_entry))

/* A setup_data node's header; its len bytes of data follow. */
struct lb_setup_data_hdr {
	uint64_t next;
	uint32_t type;
	uint32_t len;
} __attribute__((packed));
_Static_assert(sizeof(struct lb_setup_data_hdr) == 16, "setup_data: next, type, len");
_Static_assert(sizeof(struct lb_e820_entry) == 20, "boot_e820_entry: addr, size, type");

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
	LB_EMAGIC = -2,       /* no 0xAA55 boot flag or no "HdrS", or a header (0x202 + byte
			       * 0x201) ending past 0x290 or before init_size: not a bzImage */
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

/*
 * lb_e820_of() - the e820 type of range @r: lb_e820_type(), but RAM with
 * EFI_MEMORY_SP (specific-purpose memory) is soft-reserved, as the EFI
 * stub passes it: the kernel leaves it to a driver instead of its
 * allocator.
 */
uint32_t lb_e820_of(const struct pt_mem_range *r);

/*
 * lb_e820_exact() - whether EFI type @efi_type has an e820 equivalent;
 * false for unaccepted memory and types the UEFI spec does not define
 * (passed as reserved: the loader names them in its report).
 */
bool lb_e820_exact(uint32_t efi_type);

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
 * Every range in address order, by lb_e820_of(); neighbours of one type
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

/*
 * What an EFI loader passes on (efi_info): the system table and the final
 * memory map, the one ExitBootServices accepted, as the firmware wrote it.
 */
struct lb_efi {
	uint64_t systab_pa;
	uint64_t memmap_pa;                 /* in pages the kernel keeps until it has read it */
	uint64_t memmap_bytes;              /* at most 4 GiB - 1: the field has 32 bits */
	uint32_t desc_size, desc_version;
	uint8_t secure_boot;                /* LB_SECURE_BOOT_*, 0: not known */
};

/* Where the loader placed what the kernel reads. */
struct lb_load {
	uint64_t cmdline_pa;
	uint64_t initrd_pa, initrd_bytes;   /* 0 bytes: none */
	uint64_t acpi_rsdp;                 /* 0: none; protocol 2.14 and later only */
	uint64_t setup_data_pa;             /* 0: nothing beyond 128 e820 entries */
	const struct lb_fb *fb;             /* NULL: no framebuffer */
	const struct lb_efi *efi;           /* NULL: no efi_info */
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
 * (with their ext_ high halves; acpi_rsdp_addr only from protocol 2.14 on,
 * where the field exists), screen_info for an EFI framebuffer, efi_info
 * ("EL64", the system table, the memory map) and secure_boot.
 */
void lb_fill_params(uint8_t *zp, const uint8_t *file, const struct lb_kernel *k,
		    const struct lb_load *ld, const struct lb_e820 *e820, unsigned n, uint8_t *ext);

/* Bytes of the SETUP_E820_EXT node for @n entries (0 when they all fit). */
static inline uint64_t lb_e820_ext_bytes(unsigned n)
{
	return n > LB_E820_IN_PARAMS ?
		LB_SETUP_DATA_HDR + (uint64_t)(n - LB_E820_IN_PARAMS) * LB_E820_ENTRY : 0;
}

#endif
