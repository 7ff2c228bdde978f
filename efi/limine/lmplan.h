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

/*
 * The HHDM offset of a hand-off at @levels.  PROTOCOL.md leaves it to the
 * loader ("HHDM start is returned by the HHDM feature"); the reference
 * loader puts it at the start of the higher half of the paging mode:
 * 0xffff800000000000 at 4 levels, 0xff00000000000000 at 5, where
 * [offset, offset + 2^52) holds every physical address the CPU can form
 * and stays below the kernel's 0xffffffff80000000.  At 4 levels the
 * higher half holds 2^47 - 2 GiB of it (a MAXPHYADDR of 46 or less).
 */
#define LM_HHDM_4LVL PT_HHDM_BASE
#define LM_HHDM_5LVL PT_HIGHER_HALF_LA57

static inline uint64_t lm_hhdm_offset(unsigned levels)
{
	return levels == 5 ? LM_HHDM_5LVL : LM_HHDM_4LVL;
}

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
 * @pl: the plan (its image entries at PT_IMAGE_BASE, its HHDM at
 *      lm_hhdm_offset(@in->levels))
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
 * aligned, a plan whose HHDM is not at the offset of @in->levels, or
 * missing arguments,
 * PT_ECAPACITY when the plan has no room, PT_EEXIST when a new entry
 * would overlap one there (the kernel over the moved alias).  On error
 * the plan is unspecified.
 */
int lm_plan_add(struct pt_plan *pl, const struct lm_plan_in *in);

/* What lm_layout_check() judges: the responses as built, and the plan. */
struct lm_layout_in {
	unsigned levels;             /* the paging mode the tables are built for */
	unsigned maxphyaddr;         /* CPUID 0x80000008 EAX[7:0] */
	uint64_t hhdm_offset;        /* the HHDM response's offset */
	bool have_paging_mode;       /* the kernel asked for the paging mode: */
	uint64_t paging_mode;        /* the paging mode response's mode */
	uint64_t kernel_va;          /* the kernel's lowest address after the slide */
	const struct pt_plan *plan;  /* the plan the tables handed over are built from */
};

/* What lm_layout_check() found: the extent of the direct map it proved. */
struct lm_layout_out {
	uint64_t hhdm_end;           /* the HHDM entries' highest va + 1 */
	bool all_phys;               /* [offset, offset + 2^maxphyaddr) below the kernel */
};

/**
 * lm_layout_check - the responses against the layout the protocol and the
 * reference loader fix for the paging mode
 * @in: the responses' values, the plan, the machine
 * @out: the extent proved (set on success)
 *
 * Holds when: the HHDM offset is lm_hhdm_offset(@in->levels); the paging
 * mode response, when there is one, names @in->levels; the plan's HHDM is
 * at that offset, every HHDM entry maps va = offset + pa and ends at or
 * below the kernel's lowest address, itself at or above the protocol's
 * floor 0xffffffff80000000 (PT_IMAGE_BASE); and at 5 levels [offset, offset + 2^maxphyaddr)
 * lies below the kernel floor (at 4 levels @out->all_phys says whether it
 * does: the mode's higher half holds 2^47 - 2 GiB).
 *
 * Returns NULL when it holds, else the first rule broken, as a phrase.
 */
const char *lm_layout_check(const struct lm_layout_in *in, struct lm_layout_out *out);

/*
 * lm_plan_end - the end of the highest physical range the entries of
 * @kind map (0 when none, or @pl NULL): [0, end) holds all they map.
 */
uint64_t lm_plan_end(const struct pt_plan *pl, enum pt_plan_kind kind);

#endif
