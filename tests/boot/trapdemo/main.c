/* SPDX-License-Identifier: MIT */
/*
 * trapdemo: boot test of efi/cpu.* and efi/trap.* on their own, with the CPU
 * as the oracle.  Probes of unmapped, non-canonical, read-only and NX pages
 * (under the firmware's CR3 and under a private copy of it), guards around
 * #UD, #GP, #PF, #PF with a bad RSP (IST4), #DF (IST1), vectors 2 and 18
 * (IST2/3), nested guards, 1000 install/probe/uninstall cycles, and a
 * field-by-field comparison of the CPU state with the firmware's afterwards.
 * Prints "ok"/"FAIL" lines and a summary; exits through isa-debug-exit
 * (0x10 pass, 0x11 fail).  Built with -DFATAL_TEST it finally takes an
 * unguarded #UD and must halt with the firmware's GDT/IDT/CR3 restored.
 * Build and boot: tests/boot/trapdemo/run.sh.
 */
#include <efi.h>
#include <efilib.h>
#include "cpu/cpu.h"
#include "cpu/trap.h"

#define UNMAPPED UINT64_C(0x0000700000000000)
#define NONCANON UINT64_C(0x8000000000000000)

static int fails, passes;

#define CHECK(cond, ...) do { \
	if (cond) { passes++; Print(L"ok   "); } else { fails++; Print(L"FAIL "); } \
	Print(__VA_ARGS__); Print(L"\r\n"); } while (0)

__asm__(".text\n.globl test_ret\n.hidden test_ret\ntest_ret: ret\n");
extern char test_ret[];

/* 4-level walk of the current tables: returns leaf entry or 0; *nx = NX seen. */
static uint64_t walk(uint64_t va, int *nx, int *lvl)
{
	uint64_t t = read_cr3() & UINT64_C(0x000ffffffffff000);
	int l;

	*nx = 0;
	for (l = 3; l >= 0; l--) {
		uint64_t e = ((uint64_t *)(uintptr_t)t)[(va >> (12 + 9 * l)) & 511];

		if (!(e & 1))
			return 0;
		if (e >> 63)
			*nx = 1;
		*lvl = l;
		if (l == 0 || (e & 0x80))
			return e;
		t = e & UINT64_C(0x000ffffffffff000);
	}
	return 0;
}

static int fn_ret42(void *arg) { (void)arg; return 42; }
static int fn_ud2(void *arg) { (void)arg; __asm__ volatile("ud2"); return 0; }
static int fn_gp(void *arg)
{
	(void)arg;
	return (int)*(volatile uint64_t *)(uintptr_t)NONCANON;
}
static int fn_pf(void *arg) { (void)arg; return (int)*(volatile uint64_t *)(uintptr_t)UNMAPPED; }
static int fn_badrsp(void *arg)
{
	(void)arg;
	__asm__ volatile("movabs $0x700000001000, %%rsp\n\tpushq $0" : : : "memory");
	__builtin_unreachable();
}
static int fn_int2(void *arg) { (void)arg; __asm__ volatile("int $2"); return 0; }
static int fn_int18(void *arg) { (void)arg; __asm__ volatile("int $18"); return 0; }
static int fn_df(void *arg)
{
	(void)arg;
	trap_gate_set_present(TRAP_VEC_PF, false);
	return (int)*(volatile uint64_t *)(uintptr_t)UNMAPPED;
}
static int fn_df_badrsp(void *arg)
{
	(void)arg;
	trap_gate_set_present(TRAP_VEC_PF, false);
	__asm__ volatile("movabs $0x700000001000, %%rsp\n\tpushq $0" : : : "memory");
	__builtin_unreachable();
}
#define OURVA UINT64_C(0x0000700000000000)
static int fn_our_cr3_fault(void *arg)
{
	write_cr3((uint64_t)(uintptr_t)arg);
	return (int)*(volatile uint64_t *)(uintptr_t)(OURVA + 0x3000);
}
static int fn_probe_inside(void *arg)
{
	struct trap_fault f;
	uint64_t v;

	(void)arg;
	if (probe_read64(UNMAPPED, &v, &f) != 1 || f.vector != 14)
		return 1;
	return 7;
}
static struct trap_fault inner_f;
static int fn_nested(void *arg)
{
	int r = trap_guard(fn_ud2, arg, &inner_f);

	return r == TRAP_GUARD_FAULTED ? 5 : 0;
}
static int fn_smap(void *arg) { (void)arg; __asm__ volatile("clac; stac; clac"); return 3; }

