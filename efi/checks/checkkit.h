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

#include "checks/registry.h"

struct ptlab_build;
struct ptlab_wx;
struct wx_exempt;

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

/* Why a writable+executable leaf may stand (see ptlab_wx_tally.exempt). */
enum ptlab_wx_exemption {
	PTLAB_WX_FORBIDDEN,     /* counted in wx_bytes: the audit fails */
	PTLAB_WX_RUNTIME,       /* runtime code the firmware left RWX (ptlab_wx_runtime) */
	PTLAB_WX_LISTED,        /* in the run's exemption list, struct ptlab_wx (wx_listed) */
};

/*
 * The W^X audit's judgement of the leaves of one address space, ours or
 * the firmware's: the caller sets map and exempt (and ctx), zero for the
 * rest, then hands every leaf to ptlab_wx_judge; the counts are what the
 * audit reports.
 */
struct ptlab_wx_tally {
	const struct pt_memmap *map;   /* what is MMIO */
	/*
	 * Asked only for a W+X leaf: may it stand, and why.  The exemptions
	 * depend on the run (its exemption list, the Memory Attributes
	 * Table), which the caller knows and this function does not.  NULL:
	 * none may.
	 */
	enum ptlab_wx_exemption (*exempt)(const void *ctx, uint64_t va, uint64_t pa, uint64_t size);
	const void *ctx;
	uint64_t wx_bytes;             /* W+X bytes no exemption covers */
	uint64_t wx_first;             /* VA of the first such leaf */
	uint64_t wx_exempt;            /* W+X bytes of runtime code (PTLAB_WX_RUNTIME) */
	uint64_t wx_listed;            /* W+X bytes the exemption list covers (PTLAB_WX_LISTED) */
	uint64_t mmio_x_bytes;         /* executable MMIO bytes (ptlab_mmio_exec_bytes) */
	bool page0;                    /* a leaf maps VA 0 */
};

/* Judge the leaf [va, va + size) -> [pa, pa + size) with the PT_* @flags, whole. */
void ptlab_wx_judge(struct ptlab_wx_tally *t, uint64_t va, uint64_t pa, uint64_t size,
		    unsigned flags);

/* ptlab_wx_judge as a pt_visit_fn: @arg is the struct ptlab_wx_tally.  Returns 0. */
int ptlab_wx_visit(void *arg, const struct pt_leaf *l);

/*
 * After hand-off, runtime code without a Memory Attributes Table (or with
 * an entry the table leaves RWX) is mapped RWX on purpose: runtime drivers
 * keep data in code ranges.  A rule of the memory class, for the
 * firmware's tables as for ours (the ranges a feature of the run maps RWX
 * are in the run's list, struct ptlab_wx, instead).  Whether a W+X leaf
 * at @pa stands by that rule (PTLAB_WX_RUNTIME), per @b's memory map and
 * Memory Attributes Table, in a run whose tables are checked after
 * ExitBootServices when @boot_services_gone (in a run, @b's own).
 */
bool ptlab_wx_runtime(const struct ptlab_build *b, bool boot_services_gone, uint64_t pa);

/* ---- the run's W^X exemption list (struct ptlab_wx, state.h) ---- */

/*
 * Record that [va, va + len) -> [pa, pa + len) is mapped writable and
 * executable on purpose, for @why (a static string, named by the checks).
 * Returns PT_OK; PT_EINVAL for a length of 0, an address or length not
 * page aligned, or a range that wraps; PT_ECAPACITY when the list is full.
 * On failure nothing is recorded.
 */
int ptlab_wx_add(struct ptlab_wx *w, uint64_t va, uint64_t pa, uint64_t len, const char *why);

/*
 * ptlab_wx_add() for a range mapped with its own cache type @cache (a
 * PT_CACHE() value, the same for every page; PTLAB_WX_CACHE_KEEP: each
 * page's class's), as a boot protocol that fixes the type maps it.  Same
 * returns; PT_EINVAL too for @cache with bits outside PT_CACHE_MASK.
 */
int ptlab_wx_add_cache(struct ptlab_wx *w, uint64_t va, uint64_t pa, uint64_t len,
		       unsigned cache, const char *why);

/*
 * The entry whose range holds all of [va, va + len) mapped to pa the
 * same way (pa - entry's pa == va - entry's va), or NULL.
 */
const struct wx_exempt *ptlab_wx_find(const struct ptlab_wx *w, uint64_t va, uint64_t pa,
				      uint64_t len);

/*
 * The identity map of [pa, pa + len) made RWX in @b's plan (every other
 * attribute kept; 1 GiB leaves when @pdpe1gb, the CPU's) and recorded in
 * the list @w for @why, in one step, so the plan and the list cannot
 * differ.  Returns PT_OK, or ptlab_wx_add's or pt_plan_identity_perm's
 * error; then the list and the plan are as before.
 */
int ptlab_wx_identity(struct ptlab_wx *w, struct ptlab_build *b, bool pdpe1gb, uint64_t pa,
		      uint64_t len, const char *why);

/*
 * What the coverage check expects of the page va -> pa whose memory-map
 * class gives it @flags: @flags with PT_WRITE and PT_EXEC added (and the
 * cache type replaced by the entry's own, when it has one) when the list
 * holds that page mapped that way, else @flags unchanged.
 */
unsigned ptlab_wx_expect(const struct ptlab_wx *w, uint64_t va, uint64_t pa, unsigned flags);

/*
 * The list as "0x1000+0x2f000 RAM below 640 KiB; 0x50000+0x4f000 ..." (an
 * entry whose va is not its pa as "VA->PA+LEN WHY"; with @bytes, entry i
 * followed by " (0xN RWX)" for bytes[i]), "none" when empty,
 * NUL-terminated in @buf, cut short with "..." when @cap is too small.
 * Returns the length written.
 */
size_t ptlab_wx_describe(const struct ptlab_wx *w, const uint64_t *bytes, char *buf, size_t cap);

/*
 * @want if the PAT layout @pat (the run's: env.pat) has it, else the first
 * of WT, UC, UC-, WC, WP it has (WB at worst): a firmware's PAT need not be
 * the power-on one.
 */
enum pt_cache ptlab_cache_pick(const struct pt_pat *pat, enum pt_cache want);

/*
 * A test point of check @c reported outside the phase loops (an
 * ELSEWHERE entry's): report_ok() when @ok, else report_fail(), its line
 * keyed by @c's fault name as the runner keys the lines of the checks it
 * runs (report.h's check).  Returns as report_ok().  In checkkit.c, which
 * calls nothing back in the run, so the code that reports such checks
 * (core/run.c, bringup/, smp/, the hand-over's core/kernel.c, linux.c and
 * lmhandoff.c) makes no call cycle through the runner.
 */
int check_report(struct report *rep, const struct ptlab_check *c, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
