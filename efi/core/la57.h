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

/*
 * Decide the run's paging levels from --levels, the firmware's mode and
 * CPUID, and allocate the trampoline when a switch is needed (boot services
 * required).  A 5-level request without LA57 becomes a SKIP of the 5-level
 * phase and a 4-level run.  With --kernel and no --levels,
 * @kernel_levels(p, @li) when it answers 4 or 5 (main.c passes
 * limine_levels: a Limine-protocol kernel's paging mode request; given by
 * the caller, as limine.c calls up into the pipeline that calls this).
 * Returns false when the run cannot go on.
 */
bool la57_setup(struct ptlab *p, EFI_LOADED_IMAGE *li,
		unsigned (*kernel_levels)(struct ptlab *p, EFI_LOADED_IMAGE *li));

/* Free the trampoline at the end of a firmware-mode run (boot services required). */
void la57_release(struct ptlab *p);

/*
 * The frame pool of a run that switches: below 4 GiB, where the roots must
 * be (boot services required); --raise=la57-root-high puts it above 4 GiB
 * on purpose.  PT_OK with *pa set, or PT_ENOMEM.
 */
int la57_pool_alloc(struct ptlab *p, uint64_t frames, uint64_t *pa);

#endif /* PTLAB_EFI_CORE_LA57_H */
