/* SPDX-License-Identifier: MIT */
/*
 * CPU capabilities and the save/restore of the CPU state ptlab changes.
 */
#include "cpu.h"

#define GDT_TSS_BUSY	(1u << 1)	/* type 0xB (busy) vs 0x9 (available) */

void cpu_caps_read(struct cpu_caps *caps)
{
	uint32_t r[4];

	*caps = (struct cpu_caps){ .maxphyaddr = 36, .linaddr = 48 };

	cpuid(0, 0, r);
	caps->max_leaf = r[0];
	if (caps->max_leaf >= 1) {
		cpuid(1, 0, r);
		caps->hypervisor = (r[2] >> 31) & 1;
		caps->pge = (r[3] >> 13) & 1;
		caps->mca = (r[3] >> 14) & 1;
		caps->pat = (r[3] >> 16) & 1;
	}
	if (caps->max_leaf >= 7) {
		cpuid(7, 0, r);
		caps->smep = (r[1] >> 7) & 1;
		caps->smap = (r[1] >> 20) & 1;
		caps->pku = (r[2] >> 3) & 1;
		caps->la57 = (r[2] >> 16) & 1;
	}

	cpuid(0x80000000, 0, r);
	caps->max_ext_leaf = r[0] >= 0x80000000 ? r[0] : 0;
	if (caps->max_ext_leaf >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		caps->nx = (r[3] >> 20) & 1;
		caps->pdpe1gb = (r[3] >> 26) & 1;
	}
	if (caps->max_ext_leaf >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		caps->invariant_tsc = (r[3] >> 8) & 1;
	}
	if (caps->max_ext_leaf >= 0x80000008) {
		cpuid(0x80000008, 0, r);
		if (r[0] & 0xff)
			caps->maxphyaddr = r[0] & 0xff;
		if ((r[0] >> 8) & 0xff)
			caps->linaddr = (r[0] >> 8) & 0xff;
	}
	caps->la57_enabled = (read_cr4() & CR4_LA57) != 0;
}

/*
 * @tr if its descriptor in the GDT at @gdtr is a present busy 64-bit TSS
 * (what ltr leaves behind), else 0: a TR loaded from another GDT, such as
 * ours left in place by cpu_state_restore(), cannot be reloaded from this one.
 */
static uint16_t tr_restorable(const struct desc_ptr *gdtr, uint16_t tr)
{
	const volatile uint8_t *access;

	if (!(tr & ~7u) || (tr & 4) || (uint32_t)(tr & ~7u) + 15 > gdtr->limit)
		return 0;
	access = (const volatile uint8_t *)(uintptr_t)(gdtr->base + (tr & ~7u) + 5);
	return (*access & 0x9f) == 0x8b ? tr : 0;
}

void cpu_state_save(struct cpu_state *s)
{
	uint32_t r[4];

	s->irq_on = (read_rflags() & RFLAGS_IF) != 0;
	s->cr0 = read_cr0();
	s->cr3 = read_cr3();
	s->cr4 = read_cr4();
	s->efer = read_efer();
	cpuid(1, 0, r);
	s->has_pat = (r[3] >> 16) & 1;
	s->pat = s->has_pat ? read_pat() : 0;
	s->fs_base = rdmsr(MSR_FS_BASE);
	s->gs_base = rdmsr(MSR_GS_BASE);
	sgdt(&s->gdtr);
	sidt(&s->idtr);
	s->tr = tr_restorable(&s->gdtr, read_tr());
	s->cs = read_cs();
	s->ds = read_ds();
	s->es = read_es();
	s->ss = read_ss();
	s->fs = read_fs();
	s->gs = read_gs();
}

/* Byte 5 of a system descriptor holds its type; see SDM Vol. 3A §7.2.3. */
static void gdt_clear_tss_busy(const struct desc_ptr *gdtr, uint16_t sel)
{
	volatile uint8_t *type = (volatile uint8_t *)(uintptr_t)(gdtr->base + (sel & ~7u) + 5);

	if ((uint32_t)(sel & ~7u) + 15 > gdtr->limit)
		return;
	*type = *type & (uint8_t)~GDT_TSS_BUSY;
}

static void state_restore(const struct cpu_state *s, bool irq)
{
	cli();

	/*
	 * Paging first, CR3 before EFER: the tables loaded now may carry NX
	 * bits that become reserved bits the moment EFER.NXE is cleared, so
	 * the saved tables go in before the saved EFER (a firmware that runs
	 * with NXE=0 has no NX bit in its own tables).  PGE is off across the
	 * switch so no global translation of ours survives it.
	 */
	write_cr4(s->cr4 & ~CR4_PGE);
	write_cr3(s->cr3);
	write_cr4(s->cr4);
	if (read_efer() != s->efer)
		write_efer(s->efer);
	if (s->has_pat)
		write_pat(s->pat);
	write_cr0(s->cr0);

	lgdt(&s->gdtr);
	cpu_load_data_segs(s->ds, s->es, s->ss, s->fs, s->gs);
	cpu_load_cs(s->cs);
	wrmsr(MSR_FS_BASE, s->fs_base);
	wrmsr(MSR_GS_BASE, s->gs_base);
	if (s->tr) {
		gdt_clear_tss_busy(&s->gdtr, s->tr);
		ltr(s->tr);
	}
	lidt(&s->idtr);

	if (irq && s->irq_on)
		sti();
}

void cpu_state_restore(const struct cpu_state *s)
{
	state_restore(s, true);
}

void cpu_state_restore_noirq(const struct cpu_state *s)
{
	state_restore(s, false);
}
