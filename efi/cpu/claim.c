/* SPDX-License-Identifier: MIT */
/* Which CPU writes the verdict (see claim.h).  No firmware calls. */
#include "cpu/claim.h"
#include "cpu/cpu.h"

/* The holder's APIC ID + 1; 0: nobody. */
static volatile uint32_t holder;
/* A CPU that lost the claim halted. */
static volatile uint32_t stopped;

uint32_t cpu_apic_id(void)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		if (r[1] != 0)          /* EBX = 0: the leaf is not implemented */
			return r[3];
	}
	cpuid(1, 0, r);
	return r[1] >> 24;
}

bool claim_verdict(void)
{
	uint32_t me = cpu_apic_id() + 1, none = 0;

	if (__atomic_compare_exchange_n(&holder, &none, me, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		return true;
	return none == me;
}

bool claim_other(void)
{
	uint32_t h = __atomic_load_n(&holder, __ATOMIC_SEQ_CST);

	return h != 0 && h != cpu_apic_id() + 1;
}

void claim_yield(void)
{
	__atomic_store_n(&stopped, 1, __ATOMIC_SEQ_CST);
	cpu_halt();
}

void claim_nmi(void)
{
	if (claim_other())
		claim_yield();
}

bool claim_wait_stopped(uint64_t deadline)
{
	while (!__atomic_load_n(&stopped, __ATOMIC_SEQ_CST) && rdtsc() < deadline)
		__asm__ volatile("pause" : : : "memory");
	return __atomic_load_n(&stopped, __ATOMIC_SEQ_CST) != 0;
}

void claim_reset(void)
{
	holder = 0;
	stopped = 0;
}