static int state_eq(const struct cpu_state *a, const struct cpu_state *b)
{
	return a->cr0 == b->cr0 && a->cr3 == b->cr3 && a->cr4 == b->cr4 &&
	       a->efer == b->efer && a->pat == b->pat && a->fs_base == b->fs_base &&
	       a->gs_base == b->gs_base && a->gdtr.base == b->gdtr.base &&
	       a->gdtr.limit == b->gdtr.limit && a->idtr.base == b->idtr.base &&
	       a->idtr.limit == b->idtr.limit && a->tr == b->tr && a->cs == b->cs &&
	       a->ds == b->ds && a->es == b->es && a->ss == b->ss && a->fs == b->fs &&
	       a->gs == b->gs && a->irq_on == b->irq_on;
}

static void show_state(const CHAR16 *tag, const struct cpu_state *s)
{
	Print(L"%s: cr0=%lx cr3=%lx cr4=%lx efer=%lx pat=%lx gdt=%lx/%x idt=%lx/%x tr=%x cs=%x ds=%x ss=%x fs=%x gs=%x if=%d\r\n",
	      tag, s->cr0, s->cr3, s->cr4, s->efer, s->pat, s->gdtr.base, s->gdtr.limit,
	      s->idtr.base, s->idtr.limit, s->tr, s->cs, s->ds, s->ss, s->fs, s->gs, s->irq_on);
}

/* The probes with the firmware's CR3: unmapped, mapped, non-canonical,
 * executable text, the NX stack at @sva (when @stack_nx). */
static void probes_at_firmware_cr3(uint64_t sva, int stack_nx)
{
	uint64_t v = 0, var = 0x1122334455667788ull;

	trap_install();
	struct trap_fault pr[10];
	int rr[10];
	uint64_t rv8 = 0, rv64 = 0;
	rr[0] = probe_read64(UNMAPPED, &v, &pr[0]);
	rr[1] = probe_write64(UNMAPPED, 1, &pr[1]);
	rr[2] = probe_read8(UNMAPPED + 0x123, &v, &pr[2]);
	rr[3] = probe_write8(UNMAPPED + 0x456, 1, &pr[3]);
	rr[4] = probe_read64((uint64_t)(uintptr_t)&var, &rv64, &pr[4]);
	rr[5] = probe_write8((uint64_t)(uintptr_t)&var, 0xaa, &pr[5]);
	rr[6] = probe_read8((uint64_t)(uintptr_t)&var, &rv8, &pr[6]);
	rr[7] = probe_read64(NONCANON, &v, &pr[7]);
	rr[8] = probe_exec((uint64_t)(uintptr_t)test_ret, &pr[8]);
	rr[9] = probe_exec(sva, &pr[9]);
	struct trap_fault pe1, pe2; int re1, re2;
	re1 = probe_exec(UNMAPPED, &pe1);
	re2 = probe_exec(NONCANON, &pe2);
	trap_uninstall();

	CHECK(rr[0] == 1 && pr[0].vector == 14 && pr[0].error == 0 && pr[0].cr2 == UNMAPPED,
	      L"probe_read64 unmapped: r=%d vec=%d err=%lx cr2=%lx rip=%lx", rr[0], pr[0].vector, pr[0].error, pr[0].cr2, pr[0].rip);
	CHECK(rr[1] == 1 && pr[1].vector == 14 && pr[1].error == 2 && pr[1].cr2 == UNMAPPED,
	      L"probe_write64 unmapped: r=%d vec=%d err=%lx cr2=%lx", rr[1], pr[1].vector, pr[1].error, pr[1].cr2);
	CHECK(rr[2] == 1 && pr[2].vector == 14 && pr[2].error == 0 && pr[2].cr2 == UNMAPPED + 0x123,
	      L"probe_read8 unmapped: r=%d vec=%d err=%lx cr2=%lx", rr[2], pr[2].vector, pr[2].error, pr[2].cr2);
	CHECK(rr[3] == 1 && pr[3].vector == 14 && pr[3].error == 2 && pr[3].cr2 == UNMAPPED + 0x456,
	      L"probe_write8 unmapped: r=%d vec=%d err=%lx cr2=%lx", rr[3], pr[3].vector, pr[3].error, pr[3].cr2);
	CHECK(rr[4] == 0 && rv64 == 0x1122334455667788ull && pr[4].vector == TRAP_VEC_NONE,
	      L"probe_read64 mapped: r=%d v=%lx", rr[4], rv64);
	CHECK(rr[5] == 0 && rr[6] == 0 && rv8 == 0xaa && var == 0x11223344556677aaull,
	      L"probe_write8/read8 mapped: r=%d/%d v=%lx var=%lx", rr[5], rr[6], rv8, var);
	CHECK(rr[7] == 1 && pr[7].vector == 13 && pr[7].error == 0,
	      L"probe_read64 non-canonical: r=%d vec=%d err=%lx", rr[7], pr[7].vector, pr[7].error);
	CHECK(rr[8] == 0, L"probe_exec text ret: r=%d", rr[8]);
	if (stack_nx)
		CHECK(rr[9] == 1 && pr[9].vector == 14 && pr[9].error == 0x11 && pr[9].cr2 == sva && pr[9].rip == sva,
		      L"probe_exec NX stack: r=%d vec=%d err=%lx cr2=%lx rip=%lx", rr[9], pr[9].vector, pr[9].error, pr[9].cr2, pr[9].rip);
	else
		Print(L"skip probe_exec NX stack (stack not NX): r=%d\r\n", rr[9]);
	CHECK(re1 == 1 && pe1.vector == 14 && pe1.error == 0x10 && pe1.cr2 == UNMAPPED,
	      L"probe_exec unmapped: r=%d vec=%d err=%lx cr2=%lx", re1, pe1.vector, pe1.error, pe1.cr2);
	CHECK(re2 == 1 && pe2.vector == 13,
	      L"probe_exec non-canonical: r=%d vec=%d err=%lx rip=%lx", re2, pe2.vector, pe2.error, pe2.rip);

}

