/* SPDX-License-Identifier: MIT */
/*
 * CPU capabilities and the save/restore of the CPU state ptlab changes.
 *
 * No firmware calls.
 */
#include "cpu/cpu.h"
#include "cpu/gdt.h"

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
	s->has_pge = (r[3] >> 13) & 1;
	s->pat = s->has_pat ? read_pat() : 0;
	s->fs_base = rdmsr(MSR_FS_BASE);
	s->gs_base = rdmsr(MSR_GS_BASE);
	sgdt(&s->gdtr);
	sidt(&s->idtr);
	s->tr_raw = read_tr();
	s->tr = cpu_gdt_has_busy_tss(&s->gdtr, s->tr_raw) ? s->tr_raw : 0;
	s->cs = read_cs();
	s->ds = read_ds();
	s->es = read_es();
	s->ss = read_ss();
	s->fs = read_fs();
	s->gs = read_gs();
}

/* The writer of each register a restore step names. */
static void (*const write_reg[])(uint64_t) = {
	[CPU_REG_CR0] = write_cr0, [CPU_REG_CR3] = write_cr3, [CPU_REG_CR4] = write_cr4,
	[CPU_REG_EFER] = write_efer, [CPU_REG_PAT] = write_pat,
};

static void state_restore(const struct cpu_state *s, void *scratch, uint32_t scratch_bytes,
			  bool irq)
{
	struct cpu_step step[CPU_RESTORE_STEPS_MAX];
	struct desc_ptr copy;
	unsigned n;

	cli();

	/*
	 * Paging first, CR3 before EFER: the tables loaded now may carry NX
	 * bits that become reserved bits the moment EFER.NXE is cleared, so
	 * the saved tables go in before the saved EFER (a firmware that runs
	 * with NXE=0 has no NX bit in its own tables).  PGE is off across the
	 * switch so no translation of ours, global or under any PCID, survives
	 * it.  CR3 goes back with its PCID bits; PCIDE itself never changed.
	 */
	n = cpu_restore_steps(s, read_cr3(), read_cr4(), read_efer(), step);
	for (unsigned i = 0; i < n; i++)
		write_reg[step[i].reg](step[i].val);

	/* the firmware's TSS through a writable copy of its GDT, then its GDTR */
	if (s->tr && cpu_gdt_copy_for_ltr(&s->gdtr, s->tr, scratch, scratch_bytes, &copy)) {
		lgdt(&copy);
		ltr(s->tr);
	}
	lgdt(&s->gdtr);
	lidt(&s->idtr);
	wrmsr(MSR_FS_BASE, s->fs_base);
	wrmsr(MSR_GS_BASE, s->gs_base);

	if (irq && s->irq_on)
		sti();
}

void cpu_state_restore(const struct cpu_state *s, void *scratch, uint32_t scratch_bytes)
{
	state_restore(s, scratch, scratch_bytes, true);
}

void cpu_state_restore_noirq(const struct cpu_state *s, void *scratch, uint32_t scratch_bytes)
{
	state_restore(s, scratch, scratch_bytes, false);
}
