/* SPDX-License-Identifier: MIT */
/*
 * The MMU probe engine (mmuprobe.c): one access at a time, on entries
 * written raw for the case, at CPL 0 or 3, under the case's CR0.WP,
 * EFER.NXE, CR4.SMEP/SMAP/PKE, EFLAGS.AC and PKRU, observed (fault or not,
 * vector, error code, CR2, the A/D bits of every level) and judged against
 * the SDM's rules as efi/rules/rules.h models them.  Every rule family
 * (mmuperm.c, mmutlb.c) is a set of cases of this one engine.
 *
 * The cases run on a copy of our hierarchy (the "probe hierarchy") whose
 * entries carry no NX and no G bit, so EFER.NXE can be cleared and no
 * translation of ours survives in the TLB with attributes of the copy.
 * Two root slots of the copy are the engine's: the probe path (one entry
 * per level, written for each case) and the user path (the user stub's
 * code and stack, U/S=1 at every level).  Nothing of our own tables is
 * written; every register the engine changes is restored by mmu_end().
 * Firmware-free.
 */
#ifndef PTLAB_EFI_MMUPROBE_H
#define PTLAB_EFI_MMUPROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "opts/opts.h"
#include "rules/rules.h"

struct check_run;
struct ptlab_check;


/* One case: the entries of the walk, root first, and the access. */
struct mmu_case {
	unsigned int leaf;		/* 0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB */
	/* each level's bits but the address and PS (A and D are cleared) */
	uint64_t bits[RULES_MAX_LEVELS];
	struct rules_ctl ctl;		/* levels, maxphyaddr, page1gb: the engine's */
	enum rules_kind kind;
	unsigned int cpl;		/* 0 or 3 */
};

/* What the CPU did. */
struct mmu_obs {
	bool fault;
	uint32_t vector;		/* 14 for #PF; another vector is a mismatch */
	uint64_t error, cr2;
	uint64_t entries[RULES_MAX_LEVELS];	/* after the access, root first */
	bool data_ok;			/* a CPL 0 read that did not fault: data is its byte */
	uint8_t data;
};

/* A rule family's tally: cases, agreements, deviations, the details shown. */
struct mmu_tally {
	const char *what;		/* "U/S, R/W, NX at every level" */
	unsigned long cases, agree, skipped;
	unsigned long dev[OPTS_DEV_COUNT];	/* mismatches that are a known kind */
	unsigned long other;		/* mismatches of no known kind */
	unsigned int shown;
	unsigned int dev_shown;		/* details of listed deviations shown (one) */
	/* faulting walks judged for A/D, and those that set A where the SDM leaves it open */
	unsigned long a_open, a_open_set;
};

/* What a case is judged on. */
enum mmu_judge {
	MMU_JUDGE_FAULT = 1,		/* fault or not, vector, error code, CR2 */
	MMU_JUDGE_AD = 2,		/* the A/D bits of every level */
	MMU_JUDGE_PA = 4,		/* a CPL 0 read's byte: the one at the model's pa */
};

/* The engine's state for one check (on the check's stack). */
struct mmu_env {
	struct check_run *run;
	const struct ptlab_check *self;
	unsigned int levels, maxphy;
	bool smep, smap, pku, nx, big, pge, user;
	uint64_t our_cr3, cr0, cr4, efer;
	uint32_t pkru;
	uint64_t pool, pool_end;		/* free table frames: [pool, pool_end) */
	uint64_t tbl[RULES_MAX_LEVELS];	/* the table holding entry i of the probe path */
	uint64_t cur[RULES_MAX_LEVELS];	/* the probe path's entries as written, root first */
	unsigned int n;			/* entries in the current walk */
	uint64_t tgt_pa, mid_pa, big_pa;	/* the byte every leaf reaches; 2M and 1G frames */
	uint64_t code_va, stack_va;		/* the user stub's code and stack */
	uint8_t marker;				/* the byte a read case's target holds */
	struct rules_ctl ctl;			/* as loaded now */
	/* a planted fault (--inject): bits written differently from what the model is told */
	uint64_t wrong_clr[RULES_MAX_LEVELS], wrong_set[RULES_MAX_LEVELS];
	uint64_t cr4_off;			/* CR4 bits never loaded */
	bool pkru_zero;				/* PKRU loaded 0 whatever the case says */
	const char *user_why;			/* why CPL 3 is not available */
};

/*
 * Build the probe hierarchy for @run in @e and load it, save the control
 * registers (and PKRU), enable CPL 3.  Returns 0, or -1 after reporting a
 * SKIP for @what with the reason (no room, root slots in use, not in the
 * run's paging mode ...), nothing changed.  @self: the check (its fault).
 */
int mmu_begin(struct mmu_env *e, struct check_run *run, const struct ptlab_check *self,
	      const char *what);

/* Everything mmu_begin() changed, back; our CR3 loaded again. */
void mmu_end(struct mmu_env *e);

/* --seed, --matrix=full, past the run's deadline */
uint64_t mmu_seed(const struct mmu_env *e);
bool mmu_full(const struct mmu_env *e);
bool mmu_deadline(const struct mmu_env *e);

/* The control state of a case before the access: defaults filled in (levels, MAXPHYADDR). */
void mmu_ctl_init(const struct mmu_env *e, struct rules_ctl *ctl);

/* Walk length of @c (entries root..leaf). */
unsigned int mmu_walk_len(const struct mmu_env *e, const struct mmu_case *c);

/* The linear address a case of leaf size @leaf accesses (va2: another 4 KiB piece of it). */
uint64_t mmu_va(const struct mmu_env *e, unsigned int leaf, bool other);

/*
 * Write @c's entries into the probe path, clear every TLB entry, put the
 * code bytes the access needs at the target.  Returns false (nothing
 * written) when @c's leaf size is not available.
 */
bool mmu_build(struct mmu_env *e, const struct mmu_case *c);

/* Change entry @i (root first) of the probe path: clear @clr, set @set; no flush. */
void mmu_edit(struct mmu_env *e, unsigned int i, uint64_t clr, uint64_t set);

/* Load @c's control state (CR0.WP, CR4, EFER.NXE, PKRU); no other flush. */
void mmu_ctl_load(struct mmu_env *e, const struct rules_ctl *ctl);

/* Run @c's access at @va (0: the case's own) on what is in place now, and observe. */
void mmu_access(struct mmu_env *e, const struct mmu_case *c, uint64_t va, struct mmu_obs *o);

/*
 * Predict @c on the entries in place and compare with @o on @judge,
 * counting into @t; a mismatch's detail (the case and both outcomes) goes
 * to the report as a note, up to a limit per family.  Returns true when
 * they agree.
 */
bool mmu_judge(struct mmu_env *e, struct mmu_tally *t, const struct mmu_case *c, uint64_t va,
	       const struct mmu_obs *o, unsigned int judge, const char *step);

/* build + load + access + judge (@judge and MMU_JUDGE_PA): one case from scratch. */
bool mmu_case_run(struct mmu_env *e, struct mmu_tally *t, const struct mmu_case *c,
		  unsigned int judge);

/*
 * The family's TAP lines: "ok" when every case agreed (or differed only in
 * a deviation --known-deviation lists, which then gets its own TODO line),
 * "not ok" naming the counts otherwise; a SKIP when no case ran.
 */
void mmu_tally_report(struct mmu_env *e, const struct mmu_tally *t);

/* Whether the check's --inject fault is on (the families plant it themselves). */
bool mmu_injected(const struct mmu_env *e);

#endif
