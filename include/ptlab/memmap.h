/* SPDX-License-Identifier: MIT */
/*
 * Memory-map normalization.
 *
 * Input: the raw bytes of a UEFI memory map (GetMemoryMap), @count descriptors
 * spaced @desc_size bytes apart (never sizeof(EFI_MEMORY_DESCRIPTOR): OVMF uses
 * 48, the spec allows more).  The descriptor layout is the UEFI 2.10 one:
 *
 *   offset 0  u32 Type     offset 8  u64 PhysicalStart   offset 16 u64 VirtualStart
 *   offset 24 u64 NumberOfPages (4 KiB)                  offset 32 u64 Attribute
 *
 * Output: sorted, non-overlapping, page-aligned ranges, adjacent ranges of the
 * same type and attributes merged, zero-length ones dropped, overlaps resolved
 * toward the more restrictive type, each irregularity recorded as a quirk.
 * Entirely firmware-free: type numbers are the UEFI spec's values.
 *
 * A byte reported as both usable and reserved resolves to reserved, and this
 * holds at page granularity: a descriptor whose PhysicalStart is not 4 KiB
 * aligned (quirk PT_QUIRK_UNALIGNED) is trimmed inwards to the pages it holds
 * whole when its class is PT_MEM_RAM, and rounded outwards (start down, end
 * up) to every page it touches for any other class, which then outranks RAM
 * there as in any overlap.  So no output RAM page holds a byte of a non-RAM
 * descriptor, and every output RAM page is held whole by RAM descriptors.
 */
#ifndef PTLAB_MEMMAP_H
#define PTLAB_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* UEFI memory types (spec 2.10 §7.2, EFI_MEMORY_TYPE). */
enum pt_efi_type {
	PT_EFI_RESERVED = 0,
	PT_EFI_LOADER_CODE = 1,
	PT_EFI_LOADER_DATA = 2,
	PT_EFI_BS_CODE = 3,
	PT_EFI_BS_DATA = 4,
	PT_EFI_RT_CODE = 5,
	PT_EFI_RT_DATA = 6,
	PT_EFI_CONVENTIONAL = 7,
	PT_EFI_UNUSABLE = 8,
	PT_EFI_ACPI_RECLAIM = 9,
	PT_EFI_ACPI_NVS = 10,
	PT_EFI_MMIO = 11,
	PT_EFI_MMIO_PORT = 12,
	PT_EFI_PAL_CODE = 13,
	PT_EFI_PERSISTENT = 14,
	PT_EFI_UNACCEPTED = 15,
	PT_EFI_TYPE_COUNT = 16,
};

/* UEFI attribute bits used here. */
#define PT_EFI_MEMORY_UC       UINT64_C(0x1)
#define PT_EFI_MEMORY_WC       UINT64_C(0x2)
#define PT_EFI_MEMORY_WT       UINT64_C(0x4)
#define PT_EFI_MEMORY_WB       UINT64_C(0x8)
#define PT_EFI_MEMORY_WP       UINT64_C(0x1000)
#define PT_EFI_MEMORY_RP       UINT64_C(0x2000)
#define PT_EFI_MEMORY_XP       UINT64_C(0x4000)
#define PT_EFI_MEMORY_RO       UINT64_C(0x20000)
#define PT_EFI_MEMORY_RUNTIME  (UINT64_C(1) << 63)

/* EFI_MEMORY_DESCRIPTOR field offsets (see the top); the stride is DescriptorSize. */
#define PT_EFI_DESC_TYPE       0u       /* u32 Type */
#define PT_EFI_DESC_PA         8u       /* u64 PhysicalStart */
#define PT_EFI_DESC_VA         16u      /* u64 VirtualStart */
#define PT_EFI_DESC_PAGES      24u      /* u64 NumberOfPages (4 KiB) */
#define PT_EFI_DESC_ATTR       32u      /* u64 Attribute */
#define PT_EFI_DESC_MIN        40u      /* smallest descriptor that holds the fields */
#define PT_EFI_DESC_MAX        4096u    /* larger strides are rejected as absurd */
#define PT_MEMMAP_MAX_DESC     65536u   /* larger counts are rejected */

