// SPDX-License-Identifier: MIT
/*
 * The SDM's paging rules (Vol. 3A, chapter 4) as one pure function: the
 * judge the CPU's answers are held to (rules.h).  Written from the SDM's
 * text, section by section; it shares nothing with paging/, the code under
 * judgement, and keeps its own names for every bit it reads.
 *
 * Only 4-level and 5-level paging (IA-32e, CR4.PAE=1, EFER.LMA=1) are
 * described: the modes ptlab runs in.
 */
#include "rules/rules.h"

#include <stddef.h>

/* Paging-structure entry bits (4.5, Tables 4-14 to 4-20). */
#define E_P	(UINT64_C(1) << 0)	/* present */
#define E_RW	(UINT64_C(1) << 1)	/* read/write */
#define E_US	(UINT64_C(1) << 2)	/* user/supervisor */
#define E_PS	(UINT64_C(1) << 7)	/* page size (PDPTE, PDE); PAT in a PTE */
#define E_XD	(UINT64_C(1) << 63)	/* execute-disable (when NXE=1) */
#define E_PKEY_SHIFT	59		/* protection key, bits 62:59 (4.6.2) */

/* bits hi..lo set */
static uint64_t bits(unsigned int hi, unsigned int lo)
{
	uint64_t upto = hi >= 63 ? ~UINT64_C(0) : (UINT64_C(1) << (hi + 1)) - 1;

	return upto & ~((UINT64_C(1) << lo) - 1);
}

/*
 * 4.5, "reserved bits" after Tables 4-14 to 4-20 ("the processor ... sets
 * RSVD"):
 *  - bits 51:MAXPHYADDR are reserved in every paging-structure entry;
 *  - if IA32_EFER.NXE = 0, the XD flag (bit 63) is reserved;
 *  - the PS flag of a PML5E or PML4E is reserved (Tables 4-14, 4-15);
 *  - if 1-GByte pages are not supported (CPUID.80000001H:EDX.Page1GB = 0),
 *    the PS flag of a PDPTE is reserved (4.5.4);
 *  - in a PDPTE that maps a 1-GByte page, bits 29:13 (Table 4-16);
 *  - in a PDE that maps a 2-MByte page, bits 20:13 (Table 4-18).
 * Bit 12 of a large leaf is its PAT bit and bit 7 of a PTE its PAT bit:
 * neither is reserved.
 */
uint64_t rules_reserved(const struct rules_ctl *ctl, unsigned int level,
			bool leaf)
{
	uint64_t r = 0;

	if (ctl->maxphyaddr < 52)
		r |= bits(51, ctl->maxphyaddr);
	if (!ctl->nxe)
		r |= E_XD;
	if (level >= 3)
		r |= E_PS;
	else if (level == 2 && !ctl->page1gb)
		r |= E_PS;
	else if (level == 2 && leaf)
		r |= bits(29, 13);
	else if (level == 1 && leaf)
		r |= bits(20, 13);
	return r;
}

/*
 * 3.3.7.1 and 4.5: in 64-bit mode a linear address must be canonical: bits
 * 63:47 (4-level paging) or 63:56 (5-level paging) all equal.  A
 * non-canonical address raises #GP (#SS for a stack reference) before any
 * paging-structure entry is read.
 */
static bool canonical(uint64_t va, unsigned int levels)
{
	unsigned int top = levels == 5 ? 56 : 47;
	uint64_t high = va & bits(63, top);

	return high == 0 || high == bits(63, top);
}

/* What the walk found: the entries' combined rights (4.6.1: "in every
 * paging-structure entry controlling the translation"). */
struct walk {
	unsigned int walked;
	bool not_present;	/* the last entry read had P=0 */
	bool rsvd;		/* the last entry read had a reserved bit set */
	unsigned int leaf;	/* index of the leaf when neither */
	unsigned int leaf_level;
	bool user_all;		/* U/S=1 in every entry: a user-mode address */
	bool write_all;		/* R/W=1 in every entry */
	bool xd_any;		/* XD=1 in some entry (only read when NXE=1) */
	uint32_t a_may;		/* entries present and without reserved bits */
	const char *rule;
};

