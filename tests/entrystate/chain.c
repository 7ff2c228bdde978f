/* SPDX-License-Identifier: MIT */
/*
 * Entry-state chainloader (test only).  Booted as \EFI\BOOT\BOOTX64.EFI, it
 * starts \ptlab.efi from the same volume once per variant, each time after
 * putting the CPU into a state other firmware leaves (global pages with
 * CR4.PGE, CR0.WP=0, EFER.NXE=0, a read-only GDT, a firmware TSS, its own
 * page tables with 1 GiB leaves, a non-default PAT, interrupts on with a
 * fast timer, a kernel command line in LoadOptions, all of them at once,
 * PCID and CET where the CPU has them, and 5-level paging: a PML5 over the
 * firmware's own PML4, entered through ptlab's LA57 trampoline, with ptlab
 * run once by default and once with --levels=4).  Right before StartImage
 * it records every register ptlab promises to restore; right after
 * StartImage returns it reads them again and compares.
 *
 * Output, "chain: run VARIANT" before each StartImage (ptlab's own output
 * follows), then one line per variant on ConOut (mirrored to the serial port):
 *   chain: ok VARIANT
 *   chain: not ok VARIANT: REG=0x... expected 0x... [...]
 *   chain: skip VARIANT: reason
 * then "chain: N ok, M not ok, S skipped" and an isa-debug-exit write:
 * 0x10 when every variant passed, 0x11 otherwise.  A variant whose name
 * ends in "!" is expected to be caught (ptlab run with --wrong-restore).
 */
#include <efi.h>
#include <efilib.h>

#include "../../efi/cpu/gdt.h"
#include "../../efi/live/la57tramp.h"

#define PAGE		4096u
#define PTE_P		(UINT64_C(1) << 0)
#define PTE_W		(UINT64_C(1) << 1)
#define PTE_PS		(UINT64_C(1) << 7)
#define PTE_G		(UINT64_C(1) << 8)
#define GIB		(UINT64_C(1) << 30)
#define MIB2		(UINT64_C(1) << 21)
#define MAP_GIB		1024u		/* identity map of the first TiB */
#define LOW_GIB		4u		/* mapped with 2 MiB leaves when asked */
#define TSS_BYTES	104u
#define PTE_U		(UINT64_C(1) << 2)
#define PTE_NX		(UINT64_C(1) << 63)
#define ADDR_MASK	UINT64_C(0x000ffffffffff000)
#define BELOW_4G	UINT64_C(0x100000000)
#define MSR_S_CET	0x6a2u		/* IA32_S_CET: supervisor SH_STK_EN, ENDBR_EN, ... */
#define DEBUG_EXIT	0xf4

enum {
	V_PGE = 1 << 0,		/* own tables, global 2 MiB leaves, CR4.PGE=1 */
	V_WP_OFF = 1 << 1,
	V_NXE_OFF = 1 << 2,	/* own tables (no NX bit anywhere), EFER.NXE=0 */
	V_GDT_RO = 1 << 3,	/* GDT copy in a page our tables map read-only */
	V_TABLES_1G = 1 << 4,	/* own tables with 1 GiB leaves */
	V_TIMER = 1 << 5,	/* IF=1, a 1 ms periodic timer event */
	V_CMDLINE = 1 << 6,	/* LoadOptions: a kernel command line */
	V_PAT = 1 << 7,		/* non-default PAT */
	V_TSS = 1 << 8,		/* GDT copy with a TSS loaded */
	V_PCID = 1 << 9,	/* CR4.PCIDE=1, PCID in CR3 */
	V_WRONG = 1 << 10,	/* ptlab --wrong-restore: must be caught */
	V_LA57 = 1 << 11,	/* 5-level paging: a PML5 over the firmware's PML4 */
	V_LEVELS4 = 1 << 12,	/* ptlab --levels=4 */
	V_CET = 1 << 13,	/* CR4.CET=1 */
};

struct variant {
	const char *name;
	unsigned flags;
};

