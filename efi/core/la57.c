/* SPDX-License-Identifier: MIT */
/*
 * 5-level paging before the run: which mode a run uses, and the pages of
 * the trampoline that switches CR4.LA57 (live/la57tramp_asm.S; the steps
 * are in live/la57tramp.h) and of a switching run's pool: pages from
 * fw/owned.c's allocator, with boot services alive, so this part stays in
 * core/.
 * The switch itself is live/la57.c, the trampoline live/la57tramp.c.
 */
#include <efi.h>
#include <efilib.h>

#include "live/la57.h"
#include "core/la57.h"
#include "live/la57tramp.h"
#include "fw/owned.h"
#include "state/state.h"
#include "report/report.h"

#define BELOW_4G        UINT64_C(0x100000000)

bool la57_setup(struct ptlab *p, EFI_LOADED_IMAGE *li,
		unsigned (*kernel_levels)(struct report *rep, const char *path, bool la57,
					  EFI_LOADED_IMAGE *li))
{
	uint64_t pa = BELOW_4G - 1;
	unsigned asked;

	p->cpu.fw_levels = p->cpu.caps.la57_enabled ? 5 : 4;
	p->build.levels = p->opts.levels ? p->opts.levels : p->cpu.fw_levels;
	/* no --levels: a Limine-protocol kernel's paging mode request decides */
	if (!p->opts.levels && p->opts.kernel[0] && kernel_levels &&
	    (asked = kernel_levels(p->rep, p->opts.kernel, p->cpu.caps.la57, li)))
		p->build.levels = asked;
	if (p->build.levels == 5 && !p->cpu.caps.la57) {
		report_skip(p->rep, "5-level phase", "--levels=5 but the CPU has no LA57 "
			    "(CPUID.(EAX=7,ECX=0):ECX[16]=0); the 4-level suite runs instead");
		p->build.levels = 4;
	}
	if (p->build.levels == p->cpu.fw_levels)
		return true;
	if (owned_alloc(AllocateMaxAddress, EfiLoaderCode, LA57_PAGES * PT_PAGE_SIZE, &pa) !=
	    EFI_SUCCESS) {
		report_fail(p->rep, "la57: no two pages of loader code below 4 GiB for the "
			    "trampoline");
		return false;
	}
	p->live.la57_tramp = pa;
	la57_tramp_init(pa);
	report_fact(p->rep, "la57", "switch=%u-to-%u trampoline=0x%llx stack_top=0x%llx",
		    p->cpu.fw_levels, p->build.levels, (unsigned long long)pa,
		    (unsigned long long)(pa + LA57_DATA + LA57_P_STACK_TOP));
	return true;
}

void la57_release(struct ptlab_live *live)
{
	if (!live->la57_tramp)
		return;
	la57_arm_fatal_leave(NULL);
	owned_free(live->la57_tramp, LA57_PAGES * PT_PAGE_SIZE);
	live->la57_tramp = 0;
}

/*
 * @frames pages at *@pa in a conventional range of @map above 4 GiB, for
 * the pool: --raise=la57-root-high.  False when none could be had.
 */
static bool pool_above_4g(const struct pt_memmap *map, uint64_t frames, EFI_PHYSICAL_ADDRESS *pa)
{
	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t a = r->pa < BELOW_4G ? BELOW_4G : r->pa;

		if (r->type != PT_EFI_CONVENTIONAL || a >= r->pa + r->len ||
		    r->pa + r->len - a < frames * PT_PAGE_SIZE)
			continue;
		*pa = a;
		if (owned_alloc(AllocateAddress, EfiLoaderData, frames * PT_PAGE_SIZE, pa) ==
		    EFI_SUCCESS)
			return true;
	}
	return false;
}

int la57_pool_alloc(struct report *rep, const struct opts *o, const struct pt_memmap *map,
		    uint64_t frames, uint64_t *out)
{
	EFI_PHYSICAL_ADDRESS pa = BELOW_4G - 1;

	if (o->raise == OPTS_RAISE_LA57_ROOT_HIGH) {
		if (!pool_above_4g(map, frames, &pa)) {
			report_fail(rep, "la57: --raise=la57-root-high needs %llu free pages "
				    "above 4 GiB", (unsigned long long)frames);
			return PT_ENOMEM;
		}
	} else if (owned_alloc(AllocateMaxAddress, EfiLoaderData, frames * PT_PAGE_SIZE, &pa) !=
		   EFI_SUCCESS) {
		return PT_ENOMEM;
	}
	*out = pa;
	return PT_OK;
}

