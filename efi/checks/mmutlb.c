/* SPDX-License-Identifier: MIT */
/*
 * The MMU matrix's TLB families (SDM Vol. 3A 4.10): what a validator can
 * observe of the rules of invalidation.  Each sequence caches a
 * translation with an access that must succeed, changes an entry (no
 * longer present, or no longer user), performs the invalidation the rule
 * requires, and asks the model about the next access on the entries now in
 * place: it must fault.  A stale translation is never asserted to survive
 * (a processor may always invalidate more); only the required effect is.
 * The control-register family changes CR0.WP, CR4.SMEP/SMAP/PKE or PKRU
 * with a translation cached and no invalidation at all: the new rights
 * apply at once (SDM 4.10.2.2: the TLB caches the entries' bits, not the
 * rights the control registers make of them).
 *
 * No firmware calls: runs live.
 */
#include <ptlab/pte.h>

#include "checks/mmuprobe.h"
#include "checks/mmutlb.h"
#include "checks/registry.h"
#include "cpu/cpu.h"
#include "cpu/user.h"
#include "report/report.h"
#include "state/state.h"

#define PERMISSIVE	(PTE_P | PTE_W | PTE_US)
#define PK_SHIFT	59

enum flush { FLUSH_INVLPG, FLUSH_INVLPG_OTHER, FLUSH_CR3, FLUSH_PGE };

static const char *const flush_name[] = {
	"after invlpg of the address", "after invlpg of another address of the large page",
	"after a CR3 reload", "after a CR4.PGE toggle",
};

static void case_init(const struct mmu_env *e, struct mmu_case *c, unsigned int leaf)
{
	*c = (struct mmu_case){ .leaf = leaf, .kind = RULES_READ };
	for (unsigned int i = 0; i < RULES_MAX_LEVELS; i++)
		c->bits[i] = PERMISSIVE;
	mmu_ctl_init(e, &c->ctl);
}

/* Access @va under @c and judge it; @step names where in the sequence. */
static bool step(struct mmu_env *e, struct mmu_tally *t, const struct mmu_case *c, uint64_t va,
		 const char *what)
{
	struct mmu_obs o;

	mmu_access(e, c, va, &o);
	return mmu_judge(e, t, c, va, &o, MMU_JUDGE_FAULT, what);
}

static void do_flush(struct mmu_env *e, enum flush f, uint64_t va, uint64_t other)
{
	uint64_t cr4 = read_cr4();

	if (mmu_injected(e))
		return;	/* --inject: the required invalidation left out */
	switch (f) {
	case FLUSH_INVLPG:
		invlpg(va);
		break;
	case FLUSH_INVLPG_OTHER:
		invlpg(other);
		break;
	case FLUSH_CR3:
		write_cr3(read_cr3());
		break;
	case FLUSH_PGE:
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
		break;
	}
}

/*
 * Cache the translation of @c (and of another 4 KiB piece of a large
 * leaf), clear @clr in entry @i, invalidate by @f, then both addresses
 * must translate as the entries now say.
 */
static void sequence(struct mmu_env *e, struct mmu_tally *t, struct mmu_case *c, bool global,
		     unsigned int i, uint64_t clr, enum flush f)
{
	uint64_t va = mmu_va(e, c->leaf, false), other = mmu_va(e, c->leaf, true);
	unsigned int n = mmu_walk_len(e, c);

	if (global)
		c->bits[n - 1] |= PTE_G;
	if (!mmu_build(e, c)) {
		t->skipped++;
		return;
	}
	mmu_ctl_load(e, &c->ctl);
	if (global)
		write_cr4(read_cr4() | CR4_PGE);
	if (!step(e, t, c, va, "caching the translation") ||
	    (c->leaf && !step(e, t, c, other, "caching another piece of the large page")))
		return;
	mmu_edit(e, i, clr, 0);
	do_flush(e, f, va, other);
	if (f != FLUSH_INVLPG_OTHER)
		step(e, t, c, va, flush_name[f]);
	if (c->leaf)
		step(e, t, c, f == FLUSH_INVLPG_OTHER ? va : other, flush_name[f]);
}

