/* SPDX-License-Identifier: MIT */
/*
 * The mapping plan: what ptlab maps for a normalized memory map.
 *
 *  - identity map of every memory-map range except page 0 (the null guard);
 *    ranges at or above 2^47 cannot be identity mapped (quirk, HHDM only);
 *  - a high-half direct map (HHDM) at hhdm_base + pa of every RAM-like
 *    range (classes RAM, FW_CODE, FW_DATA); hhdm_base is PT_HHDM_BASE
 *    unless the caller asks for another (a boot protocol's offset);
 *  - the loaded image again at PT_IMAGE_BASE + (pa - image base).
 *
 * Strict W^X: the image by section (text RX, read-only data R+NX, data
 * RW+NX), firmware code ranges RX, all other RAM RW+NX, MMIO RW+NX uncached.
 * Adjacent ranges with identical attributes are merged into one entry so
 * large leaves may cross them; entries never merge across attribute changes,
 * so no large leaf spans two memory types or two permission sets.
 *
 * The plan also computes the minimum number of table pages per level that a
 * largest-fit build of it needs; pt_plan_apply must use exactly that many.
 */
#ifndef PTLAB_PLAN_H
#define PTLAB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "mat.h"
#include "memmap.h"
#include "pt.h"

#define PT_HHDM_BASE    UINT64_C(0xffff800000000000)
/*
 * The lowest address of the higher half at 5 levels (bits 63:56 set): an
 * HHDM there leaves 2^56 - 2^47 bytes below PT_IMAGE_BASE, room for every
 * physical address a 52-bit MAXPHYADDR allows.
 */
#define PT_HIGHER_HALF_LA57 UINT64_C(0xff00000000000000)
#define PT_IMAGE_BASE   UINT64_C(0xffffffff80000000)
#define PT_IDENTITY_END (UINT64_C(1) << 47)

enum pt_plan_kind {
	PT_PLAN_IDENTITY = 0,
	PT_PLAN_HHDM = 1,
	PT_PLAN_IMAGE = 2,
};

struct pt_plan_entry {
	uint64_t va;
	uint64_t pa;
	uint64_t len;
	unsigned flags;             /* PT_* attributes (PT_ALLOW_WX only from pt_plan_identity_perm) */
	enum pt_page_size max_size; /* largest leaf allowed */
	enum pt_plan_kind kind;
	uint32_t efi_type;          /* memory type of the source range (image: loader code) */
};

/* A section of the loaded image: [pa, pa+len), 4 KiB aligned. */
struct pt_image_section {
	uint64_t pa;
	uint64_t len;
	unsigned flags;             /* PT_EXEC for text, PT_WRITE for data, 0 for read-only */
};

#define PT_IMAGE_MAX_SECTIONS 8u

struct pt_image {
	uint64_t base;              /* physical base of the loaded image, 4 KiB aligned */
	uint64_t size;              /* bytes, multiple of 4 KiB */
	unsigned nsections;         /* sections cover [base, base+size) exactly, sorted */
	struct pt_image_section section[PT_IMAGE_MAX_SECTIONS];
};

/* A range outside the memory map to map anyway (a framebuffer the map omits). */
struct pt_plan_extra {
	uint64_t pa, len;           /* 4 KiB aligned */
	unsigned flags;             /* PT_* attributes, e.g. PT_WRITE | PT_CACHE(PT_CACHE_WC) */
};

#define PT_PLAN_MAX_EXTRA 4u

struct pt_plan_caps {
	bool has_1g;                /* 1 GiB leaves allowed */
	unsigned levels;            /* 4 or 5 */
	unsigned maxphyaddr;
	/*
	 * Where the HHDM starts, 0 for PT_HHDM_BASE: 1 GiB aligned, in the
	 * higher half of @levels (at or above PT_HHDM_BASE at 4 levels,
	 * PT_HIGHER_HALF_LA57 at 5) and below PT_IMAGE_BASE.
	 */
	uint64_t hhdm_base;
	/*
	 * After ExitBootServices: boot-services code is free RAM (RW+NX), and
	 * runtime ranges take their permissions from @mat (the Memory
	 * Attributes Table) when given, else runtime code is mapped RWX - the
	 * one W^X exemption, as runtime drivers keep data in code ranges.
	 */
	bool boot_services_gone;
	const struct pt_mat *mat;   /* may be NULL */
	/* identity and HHDM mapped with their own flags; must not overlap the map */
	unsigned nextra;
	struct pt_plan_extra extra[PT_PLAN_MAX_EXTRA];
};

struct pt_plan {
	struct pt_plan_entry *entry;  /* caller storage, sorted by va on output */
	unsigned cap;
	unsigned n;
	uint64_t min_tables[5];       /* minimum table pages per level (root level: 1) */
	uint64_t min_total;
	uint32_t quirks;              /* PT_QUIRK_ABOVE_IDENTITY etc. */
	uint64_t identity_bytes, hhdm_bytes, image_bytes;
	uint64_t hhdm_base;           /* HHDM entries map va = hhdm_base + pa */
};

