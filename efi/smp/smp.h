/* SPDX-License-Identifier: MIT */
/*
 * Every CPU on ptlab's tables: the application processors (APs) run
 * per-CPU checks on the built hierarchy and take part in TLB shootdowns
 * that the bootstrap processor (BSP) sends as real IPIs.
 *
 * The shared state below lives in the image (identity mapped in both the
 * firmware's and ptlab's tables; smp.c says why), reached by the BSP
 * through the run's state (p->smp) and by each AP through its block; each
 * CPU's block (its GDT, TSS, stacks and results) in pages the BSP
 * allocated.  CPUs talk only through memory:
 * the BSP publishes a command and bumps a sequence number, each AP answers
 * by copying the number into its own block; every wait is bounded by a TSC
 * deadline and spins with `pause`.  No lock: each field has one writer.
 *
 * Here: the APs' side (smp.c), the BSP's checks (bsp.h), hand-off mode's
 * start of the APs (sipi.h), the local APIC (apic.c, for smp/ alone).
 * Firmware-free: starting the CPUs through the firmware, and the verdicts
 * on how they ended, are bringup/bringup.c.
 */
#ifndef PTLAB_EFI_SMP_H
#define PTLAB_EFI_SMP_H

#include "state/state.h"
#include "smp/smpcore.h"
#include "cpu/trap.h"
/* the BSP's checks and hand-off mode's start of the APs, declared beside their files */
#include "smp/bsp.h"
#include "smp/sipi.h"
#include "smp/aptrap.h"

#define SMP_VEC_SHOOT   0xf0u     /* the shootdown IPI's fixed vector */
#define SMP_TPR_MASK    0xe0u     /* the APs' task priority: only class 0xf gets through */
#define SMP_PROBE_MAX   16u
#define SMP_CPU_PAGES   20u       /* block, GDT copy, 32 KiB stack, 4 x 8 KiB IST */
#define SMP_STACK_PAGES 8u
#define SMP_IST_PAGES   2u

/* Where the SMP checks map their test pages: a PML4 slot nothing else uses. */
#define SMP_AREA        (PTLAB_SCRATCH_LOW + (UINT64_C(192) << 30))

enum smp_state {
	SMP_ST_NONE,        /* the procedure has not run on this CPU (yet) */
	SMP_ST_ENTERED,     /* in our procedure, firmware state */
	SMP_ST_ON_TABLES,   /* our GDT/IDT/TSS and CR3 loaded */
	SMP_ST_CHECKED,     /* per-CPU checks done, serving commands and IPIs */
	SMP_ST_LEFT,        /* its firmware state restored, returning */
};

enum smp_cmd { SMP_CMD_NONE, SMP_CMD_PROBE, SMP_CMD_EXIT };

struct smp_shared;

/*
 * Entries of an AP's GDT: laid out around the run's CS and SS selectors
 * (cpu_gdt_layout), which OVMF puts at indices 7 and 6.
 */
#define SMP_GDT_ENTRIES 32u

/* One CPU's block; page-aligned, the GDT first (the AP's trap handler finds its block by sgdt). */
struct smp_cpu {
	uint64_t gdt[SMP_GDT_ENTRIES]; /* code at the run's CS index, data at SS's, TSS */
	uint16_t gdt_limit;
	uint16_t sel_tss;
	volatile uint32_t sel_mismatch; /* AP: its firmware CS << 16 | SS differ from the BSP's */
	struct tss64 tss;
	struct smp_shared *sh;
	unsigned index;
	uint32_t apic;
	char name[32];                /* "cpu N (apic M)", as the report names it */
	bool bsp;
	uint64_t stack_top;
	uint64_t *gdt_copy;           /* a page: the firmware's GDT copied to reload its TR */

	volatile uint32_t state;      /* enum smp_state, written by the AP */
	volatile uint32_t done_seq;   /* the last command it completed */
	volatile uint32_t shoot_ack;  /* the last shootdown it performed */
	volatile uint32_t on_tables;  /* it loaded our CR3 */
	volatile uint32_t faulted;    /* an unexpected exception ended its work */
	struct trap_fault fault;
	bool timed_out;               /* it left on the deadline, not on EXIT */
	bool lost;                    /* BSP: stopped answering */

