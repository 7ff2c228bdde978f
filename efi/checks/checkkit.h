/* SPDX-License-Identifier: MIT */
/*
 * What the check modules share (checkkit.c): the test pattern written
 * through one mapping and read through another, and the structural lint
 * of the built tables with its scratch.  Firmware-free.
 */
#ifndef PTLAB_EFI_CHECKKIT_H
#define PTLAB_EFI_CHECKKIT_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/memmap.h>
#include <ptlab/pt.h>

struct ptlab_build;

/* A 64-bit value that differs for every (@pa, @salt) pair in practice. */
uint64_t ptlab_pattern(uint64_t pa, uint64_t salt);

/*
 * pt_lint on @b's hierarchy, every table frame checked against @b's pool:
 * allocated from it (@in_use) or only inside it.  Returns pt_lint's
 * result; *l has the counts.  Its scratch is @b's own (lint_scratch).
 */
int ptlab_lint(struct ptlab_build *b, bool in_use, struct pt_lint *l);

/*
 * The W^X audit's MMIO test, for our tables and the firmware's alike: the
 * bytes of MMIO (per @map) that a mapping of [pa, pa + len) with the PT_*
 * @flags lets the CPU execute.  0 without PT_EXEC.  The whole range
 * counts, not its first byte: a large leaf may start in RAM and run into
 * MMIO, and its MMIO part is just as executable.
 */
uint64_t ptlab_mmio_exec_bytes(const struct pt_memmap *map, uint64_t pa, uint64_t len,
			       unsigned flags);

#endif
