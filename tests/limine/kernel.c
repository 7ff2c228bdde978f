// SPDX-License-Identifier: MIT
/*
 * A Limine-protocol test kernel: it asks for every feature an x86-64
 * loader can answer and checks, from inside, each answer against what the
 * protocol's specification (PROTOCOL.md of the Limine repository)
 * guarantees, with the CPU's own state and its own walk of CR3 as the
 * second opinion: the machine state at entry (registers, control
 * registers, EFER, RFLAGS, GDT and selectors, the stack), the page tables
 * (its own segments with exactly their permissions, the higher-half direct
 * map over the memory map's regions as the base revision says, the
 * caching types through the PAT), the memory map's rules, the modules'
 * contents (SHA-256 against the value on their command line), the
 * firmware tables (RSDP, SMBIOS, EFI system table and memory map, the
 * MADT against the CPU list) and every AP started through goto_address.
 *
 * Output: TAP on COM1 and port 0xE9, each line "kernel: ...", closed by
 * "kernel: N passed, M failed"; under a hypervisor the end is QEMU's
 * isa-debug-exit (0x20 all passed, 0x21 not).  Expectations the kernel
 * cannot know by itself come on its command line (the executable file's
 * cmdline): "modules=N" (modules the loader was given), "cpus=N" (QEMU's
 * -smp), "fb=0|1" (a framebuffer must be there); the host compares the
 * facts printed as "kernel: # ..." lines with what it passed.
 */
#include <stdbool.h>

#include "lib.h"
#include "proto.h"
#include "kernel.h"

static u8 imod_byte(u64 i)
{
	return (u8)(i * 31 + (i >> 8) + 7);
}

/* ---- the requests ---- */

#define REQ __attribute__((used, section(".limine_requests"), aligned(8)))

static volatile u64 start_marker[4]
	__attribute__((used, section(".limine_requests_start"), aligned(8))) = {
	LP_START0, LP_START1, LP_START2, LP_START3,
};
static volatile u64 end_marker[2]
	__attribute__((used, section(".limine_requests_end"), aligned(8))) = {
	LP_END0, LP_END1,
};

static volatile u64 base_revision[3] REQ = { LP_BASE_REV0, LP_BASE_REV1, BASE_REVISION };

static volatile struct lp_req req_info REQ = { LP_ID_BOOTLOADER_INFO, 0, NULL };
/*
 * From base revision 2 on the loader must honour the delimiters: with
 * DECOY (the static build), the firmware type request is put after the end
 * marker (still 8-byte aligned, found by a plain scan) as a decoy that
 * must stay unanswered; the PIE build asks for it between the markers.
 * For older revisions the markers are only hints.
 */
#if !defined(DECOY) || BASE_REVISION < 2
#undef DECOY
#define DECOY 0
#endif
#if DECOY
static volatile struct lp_req req_fwtype
	__attribute__((used, section(".data.decoy"), aligned(8))) = { LP_ID_FIRMWARE_TYPE, 0, NULL };
#else
static volatile struct lp_req req_fwtype REQ = { LP_ID_FIRMWARE_TYPE, 0, NULL };
#endif
static volatile struct lp_stack_size_req req_stack REQ = {
	{ LP_ID_STACK_SIZE, 0, NULL }, STACK_SIZE,
};
static volatile struct lp_req req_hhdm REQ = { LP_ID_HHDM, 0, NULL };
static volatile struct lp_req req_fb REQ = { LP_ID_FRAMEBUFFER, 1, NULL };
/* 5 levels preferred, 4 accepted (request revision 1: max and min) */
static volatile struct lp_paging_mode_req req_paging REQ = {
	{ LP_ID_PAGING_MODE, 1, NULL }, LP_PAGING_5LVL, LP_PAGING_5LVL, LP_PAGING_4LVL,
};
volatile struct lp_mp_req req_mp REQ = { { LP_ID_MP, 0, NULL }, 0 };
static volatile struct lp_req req_memmap REQ = { LP_ID_MEMMAP, 0, NULL };
void kentry_req(void);
static volatile struct lp_entry_point_req req_entry REQ = {
	{ LP_ID_ENTRY_POINT, 0, NULL }, kentry_req,
};
static volatile struct lp_req req_file REQ = { LP_ID_EXECUTABLE_FILE, 0, NULL };
static struct lp_internal_module imod = { "imod.bin", IMOD_CMDLINE, 0 };
static struct lp_internal_module *imods[1] = { &imod };
static volatile struct lp_module_req req_modules REQ = {
	{ LP_ID_MODULE, 1, NULL }, 1, imods,
};
volatile struct lp_req req_rsdp REQ = { LP_ID_RSDP, 0, NULL };
volatile struct lp_req req_smbios REQ = { LP_ID_SMBIOS, 0, NULL };
volatile struct lp_req req_efist REQ = { LP_ID_EFI_SYSTEM_TABLE, 0, NULL };
volatile struct lp_req req_efimm REQ = { LP_ID_EFI_MEMMAP, 0, NULL };
volatile struct lp_req req_time REQ = { LP_ID_BOOT_TIME, 0, NULL };
static volatile struct lp_req req_addr REQ = { LP_ID_EXECUTABLE_ADDRESS, 0, NULL };

/* ---- what the linker script and entry.S define ---- */

extern char __image_start[], __image_end[], __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[], __data_start[], __bss_start[], __bss_end[];
void kentry_elf(void);
extern char isr_stubs[];

/* registers at entry, as entry.S saved them */
struct trapframe {
	u64 vector, error, rip, cs, rflags, rsp, ss;
};

/* a bss array the loader must have zeroed (memsz beyond filesz) */
static volatile u8 bss_probe[8192];

u64 hhdm;
struct lp_memmap_entry **mm;
u64 mm_count;
static u64 pat_msr;
static const char *cmdline = "";

/* ---- interrupts ---- */

struct idt_gate {
	u16 off0, sel;
	u8 ist, attr;
	u16 off1;
	u32 off2, zero;
} __attribute__((packed));

static struct idt_gate idt[32];

struct dtr {
	u16 limit;
	u64 base;
} __attribute__((packed));

struct dtr idtr;

/* idt_load: point the IDT at the exception stubs; the gates use the
 * current CS, whatever the loader's GDT calls it */
