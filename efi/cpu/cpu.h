/* SPDX-License-Identifier: MIT */
/*
 * CPU control for ptlab: control registers, MSRs, TLB maintenance, port I/O,
 * descriptor tables and segment selectors, CPUID capabilities, and a saved
 * copy of everything the application changes so the firmware gets its CPU
 * back exactly as it left it.
 *
 * Firmware-free: only <stdint.h> and <stdbool.h>.  Every accessor acts on the
 * current CPU at CPL 0 in 64-bit mode; nothing here is serialized against
 * interrupts unless it says so.
 */
#ifndef PTLAB_EFI_CPU_H
#define PTLAB_EFI_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* ---- architectural bits ------------------------------------------------- */

#define CR0_PE		(UINT64_C(1) << 0)
#define CR0_WP		(UINT64_C(1) << 16)
#define CR0_PG		(UINT64_C(1) << 31)

#define CR4_PAE		(UINT64_C(1) << 5)
#define CR4_PGE		(UINT64_C(1) << 7)
#define CR4_PCIDE	(UINT64_C(1) << 17)
#define CR4_CET		(UINT64_C(1) << 23)
#define CR4_LA57	(UINT64_C(1) << 12)
#define CR4_SMEP	(UINT64_C(1) << 20)
#define CR4_SMAP	(UINT64_C(1) << 21)
#define CR4_PKE		(UINT64_C(1) << 22)

#define RFLAGS_IF	(UINT64_C(1) << 9)
#define RFLAGS_AC	(UINT64_C(1) << 18)

#define MSR_APIC_BASE		0x1b	/* IA32_APIC_BASE (SDM Vol. 3A 11.4.4) */
#define MSR_IA32_MCG_STATUS	0x17a
#define MSR_IA32_PAT		0x277
#define MSR_EFER		0xc0000080
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101

#define EFER_SCE	(UINT64_C(1) << 0)
#define EFER_LME	(UINT64_C(1) << 8)
#define EFER_LMA	(UINT64_C(1) << 10)
#define EFER_NXE	(UINT64_C(1) << 11)

/* Operand of lgdt/lidt/sgdt/sidt (SDM Vol. 3A §3.5.1). */
struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* ---- CPUID -------------------------------------------------------------- */

/* Execute CPUID for @leaf/@subleaf; regs[0..3] = EAX, EBX, ECX, EDX. */
static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3])
			 : "a"(leaf), "c"(subleaf));
}

/* ---- control registers -------------------------------------------------- */

/*
 * read_crN() and write_crN(v) for CR0, CR2, CR3 and CR4.  Every access is a
 * compiler barrier, reads included: a write to CR0, CR3 or CR4 changes what
 * memory means, and no read may move across one.  Loading CR3 flushes every
 * non-global translation (SDM Vol. 3A §4.10.4.1).
 */
