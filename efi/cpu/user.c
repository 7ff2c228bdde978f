/* SPDX-License-Identifier: MIT */
/*
 * CPL 3 for the MMU probes: see user.h.  Our GDT and IDT stay trap.c's;
 * this module loads a copy of the GDT with the user descriptors added for
 * the time the probes run, points RSP0 of the TSS at a stack of its own and
 * opens one gate to CPL 3, and takes all of it back in user_disable().
 *
 * No firmware calls.
 */
#include <stddef.h>

#include "cpu/cpu.h"
#include "cpu/trap.h"
#include "cpu/user.h"

#define USER_GDT_ENTRIES	64u
#define USER_KSTACK		8192u

/* SDM Vol. 3A 3.4.5: P, DPL, S, type; L for 64-bit code. */
#define DESC_DATA0	UINT64_C(0x00cf92000000ffff)	/* data, DPL 0, read/write */
#define DESC_DATA3	UINT64_C(0x00cff2000000ffff)	/* data, DPL 3, read/write */
#define DESC_CODE3	UINT64_C(0x00affa000000ffff)	/* 64-bit code, DPL 3 */
#define DESC_S		(UINT64_C(1) << 44)		/* code or data, not system */
#define DESC_P		(UINT64_C(1) << 47)		/* present */
#define GATE_DPL3	0x60u

/* The GDT loaded while enabled, and what enable changed (restored by disable). */
static uint64_t user_gdt[USER_GDT_ENTRIES] __attribute__((aligned(16)));
static uint8_t user_kstack[USER_KSTACK] __attribute__((aligned(16)));
static struct {
	bool on;
	struct desc_ptr gdtr;		/* trap.c's GDT */
	uint16_t ds, es, fs, gs;	/* the selectors an IRET to CPL 3 may null */
	uint64_t fs_base, gs_base;
	uint64_t rsp0;
	uint8_t gate_type;
	uint16_t cs3, ss3;
} user;

/* A data descriptor at selector @sel's index, unless a segment is there already. */
static bool place_data(uint16_t sel, unsigned int *n, const char **why)
{
	unsigned int i = sel >> 3;

	if (!(sel & ~3u))
		return true;	/* null: nothing to reload */
	if (sel & 4) {
		*why = "a data selector of the firmware is in the LDT";
		return false;
	}
	if (i >= USER_GDT_ENTRIES - 2) {
		*why = "a data selector of the firmware is beyond the user GDT";
		return false;
	}
	while (*n <= i)
		user_gdt[(*n)++] = 0;
	/*
	 * A segment descriptor there is kept; anything else (nothing, or our
	 * TSS's descriptor, which U-Boot's selectors meet) becomes a data
	 * descriptor: TR holds the TSS's base and limit since LTR, and nothing
	 * while this GDT is loaded reads its descriptor again (SDM Vol. 3A
	 * 8.2.4: only LTR and task switches do).
	 */
	if ((user_gdt[i] & (DESC_S | DESC_P)) != (DESC_S | DESC_P))
		user_gdt[i] = DESC_DATA0;
	return true;
}

static struct idt_gate *return_gate(void)
{
	struct desc_ptr idtr;

	sidt(&idtr);
	return (struct idt_gate *)(uintptr_t)(idtr.base + 16 * USER_VEC_RETURN);
}

int user_enable(const char **why)
{
	struct tss64 *tss = (struct tss64 *)(uintptr_t)trap_tss_base();
	const uint64_t *cur;
	struct desc_ptr gdtr;
	unsigned int n;

	if (user.on || !trap_installed()) {
		*why = "traps not installed";
		return -1;
	}
	sgdt(&user.gdtr);
	n = (user.gdtr.limit + 1u) / 8u;
	if (n > USER_GDT_ENTRIES - 2) {
		*why = "our GDT is larger than the user GDT";
		return -1;
	}
	cur = (const uint64_t *)(uintptr_t)user.gdtr.base;
	for (unsigned int i = 0; i < n; i++)
		user_gdt[i] = cur[i];
	user.ds = read_ds();
	user.es = read_es();
	user.fs = read_fs();
	user.gs = read_gs();
	if (!place_data(user.ds, &n, why) || !place_data(user.es, &n, why) ||
	    !place_data(user.fs, &n, why) || !place_data(user.gs, &n, why))
		return -1;
	user_gdt[n] = DESC_DATA3;
	user_gdt[n + 1] = DESC_CODE3;
	user.ss3 = (uint16_t)((n << 3) | 3);
	user.cs3 = (uint16_t)(((n + 1) << 3) | 3);
	user.fs_base = rdmsr(MSR_FS_BASE);
	user.gs_base = rdmsr(MSR_GS_BASE);
	gdtr = (struct desc_ptr){ (uint16_t)(8 * (n + 2) - 1), (uint64_t)(uintptr_t)user_gdt };
	lgdt(&gdtr);
	/* a gate without IST from CPL 3 switches to RSP0 (SDM Vol. 3A 6.14.4) */
	user.rsp0 = tss->rsp[0];
	tss->rsp[0] = (uint64_t)(uintptr_t)&user_kstack[USER_KSTACK];
	user.gate_type = return_gate()->type;
	return_gate()->type = (uint8_t)(user.gate_type | GATE_DPL3);
	user.on = true;
	return 0;
}

void user_disable(void)
{
	struct tss64 *tss = (struct tss64 *)(uintptr_t)trap_tss_base();

	if (!user.on)
		return;
	user.on = false;
	/* the selectors first, while their descriptors are in the loaded GDT */
	__asm__ volatile("mov %0, %%ds\n\tmov %1, %%es\n\tmov %2, %%fs\n\tmov %3, %%gs"
			 : : "r"(user.ds), "r"(user.es), "r"(user.fs), "r"(user.gs) : "memory");
	wrmsr(MSR_FS_BASE, user.fs_base);
	wrmsr(MSR_GS_BASE, user.gs_base);
	lgdt(&user.gdtr);
	tss->rsp[0] = user.rsp0;
	return_gate()->type = user.gate_type;
}

uint16_t user_cs(void)
{
	return user.cs3;
}

uint16_t user_ss(void)
{
	return user.ss3;
}

void user_iret(uint64_t rip, uint64_t rsp, uint64_t rflags, uint64_t rdi, uint64_t cs,
	       uint64_t ss) __attribute__((visibility("hidden"), noreturn));

struct user_go {
	uint64_t rip, rsp, rdi, rflags;
};

static int user_go(void *arg)
{
	const struct user_go *g = arg;

	user_iret(g->rip, g->rsp, g->rflags, g->rdi, user.cs3, user.ss3);
}

int user_run(uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rflags, struct trap_fault *f)
{
	struct user_go g = { rip, rsp, rdi, (rflags & ~RFLAGS_IF) | 2 };

	if (!user.on)
		return -1;
	trap_guard(user_go, &g, f);
	return f->vector == USER_VEC_RETURN ? 0 : 1;
}