/* What ptlab does with a range. */
enum pt_mem_class {
	PT_MEM_RAM,        /* free or reclaimable RAM: conventional, BS code/data, loader, ACPI reclaim, persistent */
	PT_MEM_FW_CODE,    /* code the firmware may still run: BS/RT code, PAL code */
	PT_MEM_FW_DATA,    /* RT data, ACPI NVS: RAM the firmware keeps */
	PT_MEM_MMIO,       /* MMIO, MMIO port space */
	PT_MEM_RESERVED,   /* reserved, unusable, unaccepted, unknown types */
};

struct pt_mem_range {
	uint64_t pa;         /* 4 KiB aligned */
	uint64_t len;        /* multiple of 4 KiB, > 0 */
	uint32_t type;       /* enum pt_efi_type (unknown types become PT_EFI_RESERVED) */
	uint64_t attr;       /* UEFI attribute bits */
};

/* Quirk bits (struct pt_memmap.quirks) with a count each (quirk_count[bit]). */
enum pt_memmap_quirk {
	PT_QUIRK_UNSORTED = 0,       /* descriptors not in ascending order */
	PT_QUIRK_OVERLAP = 1,        /* two descriptors overlap (resolved to the more restrictive type) */
	PT_QUIRK_ZERO_LENGTH = 2,    /* NumberOfPages == 0 (dropped) */
	PT_QUIRK_UNALIGNED = 3,      /* PhysicalStart not 4 KiB aligned (rounded by class, see top) */
	PT_QUIRK_WRAP = 4,           /* start + length wraps past 2^64 (clamped) */
	PT_QUIRK_UNKNOWN_TYPE = 5,   /* type >= PT_EFI_TYPE_COUNT (treated as reserved) */
	PT_QUIRK_ABOVE_MAXPHYS = 6,  /* range at or above 2^maxphyaddr (cut off) */
	PT_QUIRK_ABOVE_IDENTITY = 7, /* set by the plan: RAM at or above 2^47, HHDM only */
	PT_QUIRK_COUNT = 8,
};

struct pt_memmap {
	struct pt_mem_range *range;   /* caller storage */
	unsigned cap;                 /* its capacity (2 * count is always enough) */
	unsigned n;
	unsigned descriptors;         /* descriptors read */
	unsigned desc_size;
	uint32_t quirks;              /* bit per enum pt_memmap_quirk */
	unsigned quirk_count[PT_QUIRK_COUNT];
	uint64_t usable_bytes;        /* bytes of class PT_MEM_RAM */
};

/**
 * pt_mem_class_of - what ptlab does with a UEFI memory type
 * @type: UEFI memory type number
 *
 * Returns the class; PT_MEM_RESERVED for unknown types.  Boot-services code
 * counts as firmware code (it runs until ExitBootServices), boot-services
 * data as RAM.
 */
enum pt_mem_class pt_mem_class_of(uint32_t type);
/**
 * pt_efi_type_name - UEFI memory type name as the spec spells it, without
 * the "Efi" prefix and "Memory" suffix
 * @type: UEFI memory type number
 *
 * Returns a string constant; "Unknown" for types the spec does not define.
 */
const char *pt_efi_type_name(uint32_t type);
/**
 * pt_quirk_name - short name of a memory-map quirk
 * @q: quirk bit number
 *
 * Returns a string constant ("unsorted", "overlap", ...); "unknown" for
 * numbers outside enum pt_memmap_quirk.
 */
const char *pt_quirk_name(enum pt_memmap_quirk q);

