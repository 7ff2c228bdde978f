/* SPDX-License-Identifier: MIT */
/*
 * The test kernel's check of the MP response (PROTOCOL.md): every CPU the
 * loader lists (against QEMU's -smp and the MADT) parked, then started at
 * ap_main through its goto_address with its own stack, on the BSP's page
 * tables and control registers, none arriving twice or unlisted.
 */
#include "kernel.h"

struct apslot {
	volatile u32 arrived;
	struct frame f;
	u64 cr0, cr3, cr4, efer, ret, lapic, extra;
	int stack_ok;
	u16 cs, ss;
};

static struct apslot slots[MAX_CPUS];
static volatile u32 strays;
struct lp_mp_info **cpus;
u64 ncpus;

void ap_main(struct frame *f);

void ap_main(struct frame *f)
{
	u64 id = lapic_id(), i, top;
	struct apslot *s = NULL;

	__asm__ volatile("lidt %0" : : "m"(idtr));
	for (i = 0; i < ncpus; i++)
		if (cpus[i]->lapic_id == id)
			s = &slots[i];
	if (!s) {
		__atomic_add_fetch(&strays, 1, __ATOMIC_SEQ_CST);
		return;
	}
	s->f = *f;
	s->cr0 = READ_CR(0);
	s->cr3 = READ_CR(3);
	s->cr4 = READ_CR(4);
	s->efer = rdmsr(MSR_EFER);
	s->lapic = id;
	s->cs = READ_SEG(cs);
	s->ss = READ_SEG(ss);
	s->ret = mapped(f->rsp, 8) ? *(volatile u64 *)f->rsp : ~0ULL;
	s->extra = cpus[s - slots]->extra_argument;
	top = f->rsp + 8;
	s->stack_ok = in_reclaimable((void *)(top - STACK_SIZE), STACK_SIZE);
	__atomic_store_n(&s->arrived, 1, __ATOMIC_RELEASE);
}