static const struct variant variants[] = {
	{ "as-is", 0 },
	{ "pge-global", V_PGE },
	{ "wp-off", V_WP_OFF },
	{ "nxe-off", V_NXE_OFF },
	{ "gdt-readonly-no-tss", V_GDT_RO },
	{ "firmware-tss", V_TSS },
	{ "tables-1g", V_TABLES_1G },
	{ "timer-irq", V_TIMER },
	{ "cmdline", V_CMDLINE },
	{ "pat", V_PAT },
	{ "pcid", V_PCID },
	{ "combined", V_PGE | V_WP_OFF | V_NXE_OFF | V_GDT_RO | V_TABLES_1G | V_TIMER |
		      V_CMDLINE | V_PAT },
	{ "la57", V_LA57 },
	{ "la57-levels4", V_LA57 | V_LEVELS4 },
	{ "cet", V_CET },
	{ "wrong-restore!", V_WRONG },
};

/* Everything ptlab promises to give back. */
struct snap {
	uint64_t cr0, cr3, cr4, efer, pat;
	struct desc_ptr gdtr, idtr;
	uint16_t tr, cs, ds, es, ss, fs, gs;
	uint64_t rflags_if;
};

static void snap_take(struct snap *s)
{
	s->cr0 = read_cr0();
	s->cr3 = read_cr3();
	s->cr4 = read_cr4();
	s->efer = read_efer();
	s->pat = read_pat();
	sgdt(&s->gdtr);
	sidt(&s->idtr);
	s->tr = read_tr();
	s->cs = read_cs();
	s->ds = read_ds();
	s->es = read_es();
	s->ss = read_ss();
	s->fs = read_fs();
	s->gs = read_gs();
	s->rflags_if = read_rflags() & RFLAGS_IF;
}

static char diff[512];
static UINTN diff_len;

static void differ(const char *name, uint64_t got, uint64_t want)
{
	CHAR16 w[96];

	if (got == want)
		return;
	SPrint(w, sizeof(w), L" %a=0x%lx expected 0x%lx", name, got, want);
	for (UINTN i = 0; w[i] && diff_len + 1 < sizeof(diff); i++)
		diff[diff_len++] = (char)w[i];
	diff[diff_len] = 0;
}

/* Number of differences; their description in diff[]. */
static unsigned snap_compare(const struct snap *got, const struct snap *want)
{
	differ("CR0", got->cr0, want->cr0);
	differ("CR3", got->cr3, want->cr3);
	differ("CR4", got->cr4, want->cr4);
	differ("EFER", got->efer, want->efer);
	differ("PAT", got->pat, want->pat);
	differ("GDTR.base", got->gdtr.base, want->gdtr.base);
	differ("GDTR.limit", got->gdtr.limit, want->gdtr.limit);
	differ("IDTR.base", got->idtr.base, want->idtr.base);
	differ("IDTR.limit", got->idtr.limit, want->idtr.limit);
	differ("TR", got->tr, want->tr);
	differ("CS", got->cs, want->cs);
	differ("DS", got->ds, want->ds);
	differ("ES", got->es, want->es);
	differ("SS", got->ss, want->ss);
	differ("FS", got->fs, want->fs);
	differ("GS", got->gs, want->gs);
	differ("RFLAGS.IF", got->rflags_if, want->rflags_if);
	return diff_len != 0;
}

/* ---- page tables of our own ---------------------------------------------- */

static EFI_PHYSICAL_ADDRESS alloc_pages(UINTN n)
{
	EFI_PHYSICAL_ADDRESS pa = 0;

	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, n, &pa) !=
	    EFI_SUCCESS)
		return 0;
	ZeroMem((void *)(uintptr_t)pa, n * PAGE);
	return pa;
}

/*
 * Identity map of the first TiB, RWX: 1 GiB leaves, except the first 4 GiB
 * with 2 MiB leaves when !use_1g, and the page @ro_page (if any) read-only
 * in a 4 KiB table.  @g sets the global bit on every leaf.  Needs 1 GiB
 * page support; 0 when out of memory.
 */
