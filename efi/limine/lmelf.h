/* SPDX-License-Identifier: MIT */
/*
 * An x86-64 ELF64 kernel for the Limine protocol, firmware-free
 * (host-tested): the file judged, its load block computed (one physically
 * contiguous block from the lowest segment's page to the highest
 * segment's end), the slide chosen, the segments copied into the block and
 * the relative relocations applied.
 *
 * Two steps so that a refusal happens before anything is allocated or
 * written: lm_elf_parse() reads the file only and says how big the block
 * is and how it must be aligned; the caller allocates it; lm_elf_load()
 * writes it.  Every refusal leaves a specific message in @why.
 */
#ifndef PTLAB_EFI_LMELF_H
#define PTLAB_EFI_LMELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LM_KERNEL_MIN_VA   UINT64_C(0xffffffff80000000)  /* no segment below, after the slide */
#define LM_ELF_MAX_SEGS    16u                           /* PT_LOAD segments accepted */
#define LM_ELF_MAX_SPAN    (UINT64_C(1) << 30)           /* default bound of the load block */

/* ELF values used (the System V gABI and its x86-64 supplement) */
#define LM_ET_EXEC         2u
#define LM_ET_DYN          3u
#define LM_EM_X86_64       62u
#define LM_R_X86_64_RELATIVE 8u

/* segment permissions (struct lm_seg.flags), as ELF's p_flags bits */
#define LM_SEG_X           1u
#define LM_SEG_W           2u
#define LM_SEG_R           4u

/* One PT_LOAD segment, where it goes. */
struct lm_seg {
	uint64_t va;           /* p_vaddr + slide (not page-aligned in general) */
	uint64_t off;          /* va - the block's va: offset in the block */
	uint64_t file_off;     /* p_offset */
	uint64_t filesz;       /* bytes copied from the file */
	uint64_t memsz;        /* bytes in memory: past filesz zero-filled */
	uint32_t flags;        /* LM_SEG_R / W / X */
};

struct lm_elf {
	uint16_t type;         /* LM_ET_EXEC or LM_ET_DYN */
	uint64_t entry;        /* e_entry + slide */
	uint64_t slide;        /* added to every link-time address (0 for ET_EXEC) */
	uint64_t va;           /* the block's va: lowest p_vaddr, page-down, + slide */
	uint64_t span;         /* the block's bytes: a multiple of 4 KiB */
	uint64_t align;        /* the block's physical alignment: largest p_align, >= 4 KiB */
	unsigned nseg;
	struct lm_seg seg[LM_ELF_MAX_SEGS];   /* in ascending va */
	/* relocations (ET_DYN with a PT_DYNAMIC): where they are in the file */
	uint64_t rela_off;     /* file offset of the DT_RELA table, 0 when none */
	uint64_t rela_count;   /* entries (DT_RELASZ / DT_RELAENT) */
	uint64_t relr_off;     /* file offset of the DT_RELR table, 0 when none */
	uint64_t relr_count;   /* 8-byte words */
};

/**
 * lm_elf_parse - judge an ELF64 kernel file and plan its load block
 * @file: the whole file
 * @size: its bytes
 * @kaslr: extra slide wanted for a position-independent kernel (ET_DYN),
 *         rounded down to the block's alignment; ignored for ET_EXEC
 * @max_span: largest block accepted (0: LM_ELF_MAX_SPAN)
 * @e: receives the plan
 * @why, @whylen: the refusal's message
 *
 * Checks: ELF magic, 64-bit, little-endian, x86-64, ET_EXEC or ET_DYN,
 * program headers inside the file, at least one PT_LOAD, every PT_LOAD's
 * bytes inside the file, p_filesz <= p_memsz, p_vaddr == p_offset modulo
 * the page, no two segments overlapping in memory, powers of two for
 * p_align, and after the slide no segment below LM_KERNEL_MIN_VA nor
 * past the top of the address space, no page shared by two segments of
 * different permissions (W^X page by page), a span within @max_span; for
 * ET_DYN every relocation is
 * R_X86_64_RELATIVE (or a DT_RELR word) and targets 8 bytes inside a
 * segment.  A position-independent kernel linked below LM_KERNEL_MIN_VA
 * gets the minimum slide LM_KERNEL_MIN_VA (plus @kaslr).  The entry is
 * not judged here: the caller checks the one it uses (e_entry or the
 * entry point request's) with lm_elf_seg_of().  Writable and executable
 * segments are reported (flags), not refused: that is the caller's policy.
 *
 * Returns 0, or -1 with @e's content undefined and the reason in @why.
 */
int lm_elf_parse(const uint8_t *file, uint64_t size, uint64_t kaslr, uint64_t max_span,
	struct lm_elf *e, char *why, size_t whylen);

/**
 * lm_elf_load - write the load block
 * @file, @size: the file lm_elf_parse() accepted into @e
 * @e: its plan
 * @dst: the block, @e->span bytes (its physical address aligned to @e->align)
 * @dst_len: bytes available at @dst
 *
 * Zeroes the block, copies each segment's file bytes at its offset, and
 * applies the relocations: each R_X86_64_RELATIVE writes slide + addend
 * at its target, each DT_RELR word adds the slide to the words it names.
 *
 * Returns 0, or -1 (@dst_len too small: nothing written) with @why set.
 */
int lm_elf_load(const uint8_t *file, uint64_t size, const struct lm_elf *e,
	uint8_t *dst, uint64_t dst_len, char *why, size_t whylen);

/**
 * lm_elf_seg_of - which segment holds a kernel virtual address
 * @e: a parsed kernel
 * @va: an address after the slide
 *
 * Returns the index in @e->seg of the segment whose [va, va + memsz)
 * holds @va, or -1.
 */
int lm_elf_seg_of(const struct lm_elf *e, uint64_t va);

#endif