/* trap_guard around functions that return, fault, double-fault, nest. */
static void guards(const struct cpu_caps *caps)
{
	struct trap_fault f, f2, f3, f4, f5;
	int r, r2, r3, r4, r5;

	trap_install();
	r = trap_guard(fn_ret42, NULL, &f);
	r2 = trap_guard(fn_ud2, NULL, &f2);
	r3 = trap_guard(fn_gp, NULL, &f3);
	r4 = trap_guard(fn_pf, NULL, &f4);
	r5 = trap_guard(fn_badrsp, NULL, &f5);
	trap_uninstall();
	CHECK(r == 42 && f.vector == TRAP_VEC_NONE, L"guard normal return: r=%d vec=%x", r, f.vector);
	CHECK(r2 == -1 && f2.vector == 6, L"guard ud2: r=%d vec=%d rip=%lx", r2, f2.vector, f2.rip);
	CHECK(r3 == -1 && f3.vector == 13 && f3.error == 0, L"guard non-canonical: r=%d vec=%d err=%lx", r3, f3.vector, f3.error);
	CHECK(r4 == -1 && f4.vector == 14 && f4.cr2 == UNMAPPED && f4.error == 0, L"guard #PF: r=%d vec=%d cr2=%lx", r4, f4.vector, f4.cr2);
	CHECK(r5 == -1 && f5.vector == 14 && f5.cr2 == 0x700000000ff8 && f5.error == 2 && f5.rsp == 0x700000001000,
	      L"guard bad RSP push (#PF on IST4): r=%d vec=%d err=%lx cr2=%lx rsp=%lx", r5, f5.vector, f5.error, f5.cr2, f5.rsp);

	trap_install();
	r = trap_guard(fn_df, NULL, &f);
	trap_gate_set_present(TRAP_VEC_PF, true);
	r2 = trap_guard(fn_int2, NULL, &f2);
	r3 = trap_guard(fn_int18, NULL, &f3);
	r4 = trap_guard(fn_probe_inside, NULL, &f4);
	r5 = trap_guard(fn_nested, NULL, &f5);
	trap_uninstall();
	CHECK(r == -1 && f.vector == 8 && f.error == 0, L"guard #DF (#PF gate not present): r=%d vec=%d err=%lx rip=%lx", r, f.vector, f.error, f.rip);
	CHECK(r2 == -1 && f2.vector == 2, L"guard int $2 (NMI vector, IST2): r=%d vec=%d", r2, f2.vector);
	CHECK(r3 == -1 && f3.vector == 18, L"guard int $18 (#MC vector, IST3): r=%d vec=%d", r3, f3.vector);
	CHECK(r4 == 7 && f4.vector == TRAP_VEC_NONE, L"probe inside guard uses fixup: r=%d vec=%x", r4, f4.vector);
	CHECK(r5 == 5 && f5.vector == TRAP_VEC_NONE && inner_f.vector == 6, L"nested guard: r=%d outer=%x inner=%d", r5, f5.vector, inner_f.vector);
	if (caps->smap) {
		trap_install();
		r = trap_guard(fn_smap, NULL, &f);
		trap_uninstall();
		CHECK(r == 3, L"stac/clac run: r=%d vec=%x", r, f.vector);
	}

	trap_install();
	r = trap_guard(fn_df_badrsp, NULL, &f);
	trap_uninstall();
	CHECK(r == -1 && f.vector == 8, L"guard #DF with bad RSP (#PF gate absent, #DF on IST1): r=%d vec=%d rsp=%lx", r, f.vector, f.rsp);

}

