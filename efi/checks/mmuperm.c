/* SPDX-License-Identifier: MIT */
/*
 * The MMU matrix's permission families (SDM Vol. 3A 4.6, 4.5, 4.7, 4.8),
 * each a set of cases of the probe engine (mmuprobe.h) judged against the
 * rules model: U/S, R/W, XD and P at every level; SMEP; SMAP with AC;
 * protection keys; reserved bits at every level; accessed and dirty bits.
 *
 * The default run (--matrix=reduced) varies each bit of each level alone
 * (the others permissive) under every access kind, CPL 0 and 3 and the
 * control bits of the family, then adds seeded random cases with every
 * level's bits drawn at once; --matrix=full runs the whole product of the
 * bits at every level.  Both are deterministic for a --seed.
 *
 * No firmware calls: runs live.
 */
#include <ptlab/pte.h>

#include "checks/mmuperm.h"
#include "checks/mmuprobe.h"
#include "checks/registry.h"
#include "cpu/cpu.h"
#include "lib/prng.h"
#include "report/report.h"
#include "state/state.h"

#define PERMISSIVE	(PTE_P | PTE_W | PTE_US)
#define PK_SHIFT	59
#define RANDOM_CASES	384u

/* A case with every level permissive, the control state the engine's defaults. */
static void case_init(const struct mmu_env *e, struct mmu_case *c, unsigned int leaf)
{
	*c = (struct mmu_case){ .leaf = leaf };
	for (unsigned int i = 0; i < RULES_MAX_LEVELS; i++)
		c->bits[i] = PERMISSIVE;
	mmu_ctl_init(e, &c->ctl);
}

/* U/S, R/W, XD of a combination @m (bit 0 U, 1 W, 2 NX) and P unless @np. */
static uint64_t perm_bits(unsigned int m, bool np)
{
	if (np)
		return 0;
	return PTE_P | (m & 1 ? PTE_US : 0) | (m & 2 ? PTE_W : 0) | (m & 4 ? PTE_NX : 0);
}

/* Run @c under every access kind and CPL (the CPLs the engine has). */
static void kinds_cpls(struct mmu_env *e, struct mmu_tally *t, struct mmu_case *c,
		       unsigned int judge)
{
	for (unsigned int k = 0; k < 3; k++)
		for (unsigned int cpl = 0; cpl <= 3; cpl += 3) {
			if (cpl && !e->user) {
				t->skipped++;
				continue;
			}
			c->kind = (enum rules_kind)k;
			c->cpl = cpl;
			mmu_case_run(e, t, c, judge);
		}
}

/* One level's bits alone, under CR0.WP and EFER.NXE both ways. */
static void perm_one_level(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf,
			   unsigned int i)
{
	struct mmu_case c;

	for (unsigned int m = 0; m < 9; m++)
		for (unsigned int wp = 0; wp < 2; wp++)
			for (unsigned int nxe = 0; nxe < (e->nx ? 2u : 1u); nxe++) {
				case_init(e, &c, leaf);
				c.bits[i] = perm_bits(m, m == 8);
				c.ctl.wp = wp;
				c.ctl.nxe = nxe;
				kinds_cpls(e, t, &c, MMU_JUDGE_FAULT);
			}
}

/* Seeded cases with every level's bits drawn at once (P clear one time in 16). */
static void perm_random(struct mmu_env *e, struct mmu_tally *t, unsigned int count)
{
	struct prng r;
	struct mmu_case c;

	prng_seed(&r, mmu_seed(e) ^ UINT64_C(0x6d6d752d7065726d));
	for (unsigned int j = 0; j < count && !mmu_deadline(e); j++) {
		case_init(e, &c, (unsigned int)prng_below(&r, e->big ? 3 : 2));
		for (unsigned int i = 0; i < mmu_walk_len(e, &c); i++)
			c.bits[i] = perm_bits((unsigned int)prng_below(&r, 8), !prng_below(&r, 16));
		c.ctl.wp = prng_below(&r, 2);
		c.ctl.nxe = e->nx && prng_below(&r, 2);
		c.kind = (enum rules_kind)prng_below(&r, 3);
		c.cpl = e->user && prng_below(&r, 2) ? 3 : 0;
		mmu_case_run(e, t, &c, MMU_JUDGE_FAULT);
	}
}