#define CPU_CR_ACCESSORS(n)							\
	static inline uint64_t read_cr##n(void)					\
	{									\
		uint64_t v;							\
										\
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v) : : "memory");	\
		return v;							\
	}									\
	static inline void write_cr##n(uint64_t v)				\
	{									\
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");	\
	}

CPU_CR_ACCESSORS(0)
CPU_CR_ACCESSORS(2)
CPU_CR_ACCESSORS(3)
CPU_CR_ACCESSORS(4)

/* ---- MSRs --------------------------------------------------------------- */

/* Read MSR @msr; #GP if the MSR does not exist. */
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

/* Write MSR @msr; #GP if the MSR does not exist or @v is invalid for it. */
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline uint64_t read_efer(void)
{
	return rdmsr(MSR_EFER);
}

static inline void write_efer(uint64_t v)
{
	wrmsr(MSR_EFER, v);
}

/* IA32_PAT; exists when CPUID.1:EDX[16] (struct cpu_caps.pat). */
static inline uint64_t read_pat(void)
{
	return rdmsr(MSR_IA32_PAT);
}

/*
 * Write IA32_PAT.  Translations cached under the old PAT may keep the old
 * memory type until flushed: callers follow with cpu_flush_tlb_all().
 */
static inline void write_pat(uint64_t v)
{
	wrmsr(MSR_IA32_PAT, v);
}

/* ---- TLB ---------------------------------------------------------------- */

/* Invalidate the translations for the page containing @va (global or not). */
static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Write back and invalidate every cache (SDM Vol. 3A 11.12.4: around a PAT change). */
static inline void wbinvd(void)
{
	__asm__ volatile("wbinvd" : : : "memory");
}

/* Flush all non-global translations by reloading CR3 with its own value. */
static inline void cpu_flush_tlb(void)
{
	write_cr3(read_cr3());
}

/*
 * Flush every translation including global ones by toggling CR4.PGE
 * (SDM Vol. 3A §4.10.4.1).  When PGE is clear, a CR3 reload suffices and is
 * what happens.  Call with interrupts off.
 */
static inline void cpu_flush_tlb_all(void)
{
	uint64_t cr4 = read_cr4();

	if (cr4 & CR4_PGE) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
	} else {
		cpu_flush_tlb();
	}
}

/*
 * Load @pat into IA32_PAT as SDM Vol. 3A 11.12.4 asks: the caches written
 * back and invalidated before and after the change and every translation
 * (global ones too) flushed, so no cached line or TLB entry keeps a memory
 * type of the old PAT.  Interrupts off; the CPU has a PAT (cpu_caps.pat).
 */
static inline void cpu_switch_pat(uint64_t pat)
{
	wbinvd();
	write_pat(pat);
	wbinvd();
	cpu_flush_tlb_all();
}

/* ---- time, interrupts, SMAP --------------------------------------------- */

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;

	__asm__ volatile("pushfq; popq %0" : "=r"(v) : : "memory");
	return v;
}

static inline void cli(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	__asm__ volatile("sti" : : : "memory");
}

/* Disable interrupts; returns whether they were enabled (for cpu_irq_restore). */
static inline bool cpu_irq_save(void)
{
	bool on = (read_rflags() & RFLAGS_IF) != 0;

	cli();
	return on;
}

/* Re-enable interrupts if @on (a cpu_irq_save() result); else leave them off. */
static inline void cpu_irq_restore(bool on)
{
	if (on)
		sti();
}

/* Set RFLAGS.AC (SMAP off for data accesses).  #UD unless caps.smap. */
static inline void stac(void)
{
	__asm__ volatile("stac" : : : "memory");
}

/* Clear RFLAGS.AC.  #UD unless caps.smap. */
static inline void clac(void)
{
	__asm__ volatile("clac" : : : "memory");
}

/* ---- port I/O ----------------------------------------------------------- */

