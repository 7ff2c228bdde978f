/* SPDX-License-Identifier: MIT */
/*
 * Pure parts of the SMP checks: see smpcore.h.
 */
#include "fmt.h"
#include "smpcore.h"

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

/* xorshift64*: small, and the same sequence on the host and the firmware. */
static uint64_t next_rand(struct smp_churn *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

static unsigned below(struct smp_churn *c, unsigned n)
{
	return (unsigned)((next_rand(c) >> 33) % n);
}

void smp_churn_init(struct smp_churn *c, uint64_t seed)
{
	c->rng = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
	if (!c->rng)
		c->rng = 1;
	for (unsigned i = 0; i < SMP_CHURN_PAGES; i++) {
		c->frame[i] = -1;
		c->writable[i] = false;
	}
	c->mapped = 0;
}

struct smp_step smp_churn_next(struct smp_churn *c)
{
	struct smp_step s = { .page = below(c, SMP_CHURN_PAGES) };
	unsigned roll = below(c, 100);

	if (c->frame[s.page] < 0) {
		s.op = SMP_OP_MAP;
		s.frame = below(c, SMP_CHURN_FRAMES);
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
		s.frame = ((unsigned)c->frame[s.page] + 1 + below(c, SMP_CHURN_FRAMES - 1)) %
			  SMP_CHURN_FRAMES;
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