/* Every leaf size, global or not where @glob allows, the leaf made not present, flushed by @f. */
static void leaf_family(struct check_run *run, const struct ptlab_check *self,
			const enum flush *fl, unsigned int nfl, unsigned int glob)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;
	struct mmu_case c;

	if (mmu_begin(&e, run, self, self->name))
		return;
	for (unsigned int k = 0; k < nfl; k++)
		for (unsigned int leaf = 0; leaf < 3; leaf++)
			for (unsigned int g = 0; g < 2; g++) {
				if (!((glob >> g) & 1) || (g && !e.pge) ||
				    (fl[k] == FLUSH_INVLPG_OTHER && !leaf) || (leaf == 2 && !e.big))
					continue;
				case_init(&e, &c, leaf);
				sequence(&e, &t, &c, g, mmu_walk_len(&e, &c) - 1, PTE_P, fl[k]);
			}
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static void check_invlpg(struct check_run *run, const struct ptlab_check *self)
{
	static const enum flush fl[] = { FLUSH_INVLPG, FLUSH_INVLPG_OTHER };

	leaf_family(run, self, fl, 2, 3);
}

static const struct ptlab_check tlb_invlpg = {
	"MMU TLB: invlpg drops the page's translation (4K, 2M, 1G, global or not)", PTLAB_PHASE_CPU,
	check_invlpg,
	{ "mmu-tlb-invlpg", "the invlpg left out", PTLAB_FAULT_HOOK, NULL, NULL },
};

/*
 * PCID and INVPCID (SDM 4.10.1, 4.10.4.1): CPUID.1:ECX[17], CPUID.7.0:EBX[10].
 * Not probed yet on any CPU: reported as a SKIP with the reason.
 */
static void pcid_skip(struct check_run *run)
{
	uint32_t r[4];
	bool pcid, invpcid = false;

	cpuid(1, 0, r);
	pcid = (r[2] >> 17) & 1;
	if (run->cpu->caps.max_leaf >= 7) {
		cpuid(7, 0, r);
		invpcid = (r[1] >> 10) & 1;
	}
	if (!pcid || !invpcid)
		report_skip(run->rep, "MMU TLB: PCID and INVPCID types 0-3", "the CPU has no %s", !pcid ? "PCID (CPUID.1:ECX[17])" :
			    "INVPCID (CPUID.7.0:EBX[10])");
	else
		report_skip(run->rep, "MMU TLB: PCID and INVPCID types 0-3", "PCID and INVPCID types 0-3 are not probed yet");
}

static void check_cr3(struct check_run *run, const struct ptlab_check *self)
{
	static const enum flush fl[] = { FLUSH_CR3 };

	leaf_family(run, self, fl, 1, 1);
	pcid_skip(run);
}

static const struct ptlab_check tlb_cr3 = {
	"MMU TLB: a CR3 reload drops non-global translations", PTLAB_PHASE_CPU, check_cr3,
	{ "mmu-tlb-cr3", "the CR3 reload left out", PTLAB_FAULT_HOOK, NULL, NULL },
};

static void check_pge(struct check_run *run, const struct ptlab_check *self)
{
	static const enum flush fl[] = { FLUSH_PGE };

	if (!run->cpu->caps.pge) {
		report_skip(run->rep, self->name, "the CPU has no global pages (CPUID.1:EDX[13])");
		return;
	}
	leaf_family(run, self, fl, 1, 2);
}

static const struct ptlab_check tlb_pge = {
	"MMU TLB: a CR4.PGE toggle drops global translations", PTLAB_PHASE_CPU, check_pge,
	{ "mmu-tlb-pge", "the PGE toggle left out", PTLAB_FAULT_HOOK, NULL, NULL },
};

/*
 * An entry above the leaf changed (P cleared at CPL 0, U/S cleared at
 * CPL 3): after invlpg of the address, or a CR3 reload, the walk must
 * see it (SDM 4.10.4.1: both invalidate the paging-structure caches).
 */
