/* SPDX-License-Identifier: MIT */
/* covers: efi/cpu/gdt.c */
/*
 * efi/cpu/gdt.c: the order of the register writes that give the firmware its
 * paging state back (cpu_restore_steps), run on a model CPU that enforces
 * the SDM's rules for MOV to CR0/CR3/CR4 and WRMSR EFER, and tracks which
 * translations its TLB may still hold:
 *  - CR4.PCIDE may not be set while CR3[11:0] != 0 (#GP), LA57 may not
 *    change in long mode (#GP), CET may not be set while CR0.WP = 0 (#GP),
 *    CR0.WP may not be cleared while CR4.CET = 1 (#GP) (SDM Vol. 3A §2.5,
 *    §4.10.1, Vol. 1 §17.2);
 *  - any write that changes CR4.PGE, or clears PCIDE, flushes every entry
 *    of every PCID; a CR3 write flushes the non-global entries of the new
 *    PCID only (with PCIDE = 1) (SDM Vol. 3A §4.10.4.1);
 *  - clearing EFER.NXE while our tables (with NX bits) are in CR3 turns
 *    those bits into reserved bits.
 * Variants cover the entry states other firmware leaves: PGE, PCIDE with a
 * PCID in CR3, CET, LA57, NXE off, no PGE support at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/cpu/gdt.h"

#define OURS_CR3	UINT64_C(0x7000000)	/* ptlab's tables, PCID 0 */
#define CR0_FW		UINT64_C(0x80010033)
#define EFER_FW		UINT64_C(0xd00)

struct model {
	uint64_t cr0, cr3, cr4, efer, pat;
	bool ours_global;	/* global translations of ours may be cached */
	bool ours_pcid0;	/* non-global ones, tagged PCID 0 */
	bool fault;		/* a write the CPU would #GP on, or a reserved-bit hazard */
	const char *why;
};

static void gp(struct model *m, const char *why)
{
	m->fault = true;
	m->why = why;
}

static void step(struct model *m, const struct cpu_step *s)
{
	switch (s->reg) {
	case CPU_REG_CR4: {
		uint64_t old = m->cr4, v = s->val;

		if ((v & CR4_PCIDE) && !(old & CR4_PCIDE) && (m->cr3 & 0xfff))
			gp(m, "PCIDE set with CR3[11:0] != 0");
		if ((v ^ old) & CR4_LA57)
			gp(m, "LA57 changed in long mode");
		if ((v & CR4_CET) && !(m->cr0 & CR0_WP))
			gp(m, "CET set with CR0.WP = 0");
		if (((v ^ old) & CR4_PGE) || ((old & CR4_PCIDE) && !(v & CR4_PCIDE)))
			m->ours_global = m->ours_pcid0 = false;
		m->cr4 = v;
		break;
	}
	case CPU_REG_CR3:
		if (!(m->cr4 & CR4_PCIDE) || (s->val & 0xfff) == 0)
			m->ours_pcid0 = false;
		m->cr3 = s->val;
		break;
	case CPU_REG_CR0:
		if ((m->cr4 & CR4_CET) && !(s->val & CR0_WP))
			gp(m, "WP cleared with CET on");
		m->cr0 = s->val;
		break;
	case CPU_REG_EFER:
		if (m->cr3 == OURS_CR3 && !(s->val & EFER_NXE))
			gp(m, "NXE cleared with our tables in CR3");
		m->efer = s->val;
		break;
	case CPU_REG_PAT:
		m->pat = s->val;
		break;
	}
	/* the firmware's CR3 must never meet a translation of ours */
	if (m->cr3 != OURS_CR3 && (m->ours_global || ((m->cr3 & 0xfff) == 0 && m->ours_pcid0)))
		gp(m, "firmware CR3 loaded with our translations still cached");
}

/* ptlab live: its CR3, WP and NXE set, CR4 and PAT as the firmware had them. */
static void run(const struct cpu_state *s)
{
	struct cpu_step st[CPU_RESTORE_STEPS_MAX + 1];
	struct model m = {
		.cr0 = s->cr0 | CR0_WP, .cr3 = OURS_CR3, .cr4 = s->cr4,
		.efer = s->efer | EFER_NXE, .pat = UINT64_C(0x0007040600070406),
		.ours_global = true, .ours_pcid0 = true,
	};
	unsigned n = cpu_restore_steps(s, m.cr3, m.cr4, m.efer, st);

	assert_true(n >= 4 && n <= CPU_RESTORE_STEPS_MAX);
	for (unsigned i = 0; i < n; i++) {
		step(&m, &st[i]);
		if (m.fault)
			fail_msg("step %u (reg %d = 0x%llx): %s", i, st[i].reg,
				 (unsigned long long)st[i].val, m.why);
	}
	assert_int_equal(m.cr0, s->cr0);
	assert_int_equal(m.cr3, s->cr3);
	assert_int_equal(m.cr4, s->cr4);
	assert_int_equal(m.efer, s->efer);
	if (s->has_pat)
		assert_int_equal(m.pat, s->pat);
	assert_false(m.ours_global);
}