static uint64_t build_tables(bool use_1g, bool g, uint64_t ro_page)
{
	EFI_PHYSICAL_ADDRESS pml4 = alloc_pages(1), pdpt = alloc_pages(2), pd, pt;
	uint64_t *p4 = (uint64_t *)(uintptr_t)pml4, *p3 = (uint64_t *)(uintptr_t)pdpt;
	uint64_t leaf = PTE_P | PTE_W | PTE_PS | (g ? PTE_G : 0);

	if (!pml4 || !pdpt)
		return 0;
	p4[0] = pdpt | PTE_P | PTE_W;
	p4[1] = (pdpt + PAGE) | PTE_P | PTE_W;
	for (unsigned i = 0; i < MAP_GIB; i++)
		p3[i] = ((uint64_t)i * GIB) | leaf;
	if (use_1g && !ro_page)
		return pml4;
	/* the first 4 GiB in 2 MiB leaves (always for a read-only page below 4 GiB) */
	pd = alloc_pages(LOW_GIB);
	if (!pd)
		return 0;
	for (unsigned i = 0; i < LOW_GIB * 512; i++)
		((uint64_t *)(uintptr_t)pd)[i] = ((uint64_t)i * MIB2) | leaf;
	for (unsigned i = 0; i < LOW_GIB; i++)
		p3[i] = (pd + (uint64_t)i * PAGE) | PTE_P | PTE_W;
	if (ro_page && ro_page < LOW_GIB * GIB) {
		uint64_t *pde = &((uint64_t *)(uintptr_t)pd)[ro_page / MIB2];
		uint64_t base = ro_page & ~(MIB2 - 1);

		pt = alloc_pages(1);
		if (!pt)
			return 0;
		for (unsigned i = 0; i < 512; i++)
			((uint64_t *)(uintptr_t)pt)[i] = (base + (uint64_t)i * PAGE) | PTE_P | PTE_W |
							 (g ? PTE_G : 0);
		((uint64_t *)(uintptr_t)pt)[(ro_page - base) / PAGE] &= ~PTE_W;
		*pde = pt | PTE_P | PTE_W;
	}
	return pml4;
}

/* ---- the variants -------------------------------------------------------- */

static EFI_HANDLE self;
static EFI_LOADED_IMAGE *self_li;
static volatile UINT64 ticks;
static unsigned n_ok, n_bad, n_skip;

static VOID EFIAPI on_tick(EFI_EVENT e, VOID *ctx)
{
	(void)e;
	(void)ctx;
	ticks++;
}

static void say(const char *verdict, const char *name, const char *why)
{
	Print(L"chain: %a %a%a%a\n", verdict, name, why[0] ? ":" : "", why);
}

static bool cpu_has(uint32_t leaf, unsigned reg, unsigned bit)
{
	uint32_t r[4];

	cpuid(leaf, 0, r);
	return (r[reg] >> bit) & 1;
}

/* The GDT copy a variant loads: the firmware's descriptors, a TSS after them. */
static EFI_PHYSICAL_ADDRESS gdt_page, tss_page;

/*
 * 5-level paging: ptlab's trampoline (efi/live/la57tramp.c,
 * efi/live/la57tramp_asm.S) in two pages of loader code below 4 GiB, and a
 * PML5 below 4 GiB (CR3 is 32 bits wide in the trampoline's window).
 */
static EFI_PHYSICAL_ADDRESS tramp_pages, pml5_page;

static EFI_PHYSICAL_ADDRESS alloc_low(EFI_MEMORY_TYPE type, UINTN n)
{
	EFI_PHYSICAL_ADDRESS pa = BELOW_4G - 1;

	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, type, n, &pa) !=
	    EFI_SUCCESS)
		return 0;
	return pa;
}

/*
 * The leaf entry mapping @va in the @levels-level tables at @root, with R/W
 * and NX as every level together grants them; 0 if none.
 */
static uint64_t walk(uint64_t root, unsigned levels, uint64_t va)
{
	uint64_t e = root | PTE_P | PTE_W, w = PTE_W, nx = 0;

	for (unsigned l = levels; l > 0; l--) {
		e = ((const uint64_t *)(uintptr_t)(e & ADDR_MASK))[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(e & PTE_P))
			return 0;
		w &= e;
		nx |= e & PTE_NX;
		if (l == 1 || ((e & PTE_PS) && l <= 3))
			return (e & ~PTE_W) | w | nx;
	}
	return 0;
}

/*
 * NULL when the firmware's state allows entering 5-level paging with a PML5
 * over its own PML4, else the reason.
 */
static const char *la57_unfit(const struct snap *fw)
{
	uint64_t code, data;

	if (!cpu_has(7, 2, 16))
		return " the CPU has no LA57 (CPUID.(EAX=7,ECX=0):ECX[16]=0)";
	if (fw->cr4 & CR4_LA57)
		return " the firmware runs 5-level paging already";
	if (fw->cr4 & (CR4_PCIDE | CR4_CET))
		return " the firmware runs with CR4.PCIDE or CR4.CET (the switch clears PCIDE, "
		       "shadow stacks would not follow its far returns)";
	if ((fw->cr3 & ADDR_MASK) >= BELOW_4G)
		return " the firmware's PML4 is above 4 GiB (it is loaded with paging off on the way back)";
	if (!tramp_pages || !pml5_page)
		return " no loader pages below 4 GiB for the trampoline and the PML5";
	code = walk(fw->cr3 & ADDR_MASK, 4, tramp_pages);
	data = walk(fw->cr3 & ADDR_MASK, 4, tramp_pages + LA57_DATA);
	if (!code || (code & PTE_NX) || !(data & PTE_W))
		return " the trampoline is not executable, or its data page not writable, in the "
		       "firmware's tables";
	return NULL;
}