/*
 * The walk (4.5): from the root, one entry per level.  An entry with P=0
 * ends it (4.5: "if the P flag is 0 ... the processor ... causes a #PF");
 * reserved bits are checked only in present entries (4.7: "reserved bits
 * are not checked in a paging-structure entry whose P flag is 0") and end
 * it too.  A PDPTE with PS=1 (1-GByte pages supported) or a PDE with PS=1
 * maps a page (4.5.4); a PTE always does.  Returns the number of entries
 * it needs, which the caller compares with n.
 */
static unsigned int walk(const struct rules_ctl *ctl, const uint64_t *entries,
			 unsigned int n, struct walk *w)
{
	w->user_all = true;
	w->write_all = true;
	w->xd_any = false;
	w->a_may = 0;
	for (unsigned int i = 0; i < ctl->levels; i++) {
		unsigned int level = ctl->levels - 1 - i;
		bool leaf;
		uint64_t e;

		if (i >= n)
			return i + 1;
		e = entries[i];
		w->walked = i + 1;
		if (!(e & E_P)) {
			w->not_present = true;
			w->rule = "4.5 P=0";
			return i + 1;
		}
		leaf = level == 0 || ((level == 1 || level == 2) && (e & E_PS));
		if (e & rules_reserved(ctl, level, leaf)) {
			w->rsvd = true;
			w->rule = "4.5 reserved bit";
			return i + 1;
		}
		w->a_may |= 1u << i;
		w->user_all = w->user_all && (e & E_US);
		w->write_all = w->write_all && (e & E_RW);
		w->xd_any = w->xd_any || (e & E_XD);
		if (leaf) {
			w->leaf = i;
			w->leaf_level = level;
			return i + 1;
		}
	}
	return ctl->levels;	/* not reached: level 0 is always a leaf */
}

/*
 * 4.6.2: with CR4.PKE = 1 a user-mode address has the protection key of
 * bits 62:59 of the entry that maps its page; PKRU[2i] is AD and
 * PKRU[2i+1] is WD for key i.  AD=1 forbids every data access; WD=1 forbids
 * writes, by user-mode accesses always and by supervisor-mode accesses
 * when CR0.WP = 1.  Instruction fetches are not affected.  This is also
 * exactly 4.7's condition for the PK flag of the error code.
 */
static bool pkey_denies(const struct rules_ctl *ctl, uint64_t leaf,
			const struct rules_access *acc, bool user_mode)
{
	unsigned int key = (unsigned int)(leaf >> E_PKEY_SHIFT) & 0xf;
	bool ad = (ctl->pkru >> (2 * key)) & 1;
	bool wd = (ctl->pkru >> (2 * key + 1)) & 1;

	if (!ctl->pke || acc->kind == RULES_FETCH)
		return false;
	return ad || (wd && acc->kind == RULES_WRITE && (user_mode || ctl->wp));
}

/*
 * 4.6.1, the access rights of a translation, address by address mode.
 * A user-mode access (CPL 3, not implicit) may touch only user-mode
 * addresses (U/S=1 in every entry); it writes only where R/W=1 in every
 * entry; it fetches only where XD=0 in every entry when NXE=1.  A
 * supervisor-mode access (CPL < 3, or implicit):
 *  - reads any supervisor-mode address; a user-mode address too, except
 *    when CR4.SMAP = 1 and (EFLAGS.AC = 0 or the access is implicit);
 *  - writes like it reads, but with CR0.WP = 1 only where R/W=1 in every
 *    entry (for supervisor- and user-mode addresses alike);
 *  - fetches where XD=0 in every entry (NXE=1), and from a user-mode
 *    address only when CR4.SMEP = 0.
 * Returns the rule that forbids the access, or NULL.  Protection keys
 * (4.6.2) are judged by pkey_denies.
 */
