/* SPDX-License-Identifier: MIT */
/*
 * Pure parts of the SMP checks: see smpcore.h.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include <stddef.h>

#include "report/fmt.h"
#include "smp/smpcore.h"
#include "smp/smp_tramp.h"

#include <ptlab/pte.h>

#define VEC_PF 14u

int smp_table_add(struct smp_table *t, uint32_t apic)
{
	if (t->n >= SMP_MAX_CPUS || smp_table_find(t, apic) >= 0)
		return -1;
	t->apic[t->n] = apic;
	return (int)t->n++;
}

int smp_table_find(const struct smp_table *t, uint32_t apic)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->apic[i] == apic)
			return (int)i;
	return -1;
}

bool smp_obs_matches(const struct smp_obs *o, const struct smp_expect *e)
{
	if (e->fault)
		return o->faulted && o->vector == VEC_PF && o->error == e->error && o->cr2 == e->cr2;
	return !o->faulted && o->value == e->value;
}

enum smp_verdict smp_judge(const struct smp_obs *o, const struct smp_expect *now,
			   const struct smp_expect *before)
{
	if (smp_obs_matches(o, now))
		return SMP_SAW_NEW;
	if (smp_obs_matches(o, before))
		return SMP_SAW_OLD;
	return SMP_SAW_OTHER;
}

void smp_obs_text(const struct smp_obs *o, char *buf, unsigned size)
{
	if (!o->faulted)
		fmt_snprintf(buf, size, "read 0x%llx", (unsigned long long)o->value);
	else if (o->vector == VEC_PF)
		fmt_snprintf(buf, size, "#PF error=0x%x cr2=0x%llx", o->error,
			     (unsigned long long)o->cr2);
	else
		fmt_snprintf(buf, size, "vector %u error=0x%x", o->vector, o->error);
}

void smp_churn_init(struct smp_churn *c, uint64_t seed)
{
	prng_seed(&c->rng, seed);
	for (unsigned i = 0; i < SMP_CHURN_PAGES; i++) {
		c->frame[i] = -1;
		c->writable[i] = false;
	}
	c->mapped = 0;
}

struct smp_step smp_churn_next(struct smp_churn *c)
{
	struct smp_step s = { .page = (unsigned)prng_below(&c->rng, SMP_CHURN_PAGES) };
	unsigned roll = (unsigned)prng_below(&c->rng, 100);

	if (c->frame[s.page] < 0) {
		s.op = SMP_OP_MAP;
		s.frame = (unsigned)prng_below(&c->rng, SMP_CHURN_FRAMES);
		s.writable = roll & 1;
		c->frame[s.page] = (int8_t)s.frame;
		c->writable[s.page] = s.writable;
		c->mapped++;
	} else if (roll < 35) {
		s.op = SMP_OP_UNMAP;
		c->frame[s.page] = -1;
		c->writable[s.page] = false;
		c->mapped--;
	} else if (roll < 75) {
		s.op = SMP_OP_REMAP;
		s.frame = ((unsigned)c->frame[s.page] + 1 +
			   (unsigned)prng_below(&c->rng, SMP_CHURN_FRAMES - 1)) % SMP_CHURN_FRAMES;
		c->frame[s.page] = (int8_t)s.frame;
	} else {
		s.op = SMP_OP_PROTECT;
		s.frame = (unsigned)c->frame[s.page];
		s.writable = !c->writable[s.page];
		c->writable[s.page] = s.writable;
	}
	return s;
}

struct smp_expect smp_churn_expect(const struct smp_churn *c, unsigned page, uint64_t va,
				   const uint64_t *frame_value)
{
	struct smp_expect e = { 0 };

	if (page >= SMP_CHURN_PAGES || c->frame[page] < 0) {
		e.fault = true;
		e.error = 0;    /* not present, read, supervisor */
		e.cr2 = va;
	} else {
		e.value = frame_value[c->frame[page]];
	}
	return e;
}

/* ---- the hand-off trampoline's data page ---- */

