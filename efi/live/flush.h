/* SPDX-License-Identifier: MIT */
/*
 * TLB and cache maintenance for the tables in CR3 (flush.c).
 */
#ifndef PTLAB_EFI_FLUSH_H
#define PTLAB_EFI_FLUSH_H

#include <stdint.h>

#include <ptlab/pt.h>

/* Invalidate what a pt_flushlist names (invlpg, or a CR3 reload for many pages). */
void ptlab_flush(const struct pt_flushlist *fl);

/*
 * invlpg of one address; wbinvd (write back and invalidate every cache).
 * Privileged: flush.c runs the instructions, a host test that links a
 * module calling them defines its own (link seams, like ptlab_flush,
 * ptlab_is_ram, ptlab_deadline_passed and trap.h's probes).
 */
void ptlab_invlpg(uint64_t va);
void ptlab_wbinvd(void);

#endif