/* Tables of our own: the firmware's PML4 copied with one private slot at
 * OURVA (NX, read-only and executable pages), probed with that CR3 loaded. */
static void own_tables(void)
{
	struct trap_fault f;
	uint64_t e;
	int r;

	{
		EFI_PHYSICAL_ADDRESS pa = 0xffffffff;
		uint64_t *pml4, *pdpt, *pd, *pt, data, ours;
		EFI_STATUS st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData, 5, &pa);

		if (EFI_ERROR(st)) {
			Print(L"AllocatePages: %r\r\n", st);
			fails++;
		} else {
			pml4 = (uint64_t *)(uintptr_t)pa;
			pdpt = pml4 + 512; pd = pdpt + 512; pt = pd + 512;
			data = pa + 4 * 4096;
			ZeroMem(pml4, 5 * 4096);
			CopyMem(pml4, (void *)(uintptr_t)(read_cr3() & ~0xfffull), 4096);
			pml4[(OURVA >> 39) & 511] = (uint64_t)(uintptr_t)pdpt | 3;
			pdpt[(OURVA >> 30) & 511] = (uint64_t)(uintptr_t)pd | 3;
			pd[(OURVA >> 21) & 511] = (uint64_t)(uintptr_t)pt | 3;
			pt[0] = data | 3 | (1ull << 63);	/* RW, NX */
			pt[1] = data | 1;			/* RO, X */
			pt[2] = data | 3;			/* RW, X */
			*(volatile uint8_t *)(uintptr_t)data = 0xc3;
			ours = (uint64_t)(uintptr_t)pml4;

			struct trap_fault q[6];
			int qr[6];
			uint64_t qv = 0;
			trap_install();
			write_cr3(ours);
			qr[0] = probe_exec(OURVA, &q[0]);
			qr[1] = probe_write64(OURVA + 0x1000, 5, &q[1]);
			qr[2] = probe_exec(OURVA + 0x1000, &q[2]);
			qr[3] = probe_read64(OURVA, &qv, &q[3]);
			qr[4] = probe_write8(OURVA + 0x2001, 0x5a, &q[4]);
			qr[5] = probe_read8(OURVA + 0x3000, &qv, &q[5]);
			r = trap_guard(fn_our_cr3_fault, (void *)(uintptr_t)ours, &f);
			e = read_cr3();
			trap_uninstall();	/* restores the firmware CR3 too */
			CHECK(qr[0] == 1 && q[0].vector == 14 && q[0].error == 0x11 && q[0].cr2 == OURVA && q[0].rip == OURVA,
			      L"our CR3: probe_exec NX page: r=%d vec=%d err=%lx cr2=%lx", qr[0], q[0].vector, q[0].error, q[0].cr2);
			CHECK(qr[1] == 1 && q[1].vector == 14 && q[1].error == 3 && q[1].cr2 == OURVA + 0x1000,
			      L"our CR3: probe_write64 RO page (WP=1): r=%d err=%lx cr2=%lx", qr[1], q[1].error, q[1].cr2);
			CHECK(qr[2] == 0, L"our CR3: probe_exec executable page: r=%d", qr[2]);
			CHECK(qr[3] == 0 && qr[4] == 0 && *(volatile uint8_t *)(uintptr_t)(data + 1) == 0x5a,
			      L"our CR3: probe_read64 / probe_write8 alias: r=%d/%d", qr[3], qr[4]);
			CHECK(qr[5] == 1 && q[5].vector == 14 && q[5].error == 0 && q[5].cr2 == OURVA + 0x3000,
			      L"our CR3: probe_read8 unmapped pte: r=%d err=%lx", qr[5], q[5].error);
			CHECK(r == -1 && f.vector == 14 && f.cr2 == OURVA + 0x3000 && e == ours,
			      L"our CR3: guard fault leaves CR3 ours (%lx), uninstall restores (%lx)", e, read_cr3());
			uefi_call_wrapper(BS->FreePages, 2, pa, 5);
		}
	}

}