static void idt_load(void)
{
	u16 cs = READ_SEG(cs);
	int v;

	for (v = 0; v < 32 && !idtr.base; v++) {
		u64 a = (u64)isr_stubs + 16 * (u64)v;

		idt[v] = (struct idt_gate){ (u16)a, cs, 0, 0x8e, (u16)(a >> 16), (u32)(a >> 32), 0 };
	}
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (u64)idt;
	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void trap(struct trapframe *t);

void trap(struct trapframe *t)
{
	u64 cr2 = READ_CR(2);

	check(0, "no unexpected exception: vector %llu at RIP=0x%llx CR2=0x%llx error=0x%llx RSP=0x%llx",
	      (unsigned long long)t->vector, (unsigned long long)t->rip, (unsigned long long)cr2,
	      (unsigned long long)t->error, (unsigned long long)t->rsp);
	finish();
}

/* ---- helpers over the memory map and the walk ---- */

const char *type_name(u64 t)
{
	static const char *const names[LP_MEM_TYPES] = {
		"usable", "reserved", "acpi-reclaimable", "acpi-nvs", "bad",
		"bootloader-reclaimable", "executable-and-modules", "framebuffer",
	};

	return t < LP_MEM_TYPES ? names[t] : "invalid";
}

/* covered: how many bytes of [pa, pa+len) memory map entries of a type in
 * mask cover (entries of one type never overlap for the types used here) */
static u64 covered(u64 pa, u64 len, unsigned mask)
{
	u64 i, n = 0;

	for (i = 0; i < mm_count; i++) {
		u64 b = mm[i]->base, e = b + mm[i]->length;
		u64 lo = b > pa ? b : pa, hi = e < pa + len ? e : pa + len;

		if (mm[i]->type < LP_MEM_TYPES && ((mask >> mm[i]->type) & 1) && hi > lo)
			n += hi - lo;
	}
	return n;
}

static int inside(u64 pa, u64 len, unsigned mask)
{
	return covered(pa, len, mask) >= len;
}

#define M(t) (1u << (t))

/* phys: the physical address va maps to, ~0 when unmapped */
u64 phys(const volatile void *va)
{
	struct xlate x;

	return walk((u64)va, &x) ? x.pa : ~0ULL;
}

/* in_reclaimable: every page of [va, va+len) is mapped onto memory the
 * memory map calls bootloader-reclaimable */
int in_reclaimable(const volatile void *va, u64 len)
{
	u64 p, end = (u64)va + (len ? len : 1);

	for (p = (u64)va & ~(PAGE - 1); p < end; p += PAGE) {
		u64 lo = p < (u64)va ? (u64)va : p, pa = phys((void *)lo);
		u64 n = (p + PAGE < end ? p + PAGE : end) - lo;

		if (pa == ~0ULL || !inside(pa, n, M(LP_MEM_BOOTLOADER_RECLAIMABLE)))
			return 0;
	}
	return 1;
}

static int readable_str(const char *s, size_t max)
{
	size_t n;

	if (!s || !mapped((u64)s, 1))
		return 0;
	for (n = 0; n < max; n++) {
		if (((u64)s + n) % PAGE == 0 && !mapped((u64)s + n, 1))
			return 0;
		if (!s[n])
			return 1;
	}
	return 0;
}

/* resp: the response of a request, NULL (with a failed test point) when
 * the loader left it out or it is not mapped */
void *resp(volatile struct lp_req *r, const char *name, u64 size)
{
	void *p = r->response;

	if (!check(p && mapped((u64)p, size), "%s: a response, mapped (%p)", name, p))
		return NULL;
	return p;
}

static int hexval(char c);

/* arg_u64: the number (decimal, or hex after 0x) after "NAME=" on the
 * kernel command line in *v; 0 when the line has no NAME= */
static int arg_u64(const char *name, u64 *v)
{
	const char *p = cmdline;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=') {
			p += n + 1;
			*v = 0;
			if (p[0] == '0' && p[1] == 'x')
				for (p += 2; hexval(*p) >= 0; p++)
					*v = *v * 16 + (u64)hexval(*p);
			else
				while (*p >= '0' && *p <= '9')
					*v = *v * 10 + (u64)(*p++ - '0');
			return 1;
		}
		p += n;
	}
	return 0;
}

/* arg: a small number NAME= on the command line, -1 if none */
long arg(const char *name)
{
	u64 v;

	return arg_u64(name, &v) ? (long)v : -1;
}

u64 lapic_id(void)
{
	u32 r[4];

	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		if (r[1])
			return r[3];
	}
	cpuid(1, 0, r);
	return r[1] >> 24;
}

/* ---- the entry state ---- */

