/* SPDX-License-Identifier: MIT */
/*
 * The Limine boot protocol as this test kernel uses it, written from the
 * protocol's specification (PROTOCOL.md of the Limine repository): request
 * identifiers, request and response layouts, constants.  Only x86-64.
 *
 * Every request starts with its 4-word identifier (the 2 common words and
 * 2 of its own), the request revision and the response pointer the loader
 * fills in; a response starts with its own revision.  Pointers in
 * responses are higher-half direct map addresses unless the specification
 * says otherwise (RSDP, SMBIOS and EFI system table become physical from
 * base revision 3 on; this kernel asks for revision 2).
 */
#ifndef LIMINE_PROTO_H
#define LIMINE_PROTO_H

#include <stdint.h>

#define LP_MAGIC0 0xc7b1dd30df4c8b88ULL
#define LP_MAGIC1 0x0a82e883a194f07bULL
#define LP_ID(a, b) { LP_MAGIC0, LP_MAGIC1, (a), (b) }

/* base revision tag: 2 magic words and the revision asked for */
#define LP_BASE_REV0 0xf9562b2d5c95a6c8ULL
#define LP_BASE_REV1 0x6a7b384944536bdcULL

/* the requests delimiters */
#define LP_START0 0xf6b8f4b39de7d1aeULL
#define LP_START1 0xfab91a6940fcb9cfULL
#define LP_START2 0x785c6ed015d3e316ULL
#define LP_START3 0x181e920a7852b9d9ULL
#define LP_END0 0xadc0e0531bb10d03ULL
#define LP_END1 0x9572709f31764c62ULL

#define LP_ID_BOOTLOADER_INFO LP_ID(0xf55038d8e2a1202fULL, 0x279426fcf5f59740ULL)
#define LP_ID_FIRMWARE_TYPE LP_ID(0x8c2f75d90bef28a8ULL, 0x7045a4688eac00c3ULL)
#define LP_ID_STACK_SIZE LP_ID(0x224ef0460a8e8926ULL, 0xe1cb0fc25f46ea3dULL)
#define LP_ID_HHDM LP_ID(0x48dcf1cb8ad2b852ULL, 0x63984e959a98244bULL)
#define LP_ID_FRAMEBUFFER LP_ID(0x9d5827dcd881dd75ULL, 0xa3148604f6fab11bULL)
#define LP_ID_PAGING_MODE LP_ID(0x95c1a0edab0944cbULL, 0xa4e5cb3842f7488aULL)
#define LP_ID_MP LP_ID(0x95a67b819a1b857eULL, 0xa0b61b723b6a73e0ULL)
#define LP_ID_MEMMAP LP_ID(0x67cf3d9d378a806fULL, 0xe304acdfc50c3c62ULL)
#define LP_ID_ENTRY_POINT LP_ID(0x13d86c035a1cd3e1ULL, 0x2b0caa89d8f3026aULL)
#define LP_ID_EXECUTABLE_FILE LP_ID(0xad97e90e83f1ed67ULL, 0x31eb5d1c5ff23b69ULL)
#define LP_ID_MODULE LP_ID(0x3e7e279702be32afULL, 0xca1c4f3bd1280ceeULL)
#define LP_ID_RSDP LP_ID(0xc5e77b6b397e7b43ULL, 0x27637845accdcf3cULL)
#define LP_ID_SMBIOS LP_ID(0x9e9046f11e095391ULL, 0xaa4a520fefbde5eeULL)
#define LP_ID_EFI_SYSTEM_TABLE LP_ID(0x5ceba5163eaaf6d6ULL, 0x0a6981610cf65fccULL)
#define LP_ID_EFI_MEMMAP LP_ID(0x7df62a431d6872d5ULL, 0xa4fcdfb3e57306c8ULL)
#define LP_ID_BOOT_TIME LP_ID(0x502746e184c088aaULL, 0xfbc5ec83e6327893ULL)
#define LP_ID_EXECUTABLE_ADDRESS LP_ID(0x71ba76863cc55f63ULL, 0xb2644a48c516a487ULL)

/* the head every request shares */
struct lp_req {
	uint64_t id[4];
	uint64_t revision;
	void *response;
};

struct lp_resp {
	uint64_t revision;
};

struct lp_bootloader_info {
	uint64_t revision;
	const char *name;
	const char *version;
};

#define LP_FIRMWARE_X86BIOS 0
#define LP_FIRMWARE_UEFI32 1
#define LP_FIRMWARE_UEFI64 2
#define LP_FIRMWARE_SBI 3

struct lp_firmware_type {
	uint64_t revision;
	uint64_t firmware_type;
};