/**
 * pt_plan_build - the mapping plan for a memory map and an image
 * @map: normalized memory map (sorted, disjoint, page-aligned ranges)
 * @image: the loaded image, or NULL for none
 * @caps: paging capabilities (levels 4 or 5, maxphyaddr 32..52, 1 GiB leaves)
 * @plan: output; @plan->entry and @plan->cap set by the caller
 *
 * Identity entries for every range (page 0 excluded, nothing at or above 2^47:
 * such parts set PT_QUIRK_ABOVE_IDENTITY), HHDM entries for the RAM-like
 * classes at @caps->hhdm_base + pa, @plan->hhdm_base on output (nothing at
 * or above PT_IMAGE_BASE - hhdm_base: such parts set
 * PT_QUIRK_ABOVE_IDENTITY too, being the same kind of loss), nothing at or
 * above 2^maxphyaddr (PT_QUIRK_ABOVE_MAXPHYS), and the image's sections at
 * PT_IMAGE_BASE.  The identity map carries the image's pages with their
 * section attributes; the HHDM carries them with their range's attributes
 * (RW+NX for loader code).  The image must lie inside one RAM-like range.
 *
 * Entries of one kind that touch, virtually and physically, with the same
 * attributes are merged (keeping the first part's efi_type).  Each entry
 * allows 1 GiB leaves when @caps->has_1g, 2 MiB otherwise.
 *
 * Returns PT_OK; PT_EINVAL for NULL arguments, bad caps (an HHDM base not
 * 1 GiB aligned or outside the higher half of @caps->levels below
 * PT_IMAGE_BASE among them), a map that is not
 * sorted/aligned/disjoint, or a bad image layout (sections not covering it,
 * overlapping or unaligned, image not inside one memory-map range); PT_ECAPACITY
 * when the plan has more entries than @plan->cap (never with
 * @plan->cap >= 2 * map->n + 2 * PT_IMAGE_MAX_SECTIONS + 4: each range yields
 * at most one identity and one HHDM entry, the image's range at most
 * nsections + 2 identity entries, the image nsections entries).  On error
 * @plan->n is 0 and the entries are unspecified.
 */
int pt_plan_build(const struct pt_memmap *map, const struct pt_image *image,
		  const struct pt_plan_caps *caps, struct pt_plan *plan);

/**
 * pt_plan_min_tables - table pages a largest-fit build of entries needs
 * @e: entries, sorted by va, disjoint, none wrapping past 2^64
 * @n: number of entries
 * @levels: paging levels, 4 or 5
 * @has_1g: 1 GiB leaves allowed (entries' max_size is capped to 2 MiB otherwise)
 * @out: table pages per level; out[levels - 1] = 1 (the root), 0 above
 *
 * Works on the leaf decomposition per run of equal-sized leaves, a handful of
 * steps per entry whatever its length.  Returns the total, root included;
 * 0 (and out all zero) for a level count other than 4 or 5.
 */
uint64_t pt_plan_min_tables(const struct pt_plan_entry *e, unsigned n, unsigned levels,
			    bool has_1g, uint64_t out[5]);

/**
 * pt_plan_apply - map every entry of a plan
 * @s: an address space with nothing mapped where the plan maps
 * @plan: a plan from pt_plan_build
 *
 * pt_map per entry with its flags and max_size.  Returns PT_OK, PT_EINVAL
 * for NULL arguments, or the first pt_map error; then the entries mapped so
 * far are unmapped again (pt_map itself changes nothing when it fails, and
 * unmapping exactly what was mapped never splits a leaf), so @s holds the
 * same translations as before and its tables are freed again.
 */
int pt_plan_apply(struct pt_space *s, const struct pt_plan *plan);

/**
 * pt_plan_find - the plan entry holding an address
 * @plan: a plan from pt_plan_build (entries sorted by va, disjoint)
 * @va: virtual address
 *
 * Binary search.  Returns the entry with va in [entry va, entry va + len),
 * or NULL when no entry holds @va (or @plan is NULL).
 */
const struct pt_plan_entry *pt_plan_find(const struct pt_plan *plan, uint64_t va);

/**
 * pt_plan_identity_perm - other permissions for a range of the identity map
 * @pl: a plan (entries sorted by va, disjoint), with room up to @pl->cap
 * @pa: first byte of the range, 4 KiB aligned
 * @len: its length, 4 KiB aligned, non-zero, not wrapping past 2^64
 * @perm: the range's permissions: PT_WRITE, PT_EXEC, PT_ALLOW_WX (W with X
 *        only together with PT_ALLOW_WX); cache type and the rest stay
 * @levels: paging levels for the new minimum, 4 or 5
 * @has_1g: 1 GiB leaves allowed, for the new minimum
 *
 * Each identity entry the range touches is split into up to three entries
 * (before, the range, after); entries that already have @perm are left
 * whole, and other kinds (HHDM, image) are not touched.  The minimum table
 * count is then computed again (pt_plan_min_tables).  Returns PT_OK,
 * PT_EINVAL (NULL @pl, unaligned, empty, wrapping, other bits, or W with X
 * but without PT_ALLOW_WX), PT_ENOTMAPPED (a page no identity entry holds)
 * or PT_ECAPACITY (no room for the pieces); on error @pl is unchanged.
 */
int pt_plan_identity_perm(struct pt_plan *pl, uint64_t pa, uint64_t len, unsigned perm,
			  unsigned levels, bool has_1g);

#endif /* PTLAB_PLAN_H */