static struct cpu_state ovmf(void)
{
	return (struct cpu_state){ .cr0 = CR0_FW, .cr3 = 0x3f801000, .cr4 = 0x668,
				   .efer = EFER_FW, .pat = UINT64_C(0x0007040600070406),
				   .has_pat = true, .has_pge = true };
}

static void test_ovmf_and_uboot(void **state)
{
	struct cpu_state s = ovmf();

	(void)state;
	run(&s);
	/* U-Boot: CR4 = 0x20 (PGE, PCIDE, OSFXSR clear), WP clear, no NXE */
	s = (struct cpu_state){ .cr0 = 0x80000011, .cr3 = 0x80000, .cr4 = 0x20, .efer = 0x500,
				.pat = UINT64_C(0x0007040600070406), .has_pat = true,
				.has_pge = true };
	run(&s);
}

static void test_pge_and_pat(void **state)
{
	struct cpu_state s = ovmf();

	(void)state;
	s.cr4 |= CR4_PGE;
	s.pat = UINT64_C(0x0007010600070106);
	run(&s);
}

static void test_pcid_in_cr3(void **state)
{
	struct cpu_state s = ovmf();

	(void)state;
	s.cr4 |= CR4_PCIDE;
	s.cr3 |= 5;
	run(&s);
	s.cr4 |= CR4_PGE;
	run(&s);
}

static void test_cet_wp_la57_nxe(void **state)
{
	struct cpu_state s = ovmf();

	(void)state;
	s.cr4 |= CR4_CET | CR4_PGE;	/* CET requires WP: the firmware has it */
	run(&s);
	s = ovmf();
	s.cr4 |= CR4_LA57;
	run(&s);
	s = ovmf();
	s.efer &= ~EFER_NXE;
	s.cr0 &= ~CR0_WP;
	run(&s);
}

static void test_no_pge_support(void **state)
{
	struct cpu_state s = ovmf();
	struct cpu_step st[CPU_RESTORE_STEPS_MAX];

	(void)state;
	s.has_pge = false;
	s.cr4 &= ~CR4_PGE;
	/* no global translations possible then: a CR3 reload flushes ours */
	assert_int_equal(cpu_restore_steps(&s, OURS_CR3, s.cr4, s.efer, st), 5);
	assert_int_equal(st[0].reg, CPU_REG_CR3);
	assert_int_equal(st[0].val, OURS_CR3);
}

/* The model catches what a careless order would do. */
static void test_model_catches_bad_orders(void **state)
{
	struct model m = { .cr0 = CR0_FW, .cr3 = OURS_CR3, .cr4 = 0x668, .efer = EFER_FW,
			   .ours_global = true, .ours_pcid0 = true };
	struct cpu_step s;

	(void)state;
	s = (struct cpu_step){ CPU_REG_EFER, EFER_FW & ~EFER_NXE };
	step(&m, &s);
	assert_true(m.fault);			/* NXE off before the CR3 switch */
	m.fault = false;
	s = (struct cpu_step){ CPU_REG_CR3, 0x3f801000 };
	step(&m, &s);
	assert_true(m.fault);			/* no PGE toggle: our global pages survive */
	m = (struct model){ .cr3 = 0x1005, .cr4 = 0x668 };
	s = (struct cpu_step){ CPU_REG_CR4, 0x668 | CR4_PCIDE };
	step(&m, &s);
	assert_true(m.fault);			/* PCIDE with a PCID in CR3 */
	/* the CET rules the CET entry state relies on */
	m = (struct model){ .cr0 = CR0_FW, .cr3 = 0x1000, .cr4 = 0x668 | CR4_CET };
	s = (struct cpu_step){ CPU_REG_CR0, CR0_FW & ~CR0_WP };
	step(&m, &s);
	assert_true(m.fault);			/* WP cleared with CET on */
	m = (struct model){ .cr0 = CR0_FW & ~CR0_WP, .cr3 = 0x1000, .cr4 = 0x668 };
	s = (struct cpu_step){ CPU_REG_CR4, 0x668 | CR4_CET };
	step(&m, &s);
	assert_true(m.fault);			/* CET set with WP clear */
	m = (struct model){ .cr0 = CR0_FW, .cr3 = 0x1000, .cr4 = 0x668 };
	step(&m, &s);
	assert_false(m.fault);			/* ... and allowed with WP set */
}

UNIT_MAIN(
	cmocka_unit_test(test_ovmf_and_uboot),
	cmocka_unit_test(test_pge_and_pat),
	cmocka_unit_test(test_pcid_in_cr3),
	cmocka_unit_test(test_cet_wp_la57_nxe),
	cmocka_unit_test(test_no_pge_support),
	cmocka_unit_test(test_model_catches_bad_orders))
