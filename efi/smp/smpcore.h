/* SPDX-License-Identifier: MIT */
/*
 * The pure parts of the SMP checks: the table of CPUs (APIC ID to index),
 * the judgement of what a CPU observed against what it must observe after a
 * shootdown, and the shadow model of the concurrent churn's window.
 *
 * Firmware-free and CPU-free (<stdint.h>, <stdbool.h>): built into the
 * application and into the host unit tests.
 */
#ifndef PTLAB_EFI_SMPCORE_H
#define PTLAB_EFI_SMPCORE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/prng.h"
#include "smp/smp_tramp.h"

#define SMP_MAX_CPUS     64u
#define SMP_CHURN_PAGES  16u    /* pages in the churn window */
#define SMP_CHURN_FRAMES 16u    /* frames the window's pages may point at */

/* ---- the CPUs ---- */

struct smp_table {
	unsigned n;
	uint32_t apic[SMP_MAX_CPUS];
};

/*
 * Record a CPU with APIC ID @apic.  Returns its index, or -1 when the table
 * is full or the ID is already recorded (two CPUs never share an ID).
 */
int smp_table_add(struct smp_table *t, uint32_t apic);

/* Index of the CPU with APIC ID @apic, or -1. */
int smp_table_find(const struct smp_table *t, uint32_t apic);

/* ---- what a probe saw, what it must see ---- */

/* One read probe as the CPU answered it. */
struct smp_obs {
	uint64_t value;     /* the 8 bytes read (when !faulted) */
	uint64_t cr2;
	uint32_t vector;
	uint32_t error;
	bool faulted;
};

/* What a read must give: a value, or a #PF with this error code and CR2. */
struct smp_expect {
	bool fault;
	uint64_t value;
	uint32_t error;
	uint64_t cr2;
};

enum smp_verdict {
	SMP_SAW_NEW,     /* the translation after the change */
	SMP_SAW_OLD,     /* the translation before it: a stale TLB entry */
	SMP_SAW_OTHER,   /* neither: a wrong frame, a wrong fault */
};

/* Does @o match @e exactly (value, or vector 14 with error and CR2)? */
bool smp_obs_matches(const struct smp_obs *o, const struct smp_expect *e);

/* Compare @o with the state after (@now) and before (@before) a change. */
enum smp_verdict smp_judge(const struct smp_obs *o, const struct smp_expect *now,
			   const struct smp_expect *before);

/* "read 0x..." or "#PF error=0x.. cr2=0x.." or "vector N ..." into @buf. */
void smp_obs_text(const struct smp_obs *o, char *buf, unsigned size);

/* ---- the concurrent churn's shadow ---- */

enum smp_churn_op { SMP_OP_MAP, SMP_OP_UNMAP, SMP_OP_REMAP, SMP_OP_PROTECT };

struct smp_churn {
	struct prng rng;                 /* seeded with --seed */
	int8_t frame[SMP_CHURN_PAGES];   /* frame index a page maps, -1 unmapped */
	bool writable[SMP_CHURN_PAGES];
	unsigned mapped;
};

struct smp_step {
	enum smp_churn_op op;
	unsigned page;
	unsigned frame;     /* MAP, REMAP: the new frame */
	bool writable;      /* MAP, PROTECT: the new permission */
};

/* An empty window, the sequence fixed by @seed. */
void smp_churn_init(struct smp_churn *c, uint64_t seed);

/*
 * The next step, chosen from the shadow (a map only on an unmapped page,
 * the rest only on mapped ones, a remap always to another frame), and
 * applied to the shadow.  The caller makes the same change to the tables.
 */
struct smp_step smp_churn_next(struct smp_churn *c);

/*
 * What a read of page @page must give now: the value planted in its frame
 * (@frame_value[frame]), or a not-present #PF at @va.
 */
struct smp_expect smp_churn_expect(const struct smp_churn *c, unsigned page, uint64_t va,
				   const uint64_t *frame_value);

/* ---- the hand-off's AP trampoline (smp_tramp.h) ---- */

/*
 * May the trampoline's two pages start at @pa?  Page-aligned, both pages
 * below 1 MiB and outside the legacy video/ROM hole 0xA0000-0xBFFFF.
 */
bool smp_tramp_place_ok(uint64_t pa);

/*
 * Fill @d for a trampoline at @base: the GDT, the far pointers to the
 * code at base + @pm32_off / @lm64_off, CR3/CR4 for the AP, its stack, its
 * argument and the C entry.  Returns false (nothing written) when @cr3 is
 * not below 4 GiB (loaded in 32-bit mode) or the place is refused.
 */
bool smp_tramp_fill(struct smp_tramp_data *d, uint64_t base, uint32_t pm32_off,
		    uint32_t lm64_off, uint64_t cr3, uint32_t cr4, uint64_t stack_top,
		    uint64_t cpu, uint64_t entry);

/*
 * The AP's part of @d after smp_tramp_fill(): its TSS at @tss (limit
 * @tss_limit), whose IST stacks the park IDT uses, and that IDT at @idt
 * (limit @idt_limit), both loaded by the trampoline's first 64-bit
 * instructions.
 */
void smp_tramp_park(struct smp_tramp_data *d, uint64_t tss, uint32_t tss_limit, uint64_t idt,
		    uint16_t idt_limit);

#endif