/* 1000 install/probe/guard/uninstall cycles, each ending in the state @s0;
 * then the return codes of a second install or uninstall. */
static void cycles(const struct cpu_state *s0)
{
	struct trap_fault f;
	struct cpu_state s1;
	uint64_t v = 0, t0;
	int i, bad;

	bad = 0;
	t0 = rdtsc();
	for (i = 0; i < 1000; i++) {
		if (trap_install() != 0) { bad++; break; }
		if (probe_read64(UNMAPPED + 8 * i, &v, &f) != 1 || f.vector != 14 || f.error != 0 || f.cr2 != UNMAPPED + 8 * i)
			bad++;
		if (probe_write64(UNMAPPED, 1, &f) != 1 || f.error != 2)
			bad++;
		if (probe_exec((uint64_t)(uintptr_t)test_ret, &f) != 0)
			bad++;
		if (trap_guard(fn_ud2, NULL, &f) != -1 || f.vector != 6)
			bad++;
		if (trap_guard(fn_badrsp, NULL, &f) != -1 || f.vector != 14)
			bad++;
		if (trap_uninstall() != 0)
			bad++;
		cpu_state_save(&s1);
		if (!state_eq(s0, &s1))
			bad++;
	}
	CHECK(bad == 0 && i == 1000, L"1000 install/probe/guard/uninstall cycles: bad=%d, %ld cycles", bad, rdtsc() - t0);
	CHECK(trap_uninstall() == -1 && trap_install() == 0 && trap_install() == -1 && trap_uninstall() == 0,
	      L"install/uninstall return codes");

}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	struct cpu_caps caps;
	struct cpu_state s0, s1;
	volatile uint8_t stackbuf[64];
	uint64_t sva = (uint64_t)(uintptr_t)stackbuf;
	int nx, lvl = -1;
	uint64_t e;

	InitializeLib(image, systab);
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	Print(L"trapdemo start\r\n");
	cpu_caps_read(&caps);
	Print(L"caps: 1g=%d nx=%d la57=%d/%d smep=%d smap=%d pku=%d pge=%d pat=%d mca=%d hv=%d itsc=%d maxphy=%d lin=%d\r\n",
	      caps.pdpe1gb, caps.nx, caps.la57, caps.la57_enabled, caps.smep, caps.smap, caps.pku,
	      caps.pge, caps.pat, caps.mca, caps.hypervisor, caps.invariant_tsc, caps.maxphyaddr, caps.linaddr);
	cpu_state_save(&s0);
	show_state(L"fw", &s0);

	e = walk(UNMAPPED, &nx, &lvl);
	Print(L"walk %lx: entry=%lx\r\n", UNMAPPED, e);
	e = walk(sva, &nx, &lvl);
	Print(L"walk stack %lx: entry=%lx level=%d nx=%d\r\n", sva, e, lvl, nx);
	int stack_nx = e && nx;
	e = walk((uint64_t)(uintptr_t)test_ret, &nx, &lvl);
	Print(L"walk text %lx: entry=%lx level=%d nx=%d\r\n", (uint64_t)(uintptr_t)test_ret, e, lvl, nx);
	stackbuf[0] = 0xc3;

	probes_at_firmware_cr3(sva, stack_nx);

	guards(&caps);

	own_tables();

	cpu_state_save(&s1);
	show_state(L"after", &s1);
	CHECK(state_eq(&s0, &s1), L"CPU state after uninstall equals firmware state");

	cycles(&s0);

#ifdef FATAL_TEST
	Print(L"fatal test: unguarded ud2 with traps installed, expect halt\r\n");
	trap_install();
	__asm__ volatile("ud2");
	Print(L"NOT REACHED\r\n");
#endif
	Print(L"trapdemo done: %d passed, %d failed\r\n", passes, fails);
	if (caps.hypervisor)
		outl(0xf4, fails ? 0x11 : 0x10);
	return EFI_SUCCESS;
}