static void check_entry(const struct frame *f, int how)
{
	u64 cr0 = READ_CR(0), cr4 = READ_CR(4), efer = rdmsr(MSR_EFER);
	u64 regs[15] = { f->rax, f->rbx, f->rcx, f->rdx, f->rsi, f->rdi, f->rbp, f->r8,
			 f->r9, f->r10, f->r11, f->r12, f->r13, f->r14, f->r15 };
	static const char *const names[15] = { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
	char bad[200] = "";
	size_t n = 0;
	u32 r[4];
	int i, nx;

	check(how == 2, "entered through the Entry Point request's address, not the ELF e_entry (%s)",
	      how == 2 ? "kentry_req" : "kentry_elf");
	for (i = 0; i < 15; i++)
		if (regs[i])
			n += (size_t)fmt(bad + n, sizeof(bad) - n, " %s=0x%llx", names[i],
					 (unsigned long long)regs[i]);
	check(n == 0, "every general register but RSP is 0 at entry%s", bad);
	check(!(f->rflags & (RFLAGS_IF | RFLAGS_DF | RFLAGS_VM)),
	      "RFLAGS IF, DF and VM clear at entry (0x%llx)", (unsigned long long)f->rflags);
	check((f->rsp + 8) % 16 == 0, "RSP+8 16-byte aligned at entry (RSP=0x%llx)",
	      (unsigned long long)f->rsp);
	check(mapped(f->rsp, 8) && *(volatile u64 *)f->rsp == 0,
	      "return address 0 on the stack at entry");
	check((cr0 & (CR0_PG | CR0_PE | CR0_WP)) == (CR0_PG | CR0_PE | CR0_WP),
	      "CR0 PG, PE and WP set (0x%llx)", (unsigned long long)cr0);
	check(cr4 & CR4_PAE, "CR4.PAE set (0x%llx)", (unsigned long long)cr4);
	cpuid(0x80000000u, 0, r);
	nx = 0;
	if (r[0] >= 0x80000001u) {
		cpuid(0x80000001u, 0, r);
		nx = (r[3] >> 20) & 1;
	}
	check((efer & (EFER_LME | EFER_LMA)) == (EFER_LME | EFER_LMA) &&
	      (!nx || (efer & EFER_NXE)),
	      "EFER LME and LMA set, NXE set as the CPU has NX=%d (0x%llx)", nx,
	      (unsigned long long)efer);
}

/* one GDT descriptor against the spec's layout */
static int desc_is(u64 d, u64 want_limit, int code, int bits)
{
	u64 base = ((d >> 16) & 0xffffff) | ((d >> 56) << 24);
	u64 limit = (d & 0xffff) | (((d >> 48) & 0xf) << 16);
	int type = (int)(d >> 40) & 15, s = (int)(d >> 44) & 1, dpl = (int)(d >> 45) & 3;
	int p = (int)(d >> 47) & 1, l = (int)(d >> 53) & 1, db = (int)(d >> 54) & 1;
	int g = (int)(d >> 55) & 1;

	if (g)
		limit = (limit << 12) | 0xfff;
	if (!p || !s || dpl || ((type >> 3) & 1) != code || !((type >> 1) & 1))
		return 0;
	if (bits == 64)
		return code ? (l && !db) : 1;
	return base == 0 && limit == want_limit && l == 0 && db == (bits == 32);
}

/* the GDT's place, judged once the memory map is known */
static u64 gdt_base, gdt_size;

static void check_gdt(void)
{
	struct dtr g;
	const volatile u64 *d;
	u16 cs = READ_SEG(cs), ds = READ_SEG(ds), es = READ_SEG(es), ss = READ_SEG(ss);
	u16 fs = READ_SEG(fs), gs = READ_SEG(gs);

	__asm__ volatile("sgdt %0" : "=m"(g));
	if (!check(g.limit >= 7 * 8 - 1 && mapped(g.base, 7 * 8),
		   "GDT at 0x%llx limit 0x%x holds 7 descriptors, mapped",
		   (unsigned long long)g.base, g.limit))
		return;
	d = (const volatile u64 *)g.base;
	check(d[0] == 0, "GDT[0] null (0x%llx)", (unsigned long long)d[0]);
	check(desc_is(d[1], 0xffff, 1, 16), "GDT[1] 16-bit code, base 0, limit 0xffff, readable (0x%llx)",
	      (unsigned long long)d[1]);
	check(desc_is(d[2], 0xffff, 0, 16), "GDT[2] 16-bit data, base 0, limit 0xffff, writable (0x%llx)",
	      (unsigned long long)d[2]);
	check(desc_is(d[3], 0xffffffff, 1, 32),
	      "GDT[3] 32-bit code, base 0, limit 0xffffffff, readable (0x%llx)", (unsigned long long)d[3]);
	check(desc_is(d[4], 0xffffffff, 0, 32),
	      "GDT[4] 32-bit data, base 0, limit 0xffffffff, writable (0x%llx)", (unsigned long long)d[4]);
	check(desc_is(d[5], 0, 1, 64), "GDT[5] 64-bit code, readable (0x%llx)", (unsigned long long)d[5]);
	check(desc_is(d[6], 0, 0, 64), "GDT[6] 64-bit data, writable (0x%llx)", (unsigned long long)d[6]);
	check(cs == 0x28, "CS is the 64-bit code descriptor 0x28 (0x%x)", cs);
	check(ds == 0x30 && es == 0x30 && ss == 0x30 && fs == 0x30 && gs == 0x30,
	      "DS ES SS FS GS are the 64-bit data descriptor 0x30 (0x%x 0x%x 0x%x 0x%x 0x%x)",
	      ds, es, ss, fs, gs);
	gdt_base = g.base;
	gdt_size = (u64)g.limit + 1;
}

/* ---- the memory map ---- */

static int check_memmap(void)
{
	struct lp_memmap_resp *r = resp(&req_memmap, "memory map", sizeof(*r));
	u64 i, j, bad_type = 0, unsorted = 0, unaligned = 0, overlap = 0, usable = 0;
	char what[160] = "";

	if (!r)
		return 0;
	if (!check(r->entry_count > 0 && r->entry_count < 4096 &&
		   mapped((u64)r->entries, r->entry_count * 8),
		   "memory map: %llu entries, array mapped", (unsigned long long)r->entry_count))
		return 0;
	for (i = 0; i < r->entry_count; i++)
		if (!mapped((u64)r->entries[i], sizeof(struct lp_memmap_entry)))
			return check(0, "memory map: entry %llu mapped", (unsigned long long)i);
	mm = r->entries;
	mm_count = r->entry_count;
	for (i = 0; i < mm_count; i++) {
		struct lp_memmap_entry *e = mm[i];

		say("# memmap: 0x%llx-0x%llx %s", (unsigned long long)e->base,
		    (unsigned long long)(e->base + e->length - 1), type_name(e->type));
		if (e->type >= LP_MEM_TYPES)
			bad_type++;
		if (i && e->base < mm[i - 1]->base)
			unsorted++;
		if (e->type == LP_MEM_USABLE)
			usable += e->length;
		if (e->type != LP_MEM_USABLE && e->type != LP_MEM_BOOTLOADER_RECLAIMABLE)
			continue;
		if ((e->base | e->length) % PAGE || !e->length)
			unaligned++;
		for (j = 0; j < mm_count; j++) {
			u64 b = mm[j]->base, end = b + mm[j]->length;

			if (j != i && b < e->base + e->length && e->base < end) {
				overlap++;
				fmt(what, sizeof(what), " (0x%llx+0x%llx %s and 0x%llx+0x%llx %s)",
				    (unsigned long long)e->base, (unsigned long long)e->length,
				    type_name(e->type), (unsigned long long)b,
				    (unsigned long long)mm[j]->length, type_name(mm[j]->type));
			}
		}
	}
	say("# memmap: usable=%llu bytes", (unsigned long long)usable);
	check(!bad_type, "memory map: every type one of the 8 (%llu not)", (unsigned long long)bad_type);
	check(!unsorted, "memory map: sorted by base (%llu out of order)", (unsigned long long)unsorted);
	check(!unaligned, "memory map: usable and bootloader-reclaimable entries 4 KiB aligned in base and length (%llu not)",
	      (unsigned long long)unaligned);
	check(!overlap, "memory map: usable and bootloader-reclaimable entries overlap no other%s", what);
	check(usable > 0, "memory map: some usable memory (%llu bytes)", (unsigned long long)usable);
	if (BASE_REVISION <= 2)
		check(!covered(0, PAGE, M(LP_MEM_USABLE)), "memory map: page 0 is not usable");
	return 1;
}

/* ---- paging mode, HHDM, caching ---- */

static const char *mem_type(u64 t)
{
	static const char *const n[8] = { "UC", "WC", "?2", "?3", "WT", "WP", "WB", "UC-" };

	return n[t & 7];
}

/* the memory type a PAT index selects with the PAT MSR */
static u64 pat_type(int idx)
{
	return (pat_msr >> (8 * idx)) & 7;
}

/* the framebuffers' physical ranges */
static u64 fb_lo[4], fb_hi[4];
static int fb_n;

static int fb_overlaps(u64 lo, u64 hi)
{
	int i;

	for (i = 0; i < fb_n; i++)
		if (lo < fb_hi[i] && fb_lo[i] < hi)
			return 1;
	return 0;
}

struct scan {
	u64 pages, bad, badx, badcache;
	char first[200], firstx[120], firstcache[200];
};

/* scan_map: physical [lo, hi) must be mapped at va_off + pa to pa,
 * supervisor, writable and executable (the spec's -rwx), WB except
 * framebuffer memory, which is WC */
static void scan_map(u64 lo, u64 hi, u64 va_off, struct scan *s)
{
	u64 pa = lo & ~(PAGE - 1);
	struct xlate x;

	while (pa < hi) {
		u64 va = va_off + pa, step, want, got, leaf_lo, leaf_hi;

		if (!walk(va, &x)) {
			if (!s->bad++)
				fmt(s->first, sizeof(s->first), "pa 0x%llx not mapped at 0x%llx",
				    (unsigned long long)pa, (unsigned long long)va);
			pa += PAGE;
			continue;
		}
		step = x.size - (va & (x.size - 1));
		if (step > hi - pa && hi - pa >= PAGE)
			step = (hi - pa + PAGE - 1) & ~(PAGE - 1);
		s->pages += (step + PAGE - 1) / PAGE;
		if (x.pa != pa || x.user || !x.writable) {
			if (!s->bad++)
				fmt(s->first, sizeof(s->first),
				    "va 0x%llx maps pa 0x%llx (want 0x%llx) user=%d writable=%d",
				    (unsigned long long)va, (unsigned long long)x.pa,
				    (unsigned long long)pa, x.user, x.writable);
		}
		if (x.nx && !s->badx++)
			fmt(s->firstx, sizeof(s->firstx), "va 0x%llx (pa 0x%llx) is no-execute",
			    (unsigned long long)va, (unsigned long long)x.pa);
		leaf_lo = x.pa - (va & (x.size - 1));
		leaf_hi = leaf_lo + x.size;
		got = pat_type(x.pat);
		want = fb_overlaps(leaf_lo, leaf_hi) ? 1 : 6;
		if (got != want && !(want == 6 && covered(leaf_lo, x.size, M(LP_MEM_FRAMEBUFFER)))) {
			if (!s->badcache++)
				fmt(s->firstcache, sizeof(s->firstcache),
				    "va 0x%llx (pa 0x%llx, %llu KiB leaf) PAT index %d = %s, want %s",
				    (unsigned long long)va, (unsigned long long)x.pa,
				    (unsigned long long)(x.size >> 10), x.pat, mem_type(got), mem_type(want));
		}
		pa += step;
	}
}

static void check_hhdm_map(void)
{
	struct scan below = { 0 }, above = { 0 }, ident = { 0 };
	u64 i, unmapped_bad = 0, reserved_checked = 0;
	char what[160] = "";
	struct xlate x;
	unsigned mapped_types;

	if (BASE_REVISION >= 3)
		mapped_types = M(LP_MEM_USABLE) | M(LP_MEM_BOOTLOADER_RECLAIMABLE) |
			       M(LP_MEM_EXECUTABLE_AND_MODULES) | M(LP_MEM_FRAMEBUFFER);
	else
		mapped_types = 0xffu & ~(BASE_REVISION >= 1 ? M(LP_MEM_RESERVED) | M(LP_MEM_BAD) : 0u);

	/* below 4 GiB: everything up to revision 2, the complying regions from 3 */
	if (BASE_REVISION <= 2) {
		scan_map(0, 4 * GIB, hhdm, &below);
	} else {
		for (i = 0; i < mm_count; i++)
			if (mm[i]->base < 4 * GIB && ((mapped_types >> mm[i]->type) & 1))
				scan_map(mm[i]->base, mm[i]->base + mm[i]->length, hhdm, &below);
	}
	check(!below.bad, "HHDM maps %s below 4 GiB at 0x%llx+pa, supervisor, writable (%llu pages, %llu leaves not)%s%s",
	      BASE_REVISION <= 2 ? "all memory" : "the complying regions", (unsigned long long)hhdm,
	      (unsigned long long)below.pages, (unsigned long long)below.bad, below.bad ? ": " : "", below.first);
	for (i = 0; i < mm_count; i++) {
		u64 b = mm[i]->base, e = b + mm[i]->length;

		if (e <= 4 * GIB || mm[i]->type >= LP_MEM_TYPES)
			continue;
		if (b < 4 * GIB)
			b = 4 * GIB;
		if ((mapped_types >> mm[i]->type) & 1) {
			scan_map(b, e, hhdm, &above);
			continue;
		}
		/* a region that must not be mapped: its first and last page,
		 * unless another region, mapped, shares the page */
		if (BASE_REVISION == 0)
			continue;
		{
			u64 pages[2] = { b & ~(PAGE - 1), (e - 1) & ~(PAGE - 1) };
			int k;

			for (k = 0; k < 2; k++) {
				if (covered(pages[k], PAGE, mapped_types))
					continue;
				reserved_checked++;
				if (walk(hhdm + pages[k], &x)) {
					unmapped_bad++;
					fmt(what, sizeof(what), ": %s pa 0x%llx is mapped",
					    type_name(mm[i]->type), (unsigned long long)pages[k]);
				}
			}
		}
	}
	check(!above.bad, "HHDM maps every %s region above 4 GiB, supervisor, writable (%llu pages, %llu leaves not)%s%s",
	      BASE_REVISION >= 3 ? "usable, reclaimable, executable/modules and framebuffer" :
	      BASE_REVISION >= 1 ? "non-reserved, non-bad" : "(base revision 0: any)", (unsigned long long)above.pages,
	      (unsigned long long)above.bad, above.bad ? ": " : "", above.first);
	if (BASE_REVISION >= 1)
		check(!unmapped_bad, "HHDM leaves reserved and bad memory above 4 GiB unmapped (%llu pages looked at)%s",
		      (unsigned long long)reserved_checked, what);
	check(!below.badx && !above.badx,
	      "HHDM mappings executable, as the spec's -rwx says (%llu pages not)%s%s%s%s",
	      (unsigned long long)(below.badx + above.badx), below.badx || above.badx ? ": " : "",
	      below.firstx, below.badx && above.badx ? "; " : "", above.firstx);
	check(!below.badcache && !above.badcache,
	      "HHDM caching: WB everywhere, WC on the framebuffer, through the PAT (%llu leaves not)%s%s%s%s",
	      (unsigned long long)(below.badcache + above.badcache),
	      below.badcache || above.badcache ? ": " : "", below.firstcache,
	      below.badcache && above.badcache ? "; " : "", above.firstcache);
	if (BASE_REVISION == 0) {
		scan_map(PAGE, 4 * GIB, 0, &ident);
		for (i = 0; i < mm_count; i++)
			if (mm[i]->base + mm[i]->length > 4 * GIB)
				scan_map(mm[i]->base < 4 * GIB ? 4 * GIB : mm[i]->base,
					 mm[i]->base + mm[i]->length, 0, &ident);
		check(!ident.bad, "base revision 0: identity map of 0x1000-4 GiB and every region, supervisor, writable (%llu pages)%s%s",
		      (unsigned long long)ident.pages, ident.bad ? ": " : "", ident.first);
		check(!ident.badx, "base revision 0: identity map executable, as the spec's -rwx says (%llu pages not)%s%s",
		      (unsigned long long)ident.badx, ident.badx ? ": " : "", ident.firstx);
		check(!ident.badcache, "base revision 0: identity map WB, the framebuffer WC, through the PAT (%llu leaves not)%s%s",
		      (unsigned long long)ident.badcache, ident.badcache ? ": " : "", ident.firstcache);
	} else {
		say("# identity map of 0x1000: %s (not required from base revision 1 on)",
		    walk(PAGE, &x) ? "present" : "absent");
	}
}

/* ---- the kernel's own image ---- */

struct ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct phdr {
	u32 type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
};

#define PT_LOAD 1
#define PF_X 1
#define PF_W 2
#define PF_R 4

static void check_image(struct lp_file *kf, struct lp_executable_address_resp *ka)
{
	const struct ehdr *eh = kf ? kf->address : NULL;
	const struct phdr *ph;
	u64 slide, min_va = ~0ULL, image = (u64)__image_start, entry_pa;
	int i, segs = 0;
	struct xlate x;

	if (ka) {
		entry_pa = phys(kentry_req);
		say("# executable address: physical_base=0x%llx virtual_base=0x%llx",
		    (unsigned long long)ka->physical_base, (unsigned long long)ka->virtual_base);
		check(ka->virtual_base == image,
		      "executable address: virtual_base is the image's start 0x%llx", (unsigned long long)image);
		check(ka->virtual_base >= KERNEL_FLOOR, "executable address: virtual base at or above 0xffffffff80000000");
		check(ka->physical_base % PAGE == 0 && phys(__image_start) == ka->physical_base,
		      "executable address: physical_base is what the image's start maps to (0x%llx)",
		      (unsigned long long)phys(__image_start));
		check(entry_pa == ka->physical_base + ((u64)kentry_req - ka->virtual_base),
		      "executable address: the entry symbol's walk (pa 0x%llx) agrees with the bases",
		      (unsigned long long)entry_pa);
		check(inside(ka->physical_base, (u64)(__image_end - __image_start),
			     M(LP_MEM_EXECUTABLE_AND_MODULES)),
		      "memory map: the image's physical range 0x%llx+0x%llx is executable-and-modules",
		      (unsigned long long)ka->physical_base, (unsigned long long)(__image_end - __image_start));
	}
	for (i = 0; i < (int)sizeof(bss_probe) && !bss_probe[i]; i++)
		;
	check(i == (int)sizeof(bss_probe), "bss zeroed by the loader");
	if (!eh || !mapped((u64)eh, sizeof(*eh)) ||
	    !check(!memcmp(eh->ident, "\177ELF", 4) && eh->machine == 62 && eh->phentsize == sizeof(*ph) &&
		   mapped((u64)eh + eh->phoff, (u64)eh->phnum * sizeof(*ph)),
		   "executable file: an x86-64 ELF with its program headers"))
		return;
	ph = (const struct phdr *)((const u8 *)eh + eh->phoff);
	for (i = 0; i < eh->phnum; i++)
		if (ph[i].type == PT_LOAD && ph[i].vaddr < min_va)
			min_va = ph[i].vaddr;
	slide = image - min_va;
	say("# image: linked at 0x%llx, runs at 0x%llx (slide 0x%llx)", (unsigned long long)min_va,
	    (unsigned long long)image, (unsigned long long)slide);
	check(eh->entry + slide == (u64)kentry_elf, "the file's e_entry is kentry_elf at its running address");
	for (i = 0; i < eh->phnum; i++) {
		const struct phdr *p = &ph[i];
		u64 va, bad = 0, pages = 0, want_w = !!(p->flags & PF_W), want_x = !!(p->flags & PF_X);
		char first[160] = "";

		if (p->type != PT_LOAD)
			continue;
		segs++;
		for (va = (p->vaddr + slide) & ~(PAGE - 1); va < p->vaddr + slide + p->memsz; va += PAGE) {
			int ok = walk(va, &x);

			pages++;
			if (ok && !x.user && x.writable == (int)want_w && x.nx == !want_x &&
			    pat_type(x.pat) == 6 &&
			    (!ka || x.pa == ka->physical_base + (va - ka->virtual_base)))
				continue;
			if (!bad++)
				fmt(first, sizeof(first),
				    ": va 0x%llx mapped=%d pa=0x%llx user=%d writable=%d nx=%d type=%s",
				    (unsigned long long)va, ok, (unsigned long long)x.pa, x.user,
				    x.writable, x.nx, mem_type(pat_type(x.pat)));
		}
		check(!bad, "segment %d (%c%c%c) at 0x%llx, %llu pages: mapped %s%s, supervisor, WB, contiguous%s",
		      i, p->flags & PF_R ? 'R' : '-', want_w ? 'W' : '-', want_x ? 'X' : '-',
		      (unsigned long long)(p->vaddr + slide), (unsigned long long)pages,
		      want_w ? "writable" : "read-only", want_x ? " executable" : " no-execute", first);
		if (!want_w)
			check(p->offset + p->filesz <= kf->size &&
			      !memcmp((const void *)(p->vaddr + slide), (const u8 *)eh + p->offset, p->filesz),
			      "segment %d: its %llu bytes in memory equal the file's", i,
			      (unsigned long long)p->filesz);
	}
	check(segs == 3, "executable file: 3 PT_LOAD segments (%d)", segs);
}

/* ---- modules ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* sha_of: parse "sha256=<64 hex>" out of s; 1 when found */
static int sha_of(const char *s, u8 out[32])
{
	const char *p = s ? strstr(s, "sha256=") : NULL;
	int i;

	if (!p)
		return 0;
	p += 7;
	for (i = 0; i < 64; i++)
		if (hexval(p[i]) < 0)
			return 0;
	for (i = 0; i < 32; i++)
		out[i] = (u8)(hexval(p[2 * i]) << 4 | hexval(p[2 * i + 1]));
	return 1;
}

static void file_facts(const char *what, struct lp_file *f)
{
	say("# %s: path=\"%s\" cmdline=\"%s\" size=%llu address=%p partition=%u media=%u", what,
	    f->path, f->cmdline, (unsigned long long)f->size, f->address, f->partition_index,
	    f->media_type);
}

static int file_ok(const char *what, struct lp_file *f)
{
	u64 pa;

	if (!check(mapped((u64)f, sizeof(*f)) && readable_str(f->path, 4096) &&
		   readable_str(f->cmdline, 4096) && mapped((u64)f->address, f->size),
		   "%s: file structure, path, cmdline and contents mapped", what))
		return 0;
	file_facts(what, f);
	pa = phys(f->address);
	check((u64)f->address % PAGE == 0 && (u64)f->address >= hhdm && pa == (u64)f->address - hhdm,
	      "%s: address 4 KiB aligned, in the HHDM", what);
	check(f->path[0] == '/', "%s: path with a leading slash", what);
	check(inside(pa, f->size ? f->size : 1, M(LP_MEM_EXECUTABLE_AND_MODULES)),
	      "%s: its memory (pa 0x%llx) is executable-and-modules in the memory map", what,
	      (unsigned long long)pa);
	return 1;
}

static void check_modules(void)
{
	struct lp_module_resp *r = req_modules.head.response;
	long want = arg("modules");
	u64 i, first = 0, internal = 0;
	char name[40];

	if (!r) {
		check(want == 0, "modules: no response, and the command line says modules=%ld", want);
		return;
	}
	if (!check(mapped((u64)r, sizeof(*r)) && mapped((u64)r->modules, r->module_count * 8),
		   "modules: response and array mapped"))
		return;
	say("# modules: count=%llu revision=%llu", (unsigned long long)r->module_count,
	    (unsigned long long)r->revision);
	if (r->revision >= 1) {
		struct lp_file *f = r->module_count ? r->modules[0] : NULL;
		int ok = f && file_ok("internal module", f);
		const u8 *b = ok ? f->address : NULL;

		internal = 1;
		first = 1;
		if (ok) {
			for (i = 0; i < f->size && b[i] == imod_byte(i); i++)
				;
			check(!strcmp(f->cmdline, IMOD_CMDLINE) && f->size == IMOD_SIZE && i == IMOD_SIZE &&
			      strstr(f->path, "/boot/imod.bin") &&
			      !strcmp(strstr(f->path, "/boot/imod.bin"), "/boot/imod.bin"),
			      "internal module: first in the list, /boot/imod.bin, its cmdline, %u bytes as made (size %llu, %llu bytes matched)",
			      IMOD_SIZE, (unsigned long long)f->size, (unsigned long long)i);
		}
	} else {
		say("# modules: response revision 0, internal modules not supported");
		for (i = 0; i < r->module_count; i++)
			if (mapped((u64)r->modules[i], sizeof(struct lp_file)) &&
			    readable_str(r->modules[i]->cmdline, 4096) &&
			    !strcmp(r->modules[i]->cmdline, IMOD_CMDLINE))
				internal++;
		check(!internal, "modules: revision 0 loads no internal module");
		internal = 0;
	}
	check(want < 0 || r->module_count == (u64)want + internal,
	      "modules: %llu, the command line's modules=%ld plus %llu internal",
	      (unsigned long long)r->module_count, want, (unsigned long long)internal);
	for (i = first; i < r->module_count; i++) {
		struct lp_file *f = r->modules[i];
		u8 want_sha[32], got[32];
		struct sha256 s;
		int j;

		fmt(name, sizeof(name), "module %llu", (unsigned long long)i);
		if (!file_ok(name, f))
			continue;
		if (!check(sha_of(f->cmdline, want_sha) || sha_of(f->path, want_sha),
			   "%s: its string carries sha256=<64 hex digits>", name))
			continue;
		sha256_init(&s);
		sha256_add(&s, f->address, f->size);
		sha256_end(&s, got);
		for (j = 0; j < 32 && got[j] == want_sha[j]; j++)
			;
		check(j == 32, "%s: SHA-256 of its %llu bytes equals the one on its string", name,
		      (unsigned long long)f->size);
	}
}

/* ---- framebuffer ---- */

static int mask_ok(u16 bpp, u8 rs, u8 rsh, u8 gs, u8 gsh, u8 bs, u8 bsh)
{
	u64 r = ((1ULL << rs) - 1) << rsh, g = ((1ULL << gs) - 1) << gsh, b = ((1ULL << bs) - 1) << bsh;

	return rs && gs && bs && rsh + rs <= bpp && gsh + gs <= bpp && bsh + bs <= bpp &&
	       !(r & g) && !(r & b) && !(g & b);
}

static void check_fb(void)
{
	struct lp_framebuffer_resp *r = req_fb.response;
	long want = arg("fb");
	u64 i, k;

	if (!r) {
		check(want != 1, "framebuffer: no response (the command line says fb=%ld)", want);
		return;
	}
	if (!check(mapped((u64)r, sizeof(*r)) && r->framebuffer_count >= 1 &&
		   r->framebuffer_count <= 4 && mapped((u64)r->framebuffers, r->framebuffer_count * 8),
		   "framebuffer: response with %llu framebuffers", (unsigned long long)r->framebuffer_count))
		return;
	for (i = 0; i < r->framebuffer_count; i++) {
		struct lp_framebuffer *f = r->framebuffers[i];
		u64 bytes, pa;
		volatile u32 *px;
		u32 saved;
		int modes_ok = 1, listed = 0;

		if (!check(mapped((u64)f, sizeof(*f)), "framebuffer %llu: structure mapped", (unsigned long long)i))
			continue;
		say("# framebuffer %llu: %llux%llu pitch=%llu bpp=%u model=%u r=%u@%u g=%u@%u b=%u@%u address=%p modes=%llu edid=%llu",
		    (unsigned long long)i, (unsigned long long)f->width, (unsigned long long)f->height,
		    (unsigned long long)f->pitch, f->bpp, f->memory_model, f->red_mask_size,
		    f->red_mask_shift, f->green_mask_size, f->green_mask_shift, f->blue_mask_size,
		    f->blue_mask_shift, f->address, (unsigned long long)(r->revision >= 1 ? f->mode_count : 0),
		    (unsigned long long)f->edid_size);
		bytes = f->pitch * f->height;
		pa = phys(f->address);
		check(f->width && f->height && f->bpp >= 8 && f->pitch >= f->width * ((f->bpp + 7) / 8u) &&
		      f->memory_model == LP_FB_RGB &&
		      mask_ok(f->bpp, f->red_mask_size, f->red_mask_shift, f->green_mask_size,
			      f->green_mask_shift, f->blue_mask_size, f->blue_mask_shift),
		      "framebuffer %llu: geometry, RGB model and masks consistent", (unsigned long long)i);
		if (!check(mapped((u64)f->address, bytes) && (u64)f->address >= hhdm && pa == (u64)f->address - hhdm,
			   "framebuffer %llu: all %llu bytes mapped in the HHDM", (unsigned long long)i,
			   (unsigned long long)bytes))
			continue;
		if (fb_n < 4) {
			fb_lo[fb_n] = pa;
			fb_hi[fb_n++] = pa + bytes;
		}
		{
			struct xlate x;

			walk((u64)f->address, &x);
			check(pat_type(x.pat) == 1, "framebuffer %llu: mapped WC (PAT index %d = %s)",
			      (unsigned long long)i, x.pat, mem_type(pat_type(x.pat)));
		}
		px = (volatile u32 *)((u8 *)f->address + (f->height / 2) * f->pitch + (f->width / 2) * 4);
		if (f->bpp == 32) {
			saved = *px;
			*px = 0x00a5c35a;
			check(*px == 0x00a5c35a, "framebuffer %llu: a pixel written reads back", (unsigned long long)i);
			*px = saved;
		}
		if (f->edid_size)
			check(mapped((u64)f->edid, f->edid_size) && f->edid_size >= 8 &&
			      !memcmp(f->edid, "\0\377\377\377\377\377\377\0", 8),
			      "framebuffer %llu: EDID with its header", (unsigned long long)i);
		if (r->revision < 1) {
			say("# framebuffer %llu: response revision 0, no mode list", (unsigned long long)i);
			continue;
		}
		if (!check(f->mode_count && f->mode_count < 4096 && mapped((u64)f->modes, f->mode_count * 8),
			   "framebuffer %llu: %llu video modes listed", (unsigned long long)i,
			   (unsigned long long)f->mode_count))
			continue;
		for (k = 0; k < f->mode_count; k++) {
			struct lp_video_mode *v = f->modes[k];

			if (!mapped((u64)v, sizeof(*v)) || !v->width || !v->height ||
			    v->pitch < v->width * ((v->bpp + 7) / 8u) || v->memory_model != LP_FB_RGB ||
			    !mask_ok(v->bpp, v->red_mask_size, v->red_mask_shift, v->green_mask_size,
				     v->green_mask_shift, v->blue_mask_size, v->blue_mask_shift)) {
				modes_ok = 0;
				continue;
			}
			if (v->width == f->width && v->height == f->height && v->bpp == f->bpp)
				listed = 1;
		}
		check(modes_ok, "framebuffer %llu: every mode with a sane geometry and RGB masks",
		      (unsigned long long)i);
		say("# framebuffer %llu: current mode %s the list", (unsigned long long)i,
		    listed ? "in" : "not in");
	}
}

/* ---- responses in reclaimable memory ---- */

static void check_placement(void)
{
	static volatile struct lp_req *const reqs[] = {
		&req_info, &req_fwtype, &req_stack.head, &req_hhdm, &req_fb, &req_paging.head,
		&req_mp.head, &req_memmap, &req_entry.head, &req_file, &req_modules.head, &req_rsdp,
		&req_smbios, &req_efist, &req_efimm, &req_time, &req_addr,
	};
	u64 i, n = 0, bad = 0, first = 0;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		void *p = reqs[i]->response;

		if (!p)
			continue;
		n++;
		if (!in_reclaimable(p, 16) && !bad++)
			first = i;
	}
	if (mm)
		check(!bad, "every response (%llu) in bootloader-reclaimable memory (%llu not, the first of request %llu)",
		      (unsigned long long)n, (unsigned long long)bad, (unsigned long long)first);
	if (!mm)
		return;
	bad = 0;
	for (i = 0; i < mm_count; i++)
		bad += !in_reclaimable(mm[i], sizeof(*mm[i]));
	check(in_reclaimable(mm, mm_count * 8) && !bad,
	      "memory map array and its %llu entries in bootloader-reclaimable memory (%llu not)",
	      (unsigned long long)mm_count, (unsigned long long)bad);
	{
		struct lp_bootloader_info *bi = req_info.response;
		struct lp_executable_file_resp *ef = req_file.response;
		struct lp_module_resp *mr = req_modules.head.response;
		struct lp_mp_resp *mp = req_mp.head.response;
		struct lp_framebuffer_resp *fr = req_fb.response;
		u64 k, n2 = 0;
		const char *what = "";

		bad = 0;
#define PLACED(p, len) do { \
		n2++; \
		if (!in_reclaimable((p), (len)) && !bad++) \
			what = #p; \
	} while (0)
		if (bi) {
			PLACED(bi->name, strlen(bi->name) + 1);
			PLACED(bi->version, strlen(bi->version) + 1);
		}
		if (ef && ef->executable_file) {
			PLACED(ef->executable_file, sizeof(struct lp_file));
			PLACED(ef->executable_file->path, strlen(ef->executable_file->path) + 1);
			PLACED(ef->executable_file->cmdline, strlen(ef->executable_file->cmdline) + 1);
		}
		if (mr && mr->module_count && mapped((u64)mr->modules, mr->module_count * 8)) {
			PLACED(mr->modules, mr->module_count * 8);
			for (k = 0; k < mr->module_count; k++)
				PLACED(mr->modules[k], sizeof(struct lp_file));
		}
		if (mp && cpus) {
			PLACED(mp->cpus, ncpus * 8);
			for (k = 0; k < ncpus; k++)
				PLACED(mp->cpus[k], sizeof(struct lp_mp_info));
		}
		if (fr && fb_n) {
			PLACED(fr->framebuffers, fr->framebuffer_count * 8);
			for (k = 0; k < fr->framebuffer_count; k++)
				PLACED(fr->framebuffers[k], sizeof(struct lp_framebuffer));
		}
#undef PLACED
		check(!bad, "the responses' structures, arrays and strings (%llu) in bootloader-reclaimable memory (%llu not%s%s)",
		      (unsigned long long)n2, (unsigned long long)bad, bad ? ", the first " : "", what);
	}
}

