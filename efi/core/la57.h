/* SPDX-License-Identifier: MIT */
/*
 * 5-level paging before the run: which paging mode it uses, and the
 * firmware's pages for the trampoline and a switching run's frame pool
 * (boot services required).
 */
#ifndef PTLAB_EFI_CORE_LA57_H
#define PTLAB_EFI_CORE_LA57_H

#include <stdbool.h>
#include <stdint.h>

#include <efi.h>

struct ptlab;
struct ptlab_live;
struct report;
struct opts;
struct pt_memmap;

/*
 * Decide the run's paging levels from --levels, the firmware's mode and
 * CPUID, and allocate the trampoline when a switch is needed (boot services
 * required).  A 5-level request without LA57 becomes a SKIP of the 5-level
 * phase and a 4-level run.  With --kernel and no --levels,
 * @kernel_levels(the report, the --kernel path, CPUID's LA57, @li) when
 * it answers 4 or 5 (main.c passes limine_levels: a Limine-protocol
 * kernel's paging mode request; given by the caller, as limine.c calls up
 * into the pipeline that calls this).
 * Returns false when the run cannot go on.
 */
bool la57_setup(struct ptlab *p, EFI_LOADED_IMAGE *li,
		unsigned (*kernel_levels)(struct report *rep, const char *path, bool la57,
					  EFI_LOADED_IMAGE *li));

/*
 * Free the trampoline (@live's, the run's) at the end of a firmware-mode
 * run (boot services required); live->la57_tramp 0 after.
 */
void la57_release(struct ptlab_live *live);

/*
 * The frame pool (@frames pages) of a run that switches: below 4 GiB,
 * where the roots must be (boot services required); --raise=la57-root-high
 * in @o puts it above 4 GiB on purpose, in a conventional range of @map.
 * PT_OK with *pa set, or PT_ENOMEM (after a failure line on @rep when the
 * raise found no room).
 */
int la57_pool_alloc(struct report *rep, const struct opts *o, const struct pt_memmap *map,
		    uint64_t frames, uint64_t *pa);

#endif /* PTLAB_EFI_CORE_LA57_H */
