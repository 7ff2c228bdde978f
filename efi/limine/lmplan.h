/* SPDX-License-Identifier: MIT */
/*
 * What a Limine hand-off adds to ptlab's plan, firmware-free
 * (host-tested): ptlab's image alias moved out of the kernel's top 2 GiB,
 * the kernel's segments at their virtual addresses with their own
 * permissions, and the first 4 GiB completed in the HHDM (and, for base
 * revision 0, in the identity map) over what the plan does not map there;
 * then every HHDM entry mapped
 * as the protocol's "Entry memory layout" says: supervisor read, write
 * and execute, write-back at the table level, the framebuffer
 * write-combining (through the protocol's PAT layout, which the caller
 * programs).  The plan stays sorted by va with no
 * two entries overlapping, and its table minimum is computed again.
 */
#ifndef PTLAB_EFI_LMPLAN_H
#define PTLAB_EFI_LMPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/plan.h>

#include "limine/lmelf.h"

/* Where ptlab's image alias goes: the first GiB of PML4 slot 511. */
#define LM_IMAGE_ALIAS_VA UINT64_C(0xffffff8000000000)

/* What lm_plan_add() needs of the hand-off. */
struct lm_plan_in {
	const struct lm_elf *elf;    /* the kernel, as lm_elf_parse() planned it */
	uint64_t block_pa;           /* where its load block is (elf->va maps here) */
	bool identity_low;           /* base revision 0: [4 KiB, 4 GiB) identity mapped too */
	unsigned levels;             /* 4 or 5 */
	bool has_1g;                 /* 1 GiB leaves allowed */
	uint64_t fb_pa, fb_len;      /* the framebuffer, page aligned; fb_len 0: none */
};

/**
 * lm_plan_add - the Limine hand-off's entries in a plan of pt_plan_build()
 * @pl: the plan (its image entries at PT_IMAGE_BASE)
 * @in: the kernel and the machine
 *
 * The image entries move down by PT_IMAGE_BASE - LM_IMAGE_ALIAS_VA; each
 * segment's pages [va rounded down, va + memsz rounded up) map
 * block_pa + (va - elf->va) with W and X as the segment's flags (a page
 * the previous segment already mapped is left to it: lm_elf_parse()
 * refuses pages shared by different permissions), as PT_PLAN_IMAGE
 * entries of at most 2 MiB leaves; every gap of the HHDM entries in
 * [0, 4 GiB), and with @in->identity_low of the identity entries in
 * [4 KiB, 4 GiB), gets an entry (identity: PT_WRITE | PT_CACHE_UC, NX;
 * ptlab's own identity entries keep their attributes); then every HHDM
 * entry gets PT_WRITE | PT_EXEC |
 * PT_ALLOW_WX and PT_CACHE_WB, PT_CACHE_WC where it maps the framebuffer
 * (an entry crossing its ends split there).  The caller records these
 * ranges as W^X exemptions (lm_plan_end() gives their extent).
 *
 * Returns PT_OK; PT_EINVAL for a W+X segment, a framebuffer not page
 * aligned or missing arguments,
 * PT_ECAPACITY when the plan has no room, PT_EEXIST when a new entry
 * would overlap one there (the kernel over the moved alias).  On error
 * the plan is unspecified.
 */
int lm_plan_add(struct pt_plan *pl, const struct lm_plan_in *in);

/*
 * lm_plan_end - the end of the highest physical range the entries of
 * @kind map (0 when none, or @pl NULL): [0, end) holds all they map.
 */
uint64_t lm_plan_end(const struct pt_plan *pl, enum pt_plan_kind kind);

#endif