/*
 * Into 5-level paging with the firmware's translations unchanged: PML5[0]
 * points at the firmware's live PML4 (so the firmware's later edits of its
 * tables stay visible) and, when the firmware maps anything in the upper
 * half, PML5[511] does too (0xffff8... keeps its translation).  U/S and R/W
 * set, NX clear: the entry restricts nothing.  Interrupts off.
 */
static void la57_enter(uint64_t fw_cr3)
{
	uint64_t *p5 = (uint64_t *)(uintptr_t)pml5_page;
	const uint64_t *p4 = (const uint64_t *)(uintptr_t)(fw_cr3 & ADDR_MASK);
	uint64_t e = (fw_cr3 & ADDR_MASK) | PTE_P | PTE_W | PTE_U;
	bool upper = false;

	ZeroMem(p5, PAGE);
	p5[0] = e;
	for (unsigned i = 256; i < 512; i++)
		upper |= (p4[i] & PTE_P) != 0;
	if (upper)
		p5[511] = e;
	la57_tramp_run(tramp_pages, read_cr4() | CR4_LA57, pml5_page, false, true);
}

/* Back to 4-level paging with the firmware's CR3.  Interrupts off. */
static void la57_leave(uint64_t fw_cr3)
{
	la57_tramp_run(tramp_pages, read_cr4() & ~(CR4_LA57 | CR4_PCIDE), fw_cr3 & ADDR_MASK,
		       false, true);
}

/*
 * The firmware edits its tables in 5-level paging: EFI_CPU_ARCH_PROTOCOL
 * (PI spec, DXE CPU architectural protocol; EDK2's CpuDxe reads CR4.LA57 to
 * walk them) makes one page of ours read-only, then writable again.  Read
 * through a software walk from CR3 (our PML5, over the firmware's PML4),
 * the page's leaf must follow, and our PML5 must be left as it was.
 */
#define EFI_MEMORY_RO_ATTR	UINT64_C(0x20000)

struct cpu_arch {
	void *flush_data_cache, *enable_interrupt, *disable_interrupt, *get_interrupt_state;
	void *init, *register_interrupt_handler, *get_timer_value;
	EFI_STATUS (EFIAPI *set_memory_attributes)(struct cpu_arch *self, EFI_PHYSICAL_ADDRESS base,
						   UINT64 length, UINT64 attributes);
	UINT32 number_of_timers;
	UINT32 dma_buffer_alignment;
};