struct lp_stack_size_req {
	struct lp_req head;
	uint64_t stack_size;
};

struct lp_hhdm {
	uint64_t revision;
	uint64_t offset;
};

#define LP_FB_RGB 1

struct lp_video_mode {
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
};

struct lp_framebuffer {
	void *address;
	uint64_t width;
	uint64_t height;
	uint64_t pitch;
	uint16_t bpp;
	uint8_t memory_model;
	uint8_t red_mask_size;
	uint8_t red_mask_shift;
	uint8_t green_mask_size;
	uint8_t green_mask_shift;
	uint8_t blue_mask_size;
	uint8_t blue_mask_shift;
	uint8_t unused[7];
	uint64_t edid_size;
	void *edid;
	/* response revision 1 */
	uint64_t mode_count;
	struct lp_video_mode **modes;
};

struct lp_framebuffer_resp {
	uint64_t revision;
	uint64_t framebuffer_count;
	struct lp_framebuffer **framebuffers;
};

#define LP_PAGING_4LVL 0
#define LP_PAGING_5LVL 1

struct lp_paging_mode_req {
	struct lp_req head;
	uint64_t mode;
	uint64_t max_mode;	/* request revision 1 */
	uint64_t min_mode;
};

struct lp_paging_mode_resp {
	uint64_t revision;
	uint64_t mode;
};

struct lp_mp_info;
typedef void (*lp_goto)(struct lp_mp_info *);

struct lp_mp_info {
	uint32_t processor_id;
	uint32_t lapic_id;
	uint64_t reserved;
	lp_goto goto_address;
	uint64_t extra_argument;
};

#define LP_MP_X2APIC 1u

struct lp_mp_req {
	struct lp_req head;
	uint64_t flags;
};

struct lp_mp_resp {
	uint64_t revision;
	uint32_t flags;
	uint32_t bsp_lapic_id;
	uint64_t cpu_count;
	struct lp_mp_info **cpus;
};

#define LP_MEM_USABLE 0
#define LP_MEM_RESERVED 1
#define LP_MEM_ACPI_RECLAIMABLE 2
#define LP_MEM_ACPI_NVS 3
#define LP_MEM_BAD 4
#define LP_MEM_BOOTLOADER_RECLAIMABLE 5
#define LP_MEM_EXECUTABLE_AND_MODULES 6
#define LP_MEM_FRAMEBUFFER 7
#define LP_MEM_TYPES 8

struct lp_memmap_entry {
	uint64_t base;
	uint64_t length;
	uint64_t type;
};

struct lp_memmap_resp {
	uint64_t revision;
	uint64_t entry_count;
	struct lp_memmap_entry **entries;
};

struct lp_entry_point_req {
	struct lp_req head;
	void (*entry)(void);
};

struct lp_uuid {
	uint32_t a;
	uint16_t b;
	uint16_t c;
	uint8_t d[8];
};

struct lp_file {
	uint64_t revision;
	void *address;
	uint64_t size;
	const char *path;
	const char *cmdline;
	uint32_t media_type;
	uint32_t unused;
	uint32_t tftp_ip;
	uint32_t tftp_port;
	uint32_t partition_index;
	uint32_t mbr_disk_id;
	struct lp_uuid gpt_disk_uuid;
	struct lp_uuid gpt_part_uuid;
	struct lp_uuid part_uuid;
};

struct lp_executable_file_resp {
	uint64_t revision;
	struct lp_file *executable_file;
};

#define LP_INTERNAL_REQUIRED 1u

struct lp_internal_module {
	const char *path;
	const char *cmdline;
	uint64_t flags;
};

struct lp_module_req {
	struct lp_req head;
	/* request revision 1 */
	uint64_t internal_module_count;
	struct lp_internal_module **internal_modules;
};

struct lp_module_resp {
	uint64_t revision;
	uint64_t module_count;
	struct lp_file **modules;
};

/* RSDP, SMBIOS and EFI system table: HHDM pointers below base revision 3 */
struct lp_rsdp_resp {
	uint64_t revision;
	uint64_t address;
};

struct lp_smbios_resp {
	uint64_t revision;
	uint64_t entry_32;
	uint64_t entry_64;
};

struct lp_efi_system_table_resp {
	uint64_t revision;
	uint64_t address;
};

struct lp_efi_memmap_resp {
	uint64_t revision;
	void *memmap;
	uint64_t memmap_size;
	uint64_t desc_size;
	uint64_t desc_version;
};

struct lp_boot_time_resp {
	uint64_t revision;
	int64_t boot_time;
};

struct lp_executable_address_resp {
	uint64_t revision;
	uint64_t physical_base;
	uint64_t virtual_base;
};

#endif
