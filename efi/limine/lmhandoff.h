/* SPDX-License-Identifier: MIT */
/*
 * What the Limine protocol (lmhandoff.c) decides before the run, for
 * la57.c: the paging levels a Limine-protocol kernel asks for.
 */
#ifndef PTLAB_EFI_LIMINE_LMHANDOFF_H
#define PTLAB_EFI_LIMINE_LMHANDOFF_H

#include <efi.h>

#include <stdbool.h>

struct report;

/*
 * For a run with --kernel=@path and no --levels, before the run's levels
 * are set: the file read from @li's volume; when it is an ELF file, its load
 * block laid out in a scratch buffer and its requests scanned, the paging
 * mode chosen for this CPU as the hand-off will (lm_paging_choose: the
 * mode the kernel prefers unless the CPU lacks it: @la57, CPUID's), told
 * in a "limine-levels" fact on @rep.  Returns 5 or 4; 0 when the file cannot be read,
 * is not ELF, or is refused (the kernel's load, later, says why), and the
 * run keeps the firmware's levels.  Nothing stays allocated.
 */
unsigned limine_levels(struct report *rep, const char *path, bool la57, EFI_LOADED_IMAGE *li);

struct kernel_proto;

/* The Limine boot protocol as a kernel hand-off protocol (kernel.h). */
extern const struct kernel_proto kernel_limine;

#endif