/* ---- the BSP ---- */

/*
 * The HHDM offset against the layout of the paging mode the CPU runs in
 * (CR4.LA57), not against anything the loader said: the offset the
 * reference loader uses for it (0xffff800000000000 at 4 levels,
 * 0xff00000000000000 at 5), at the start of that mode's higher half, and
 * [offset, offset + 2^MAXPHYADDR) - every physical address the CPU can
 * form, from CPUID 0x80000008 - canonical and below the kernel's window
 * at 0xffffffff80000000, so the direct map can hold all of it.
 */
static void check_hhdm_offset(u64 cr4)
{
	int five = (cr4 & CR4_LA57) != 0;
	u64 want = five ? HHDM_5LVL : HHDM_4LVL;
	u64 half = five ? 0xff00000000000000ULL : 0xffff800000000000ULL;
	unsigned maxphy = 36;
	u32 r[4];

	cpuid(0x80000000u, 0, r);
	if (r[0] >= 0x80000008u) {
		cpuid(0x80000008u, 0, r);
		maxphy = r[0] & 0xff;
	}
	check(hhdm == want, "HHDM offset 0x%llx is the reference loader's for %d levels (0x%llx)",
	      (unsigned long long)hhdm, five ? 5 : 4, (unsigned long long)want);
	check(hhdm >= half && maxphy <= 52 && hhdm + (1ULL << maxphy) > hhdm &&
	      hhdm + (1ULL << maxphy) <= KERNEL_FLOOR,
	      "HHDM [0x%llx, +2^%u) in the %d-level higher half (from 0x%llx) and below the "
	      "kernel's window 0x%llx", (unsigned long long)hhdm, maxphy, five ? 5 : 4,
	      (unsigned long long)half, (unsigned long long)KERNEL_FLOOR);
}

