/* SPDX-License-Identifier: MIT */
/*
 * The plan fixture of the host tests (tests/unit/planfx.c): a normalized
 * memory map, the image's sections, room for a plan and the capabilities
 * pt_plan_build is given, in one struct, set up in one call.  The sample
 * machine is OVMF's q35 guest with -m 256M (plan_fx_ovmf).
 */
#ifndef PTLAB_TEST_PLANFX_H
#define PTLAB_TEST_PLANFX_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/plan.h>

#define PLAN_FX_RANGES  64u
#define PLAN_FX_ENTRIES 256u

/* UEFI's cacheability attributes of ordinary RAM, and of runtime RAM */
#define WB_ALL (PT_EFI_MEMORY_UC | PT_EFI_MEMORY_WC | PT_EFI_MEMORY_WT | PT_EFI_MEMORY_WB)
#define RT_WB (PT_EFI_MEMORY_RUNTIME | WB_ALL)

/* the sample machine's image (in its loader-code range) */
#define OVMF_IMG_BASE UINT64_C(0x0e5e5000)
#define OVMF_LOADER   UINT64_C(0x0e5e4000)

struct plan_fx {
	struct pt_mem_range range[PLAN_FX_RANGES];
	struct pt_memmap map;
	struct pt_image image;
	struct pt_plan_entry entry[PLAN_FX_ENTRIES];
	struct pt_plan plan;
	struct pt_plan_caps caps;
};

/* OVMF's normalized map of the sample machine (planfx.c says what it holds) */
extern const struct pt_mem_range plan_ovmf_ranges[];
extern const unsigned plan_ovmf_nranges;

/* @x's map a copy of the @n ranges @r (n <= PLAN_FX_RANGES, checked). */
void plan_fx_map(struct plan_fx *x, const struct pt_mem_range *r, unsigned n);
/*
 * @x anew: the @n ranges @r as its map, no image, an empty plan with room
 * for PLAN_FX_ENTRIES, capabilities @has_1g, @levels and MAXPHYADDR 46.
 */
void plan_fx_init(struct plan_fx *x, const struct pt_mem_range *r, unsigned n, bool has_1g,
		  unsigned levels);
/* plan_fx_init with OVMF's map and an image of three sections at OVMF_IMG_BASE. */
void plan_fx_ovmf(struct plan_fx *x, bool has_1g, unsigned levels);

#endif