	/* per-CPU checks: set up by the BSP, observed by the AP, judged by the BSP */
	uint64_t own_pa;              /* its own frame */
	uint64_t ad_va, ad_pte_pa;    /* its own page for A/D, and the PTE's address */
	uint64_t alias_write;
	struct smp_obs alias_ident, alias_hhdm, alias_back;
	uint64_t call_got;
	uint64_t pf_va;
	struct smp_obs pf_read, pf_write;
	uint64_t ad_read, ad_write;
	bool checks_done;

	/* commands */
	struct smp_obs obs[SMP_PROBE_MAX];
	uint64_t compared, mismatches, idle_reads;
	uint32_t bad_step;
	uint64_t bad_va;
	struct smp_expect bad_want;
	struct smp_obs bad_got;

	/* the trap handler */
	uint64_t guard_rsp;
	uint32_t depth;
	volatile uint32_t strays;
	uint32_t stray_vec;

	/* the firmware's state on this CPU */
	struct cpu_state fw;
	bool apic_saved;
	uint32_t spurious_vec;
	uint32_t apic_save[8];
};

struct smp_shared {
	struct ptlab *p;
	struct smp_cpu *cpu[SMP_MAX_CPUS];
	struct smp_table table;
	unsigned ncpu;                /* table.n */
	const char *source;           /* where the APIC IDs came from: madt, mp-services */
	uint64_t blocks, block_pages; /* the per-CPU blocks as allocated */
	uint64_t our_cr3;
	uint64_t image_base;
	uint64_t image_va;            /* where the plan maps the image again */
	uint64_t hhdm_base;           /* where the plan's HHDM starts */
	uint64_t deadline;            /* TSC: every AP leaves by then */
	uint64_t tsc_per_us;
	uint16_t sel_cs, sel_ss;      /* the BSP's selectors, which every AP must share */
	bool x2apic;
	uint64_t apic_va;             /* xAPIC registers, identity mapped UC */
	int raise_index;              /* --raise=ap-fault: this CPU faults; -1 none */

	volatile uint32_t seq;        /* bumped after every command */
	volatile uint32_t cmd;
	uint64_t probe_va[SMP_PROBE_MAX];
	unsigned nprobe;
	bool probe_smap;              /* probe with CR4.SMAP on and AC clear */
	bool probe_compare;           /* compare with want[] (the churn's agreed points) */
	struct smp_expect want[SMP_PROBE_MAX];
	uint32_t step;

	volatile uint32_t reading;    /* APs read the churn window between commands */
	uint64_t read_va;
	unsigned read_pages;

	struct pt_flushlist shoot;    /* what the shootdown IPI invalidates */
	volatile uint32_t shoot_seq;
	uint64_t ipis;

	/* hand-off mode: INIT-SIPI-SIPI */
	uint64_t tramp_pa;            /* two pages below 1 MiB: code, data */
	uint64_t init_tsc;            /* when the APs were sent INIT */
	uint64_t park_cr3;            /* where the APs halt at the end (the recovery tables) */
	uint64_t pat;                 /* the BSP's PAT, for the APs (has_pat) */
	bool has_pat;

	const char *handoff_skip;     /* hand-off: why no AP is started (NULL: they are) */
	uint64_t apic_pa;             /* hand-off: the local APIC's registers */

	volatile uint32_t unknown;    /* procedures that found no block for their APIC ID */
	volatile uint32_t closed;     /* after the end: a late procedure returns at once */
};

/*
 * The shared state reset for run @p (p->smp points to it from now on);
 * raise_index -1, everything else 0.
 */
struct smp_shared *smp_shared_reset(struct ptlab *p);

/* smp_asm.S: the AP procedure the firmware calls (ms_abi), arg = p->smp. */
__attribute__((ms_abi)) void smp_ap_entry(void *arg);

/* Fill @c's GDT and TSS (its stacks from @block); the IDT once for all. */
int smp_prepare_cpu(struct smp_cpu *c, uint64_t block);

/*
 * Called from assembly, never from C but through a pointer.  The firmware
 * mode's AP procedure (smp_asm.S's trampoline into it, on the firmware's
 * stack): the AP's part of the checks, until the BSP's stop.
 */
void smp_ap_proc(struct smp_shared *sh) __attribute__((visibility("hidden")));
/* An AP's exception dispatcher: every vector's stub of smp_asm.S calls it. */
void smp_ap_dispatch(struct trap_frame *frame) __attribute__((visibility("hidden")));
/* The hand-off trampoline's C entry on AP @c, on its own stack; never returns. */
void smp_ap_handoff(struct smp_cpu *c) __attribute__((visibility("hidden"), noreturn));

#endif
