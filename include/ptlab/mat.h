/* SPDX-License-Identifier: MIT */
/*
 * UEFI Memory Attributes Table (EFI_MEMORY_ATTRIBUTES_TABLE, UEFI 2.10
 * §4.6.4): the permissions the firmware asks for its runtime ranges, which
 * the memory map alone does not tell (runtime code images are split into
 * read-only text and non-executable data there).
 *
 * Layout, little endian:
 *
 *   offset 0  u32 Version (1 or 2)       offset 4  u32 NumberOfEntries
 *   offset 8  u32 DescriptorSize         offset 12 u32 Reserved (v2: flags)
 *   offset 16 NumberOfEntries descriptors of DescriptorSize bytes, each
 *             laid out as a memory-map descriptor (memmap.h): u32 Type,
 *             u64 PhysicalStart, u64 VirtualStart, u64 NumberOfPages,
 *             u64 Attribute.
 *
 * Attribute bits read: EFI_MEMORY_RO (no write), EFI_MEMORY_XP (no
 * execute), EFI_MEMORY_RP (no access at all).  A range with neither RO nor
 * XP asks for write and execute: the parser says so (rwx) and leaves it to
 * the caller whether to map it with PT_ALLOW_WX, drop W or X, or refuse.
 *
 * Firmware-free; the table's bytes come from the caller (the configuration
 * table with EFI_MEMORY_ATTRIBUTES_TABLE_GUID, copied before
 * ExitBootServices or read through any mapping of it).
 */
#ifndef PTLAB_MAT_H
#define PTLAB_MAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memmap.h"
#include "pt.h"

#define PT_MAT_HEADER_SIZE  16u

/* One runtime range and the PT_* attributes the firmware asks for. */
struct pt_mat_range {
	uint64_t pa;          /* 4 KiB aligned */
	uint64_t len;         /* bytes, multiple of 4 KiB, > 0 */
	unsigned flags;       /* PT_WRITE unless RO, PT_EXEC unless XP (none when RP);
			       * PT_ALLOW_WX is never set */
	bool rwx;             /* neither RO nor XP: flags hold PT_WRITE | PT_EXEC */
	bool rp;              /* EFI_MEMORY_RP: no access; map not present or not at all */
	uint32_t type;        /* PT_EFI_RT_CODE or PT_EFI_RT_DATA */
	uint64_t attr;        /* the descriptor's Attribute, as given */
};

/* Why a table was refused (struct pt_mat.why), besides the PT_EMAPBAD code. */
enum pt_mat_why {
	PT_MAT_OK = 0,
	PT_MAT_SHORT,         /* fewer than 16 bytes, or the entries do not fit in the bytes given */
	PT_MAT_VERSION,       /* Version not 1 or 2 */
	PT_MAT_DESC_SIZE,     /* DescriptorSize < 40, > 4096 or not a multiple of 8 */
	PT_MAT_COUNT,         /* NumberOfEntries > PT_MEMMAP_MAX_DESC */
	PT_MAT_TYPE,          /* entry neither runtime code nor runtime data */
	PT_MAT_UNALIGNED,     /* PhysicalStart not 4 KiB aligned */
	PT_MAT_EMPTY,         /* NumberOfPages 0 */
	PT_MAT_WRAP,          /* start + length reaches or wraps past 2^64 */
	PT_MAT_ABOVE_MAXPHYS, /* range ends above 2^maxphyaddr */
	PT_MAT_ORDER,         /* entries not ascending, or overlapping */
	PT_MAT_WHY_COUNT,
};

struct pt_mat {
	struct pt_mat_range *range;   /* caller storage */
	unsigned cap;                 /* its capacity */
	unsigned n;                   /* ranges parsed */
	uint32_t version;
	uint32_t desc_size;
	uint32_t flags;               /* the Reserved/flags word (version 2) */
	unsigned rwx;                 /* ranges with rwx set */
	unsigned rp;                  /* ranges with rp set */
	enum pt_mat_why why;          /* after PT_EMAPBAD: what was wrong */
	unsigned bad_index;           /* ... and in which entry (PT_MAT_TYPE..PT_MAT_ORDER) */
};

/**
 * pt_mat_why_name - short name of a reason a table was refused
 * @why: enum pt_mat_why value
 *
 * Returns a string constant, "?" for values outside the enum.
 */
const char *pt_mat_why_name(enum pt_mat_why why);

/**
 * pt_mat_parse - read a Memory Attributes Table into PT_* ranges
 * @raw:        the table's bytes, header first
 * @raw_len:    bytes readable at @raw
 * @maxphyaddr: physical address bits; ranges must end at or below 2^maxphyaddr
 * @out:        result; range and cap set by the caller
 *
 * One range per descriptor, in table order.  Entries must be ascending and
 * must not overlap (the spec requires both).
 *
 * Returns PT_OK; PT_EINVAL (NULL @raw or @out, or @maxphyaddr outside
 * 32..52); PT_EMAPBAD (bad table: out->why and out->bad_index say what and
 * where); PT_ECAPACITY (more entries than out->cap).  On any error out->n,
 * out->rwx and out->rp are 0 and the entries of out->range are unspecified.
 */
int pt_mat_parse(const void *raw, size_t raw_len, unsigned maxphyaddr, struct pt_mat *out);

/**
 * pt_mat_find - the parsed range that holds a physical address
 * @mat: a table parsed by pt_mat_parse
 * @pa:  physical address
 *
 * Returns the range, or NULL when no range holds @pa.
 */
const struct pt_mat_range *pt_mat_find(const struct pt_mat *mat, uint64_t pa);

#endif /* PTLAB_MAT_H */