void check_smp(u64 bsp_cr3, u64 bsp_cr4)
{
	struct lp_mp_resp *r = resp(&req_mp.head, "MP", sizeof(*r));
	u64 i, me = lapic_id(), bsp_slot = ~0ULL, dup = 0, nonnull = 0, unknown = 0;
	long want = arg("cpus");
	int sec, changes = 0, waiting;
	u64 apic_base = rdmsr(0x1b);

	if (!r)
		return;
	if (!check(r->cpu_count >= 1 && r->cpu_count <= MAX_CPUS && mapped((u64)r->cpus, r->cpu_count * 8),
		   "MP: %llu CPUs, array mapped", (unsigned long long)r->cpu_count))
		return;
	for (i = 0; i < r->cpu_count; i++)
		if (!mapped((u64)r->cpus[i], sizeof(struct lp_mp_info)))
			return (void)check(0, "MP: CPU %llu structure mapped", (unsigned long long)i);
	cpus = r->cpus;
	say("# mp: cpu_count=%llu bsp_lapic_id=%u flags=0x%x", (unsigned long long)r->cpu_count,
	    r->bsp_lapic_id, r->flags);
	check(want < 0 || r->cpu_count == (u64)want, "MP: cpu_count %llu is the command line's cpus=%ld",
	      (unsigned long long)r->cpu_count, want);
	check(r->bsp_lapic_id == me, "MP: bsp_lapic_id %u is this CPU's APIC ID %llu", r->bsp_lapic_id,
	      (unsigned long long)me);
	check(!!(r->flags & LP_MP_X2APIC) == !!(apic_base & (1u << 10)),
	      "MP: the x2APIC flag agrees with IA32_APIC_BASE (0x%llx)", (unsigned long long)apic_base);
	for (i = 0; i < r->cpu_count; i++) {
		u64 j;
		int k, found = 0;

		say("# cpu %llu: processor_id=%u lapic_id=%u", (unsigned long long)i, cpus[i]->processor_id,
		    cpus[i]->lapic_id);
		if (cpus[i]->lapic_id == r->bsp_lapic_id)
			bsp_slot = i;
		for (j = 0; j < i; j++)
			if (cpus[j]->lapic_id == cpus[i]->lapic_id)
				dup++;
		if (cpus[i]->goto_address)
			nonnull++;
		for (k = 0; k < madt_n; k++)
			if (madt_apic[k] == cpus[i]->lapic_id && madt_uid[k] == cpus[i]->processor_id)
				found = 1;
		if (!found)
			unknown++;
	}
	check(bsp_slot != ~0ULL && !dup, "MP: APIC IDs unique, the BSP among them");
	check(!nonnull, "MP: every goto_address NULL at entry (%llu not)", (unsigned long long)nonnull);
	if (madt_n >= 0)
		check(!unknown && (u64)madt_n == r->cpu_count,
		      "MP: the CPUs are the MADT's enabled processors, ids and UIDs (%d in the MADT, %llu not found)",
		      madt_n, (unsigned long long)unknown);
	ncpus = r->cpu_count;
	for (i = 0; i < ncpus; i++) {
		if (i == bsp_slot)
			continue;
		cpus[i]->extra_argument = 0x1000 + i;
		__atomic_store_n(&cpus[i]->goto_address, (lp_goto)ap_entry, __ATOMIC_SEQ_CST);
	}
	/* wait up to 10 RTC seconds for every AP */
	sec = cmos(0);
	do {
		waiting = 0;
		for (i = 0; i < ncpus; i++)
			if (i != bsp_slot && !__atomic_load_n(&slots[i].arrived, __ATOMIC_ACQUIRE))
				waiting++;
		if (cmos(0) != sec) {
			sec = cmos(0);
			changes++;
		}
		cpu_relax();
	} while (waiting && changes < 10);
	check(!strays, "MP: no AP with an APIC ID outside the list arrived (%u did)", strays);
	for (i = 0; i < ncpus; i++) {
		struct apslot *s = &slots[i];
		const struct frame *f = &s->f;
		u64 others = f->rax | f->rbx | f->rcx | f->rdx | f->rsi | f->rbp | f->r8 | f->r9 |
			     f->r10 | f->r11 | f->r12 | f->r13 | f->r14 | f->r15;

		if (i == bsp_slot)
			continue;
		if (!check(s->arrived, "AP %llu (APIC ID %u): arrived at its goto_address", (unsigned long long)i,
			   cpus[i]->lapic_id))
			continue;
		check(f->rdi == (u64)cpus[i] && s->extra == 0x1000 + i && s->lapic == cpus[i]->lapic_id,
		      "AP %llu: RDI is its own info (0x%llx), extra_argument seen, APIC ID matches",
		      (unsigned long long)i, (unsigned long long)f->rdi);
		check(s->cr3 == bsp_cr3 && (s->cr4 & CR4_LA57) == (bsp_cr4 & CR4_LA57),
		      "AP %llu: the BSP's CR3 0x%llx and paging mode", (unsigned long long)i,
		      (unsigned long long)s->cr3);
		check(!others && !(f->rflags & (RFLAGS_IF | RFLAGS_DF | RFLAGS_VM)) && s->ret == 0 &&
		      (f->rsp + 8) % 16 == 0,
		      "AP %llu: other registers 0, IF/DF/VM clear, return address 0, RSP+8 aligned (rflags 0x%llx rsp 0x%llx)",
		      (unsigned long long)i, (unsigned long long)f->rflags, (unsigned long long)f->rsp);
		check((s->cr0 & (CR0_PG | CR0_PE | CR0_WP)) == (CR0_PG | CR0_PE | CR0_WP) &&
		      (s->cr4 & CR4_PAE) && (s->efer & EFER_LMA) && s->cs == 0x28 && s->ss == 0x30,
		      "AP %llu: CR0 PG/PE/WP, PAE, long mode, CS 0x28, SS 0x30", (unsigned long long)i);
		check(s->stack_ok, "AP %llu: %llu KiB stack below RSP in bootloader-reclaimable memory",
		      (unsigned long long)i, (unsigned long long)(STACK_SIZE >> 10));
	}
}