/* inb()/outb() and inl()/outl(): a byte and a doubleword at an I/O port. */
#define CPU_PORT_ACCESSORS(sfx, type)						\
	static inline type in##sfx(uint16_t port)				\
	{									\
		type v;								\
										\
		__asm__ volatile("in" #sfx " %w1, %0" : "=a"(v) : "Nd"(port));	\
		return v;							\
	}									\
	static inline void out##sfx(uint16_t port, type v)			\
	{									\
		__asm__ volatile("out" #sfx " %0, %w1" : : "a"(v), "Nd"(port));	\
	}

CPU_PORT_ACCESSORS(b, uint8_t)
CPU_PORT_ACCESSORS(l, uint32_t)

/* ---- descriptor tables and selectors ------------------------------------ */

static inline void sgdt(struct desc_ptr *p)
{
	__asm__ volatile("sgdt %0" : "=m"(*p));
}

/* Load GDTR.  Segment registers keep their cached descriptors until reloaded. */
static inline void lgdt(const struct desc_ptr *p)
{
	__asm__ volatile("lgdt %0" : : "m"(*p) : "memory");
}

static inline void sidt(struct desc_ptr *p)
{
	__asm__ volatile("sidt %0" : "=m"(*p));
}

static inline void lidt(const struct desc_ptr *p)
{
	__asm__ volatile("lidt %0" : : "m"(*p) : "memory");
}

/* STR: the current task register selector (0 if none was ever loaded). */
static inline uint16_t read_tr(void)
{
	uint16_t v;

	__asm__ volatile("str %0" : "=r"(v));
	return v;
}

/*
 * Load TR with @sel.  The descriptor must be an available 64-bit TSS; the CPU
 * marks it busy in the GDT (a write into the GDT), and #GP if already busy.
 */
static inline void ltr(uint16_t sel)
{
	__asm__ volatile("ltr %0" : : "r"(sel) : "memory");
}

#define CPU_READ_SEG(name)						\
	static inline uint16_t read_##name(void)			\
	{								\
		uint16_t v;						\
									\
		__asm__ volatile("mov %%" #name ", %0" : "=r"(v));	\
		return v;						\
	}
CPU_READ_SEG(cs)
CPU_READ_SEG(ds)
CPU_READ_SEG(es)
CPU_READ_SEG(ss)
CPU_READ_SEG(fs)
CPU_READ_SEG(gs)
#undef CPU_READ_SEG

/*
 * Load DS, ES, SS, FS and GS from the current GDT.  Loading FS or GS clears
 * the upper half of its base: callers that care restore MSR_FS_BASE and
 * MSR_GS_BASE afterwards (cpu_state_restore() does).
 */
static inline void cpu_load_data_segs(uint16_t ds, uint16_t es, uint16_t ss,
				      uint16_t fs, uint16_t gs)
{
	__asm__ volatile("mov %0, %%ds\n\t"
			 "mov %1, %%es\n\t"
			 "mov %2, %%ss\n\t"
			 "mov %3, %%fs\n\t"
			 "mov %4, %%gs"
			 : : "r"(ds), "r"(es), "r"(ss), "r"(fs), "r"(gs) : "memory");
}

/*
 * Load CS with @sel through a far return (cpu_asm.S); the descriptor must be
 * a present 64-bit code segment of the current GDT.
 */
void cpu_load_cs(uint16_t sel);

/* Halt forever with interrupts off (NMIs still wake it; it halts again). */
__attribute__((noreturn)) void cpu_halt(void);

/* ---- capabilities ------------------------------------------------------- */

struct cpu_caps {
	bool pdpe1gb;		/* 1 GiB pages: CPUID.80000001h:EDX[26] */
	bool nx;		/* execute disable: CPUID.80000001h:EDX[20] */
	bool la57;		/* 5-level paging supported: CPUID.7.0:ECX[16] */
	bool la57_enabled;	/* CR4.LA57 right now: the address space has 5 levels */
	bool smep;		/* CPUID.7.0:EBX[7] */
	bool smap;		/* CPUID.7.0:EBX[20] */
	bool pku;		/* protection keys: CPUID.7.0:ECX[3] */
	bool pge;		/* global pages: CPUID.1:EDX[13] */
	bool pat;		/* IA32_PAT: CPUID.1:EDX[16] */
	bool mca;		/* machine-check architecture: CPUID.1:EDX[14] */
	bool hypervisor;	/* running under a hypervisor: CPUID.1:ECX[31] */
	bool invariant_tsc;	/* CPUID.80000007h:EDX[8] */
	uint8_t maxphyaddr;	/* CPUID.80000008h:EAX[7:0]; 36 if the leaf is absent */
	uint8_t linaddr;	/* CPUID.80000008h:EAX[15:8]; 48 if the leaf is absent */
	uint32_t max_leaf;	/* CPUID.0:EAX */
	uint32_t max_ext_leaf;	/* CPUID.80000000h:EAX (0 if below 0x80000000) */
};

/*
 * Fill @caps from CPUID and CR4.  Leaves the CPU untouched; absent leaves read
 * as "feature not present" (and the documented defaults for the widths).
 */
void cpu_caps_read(struct cpu_caps *caps);

/* ---- saved CPU state ---------------------------------------------------- */

/* Entries of the largest GDT (limit 0xffff); a selector's index is below. */
#define CPU_GDT_MAX_ENTRIES	8192u

/*
 * Everything ptlab changes on the CPU.  cpu_state_save() takes a copy,
 * cpu_state_restore() puts every field back.
 *
 * Segment selectors are recorded for comparison only: ptlab never loads a
 * segment register (its GDT holds descriptors at the firmware's own CS and SS
 * indices, see trap.h), so they cannot change.
 */
struct cpu_state {
	uint64_t cr0, cr3, cr4;
	uint64_t efer;
	uint64_t pat;			/* valid if has_pat */
	uint64_t fs_base, gs_base;
	struct desc_ptr gdtr;
	struct desc_ptr idtr;
	uint16_t tr;			/* a restorable firmware TSS, else 0 */
	uint16_t tr_raw;		/* STR as read */
	uint16_t cs, ds, es, ss, fs, gs;
	bool has_pat;
	bool has_pge;			/* CPUID.1:EDX[13] */
	bool irq_on;			/* RFLAGS.IF */
};

/*
 * Record the current CPU state in @s.  Changes nothing on the CPU and writes
 * no memory but @s.  TR is recorded (s->tr) only if its descriptor in the
 * current GDT is a present busy 64-bit TSS, else as 0: a TR left over from
 * another GDT (ours, see cpu_state_restore) cannot be reloaded from this one.
 */
void cpu_state_save(struct cpu_state *s);

/*
 * Put the CPU back into state @s, in this order: interrupts off; every TLB
 * entry flushed (a CR4.PGE toggle: all PCIDs, global entries included), CR3
 * (with its PCID), CR4, then EFER and PAT (after CR3: our NX bits must not
 * become reserved bits while our tables are live), CR0; GDTR and TR; IDTR;
 * FS/GS bases; finally RFLAGS.IF.  Safe to call with ptlab's tables in CR3
 * as long as the code, stack, @s and @scratch are identity-mapped in both
 * hierarchies (they are).
 *
 * Firmware memory is never written, its GDT included (it may be in flash).
 * TR: when s->tr is non-zero, its descriptor is busy in the firmware's GDT
 * and ltr faults on a busy descriptor.  The firmware's GDT up to that
 * descriptor is copied into @scratch (@scratch_bytes, at least
 * s->tr + 16 bytes; 8-byte aligned), the copy's busy bit cleared, the copy
 * loaded, ltr s->tr (the CPU marks the copy busy and caches the firmware's
 * TSS base and limit), then the firmware's GDTR itself is loaded.  When
 * s->tr is 0 (the firmware never loaded a TSS: U-Boot, OVMF without stack
 * guard) TR cannot be loaded with a null selector, so whatever TSS is loaded
 * stays: the one difference from the entry state (see trap.h).  A 64-bit CPU
 * reads the TSS only for an IST stack switch (the firmware's gates have IST
 * 0, it has no TSS to point at), a privilege change to CPL 0 (firmware never
 * leaves CPL 0) and the I/O bitmap at CPL > IOPL (never at CPL 0); a later
 * ltr by the firmware simply replaces it.
 *
 * CR4.LA57 cannot change in long mode and CR4.PCIDE cannot be set while
 * CR3[11:0] is not 0: s->cr4 must agree with the current CR4 in those bits
 * (it always does for a state saved on this boot: ptlab never changes them).
 * Cannot fail.
 */
void cpu_state_restore(const struct cpu_state *s, void *scratch, uint32_t scratch_bytes);

/*
 * Like cpu_state_restore() but leaves interrupts off whatever s->irq_on says.
 * For the fatal path, which halts afterwards.
 */
void cpu_state_restore_noirq(const struct cpu_state *s, void *scratch, uint32_t scratch_bytes);

#endif /* PTLAB_EFI_CPU_H */