static void check_upper(struct check_run *run, const struct ptlab_check *self)
{
	static const enum flush fl[] = { FLUSH_INVLPG, FLUSH_CR3 };
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;
	struct mmu_case c;

	if (mmu_begin(&e, run, self, self->name))
		return;
	for (unsigned int leaf = 0; leaf < 3; leaf++) {
		if (leaf == 2 && !e.big)
			continue;
		for (unsigned int i = 0; i + 1 < e.levels - leaf; i++)
			for (unsigned int k = 0; k < 2; k++)
				for (unsigned int u = 0; u < (e.user ? 2u : 1u); u++) {
					case_init(&e, &c, leaf);
					c.cpl = u ? 3 : 0;
					sequence(&e, &t, &c, false, i, u ? PTE_US : PTE_P, fl[k]);
				}
	}
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static const struct ptlab_check tlb_upper = {
	"MMU TLB: a change above the leaf takes effect after invlpg or a CR3 reload",
	PTLAB_PHASE_CPU, check_upper,
	{ "mmu-tlb-upper", "the invalidation after the change left out", PTLAB_FAULT_HOOK, NULL,
	  NULL },
};

/*
 * A control change with a translation cached: @before is loaded, the
 * access cached, then @after loaded with nothing invalidated; the access
 * must now be judged under @after.
 */
static void ctl_change(struct mmu_env *e, struct mmu_tally *t, struct mmu_case *c,
		       const struct rules_ctl *before, const struct rules_ctl *after)
{
	c->ctl = *before;
	if (!mmu_build(e, c)) {
		t->skipped++;
		return;
	}
	mmu_ctl_load(e, before);
	if (!step(e, t, c, mmu_va(e, c->leaf, false), "caching under the old control state"))
		return;
	if (!mmu_injected(e))
		mmu_ctl_load(e, after);	/* --inject=mmu-ctl: the change left out */
	c->ctl = *after;
	step(e, t, c, mmu_va(e, c->leaf, false), "right after the control change");
}

/* The changes of one leaf size: WP, SMEP, SMAP, PKRU's AD and WD, PKE. */
static void ctl_leaf(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf, unsigned int key)
{
	struct rules_ctl a, b;
	struct mmu_case c;
	unsigned int n = e->levels - leaf;

	case_init(e, &c, leaf);
	c.bits[n - 1] &= ~PTE_W;
	c.kind = RULES_WRITE;
	a = c.ctl;
	a.wp = false;
	b = c.ctl;
	ctl_change(e, t, &c, &a, &b);
	if (e->smep) {
		case_init(e, &c, leaf);
		c.kind = RULES_FETCH;
		a = b = c.ctl;
		b.smep = true;
		ctl_change(e, t, &c, &a, &b);
	}
	if (e->smap) {
		case_init(e, &c, leaf);
		a = b = c.ctl;
		b.smap = true;
		ctl_change(e, t, &c, &a, &b);
	}
	if (!e->pku || !e->user)
		return;
	for (unsigned int w = 0; w < 3; w++) {
		case_init(e, &c, leaf);
		c.bits[n - 1] |= (uint64_t)key << PK_SHIFT;
		c.cpl = 3;
		c.kind = w == 1 ? RULES_WRITE : RULES_READ;
		a = b = c.ctl;
		a.pke = w != 2;
		b.pke = true;
		b.pkru = (w == 1 ? 2u : 1u) << (2 * key);
		if (w == 2) {
			/* PKE off with PKRU already denying: load PKRU first, through PKE on */
			mmu_ctl_load(e, &b);
			a.pkru = b.pkru;
		}
		ctl_change(e, t, &c, &a, &b);
	}
}

static void check_ctl(struct check_run *run, const struct ptlab_check *self)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;

	if (mmu_begin(&e, run, self, self->name))
		return;
	for (unsigned int leaf = 0; leaf < 3; leaf++)
		if (leaf < 2 || e.big)
			ctl_leaf(&e, &t, leaf, 1 + (unsigned int)(mmu_seed(&e) % 15));
	mmu_end(&e);
	if (!e.smep || !e.smap || !e.pku)
		report_note(run->rep, "%s: without%s%s%s (the CPU has not)", self->name,
			    e.smep ? "" : " SMEP", e.smap ? "" : " SMAP", e.pku ? "" : " PKU");
	mmu_tally_report(&e, &t);
}

static const struct ptlab_check ctl = {
	"MMU control changes (CR0.WP, SMEP, SMAP, PKE, PKRU) apply to cached translations",
	PTLAB_PHASE_CPU, check_ctl,
	{ "mmu-ctl", "the control change left out", PTLAB_FAULT_HOOK, NULL, NULL },
};

ptlab_check_table mmutlb_table = {
	&tlb_invlpg, &tlb_cr3, &tlb_pge, &tlb_upper, &ctl, NULL,
};
