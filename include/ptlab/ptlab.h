/* SPDX-License-Identifier: MIT */
/*
 * ptlab: the x86-64 page-table library as a component.  Include this one
 * header to get the whole public API; examples/handoff.c shows a complete
 * freestanding user.
 *
 * Headers:
 *   pte.h     hardware entry bits, level sizes and indices
 *   pt.h      errors, PT_* flags, PAT layouts, struct pt_env, address
 *             spaces (create/map/unmap/protect/remap/translate/visit/lint)
 *   frames.h  a ready-made frame allocator over physical ranges
 *   memmap.h  UEFI memory-map normalization and queries (find, covers, overlaps)
 *   plan.h    identity + HHDM + image mapping plan with strict W^X
 *   mat.h     UEFI Memory Attributes Table parsing
 *
 * Building it: compile every paging/ source with -ffreestanding (for a kernel or
 * firmware also -mno-red-zone -mno-sse -mno-mmx) and -Iinclude.  The
 * objects need nothing from outside except memset, memcpy and memmove,
 * which compilers emit even for freestanding code (tests/check-undefined.sh
 * proves it for every build).  No global or
 * static mutable state: every piece of state lives in structures the
 * caller owns.
 *
 * What the caller supplies (struct pt_env):
 *   - alloc_frame / free_frame / ctx: a 4 KiB frame allocator.  Frames must
 *     come back zeroed.  pt_frames_env() (frames.h) fills these from a
 *     struct pt_frames; any allocator that keeps the contract will do.
 *   - phys_to_virt: where the library reads and writes the table at a
 *     physical address (identity under UEFI, an HHDM in a kernel, an arena
 *     on a host).  The library never casts a physical address itself.
 *   - maxphyaddr: CPUID.80000008h:EAX[7:0]; physical addresses at or above
 *     2^maxphyaddr are refused (PT_EPHYS).
 *   - has_1g: CPUID.80000001h:EDX[26]; without it no 1 GiB leaf is built.
 *   - the level count: pt_create(.., 4) or 5 (5 only with CR4.LA57).
 *   - pat: the PAT layout IA32_PAT holds (or will hold) while the tables
 *     are used: pt_pat_default() for the power-on value, pt_pat_ptlab()
 *     for one with WC and WP (program pt_pat_msr() into IA32_PAT first).
 *     Cache types are encoded for that layout; a type it lacks is refused.
 *   - flush (optional): called while tables may be live, see below.
 *
 * What each call guarantees on failure: nothing changed.  A changing call
 * that returns an error leaves every table byte, the statistics and the
 * allocator's frames exactly as before (frames it reserved are returned
 * before it returns).  pt_create leaves its space untouched; pt_plan_apply
 * unmaps what it mapped; parsers (memmap, mat) leave n == 0.
 *
 * Thread safety: none.  The library takes no locks and calls nothing but
 * the env callbacks; callers serialize every call on one address space and
 * on one frame allocator (a lock around each call, or one CPU owning it),
 * queries included.
 *
 * What the caller must flush (SDM Vol. 3A §4.10.4):
 *   - after a changing call returns, every range in the struct pt_flushlist
 *     it filled: invlpg per page or a CR3 reload; when fl->all is set a
 *     full flush (CR3 reload, and a CR4.PGE toggle when fl->global is set).
 *     The library never touches control registers or the TLB itself.
 *   - when tables are live in CR3, env->flush is called in the middle of a
 *     call: after a large leaf was replaced by an equivalent table (before
 *     anything in it changes) and after emptied tables were unlinked
 *     (before their frames go back to free_frame).  It must complete the
 *     invalidation (and on SMP the shootdown) before returning; it must not
 *     call back into the library.  NULL is allowed only for tables no CPU
 *     uses.
 *   - pt_destroy must not be called on tables that are live.
 */
#ifndef PTLAB_PTLAB_H
#define PTLAB_PTLAB_H

#include "pte.h"
#include "pt.h"
#include "frames.h"
#include "memmap.h"
#include "plan.h"
#include "mat.h"

#endif /* PTLAB_PTLAB_H */