/* --matrix=full: every combination of U/S, R/W, XD at every level of a leaf size. */
static void perm_full(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf)
{
	struct mmu_case c;
	unsigned int n = e->levels - leaf;
	uint64_t combos = UINT64_C(1) << (3 * n);

	for (uint64_t x = 0; x < combos; x++) {
		if (!(x & 255) && mmu_deadline(e))
			return;
		for (unsigned int wp = 0; wp < 2; wp++)
			for (unsigned int nxe = 0; nxe < (e->nx ? 2u : 1u); nxe++) {
				case_init(e, &c, leaf);
				for (unsigned int i = 0; i < n; i++)
					c.bits[i] = perm_bits((unsigned int)(x >> (3 * i)) & 7, false);
				c.ctl.wp = wp;
				c.ctl.nxe = nxe;
				kinds_cpls(e, t, &c, MMU_JUDGE_FAULT);
			}
	}
}

static void check_perm(struct check_run *run, const struct ptlab_check *self)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;

	if (mmu_begin(&e, run, self, self->name))
		return;
	report_fact(run->rep, "mmu", "levels=%u maxphyaddr=%u cpl3=%d big=%d matrix=%s "
		    "known-deviation=%s seed=0x%llx", e.levels, e.maxphy, e.user, e.big,
		    mmu_full(&e) ? "full" : "reduced",
		    run->opts->deviations[0] ? run->opts->deviations : "none",
		    (unsigned long long)mmu_seed(&e));
	for (unsigned int leaf = 0; leaf < 3; leaf++) {
		if (leaf == 2 && !e.big)
			continue;
		/* --inject=mmu-perm: the entries above the leaf written with U/S clear */
		for (unsigned int i = 0; i < RULES_MAX_LEVELS; i++)
			e.wrong_clr[i] = mmu_injected(&e) && i + 1 < e.levels - leaf ? PTE_US : 0;
		if (mmu_full(&e)) {
			perm_full(&e, &t, leaf);
			continue;
		}
		for (unsigned int i = 0; i < e.levels - leaf; i++)
			perm_one_level(&e, &t, leaf, i);
	}
	for (unsigned int i = 0; i < RULES_MAX_LEVELS; i++)
		e.wrong_clr[i] = 0;
	perm_random(&e, &t, mmu_full(&e) ? 16 * RANDOM_CASES : RANDOM_CASES);
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static const struct ptlab_check perm = {
	"MMU U/S, R/W, XD and P at every level", PTLAB_PHASE_CPU, check_perm,
	{ "mmu-perm", "the entries above the leaf written with U/S clear, the model told set",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/* One level's U/S both ways under a control bit both ways (@set puts it in the case). */
static void ctl_sweep(struct mmu_env *e, struct mmu_tally *t, unsigned int judge,
		      void (*set)(struct rules_ctl *ctl, unsigned int v), unsigned int vals)
{
	struct mmu_case c;

	for (unsigned int leaf = 0; leaf < 3; leaf++) {
		if (leaf == 2 && !e->big)
			continue;
		for (unsigned int i = 0; i < e->levels - leaf; i++)
			for (unsigned int u = 0; u < 2; u++)
				for (unsigned int v = 0; v < vals; v++) {
					case_init(e, &c, leaf);
					if (!u)
						c.bits[i] &= ~PTE_US;
					set(&c.ctl, v);
					kinds_cpls(e, t, &c, judge);
				}
	}
}

/* The control bits of value @v each family sweeps. */
static void set_smep(struct rules_ctl *ctl, unsigned int v)
{
	ctl->smep = v & 1;
	ctl->wp = (v >> 1) & 1;
}

static void set_smap(struct rules_ctl *ctl, unsigned int v)
{
	ctl->smap = v & 1;
	ctl->ac = (v >> 1) & 1;
	ctl->wp = (v >> 2) & 1;
}

static void check_ctlbit(struct check_run *run, const struct ptlab_check *self, bool has,
			 const char *none, void (*set)(struct rules_ctl *, unsigned int),
			 unsigned int vals, uint64_t cr4_bit)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;

	if (!has) {
		report_skip(run->rep, self->name, "%s", none);
		return;
	}
	if (mmu_begin(&e, run, self, self->name))
		return;
	/* --inject: the control bit kept off in CR4 while the model is told it is on */
	e.cr4_off = mmu_injected(&e) ? cr4_bit : 0;
	ctl_sweep(&e, &t, MMU_JUDGE_FAULT, set, vals);
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static void check_smep(struct check_run *run, const struct ptlab_check *self)
{
	check_ctlbit(run, self, run->cpu->caps.smep, "the CPU has no SMEP", set_smep, 4, CR4_SMEP);
}

static const struct ptlab_check smep = {
	"MMU CR4.SMEP at every level", PTLAB_PHASE_CPU, check_smep,
	{ "mmu-smep", "CR4.SMEP left clear while the model is told it is set", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

static void check_smap(struct check_run *run, const struct ptlab_check *self)
{
	check_ctlbit(run, self, run->cpu->caps.smap, "the CPU has no SMAP", set_smap, 8, CR4_SMAP);
}

static const struct ptlab_check smap = {
	"MMU CR4.SMAP and EFLAGS.AC at every level", PTLAB_PHASE_CPU, check_smap,
	{ "mmu-smap", "CR4.SMAP left clear while the model is told it is set", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

/*
 * Protection keys (SDM 4.6.2): the leaf's key @k, PKRU's AD and WD for it
 * each way with every other key's bits all set or all clear, CR4.PKE on
 * (and once off), the leaf U/S and R/W each way; the levels above carry
 * another key in the bits that are ignored there.
 */
static void pk_leaf(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf, unsigned int k)
{
	struct mmu_case c;

	for (unsigned int v = 0; v < 9; v++)
		for (unsigned int uw = 0; uw < 4; uw++)
			for (unsigned int wp = 0; wp < 2; wp++) {
				uint32_t mine = (v & 3u) << (2 * k), others = v & 4 ? ~(3u << (2 * k)) : 0;
				unsigned int n = e->levels - leaf;

				case_init(e, &c, leaf);
				for (unsigned int i = 0; i + 1 < n; i++)
					c.bits[i] |= (uint64_t)((k + 1) & 15) << PK_SHIFT;
				c.bits[n - 1] = PTE_P | (uw & 1 ? PTE_US : 0) | (uw & 2 ? PTE_W : 0) |
						((uint64_t)k << PK_SHIFT);
				c.ctl.pke = v != 8;
				c.ctl.pkru = v == 8 ? ~0u : mine | others;
				c.ctl.wp = wp;
				kinds_cpls(e, t, &c, MMU_JUDGE_FAULT);
			}
}

static void check_pk(struct check_run *run, const struct ptlab_check *self)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;
	unsigned int k;

	if (!run->cpu->caps.pku) {
		report_skip(run->rep, self->name, "the CPU has no protection keys (CPUID.7.0:ECX[3])");
		return;
	}
	if (mmu_begin(&e, run, self, self->name))
		return;
	/* --inject=mmu-pk: PKRU loaded 0 whatever the model is told */
	e.pkru_zero = mmu_injected(&e);
	k = 1 + (unsigned int)(mmu_seed(&e) % 15);
	for (unsigned int leaf = 0; leaf < 3; leaf++)
		if (leaf < 2 || e.big)
			pk_leaf(&e, &t, leaf, k);
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static const struct ptlab_check pk = {
	"MMU protection keys (CR4.PKE, PKRU) of user pages", PTLAB_PHASE_CPU, check_pk,
	{ "mmu-pk", "PKRU loaded 0 while the model is told the case's", PTLAB_FAULT_HOOK, NULL,
	  NULL },
};

/* One reserved (or, for PAT, not reserved) bit @bit at entry @i, every kind and CPL. */
static void rsvd_case(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf, unsigned int i,
		      uint64_t bit, bool nxe, bool fetch)
{
	struct mmu_case c;

	case_init(e, &c, leaf);
	c.bits[i] |= bit;
	c.ctl.nxe = nxe;
	if (mmu_injected(e))
		e->wrong_clr[i] = bit;
	for (unsigned int k = 0; k < (fetch ? 3u : 2u); k++)
		for (unsigned int cpl = 0; cpl <= 3; cpl += 3) {
			if (cpl && !e->user)
				continue;
			c.kind = (enum rules_kind)k;
			c.cpl = cpl;
			mmu_case_run(e, t, &c, MMU_JUDGE_FAULT);
		}
	e->wrong_clr[i] = 0;
}

/*
 * The SDM's reserved bits (4.5, Tables 4-15 to 4-20) of entry @i: the
 * address bits from MAXPHYADDR to 51 (read and write only: a fetch from
 * beyond RAM through an MMU that ignores them would stop the machine),
 * PS in a PML5E or PML4E, bits 13..20 of a 2 MiB leaf and 13..29 of a
 * 1 GiB leaf, bit 63 with EFER.NXE=0; and the PAT bit of a large leaf,
 * which is no reserved bit.
 */
static void rsvd_entry(struct mmu_env *e, struct mmu_tally *t, unsigned int leaf, unsigned int i)
{
	unsigned int level = e->levels - 1 - i, n = e->levels - leaf;
	bool is_leaf = i + 1 == n;

	for (unsigned int b = e->maxphy; b < 52; b++)
		rsvd_case(e, t, leaf, i, UINT64_C(1) << b, e->nx, false);
	if (level >= 3)
		rsvd_case(e, t, leaf, i, PTE_PS, e->nx, true);
	if (is_leaf && leaf)
		for (unsigned int b = 13; b <= (leaf == 1 ? 20u : 29u); b++)
			rsvd_case(e, t, leaf, i, UINT64_C(1) << b, e->nx, true);
	if (is_leaf && leaf)
		rsvd_case(e, t, leaf, i, PTE_PAT_LARGE, e->nx, true);
	rsvd_case(e, t, leaf, i, PTE_NX, false, true);
}

static void check_rsvd(struct check_run *run, const struct ptlab_check *self)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;

	if (mmu_begin(&e, run, self, self->name))
		return;
	for (unsigned int leaf = 0; leaf < 3; leaf++)
		for (unsigned int i = 0; i < e.levels - leaf && (leaf < 2 || e.big); i++)
			rsvd_entry(&e, &t, leaf, i);
	mmu_end(&e);
	mmu_tally_report(&e, &t);
}

static const struct ptlab_check rsvd = {
	"MMU reserved bits at every level", PTLAB_PHASE_CPU, check_rsvd,
	{ "mmu-rsvd", "the reserved bit left out of the entry the model is told has it",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/*
 * Accessed and dirty bits (SDM 4.8) of every level: a translation sets A
 * in every entry it used and D in the leaf of a write only; a walk that
 * faults (not present at each level, a write to a read-only leaf, a user
 * access under a supervisor entry) may set A on what it read, never D.
 */
static void check_ad(struct check_run *run, const struct ptlab_check *self)
{
	struct mmu_tally t = { .what = self->name };
	struct mmu_env e;
	struct mmu_case c;

	if (mmu_begin(&e, run, self, self->name))
		return;
	for (unsigned int leaf = 0; leaf < 3; leaf++) {
		unsigned int n = e.levels - leaf;

		if (leaf == 2 && !e.big)
			continue;
		/* --inject=mmu-ad: the leaf written dirty, the model told clean */
		e.wrong_set[n - 1] = mmu_injected(&e) ? PTE_D : 0;
		case_init(&e, &c, leaf);
		kinds_cpls(&e, &t, &c, MMU_JUDGE_AD);
		for (unsigned int i = 0; i < n; i++) {
			case_init(&e, &c, leaf);
			c.bits[i] = 0;
			kinds_cpls(&e, &t, &c, MMU_JUDGE_AD);
			case_init(&e, &c, leaf);
			c.bits[i] &= ~(i + 1 == n ? PTE_W : PTE_US);
			kinds_cpls(&e, &t, &c, MMU_JUDGE_AD);
		}
		e.wrong_set[n - 1] = 0;
	}
	mmu_end(&e);
	mmu_tally_report(&e, &t);
	/* where the SDM leaves the choice, both readings pass: say which this CPU takes */
	report_note(run->rep, "%s: A on a faulting walk is left open by the SDM (4.8), either "
		    "accepted: %lu of %lu faulting walks set A in an entry they read", self->name,
		    t.a_open_set, t.a_open);
}

static const struct ptlab_check ad = {
	"MMU accessed and dirty bits at every level", PTLAB_PHASE_CPU, check_ad,
	{ "mmu-ad", "the leaf written dirty while the model is told it is clean", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

ptlab_check_table mmuperm_table = {
	&perm, &smep, &smap, &pk, &rsvd, &ad, NULL,
};