void kmain(struct frame *f, int how);

void kmain(struct frame *f, int how)
{
	u64 cr3 = READ_CR(3), cr4 = READ_CR(4), stack_top = f->rsp + 8;
	struct lp_hhdm *h;
	struct lp_bootloader_info *bi;
	struct lp_firmware_type *ft;
	struct lp_paging_mode_resp *pm;
	struct lp_executable_file_resp *ef;
	struct lp_executable_address_resp *ka;
	u32 r[4];
	int la57_cpu, pat_cpu;

	idt_load();
	say("# Limine protocol test kernel, %s build, base revision %d", VARIANT, BASE_REVISION);
	/* the walk reads the tables through the HHDM: nothing goes without it */
	h = req_hhdm.response;
	if (!h)
		die("HHDM: a response");
	hhdm = h->offset;
	walk_init(hhdm);
	check_entry(f, how);
	say("# hhdm: 0x%llx, CR3 0x%llx, CR4 0x%llx", (unsigned long long)hhdm, (unsigned long long)cr3,
	    (unsigned long long)cr4);
	check(hhdm >= (1ULL << 63) && hhdm % GIB == 0,
	      "HHDM offset 0x%llx in the higher half, 1 GiB aligned", (unsigned long long)hhdm);
	check(base_revision[2] == 0, "base revision %d supported: the tag's third word set to 0 (%llu)",
	      BASE_REVISION, (unsigned long long)base_revision[2]);
	check(base_revision[1] == LP_BASE_REV1 || base_revision[1] == BASE_REVISION,
	      "base revision tag's second word the magic or the revision used (0x%llx)",
	      (unsigned long long)base_revision[1]);
	check(start_marker[0] == LP_START0 && end_marker[1] == LP_END1, "request markers intact");

	cpuid(7, 0, r);
	la57_cpu = (r[2] >> 16) & 1;
	cpuid(1, 0, r);
	pat_cpu = (r[3] >> 16) & 1;
	pm = resp(&req_paging.head, "paging mode", sizeof(*pm));
	if (pm) {
		say("# paging mode: %llu, CPU LA57 %d", (unsigned long long)pm->mode, la57_cpu);
		check(pm->mode == (la57_cpu ? LP_PAGING_5LVL : LP_PAGING_4LVL),
		      "paging mode %llu: 5 levels exactly when the CPU has LA57 (asked for 5, min 4)",
		      (unsigned long long)pm->mode);
		check(!!(cr4 & CR4_LA57) == (pm->mode == LP_PAGING_5LVL), "CR4.LA57 agrees with the paging mode");
	}
	pat_msr = rdmsr(MSR_PAT);
	check(!pat_cpu || (pat_msr & 0xffffffffffffULL) == 0x010500070406ULL,
	      "PAT MSR 0x%llx: PA0-5 WB WT UC- UC WP WC", (unsigned long long)pat_msr);
	check_gdt();

	bi = resp(&req_info, "bootloader info", sizeof(*bi));
	if (bi && check(readable_str(bi->name, 256) && readable_str(bi->version, 256) && bi->name[0] &&
			bi->version[0], "bootloader info: name and version are strings"))
		say("# bootloader: name=\"%s\" version=\"%s\"", bi->name, bi->version);
	if (DECOY) {
		check(!req_fwtype.response,
		      "base revision %d: the firmware type request after the end marker got no response (%p)",
		      BASE_REVISION, req_fwtype.response);
	} else {
		ft = resp(&req_fwtype, "firmware type", sizeof(*ft));
		if (ft)
			check(ft->firmware_type == LP_FIRMWARE_UEFI64, "firmware type %llu is 64-bit UEFI",
			      (unsigned long long)ft->firmware_type);
	}
	check_a20();
	check(req_stack.head.response && mapped((u64)req_stack.head.response, 8), "stack size: a response");
	check(req_entry.head.response && mapped((u64)req_entry.head.response, 8), "entry point: a response");

	/* the memory map first: the placement checks below need it */
	if (!check_memmap())
		mm_count = 0;
	ef = resp(&req_file, "executable file", sizeof(*ef));
	if (ef && file_ok("executable file", ef->executable_file))
		cmdline = ef->executable_file->cmdline;
	say("# cmdline: %s", cmdline);
	check_hhdm_offset(cr4);
	if (gdt_size)
		check(in_reclaimable((void *)gdt_base, gdt_size), "GDT in bootloader-reclaimable memory (pa 0x%llx)",
		      (unsigned long long)phys((void *)gdt_base));

	if (mm) {
		check(in_reclaimable((void *)(stack_top - STACK_SIZE), STACK_SIZE),
		      "stack: the %llu KiB below RSP 0x%llx in bootloader-reclaimable memory",
		      (unsigned long long)(STACK_SIZE >> 10), (unsigned long long)f->rsp);
		{
			struct xlate x;
			int t, bad = 0;

			walk((u64)kmain, &x);
			for (t = 0; t < x.levels; t++)
				if (!inside(x.tables[t], PAGE, M(LP_MEM_BOOTLOADER_RECLAIMABLE)))
					bad++;
			check(!bad, "the %d page tables on the walk of kmain in bootloader-reclaimable memory (%d not)",
			      x.levels, bad);
		}
		check_fb();
		check_hhdm_map();
	}
	ka = resp(&req_addr, "executable address", sizeof(*ka));
	check_image(ef ? ef->executable_file : NULL, ka);
	check_modules();
	check_efi_st();
	check_rsdp();
	check_smbios();
	check_efi_memmap();
	check_boot_time();
	check_irqs();
	check_smp(cr3, cr4);
	check_placement();
	finish();
}