/**
 * pt_memmap_normalize - sorted, non-overlapping ranges from a raw UEFI memory map
 * @raw: the descriptors
 * @raw_len: bytes available at @raw
 * @count: number of descriptors
 * @desc_size: stride between descriptors
 * @maxphyaddr: physical address bits; bytes at or above 2^@maxphyaddr are cut off
 * @out: receives the ranges (out->range, out->cap set by the caller)
 *
 * out->range is also the working space: out->cap must be at least twice the
 * number of descriptors left after dropping empty and cut-off ones (2 * @count
 * is always enough), even when the result is shorter.
 *
 * Where descriptors overlap, the more restrictive type wins (see by_rank);
 * the attributes of the bytes are those of the winning type's descriptors
 * (OR-ed when several of that type cover them).  Unknown types become
 * PT_EFI_RESERVED.  An unaligned descriptor of class PT_MEM_RAM is trimmed
 * inwards to the pages it holds whole; one of any other class is rounded
 * outwards to every page it touches, so a page holding any byte that is not
 * free never comes out as RAM.  A length that wraps past 2^64 is clamped at
 * the last page boundary.
 *
 * Returns PT_OK; PT_EINVAL (@out NULL, or out->range NULL with a non-zero
 * cap); PT_EMAPBAD (@desc_size < 40, > 4096 or not a multiple of 8,
 * @count > 65536, @raw NULL or @raw_len < @count * @desc_size); PT_ECAPACITY
 * (out->cap too small; out->descriptors is then the index of the descriptor
 * that found no room).  On error out->n is 0 and the rest of @out,
 * out->range[] included, may have been written.
 */
int pt_memmap_normalize(const void *raw, size_t raw_len, unsigned count, unsigned desc_size,
			unsigned maxphyaddr, struct pt_memmap *out);

/*
 * Queries on a normalized map (sorted, non-overlapping ranges, as
 * pt_memmap_normalize leaves them), each a binary search: O(log n).  A map
 * that is not normalized gives unspecified (but memory-safe) answers.
 */

/* Bit of a class in a class set; the sets below are what ptlab asks about. */
#define PT_MEM_CLASS_BIT(c)    (1u << (c))
/* Backed by memory, safe to read: RAM and what the firmware keeps (not MMIO, reserved or a hole). */
#define PT_MEM_SET_MEMORY      (PT_MEM_CLASS_BIT(PT_MEM_RAM) | PT_MEM_CLASS_BIT(PT_MEM_FW_CODE) | \
				PT_MEM_CLASS_BIT(PT_MEM_FW_DATA))
#define PT_MEM_SET_MMIO        PT_MEM_CLASS_BIT(PT_MEM_MMIO)

/**
 * pt_memmap_find - the range holding a physical address
 * @m: normalized map
 * @pa: physical address
 *
 * Returns the range with range->pa <= @pa < range->pa + range->len, or NULL
 * when @pa is in a hole (or @m is NULL).
 */
const struct pt_mem_range *pt_memmap_find(const struct pt_memmap *m, uint64_t pa);

/**
 * pt_memmap_covers - is every byte of [pa, pa + len) in a range of the given classes?
 * @m: normalized map
 * @pa: first byte
 * @len: bytes
 * @classes: set of enum pt_mem_class, PT_MEM_CLASS_BIT()s or-ed (PT_MEM_SET_MEMORY, ...)
 *
 * Returns true when ranges of a class in @classes cover the bytes back to
 * back, with no hole and no byte of another class.  False for @len 0, for
 * a span that wraps past 2^64 (the last byte may be 2^64 - 1) and for @m
 * NULL.  pt_memmap_covers(m, pa, 1, PT_MEM_SET_MMIO) is "is @pa MMIO".
 */
bool pt_memmap_covers(const struct pt_memmap *m, uint64_t pa, uint64_t len, unsigned classes);

/**
 * pt_memmap_overlaps - does any range hold a byte of [pa, pa + len)?
 * @m: normalized map
 * @pa: first byte
 * @len: bytes; a span past 2^64 is cut at 2^64 - 1
 *
 * Returns false for @len 0 and @m NULL.
 */
bool pt_memmap_overlaps(const struct pt_memmap *m, uint64_t pa, uint64_t len);

/**
 * pt_memmap_class_bytes - how many bytes of [pa, pa + len) are in ranges of the given classes?
 * @m: normalized map
 * @pa: first byte
 * @len: bytes; a span past 2^64 is cut at 2^64 - 1
 * @classes: set of enum pt_mem_class, PT_MEM_CLASS_BIT()s or-ed
 *
 * Holes and ranges of other classes count nothing.  Returns 0 for @len 0
 * and @m NULL.  pt_memmap_class_bytes(m, pa, len, PT_MEM_SET_MMIO) is the
 * MMIO inside a span.
 */
uint64_t pt_memmap_class_bytes(const struct pt_memmap *m, uint64_t pa, uint64_t len,
			       unsigned classes);

#endif /* PTLAB_MEMMAP_H */
