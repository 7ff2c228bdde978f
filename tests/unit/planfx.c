// SPDX-License-Identifier: MIT
/* The plan fixture of the host tests: see planfx.h. */
#include <string.h>

#include "unit.h"
#include "planfx.h"

#define NR(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/*
 * An OVMF-like normalized map of a q35 guest with -m 256M: low RAM below the
 * VGA hole, the firmware's ACPI NVS islands at 8 MiB, boot-services memory,
 * this application's loader-code range, runtime code/data, ACPI tables at
 * the top of RAM, the PCIe ECAM window, the flash, and the 12 GiB reserved
 * HyperTransport hole at 1012 GiB that OVMF reports on q35.
 */
const struct pt_mem_range plan_ovmf_ranges[] = {
	{ 0x00000000, 0x0009f000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x0009f000, 0x00001000, PT_EFI_BS_DATA, WB_ALL },
	{ 0x00100000, 0x00700000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x00800000, 0x00008000, PT_EFI_ACPI_NVS, WB_ALL },
	{ 0x00808000, 0x00003000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x0080b000, 0x00001000, PT_EFI_ACPI_NVS, WB_ALL },
	{ 0x0080c000, 0x00004000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x00810000, 0x000f0000, PT_EFI_ACPI_NVS, WB_ALL },
	{ 0x00900000, 0x0d700000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x0e000000, 0x005e4000, PT_EFI_BS_DATA, WB_ALL },
	{ OVMF_LOADER, 0x0001a000, PT_EFI_LOADER_CODE, WB_ALL },
	{ 0x0e5fe000, 0x00202000, PT_EFI_CONVENTIONAL, WB_ALL },
	{ 0x0e800000, 0x00e00000, PT_EFI_BS_CODE, WB_ALL },
	{ 0x0f600000, 0x00100000, PT_EFI_BS_DATA, WB_ALL },
	{ 0x0f700000, 0x00100000, PT_EFI_RT_DATA, RT_WB },
	{ 0x0f800000, 0x00100000, PT_EFI_RT_CODE, RT_WB },
	{ 0x0f900000, 0x00200000, PT_EFI_BS_DATA, WB_ALL },
	{ 0x0fb00000, 0x0007e000, PT_EFI_ACPI_RECLAIM, WB_ALL },
	{ 0x0fb7e000, 0x00080000, PT_EFI_ACPI_NVS, WB_ALL },
	{ 0x0fbfe000, 0x0037a000, PT_EFI_BS_DATA, WB_ALL },
	{ 0x0ff78000, 0x00088000, PT_EFI_RESERVED, 0 },
	{ 0xb0000000, 0x10000000, PT_EFI_MMIO, PT_EFI_MEMORY_UC | PT_EFI_MEMORY_RUNTIME },
	{ 0xffc00000, 0x00400000, PT_EFI_MMIO, PT_EFI_MEMORY_UC | PT_EFI_MEMORY_RUNTIME },
	{ UINT64_C(0xfd00000000), UINT64_C(0x300000000), PT_EFI_RESERVED, 0 },
};

const unsigned plan_ovmf_nranges = NR(plan_ovmf_ranges);

void plan_fx_map(struct plan_fx *x, const struct pt_mem_range *r, unsigned n)
{
	assert_true(n <= NR(x->range));
	memcpy(x->range, r, n * sizeof(*r));
	memset(&x->map, 0, sizeof(x->map));
	x->map.range = x->range;
	x->map.cap = NR(x->range);
	x->map.n = n;
}

void plan_fx_init(struct plan_fx *x, const struct pt_mem_range *r, unsigned n, bool has_1g,
		  unsigned levels)
{
	memset(x, 0, sizeof(*x));
	plan_fx_map(x, r, n);
	x->plan.entry = x->entry;
	x->plan.cap = NR(x->entry);
	x->caps.has_1g = has_1g;
	x->caps.levels = levels;
	x->caps.maxphyaddr = 46;
}

void plan_fx_ovmf(struct plan_fx *x, bool has_1g, unsigned levels)
{
	plan_fx_init(x, plan_ovmf_ranges, plan_ovmf_nranges, has_1g, levels);
	/* text 48 KiB, rodata 16 KiB, data 24 KiB, inside the loader-code range */
	x->image.base = OVMF_IMG_BASE;
	x->image.size = 0x16000;
	x->image.nsections = 3;
	x->image.section[0] = (struct pt_image_section){ OVMF_IMG_BASE, 0xc000, PT_EXEC };
	x->image.section[1] = (struct pt_image_section){ OVMF_IMG_BASE + 0xc000, 0x4000, 0 };
	x->image.section[2] = (struct pt_image_section){ OVMF_IMG_BASE + 0x10000, 0x6000, PT_WRITE };
}