_Static_assert(__builtin_offsetof(struct smp_tramp_data, gdtr_limit) == TD_GDTR, "TD_GDTR");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, far32_off) == TD_FAR32, "TD_FAR32");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, far64_off) == TD_FAR64, "TD_FAR64");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, cr3) == TD_CR3, "TD_CR3");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, cr4) == TD_CR4, "TD_CR4");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, stack_top) == TD_STACK, "TD_STACK");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, cpu) == TD_CPU, "TD_CPU");
_Static_assert(__builtin_offsetof(struct smp_tramp_data, entry) == TD_ENTRY, "TD_ENTRY");
_Static_assert(sizeof(struct smp_tramp_data) == TD_SIZE, "TD_SIZE");
_Static_assert(offsetof(struct smp_tramp_data, gdtr_limit) == TD_GDTR, "TD_GDTR");
_Static_assert(offsetof(struct smp_tramp_data, far32_off) == TD_FAR32, "TD_FAR32");
_Static_assert(offsetof(struct smp_tramp_data, far64_off) == TD_FAR64, "TD_FAR64");
_Static_assert(offsetof(struct smp_tramp_data, cr3) == TD_CR3, "TD_CR3");
_Static_assert(offsetof(struct smp_tramp_data, cr4) == TD_CR4, "TD_CR4");
_Static_assert(offsetof(struct smp_tramp_data, stack_top) == TD_STACK, "TD_STACK");
_Static_assert(offsetof(struct smp_tramp_data, cpu) == TD_CPU, "TD_CPU");
_Static_assert(offsetof(struct smp_tramp_data, entry) == TD_ENTRY, "TD_ENTRY");
_Static_assert(offsetof(struct smp_tramp_data, idtr_limit) == TD_IDTR, "TD_IDTR");

bool smp_tramp_place_ok(uint64_t pa)
{
	uint64_t end = pa + 2 * PT_PAGE_SIZE;

	if (pa & 0xfff || pa == 0 || end > 0x100000)
		return false;
	return end <= 0xa0000 || pa >= 0xc0000;
}

bool smp_tramp_fill(struct smp_tramp_data *d, uint64_t base, uint32_t pm32_off,
		    uint32_t lm64_off, uint64_t cr3, uint32_t cr4, uint64_t stack_top,
		    uint64_t cpu, uint64_t entry)
{
	if (!smp_tramp_place_ok(base) || cr3 >= (UINT64_C(1) << 32) || (cr3 & 0xfff) ||
	    pm32_off >= PT_PAGE_SIZE || lm64_off >= PT_PAGE_SIZE)
		return false;
	d->gdt[0] = 0;
	d->gdt[TRAMP_SEL_CODE32 / 8] = UINT64_C(0x00cf9a000000ffff);   /* 32-bit code, 4 GiB */
	d->gdt[TRAMP_SEL_DATA / 8] = UINT64_C(0x00cf92000000ffff);     /* data, 4 GiB */
	d->gdt[TRAMP_SEL_CODE64 / 8] = UINT64_C(0x00af9a000000ffff);   /* 64-bit code (L=1) */
	d->gdt[4] = 0;
	d->gdt[TRAMP_SEL_PARK_CODE / 8] = UINT64_C(0x00af9a000000ffff);
	d->gdt[TRAMP_SEL_PARK_DATA / 8] = UINT64_C(0x00cf92000000ffff);
	d->gdt[TRAMP_SEL_TSS / 8] = 0;          /* smp_tramp_park() fills it */
	d->gdt[TRAMP_SEL_TSS / 8 + 1] = 0;
	d->idtr_limit = 0;
	d->idtr_base = 0;
	d->gdtr_limit = sizeof(d->gdt) - 1;
	d->gdtr_base = (uint32_t)(base + TD_PAGE_OFF + TD_GDT);
	d->pad0 = d->pad1 = d->pad2 = 0;
	d->far32_off = (uint32_t)base + pm32_off;
	d->far32_sel = TRAMP_SEL_CODE32;
	d->far64_off = (uint32_t)base + lm64_off;
	d->far64_sel = TRAMP_SEL_CODE64;
	d->cr3 = (uint32_t)cr3;
	d->cr4 = cr4;
	d->stack_top = stack_top;
	d->cpu = cpu;
	d->entry = entry;
	return true;
}

void smp_tramp_park(struct smp_tramp_data *d, uint64_t tss, uint32_t tss_limit, uint64_t idt,
		    uint16_t idt_limit)
{
	/* an available 64-bit TSS (type 9), present, DPL 0 (SDM Vol. 3A §8.2.3) */
	d->gdt[TRAMP_SEL_TSS / 8] = (tss_limit & 0xffffu) | (tss & 0xffffffu) << 16 |
				    UINT64_C(0x89) << 40 | (uint64_t)(tss_limit >> 16 & 0xf) << 48 |
				    (tss >> 24 & 0xff) << 56;
	d->gdt[TRAMP_SEL_TSS / 8 + 1] = tss >> 32;
	d->idtr_limit = idt_limit;
	d->idtr_base = idt;
}