static const char *denied(const struct rules_ctl *ctl, const struct walk *w,
			  const struct rules_access *acc, bool user_mode)
{
	bool smap_blocks = ctl->smap && (!ctl->ac || acc->implicit);

	if (user_mode) {
		if (!w->user_all)
			return "4.6.1 U/S: user access to a supervisor-mode address";
		if (acc->kind == RULES_WRITE && !w->write_all)
			return "4.6.1 R/W: user write to a read-only address";
	} else if (acc->kind != RULES_FETCH) {
		if (w->user_all && smap_blocks)
			return "4.6.1 SMAP: supervisor data access to a user-mode address";
		if (acc->kind == RULES_WRITE && ctl->wp && !w->write_all)
			return "4.6.1 WP: supervisor write to a read-only address with CR0.WP=1";
	} else if (w->user_all && ctl->smep) {
		return "4.6.1 SMEP: supervisor fetch from a user-mode address";
	}
	if (acc->kind == RULES_FETCH && ctl->nxe && w->xd_any)
		return "4.6.1 XD: fetch from an execute-disable address";
	return NULL;
}

static bool ctl_valid(const struct rules_ctl *ctl, const struct rules_access *acc)
{
	return (ctl->levels == 4 || ctl->levels == 5) &&
	       ctl->maxphyaddr >= 36 && ctl->maxphyaddr <= 52 &&
	       acc->cpl <= 3 && acc->kind <= RULES_FETCH;
}

/*
 * 4.7, the error code: P=0 when the fault was a not-present entry and 1
 * otherwise (a protection violation or a reserved bit: "bit 3 of the error
 * code can be set only if bit 0 is also set"); W/R=1 for a write; U/S=1 for
 * a user-mode access; RSVD=1 for a reserved bit; I/D=1 for an instruction
 * fetch when CR4.SMEP = 1 or (CR4.PAE = 1 and) IA32_EFER.NXE = 1; PK=1 for a
 * data access to a user-mode address whose key's PKRU bits forbid it.
 */
static uint32_t error_code(const struct rules_ctl *ctl, const struct walk *w,
			   const struct rules_access *acc, bool user_mode, bool pk)
{
	uint32_t err = 0;

	if (!w->not_present)
		err |= RULES_PF_P;
	if (w->rsvd)
		err |= RULES_PF_RSVD;
	if (acc->kind == RULES_WRITE)
		err |= RULES_PF_W;
	if (user_mode)
		err |= RULES_PF_US;
	if (acc->kind == RULES_FETCH && (ctl->nxe || ctl->smep))
		err |= RULES_PF_ID;
	if (pk)
		err |= RULES_PF_PK;
	return err;
}

int rules_predict(const struct rules_ctl *ctl, const uint64_t *entries,
		  unsigned int n, const struct rules_access *acc,
		  struct rules_outcome *out)
{
	struct rules_outcome o = { 0 };
	struct walk w = { 0 };
	/* 4.6: implicit accesses are supervisor-mode accesses whatever the CPL */
	bool user_mode = acc->cpl == 3 && !acc->implicit;
	const char *why;
	bool pk;

	if (!ctl_valid(ctl, acc))
		return RULES_EINVAL;
	if (!canonical(acc->va, ctl->levels)) {
		o.gp = true;
		o.rule = "3.3.7.1 non-canonical address: #GP, no walk";
		*out = o;
		return 0;
	}
	if (walk(ctl, entries, n, &w) > n)
		return RULES_EINVAL;
	o.walked = w.walked;
	o.a_may = w.a_may;
	if (w.not_present || w.rsvd) {
		o.fault = true;
		o.error = error_code(ctl, &w, acc, user_mode, false);
		o.rule = w.rule;
		*out = o;
		return 0;
	}
	pk = w.user_all && pkey_denies(ctl, entries[w.leaf], acc, user_mode);
	why = denied(ctl, &w, acc, user_mode);
	if (why || pk) {
		o.fault = true;
		o.error = error_code(ctl, &w, acc, user_mode, pk);
		o.rule = why ? why : "4.6.2 PKRU: the page's protection key forbids it";
		*out = o;
		return 0;
	}
	o.leaf = w.leaf;
	o.leaf_level = w.leaf_level;
	{
		unsigned int shift = 12 + 9 * w.leaf_level;

		o.pa = (entries[w.leaf] & bits(51, shift)) |
		       (acc->va & bits(shift - 1, 0));
	}
	/* 4.8: A in every entry used, D in the leaf of a write */
	o.a_must = (1u << w.walked) - 1;
	o.a_may = o.a_must;
	o.d_must = acc->kind == RULES_WRITE ? 1u << w.leaf : 0;
	o.rule = "4.6 translated";
	*out = o;
	return 0;
}