static EFI_GUID cpu_arch_guid = { 0x26baccb1, 0x6f42, 0x11d4,
				  { 0xbc, 0xe7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
static EFI_PHYSICAL_ADDRESS edit_page;

/* Firmware calls at 5 levels that edit the firmware's tables; differences in diff[]. */
static void la57_firmware_edit(void)
{
	struct cpu_arch *cpu = NULL;
	const uint64_t *p5 = (const uint64_t *)(uintptr_t)pml5_page;
	uint64_t p5_0 = p5[0], p5_511 = p5[511], ro, rw;
	EFI_STATUS st;

	if (uefi_call_wrapper(BS->LocateProtocol, 3, &cpu_arch_guid, NULL, (void **)&cpu) !=
	    EFI_SUCCESS || !cpu || !edit_page) {
		differ("CPU-arch-protocol", 0, 1);
		return;
	}
	st = cpu->set_memory_attributes(cpu, edit_page, PAGE, EFI_MEMORY_RO_ATTR);
	differ("SetMemoryAttributes(RO)", st, EFI_SUCCESS);
	ro = walk(read_cr3() & ADDR_MASK, 5, edit_page);
	st = cpu->set_memory_attributes(cpu, edit_page, PAGE, 0);
	differ("SetMemoryAttributes(0)", st, EFI_SUCCESS);
	rw = walk(read_cr3() & ADDR_MASK, 5, edit_page);
	Print(L"chain: firmware edit at 5 levels: page 0x%lx leaf 0x%lx (RO), then 0x%lx\n",
	      edit_page, ro, rw);
	differ("RO-page-present", ro & PTE_P, PTE_P);
	differ("RO-page-writable", ro & PTE_W, 0);
	differ("RW-page-writable", rw & PTE_W, PTE_W);
	differ("PML5[0]", p5[0] & ~UINT64_C(0x20), p5_0 & ~UINT64_C(0x20));
	differ("PML5[511]", p5[511] & ~UINT64_C(0x20), p5_511 & ~UINT64_C(0x20));
	for (unsigned i = 1; i < 511; i++)
		if (p5[i])
			differ("PML5-entry-added", i, 0);
}

/* CET: CPUID.(EAX=7,ECX=0):ECX[7] (CET_SS) or EDX[20] (CET_IBT). */
static bool cpu_has_cet(void)
{
	return cpu_has(7, 2, 7) || cpu_has(7, 3, 20);
}

static void run_variant(const struct variant *v, EFI_DEVICE_PATH *ptlab_path)
{
	static CHAR16 cmdline[] = L"root=/dev/sda2 ro quiet console=ttyS0,115200";
	/* QEMU 7.2's known deviation listed, as every boot test lists it (docs/mmu.md) */
	static CHAR16 wrong[] = L"--end=return --iterations=300 --wrong-restore "
				L"--known-deviation=rsvd-p0";
	static CHAR16 levels4[] = L"--end=return --iterations=300 --levels=4 --known-deviation=rsvd-p0";
	struct snap base, want, got;
	struct desc_ptr fw_gdtr, gdtr;
	EFI_LOADED_IMAGE *li = NULL;
	EFI_HANDLE h = NULL;
	EFI_EVENT timer = NULL;
	EFI_STATUS st, run_st;
	uint64_t cr3 = 0, gdt_sum = 0, gdt_sum_after = 0, s_cet = 0, s_cet_seen = 0;
	uint16_t tss_sel = 0;
	bool ints;

	if ((v->flags & V_PCID) && !cpu_has(1, 2, 17)) {
		say("skip", v->name, " the CPU has no PCID (CPUID.1:ECX[17]); QEMU TCG does not emulate it");
		n_skip++;
		return;
	}
	if (v->flags & V_CET) {
		if (!cpu_has_cet()) {
			say("skip", v->name, " the CPU has no CET (CPUID.(EAX=7,ECX=0):ECX[7] CET_SS "
			    "and EDX[20] CET_IBT are 0); QEMU TCG does not emulate it");
			n_skip++;
			return;
		}
		if (!(read_cr0() & CR0_WP) || (read_cr4() & CR4_CET)) {
			say("skip", v->name, " the firmware runs with CR0.WP=0 or CR4.CET=1 already");
			n_skip++;
			return;
		}
	}
	if (v->flags & V_LA57) {
		struct snap fw;
		const char *no;

		snap_take(&fw);
		no = la57_unfit(&fw);
		if (no) {
			say("skip", v->name, no);
			n_skip++;
			return;
		}
	}
	st = uefi_call_wrapper(BS->LoadImage, 6, FALSE, self, ptlab_path, NULL, 0, &h);
	if (EFI_ERROR(st)) {
		say("not ok", v->name, " LoadImage failed");
		n_bad++;
		return;
	}
	uefi_call_wrapper(BS->HandleProtocol, 3, h, &LoadedImageProtocol, (void **)&li);
	if (li && (v->flags & V_CMDLINE)) {
		li->LoadOptions = cmdline;
		li->LoadOptionsSize = sizeof(cmdline);
	} else if (li && (v->flags & V_WRONG)) {
		li->LoadOptions = wrong;
		li->LoadOptionsSize = sizeof(wrong);
	} else if (li && (v->flags & V_LEVELS4)) {
		li->LoadOptions = levels4;
		li->LoadOptionsSize = sizeof(levels4);
	}
	if (v->flags & V_TIMER) {
		ticks = 0;
		uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK,
				  on_tick, NULL, &timer);
		if (timer)
			uefi_call_wrapper(BS->SetTimer, 3, timer, TimerPeriodic, 10000);
	}

	snap_take(&base);
	sgdt(&fw_gdtr);
	if (v->flags & (V_GDT_RO | V_TSS)) {
		/* the firmware's GDT in a page of its own, a TSS descriptor after it */
		uint8_t *g = (uint8_t *)(uintptr_t)gdt_page;

		ZeroMem(g, PAGE);
		CopyMem(g, (void *)(uintptr_t)fw_gdtr.base, fw_gdtr.limit + 1u);
		gdtr.base = gdt_page;
		gdtr.limit = fw_gdtr.limit;
		if (v->flags & V_TSS) {
			uint64_t *d = (uint64_t *)(uintptr_t)(gdt_page + ((fw_gdtr.limit + 16u) & ~15u));
			uint64_t b = tss_page;

			tss_sel = (uint16_t)((uint8_t *)d - g);
			ZeroMem((void *)(uintptr_t)tss_page, PAGE);
			((uint16_t *)(uintptr_t)tss_page)[51] = TSS_BYTES;	/* no I/O bitmap */
			d[0] = (TSS_BYTES - 1) | ((b & 0xffffff) << 16) | (UINT64_C(0x89) << 40) |
			       (((b >> 24) & 0xff) << 56);
			d[1] = b >> 32;
			gdtr.limit = (uint16_t)(tss_sel + 15);
		}
	}
	if (v->flags & (V_PGE | V_NXE_OFF | V_TABLES_1G | V_GDT_RO)) {
		cr3 = build_tables((v->flags & V_TABLES_1G) != 0, (v->flags & V_PGE) != 0,
				   (v->flags & V_GDT_RO) ? gdt_page : 0);
		if (!cr3) {
			say("not ok", v->name, " no memory for the page tables");
			n_bad++;
			uefi_call_wrapper(BS->UnloadImage, 1, h);
			return;
		}
	}
	if (v->flags & V_GDT_RO)
		for (unsigned i = 0; i <= gdtr.limit; i++)
			gdt_sum = gdt_sum * 131 + ((uint8_t *)(uintptr_t)gdt_page)[i];

	/* ---- the hostile state, then StartImage ---- */
	ints = cpu_irq_save();
	if (v->flags & V_LA57)
		la57_enter(base.cr3);
	if (v->flags & V_CET) {
		/*
		 * CR4.CET needs CR0.WP=1 (it is).  IA32_S_CET stays with every
		 * supervisor feature off: shadow stacks and ENDBR tracking need
		 * code built for them, the firmware's and ptlab's are not.
		 */
		s_cet = rdmsr(MSR_S_CET);
		wrmsr(MSR_S_CET, 0);
		write_cr4(read_cr4() | CR4_CET);
	}
	if (cr3) {
		write_cr4(read_cr4() & ~CR4_PGE);	/* flush every translation */
		write_cr3(cr3);
	}
	if (v->flags & V_PGE)
		write_cr4(read_cr4() | CR4_PGE);
	if (v->flags & V_PCID) {
		write_cr4(read_cr4() | CR4_PCIDE);	/* CR3[11:0] is 0 here */
		write_cr3(read_cr3() | 5);
	}
	if (v->flags & V_NXE_OFF)
		write_efer(read_efer() & ~EFER_NXE);
	if (v->flags & V_WP_OFF)
		write_cr0(read_cr0() & ~CR0_WP);
	if (v->flags & V_PAT)
		write_pat(UINT64_C(0x0007010600070106));	/* WT -> WC in entries 1 and 5 */
	if (v->flags & (V_GDT_RO | V_TSS))
		lgdt(&gdtr);
	if (v->flags & V_TSS)
		ltr(tss_sel);
	if (ints || (v->flags & V_TIMER))
		sti();

	snap_take(&want);
	Print(L"chain: run %a\n", v->name);
	run_st = uefi_call_wrapper(BS->StartImage, 3, h, NULL, NULL);
	snap_take(&got);
	if (v->flags & V_CET)
		s_cet_seen = rdmsr(MSR_S_CET);
	diff_len = 0;
	diff[0] = 0;
	if ((v->flags & V_LA57) && (got.cr4 & CR4_LA57))
		la57_firmware_edit();

	/* ---- judge, then back to where this variant started ---- */
	cli();
	if (v->flags & V_GDT_RO)
		for (unsigned i = 0; i <= gdtr.limit; i++)
			gdt_sum_after = gdt_sum_after * 131 + ((uint8_t *)(uintptr_t)gdt_page)[i];
	/*
	 * The one permitted difference: with no TSS of the firmware's own (no
	 * busy TSS descriptor at TR in its GDT) ptlab's TSS stays loaded.
	 */
	if (!cpu_gdt_has_busy_tss(&want.gdtr, want.tr) && got.tr && got.tr != want.tr &&
	    !cpu_gdt_has_busy_tss(&want.gdtr, got.tr))
		got.tr = want.tr;
	snap_compare(&got, &want);	/* after any difference found above */
	if ((v->flags & V_TSS) &&
	    (((uint8_t *)(uintptr_t)gdt_page)[tss_sel + 5] & 0x9f) != 0x8b)
		differ("TSS-descriptor-busy", 0, 1);
	if ((v->flags & V_GDT_RO) && gdt_sum_after != gdt_sum)
		differ("GDT-bytes", gdt_sum_after, gdt_sum);
	if ((v->flags & V_TIMER) && ticks == 0)
		differ("timer-ticks", 0, 1);
	if (!(v->flags & V_WRONG) && run_st != EFI_SUCCESS)
		differ("StartImage-status", run_st, EFI_SUCCESS);
	/* the state went in as meant (a failed switch would show here, not in ptlab) */
	if (v->flags & V_LA57)
		differ("CR4.LA57-before-StartImage", (want.cr4 & CR4_LA57) != 0, 1);
	if (v->flags & V_CET) {
		differ("CR4.CET-before-StartImage", (want.cr4 & CR4_CET) != 0, 1);
		differ("IA32_S_CET", s_cet_seen, 0);
	}

	if (v->flags & V_PCID) {
		write_cr3(read_cr3() & ~UINT64_C(0xfff));
		write_cr4(read_cr4() & ~CR4_PCIDE);
	}
	if (v->flags & V_CET) {
		write_cr4(read_cr4() & ~CR4_CET);
		wrmsr(MSR_S_CET, s_cet);
	}
	if ((v->flags & V_LA57) && (read_cr4() & CR4_LA57))
		la57_leave(base.cr3);
	write_cr0(base.cr0);
	write_pat(base.pat);
	write_efer(base.efer);		/* before the firmware's tables, which may hold NX bits */
	write_cr4(base.cr4 & ~CR4_PGE);
	write_cr3(base.cr3);
	write_cr4(base.cr4);
	lgdt(&base.gdtr);
	lidt(&base.idtr);
	if (base.rflags_if)
		sti();
	if (timer)
		uefi_call_wrapper(BS->CloseEvent, 1, timer);

	if (v->flags & V_WRONG) {
		/* the comparison must have caught the flipped CR0.WP, and nothing else */
		if (diff_len && got.cr0 == (want.cr0 ^ CR0_WP) && got.cr4 == want.cr4) {
			say("ok", v->name, " caught:");
			Print(L"chain:   %a\n", diff);
			n_ok++;
		} else {
			say("not ok", v->name, diff_len ? diff : " the wrong restore went unnoticed");
			n_bad++;
		}
	} else if (diff_len) {
		say("not ok", v->name, diff);
		n_bad++;
	} else {
		say("ok", v->name, "");
		n_ok++;
	}
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_DEVICE_PATH *path;

	InitializeLib(image, systab);
	self = image;
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol,
			      (void **)&self_li) != EFI_SUCCESS)
		return EFI_LOAD_ERROR;
	path = FileDevicePath(self_li->DeviceHandle, L"\\ptlab.efi");
	gdt_page = alloc_pages(1);
	tss_page = alloc_pages(1);
	tramp_pages = alloc_low(EfiLoaderCode, LA57_PAGES);
	pml5_page = alloc_low(EfiLoaderData, 1);
	edit_page = alloc_pages(1);
	if (tramp_pages)
		la57_tramp_init(tramp_pages);
	if (!path || !gdt_page || !tss_page || !cpu_has(0x80000001, 3, 26)) {
		Print(L"chain: cannot run (no device path, no memory, or no 1 GiB pages)\n");
		outl(DEBUG_EXIT, 0x12);
		return EFI_UNSUPPORTED;
	}
	Print(L"chain: %d variants\n", (int)(sizeof(variants) / sizeof(variants[0])));
	for (unsigned i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		run_variant(&variants[i], path);
	Print(L"chain: %d ok, %d not ok, %d skipped\n", n_ok, n_bad, n_skip);
	outl(DEBUG_EXIT, n_bad ? 0x11 : 0x10);
	return n_bad ? EFI_ABORTED : EFI_SUCCESS;
}
