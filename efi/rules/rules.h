/* SPDX-License-Identifier: MIT */
/*
 * The paging rules of the SDM (Vol. 3A 4.5-4.10) as a pure function: given
 * the control state, the entries one linear-address walk reads and an access,
 * predict what the processor must do: translate (and which A/D bits it sets)
 * or raise #PF with which error code.
 *
 * This module is the judge of the CPU, so it shares no code with what builds
 * the tables (paging/): it is written from the SDM's text, section by
 * section, and unit-tested on the host against cases worked by hand
 * (tests/unit/test_rules.c).  Firmware-free: <stdbool.h>, <stdint.h>.
 *
 * The walk is given as the entries the processor reads, root first:
 * entries[0] is the PML5E (5 levels) or PML4E (4 levels), and so on down.
 * The model decides where the walk ends (a not-present entry, a PS leaf at
 * the PDPTE or PDE, a reserved bit, or the PTE) and reads no entry past it;
 * the caller may pass fewer entries than the paging mode has levels only when
 * the walk ends earlier (a short array is otherwise RULES_EINVAL).
 */
#ifndef PTLAB_EFI_RULES_H
#define PTLAB_EFI_RULES_H

#include <stdbool.h>
#include <stdint.h>

/* #PF error code bits (SDM Vol. 3A 4.7, Figure 4-12). */
#define RULES_PF_P	(1u << 0)
#define RULES_PF_W	(1u << 1)
#define RULES_PF_US	(1u << 2)
#define RULES_PF_RSVD	(1u << 3)
#define RULES_PF_ID	(1u << 4)
#define RULES_PF_PK	(1u << 5)

#define RULES_MAX_LEVELS	5

/* The control state that decides an access (SDM 4.1.3, 4.6). */
struct rules_ctl {
	unsigned int levels;	/* 4 or 5 (CR4.LA57) */
	unsigned int maxphyaddr;	/* CPUID 80000008h:EAX[7:0], 36..52 */
	bool wp;		/* CR0.WP */
	bool nxe;		/* IA32_EFER.NXE */
	bool smep;		/* CR4.SMEP */
	bool smap;		/* CR4.SMAP */
	bool pke;		/* CR4.PKE */
	bool ac;		/* EFLAGS.AC at the access */
	bool page1gb;		/* CPUID 80000001h:EDX[26]: a PS PDPTE is a leaf */
	uint32_t pkru;		/* PKRU, read only when pke */
};

enum rules_kind {
	RULES_READ,
	RULES_WRITE,
	RULES_FETCH,
};

struct rules_access {
	uint64_t va;
	enum rules_kind kind;
	unsigned int cpl;	/* 0..3; 3 is user mode, the others supervisor */
	/* An implicit supervisor access (a descriptor-table read, say): SDM
	 * 4.6 treats it as supervisor whatever the CPL, and SMAP applies to it
	 * regardless of EFLAGS.AC. */
	bool implicit;
};

/* What the processor must do. */
struct rules_outcome {
	bool fault;		/* #PF */
	bool gp;		/* #GP: va not canonical for the mode (no walk) */
	uint32_t error;		/* #PF error code when fault */
	unsigned int walked;	/* entries read: the walk's depth, 1..levels */
	unsigned int leaf;	/* when !fault: index into entries[] of the leaf */
	unsigned int leaf_level;	/* 0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB */
	uint64_t pa;		/* when !fault: the physical address */
	/* A/D (SDM 4.8): bit i stands for entries[i].  On a translation,
	 * a_must is every entry walked and d_must the leaf on a write; a
	 * faulting walk may or may not have set A on the entries it read
	 * (the SDM leaves it open), so a_must is 0 and a_may names them. */
	uint32_t a_must;
	uint32_t a_may;
	uint32_t d_must;	/* d_may == d_must: D is never set elsewhere */
	const char *rule;	/* the SDM section that decided, e.g. "4.6.1 U/S" */
};

#define RULES_EINVAL	(-1)

/*
 * rules_predict - the outcome of one access under the SDM's rules.
 * Returns 0 and fills *out; RULES_EINVAL (and *out untouched) when the
 * arguments are not a state the SDM describes (levels not 4 or 5, maxphyaddr
 * out of range, too few entries for where the walk ends).
 */
int rules_predict(const struct rules_ctl *ctl, const uint64_t *entries,
		  unsigned int n, const struct rules_access *acc,
		  struct rules_outcome *out);

/* rules_reserved - the reserved bits of an entry at a level (0 = PTE ..
 * 4 = PML5E), as a leaf when leaf is true (PS=1 at level 1 or 2), under ctl
 * (MAXPHYADDR, NXE, 1 GiB pages).  SDM 4.5, Tables 4-15 to 4-20. */
uint64_t rules_reserved(const struct rules_ctl *ctl, unsigned int level,
			bool leaf);

#endif
